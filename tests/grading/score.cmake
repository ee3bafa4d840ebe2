# Host tests of pp-score (grading/src/score/), included from tests/grading/CMakeLists.txt.
# Every test runs this same file as a script (cmake -P, the branch below): pp-score
# on a fixture results folder, then a check of what it wrote or of how it refused.
#
# Fixtures (fixtures/): rubric.txt is a small rubric of two made-up labs, 01-saxpy
# and 02-sum; each <case>/results is what grading leaves for one submission and
# <case>/expected what pp-score must write for it (plus its warnings, stderr.txt).
# full-pass is made here instead, from this build's own test list: every test
# that grading runs for the configured labs, passed, graded with the real
# grading/rubric.txt. It must score full marks with no warning, which checks that
# rubric against the labs' tests: a test it has no line for is refused.
# After a deliberate change of the reports, rewrite expected/ with:
#   pp-score --rubric fixtures/rubric.txt --results fixtures/<case>/results \
#            --student <its student> --out fixtures/<case>/expected 2> fixtures/<case>/expected/stderr.txt
# and read the diff before committing it.

if(CMAKE_SCRIPT_MODE_FILE)
  cmake_policy(VERSION 3.25) # a script starts with none: IN_LIST needs it
  # cmake -DSCORE=<pp-score> -DRUBRIC=<rubric> [-DCASE=<fixture> -DOUT=<dir> [-DSTUDENT=<id>]]
  #       [-DHEADER=<line> | -DUNGRADED=ON | -DFAIL=<regex> | -DSAME_AS=<fixture> |
  #        -DROW_STARTS=<text>] -P score.cmake
  # cmake -DSCORE=<pp-score> -DRUBRIC=<rubric> -DOUT=<dir> -DFULL=ON -DCTEST=<ctest>
  #       -DBUILD=<build folder> -P score.cmake
  if(FULL)
    # What grading/grade runs for a lab: the tests of the gauntlet's checks,
    # perf and the technique (labels grade, sanitizer, perf, technique:
    # cmake/Labs.cmake), and the lab's
    # build and symbol check. Each passed, perf at 1.4x the library peer.
    execute_process(COMMAND "${CTEST}" --test-dir "${BUILD}" -N -L "^(grade|sanitizer|perf|technique)$"
                    OUTPUT_VARIABLE listing RESULT_VARIABLE code)
    string(REGEX MATCHALL "Test +#[0-9]+: [^\n]+" listed "${listing}")
    if(NOT code EQUAL 0 OR listed STREQUAL "")
      message(FATAL_ERROR "ctest -N listed no graded test in ${BUILD} (exit ${code}):\n${listing}")
    endif()
    set(CASE "${OUT}.case")
    file(REMOVE_RECURSE "${CASE}")
    set(results "${CASE}/results")
    set(labs "")
    set(tsv "")
    foreach(line IN LISTS listed)
      string(REGEX REPLACE "^Test +#[0-9]+: " "" name "${line}")
      string(REGEX REPLACE "[.].*" "" lab "${name}")
      if(NOT lab IN_LIST labs)
        list(APPEND labs ${lab})
        string(APPEND tsv "${lab}.build\tpass\t41.5\n${lab}.symbols\tpass\t0.2\n")
        file(WRITE "${results}/${lab}.symbols.verdict" "status pass\n")
      endif()
      string(APPEND tsv "${name}\tpass\t3.5\n")
      set(verdict "status pass\nseed 424242\n")
      if(name MATCHES "[.]perf$")
        string(APPEND verdict "best the-last\nvs_peer 1.4000\nvs_first 9.5000\n")
      endif()
      file(WRITE "${results}/${name}.verdict" "${verdict}")
    endforeach()
    file(WRITE "${results}/tests.tsv" "${tsv}")
    file(WRITE "${results}/submission.txt" "student full-pass\nseed 424242\ntree 0123abcd\n")
  endif()
  set(command "${SCORE}" --rubric "${RUBRIC}")
  if(DEFINED HEADER)
    list(APPEND command --csv-header)
  elseif(DEFINED CASE)
    file(REMOVE_RECURSE "${OUT}")
    file(MAKE_DIRECTORY "${OUT}")
    set(student nobody)
    if(DEFINED STUDENT)
      set(student "${STUDENT}")
    elseif(EXISTS "${CASE}/results/submission.txt")
      file(STRINGS "${CASE}/results/submission.txt" student REGEX "^student ")
      string(REGEX REPLACE "^student " "" student "${student}")
    endif()
    list(APPEND command --results "${CASE}/results" --student "${student}" --out "${OUT}")
  endif()
  execute_process(COMMAND ${command} RESULT_VARIABLE code OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)

  if(DEFINED FAIL)
    if(NOT code EQUAL 2 OR NOT stderr MATCHES "${FAIL}")
      message(FATAL_ERROR "expected exit code 2 and a message matching '${FAIL}'; got ${code}: ${stderr}")
    endif()
    if(DEFINED OUT AND EXISTS "${OUT}/results.json")
      message(FATAL_ERROR "a refused submission still got ${OUT}/results.json")
    endif()
    message(STATUS "refused as expected: ${stderr}")
    return()
  endif()
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "pp-score exited with ${code}: ${stderr}")
  endif()
  if(DEFINED HEADER)
    if(NOT stdout STREQUAL "${HEADER}\n")
      message(FATAL_ERROR "CSV header:\n  got      ${stdout}  expected ${HEADER}")
    endif()
    return()
  endif()

  file(READ "${OUT}/results.json" json)
  file(READ "${OUT}/row.csv" row)
  if(DEFINED ROW_STARTS)
    # A student id that reads as a formula is written as text.
    string(FIND "${row}" "${ROW_STARTS}" at)
    if(NOT at EQUAL 0)
      message(FATAL_ERROR "row.csv must begin with ${ROW_STARTS}: ${row}")
    endif()
    message(STATUS "row.csv begins with ${ROW_STARTS}")
    return()
  endif()
  string(JSON count LENGTH "${json}" tests)
  math(EXPR last "${count} - 1")
  if(UNGRADED)
    # Not graded (no GPU): every report says so, and none carries a score that
    # reads as earned: no score in results.json, none in the CSV or the JUnit.
    file(READ "${OUT}/summary.txt" summary)
    file(READ "${OUT}/junit.xml" junit)
    set(scores "")
    string(JSON top ERROR_VARIABLE none GET "${json}" score)
    if(NOT none)
      string(APPEND scores "\n  results.json: score ${top}")
    endif()
    foreach(i RANGE ${last})
      string(JSON test_score ERROR_VARIABLE none GET "${json}" tests ${i} score)
      if(NOT none)
        string(APPEND scores "\n  results.json: tests[${i}].score ${test_score}")
      endif()
    endforeach()
    string(JSON status ERROR_VARIABLE none GET "${json}" extra_data status)
    if(NOT status STREQUAL "ungraded")
      string(APPEND scores "\n  results.json: extra_data.status is '${status}', not 'ungraded'")
    endif()
    if(NOT row MATCHES "^${student},,[0-9.]+,(,)+[^,]*,ungraded\n$")
      string(APPEND scores "\n  row.csv: ${row}")
    endif()
    if(NOT summary MATCHES "^${student}: UNGRADED" OR NOT summary MATCHES "\ntotal: ungraded")
      string(APPEND scores "\n  summary.txt does not say UNGRADED at its top and its total")
    endif()
    if(junit MATCHES "name=\"score\"" OR NOT junit MATCHES "name=\"status\" value=\"ungraded\"")
      string(APPEND scores "\n  junit.xml has a score property, or no status ungraded")
    endif()
    # One line per lab of the rubric between the overview and the total, each
    # "<lab>: ...": the tests' hints and logs are results.json's and junit.xml's.
    file(STRINGS "${RUBRIC}" rubric_labs REGEX "^lab ")
    string(REGEX REPLACE "^[^\n]*\n[^\n]*\n[^\n]*\n(ignored[^\n]*\n)?\n" "" body "${summary}")
    string(REGEX REPLACE "\n\ntotal: .*$" "" body "${body}")
    string(REGEX MATCHALL "\n" breaks "${body}")
    list(LENGTH breaks lines)
    math(EXPR lines "${lines} + 1")
    list(LENGTH rubric_labs labs_count)
    if(NOT lines EQUAL labs_count)
      string(APPEND scores "\n  summary.txt has ${lines} lines for ${labs_count} labs, not one a lab:\n${body}")
    endif()
    foreach(lab IN LISTS rubric_labs)
      string(REGEX REPLACE "^lab +([^ ]+).*" "\\1" lab "${lab}")
      if(NOT "\n${body}" MATCHES "\n${lab}: ")
        string(APPEND scores "\n  summary.txt has no line for ${lab}")
      endif()
    endforeach()
    if(NOT scores STREQUAL "")
      message(FATAL_ERROR "an ungraded submission's reports must say so and carry no score:${scores}")
    endif()
    set(result "ungraded")
  else()
    # Whatever the case: results.json parses, and its score and the tests' scores
    # add up as row.csv says.
    string(JSON score GET "${json}" score)
    set(sum 0)
    set(max 0)
    set(short "")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" tests ${i} name)
      string(JSON test_score GET "${json}" tests ${i} score)
      string(JSON test_max GET "${json}" tests ${i} max_score)
      string(JSON status GET "${json}" tests ${i} status)
      if(NOT test_score STREQUAL test_max OR NOT status STREQUAL "passed")
        string(APPEND short "\n  ${name}: ${test_score} of ${test_max}, ${status}")
      endif()
      if(NOT FULL) # math() needs whole numbers: the fixtures' points are, the real rubric's may not be
        math(EXPR sum "${sum} + ${test_score}")
        math(EXPR max "${max} + ${test_max}")
      endif()
    endforeach()
    if(FULL)
      # The configured labs' tests all earn full marks; a lab of the rubric that
      # this build did not configure shows as missing, and is not checked.
      set(short_of_labs "")
      foreach(lab IN LISTS labs)
        string(REGEX MATCHALL "\n  ${lab}[:.][^\n]*" lab_short "${short}") # the lab's tests, or its gated entry
        string(APPEND short_of_labs ${lab_short})
      endforeach()
      if(NOT short_of_labs STREQUAL "" OR NOT stderr STREQUAL "")
        message(FATAL_ERROR "expected full marks for ${labs} and no warning; got:${short_of_labs}\n${stderr}")
      endif()
      list(LENGTH labs count)
      message(STATUS "${count} labs at full marks, every graded test passed (${score} points)")
      return()
    endif()
    if(NOT score EQUAL sum OR NOT row MATCHES ",${score},${max},.*,graded\n$")
      message(FATAL_ERROR "score ${score}, but the tests' scores add up to ${sum} of ${max}; row.csv: ${row}")
    endif()
    set(result "${score} of ${max}")
  endif()
  file(WRITE "${OUT}/stderr.txt" "${stderr}")
  foreach(name results.json junit.xml row.csv summary.txt stderr.txt)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${CASE}/expected/${name}" "${OUT}/${name}"
                    RESULT_VARIABLE different)
    if(different)
      message(FATAL_ERROR "${OUT}/${name} differs from the expected one: "
                          "diff -u ${CASE}/expected/${name} ${OUT}/${name}")
    endif()
  endforeach()
  if(DEFINED SAME_AS)
    # The same submission graded with the same seed on another GPU: other
    # absolute times (tests.tsv's seconds, the timing logs), the same ratios
    # in the verdicts. Every report must be the same, JUnit's times aside.
    file(READ "${CASE}/results/tests.tsv" here)
    file(READ "${SAME_AS}/results/tests.tsv" there)
    if(here STREQUAL there)
      message(FATAL_ERROR "${SAME_AS}/results/tests.tsv has the same times as ${CASE}'s: the test shows nothing")
    endif()
    set(other "${OUT}.same-as")
    file(REMOVE_RECURSE "${other}")
    file(MAKE_DIRECTORY "${other}")
    execute_process(COMMAND "${SCORE}" --rubric "${RUBRIC}" --results "${SAME_AS}/results"
                            --student "${student}" --out "${other}"
                    RESULT_VARIABLE code OUTPUT_QUIET ERROR_VARIABLE other_stderr)
    if(NOT code EQUAL 0 OR NOT other_stderr STREQUAL stderr)
      message(FATAL_ERROR "${SAME_AS}: pp-score exited with ${code}: ${other_stderr}")
    endif()
    foreach(name results.json row.csv summary.txt junit.xml)
      file(READ "${OUT}/${name}" here)
      file(READ "${other}/${name}" there)
      string(REGEX REPLACE " time=\"[^\"]*\"" "" here "${here}")
      string(REGEX REPLACE " time=\"[^\"]*\"" "" there "${there}")
      if(NOT here STREQUAL there)
        message(FATAL_ERROR "${other}/${name} differs from ${OUT}/${name}: the same ratios on "
                            "another GPU must score the same: diff -u ${OUT}/${name} ${other}/${name}")
      endif()
    endforeach()
    string(APPEND result ", and the same on the other GPU")
  endif()
  message(STATUS "${result}: every report as expected")
  return()
endif()

set(fixtures ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(rubric ${PROJECT_SOURCE_DIR}/grading/rubric.txt)
set(out ${CMAKE_CURRENT_BINARY_DIR}/score)

# pp_score_test(<name> <rubric> [-D<variable>=<value>...]): one run of the script above.
function(pp_score_test name rubric)
  add_test(NAME grading.score.${name}
           COMMAND ${CMAKE_COMMAND} -DSCORE=$<TARGET_FILE:pp-score> -DRUBRIC=${rubric} ${ARGN}
                   -P ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  set_tests_properties(grading.score.${name} PROPERTIES LABELS "grading;host")
endfunction()

pp_score_test(full-pass ${rubric} -DOUT=${out}/full-pass -DFULL=ON -DCTEST=${CMAKE_CTEST_COMMAND}
              -DBUILD=${PROJECT_BINARY_DIR})
# The gradebook's header: a column per lab of the rubric, in its order (read again when it changes).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${rubric})
file(STRINGS ${rubric} rubric_labs REGEX "^lab ")
list(TRANSFORM rubric_labs REPLACE "^lab +([^ ]+).*" "\\1")
list(JOIN rubric_labs "," rubric_labs)
pp_score_test(csv-header ${rubric} "-DHEADER=student,score,max_score,${rubric_labs},seed,status")
foreach(case IN ITEMS mixed not-built missing-lab symbols-fail bad-bytes)
  pp_score_test(${case} ${fixtures}/rubric.txt -DCASE=${fixtures}/${case} -DOUT=${out}/${case})
endforeach()
# A technique test counts only with its rung (with-rung): not where the rung failed,
# nor where it exited 0 with a failing verdict, listed after the technique test.
pp_score_test(with-rung ${fixtures}/with-rung/rubric.txt -DCASE=${fixtures}/with-rung -DOUT=${out}/with-rung)
# Fair on any GPU: one submission graded with the same seed on an H100 and on
# an L4 (times several times longer, the same ratios to the library peer)
# scores the same, every report alike.
pp_score_test(same-ratios-any-gpu ${fixtures}/rubric.txt -DCASE=${fixtures}/gpu-h100
              -DOUT=${out}/gpu-h100 -DSAME_AS=${fixtures}/gpu-l4)
# What grading/grade leaves where no GPU is usable: reports that say ungraded.
# A student id a spreadsheet would run as a formula is written as text.
pp_score_test(formula-id ${fixtures}/rubric.txt -DCASE=${fixtures}/mixed -DOUT=${out}/formula-id
              "-DSTUDENT==HYPERLINK(\"http://x\",\"y\")" "-DROW_STARTS=\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",")
# An ungraded summary gives each lab one line: one that built, what was
# skipped; one missing or not compiled, why it scores 0 on any GPU.
pp_score_test(ungraded ${fixtures}/rubric.txt -DCASE=${fixtures}/ungraded -DOUT=${out}/ungraded -DUNGRADED=ON)
pp_score_test(ungraded-not-built ${fixtures}/rubric.txt -DCASE=${fixtures}/ungraded-not-built
              -DOUT=${out}/ungraded-not-built -DUNGRADED=ON)

# Bad input: exit code 2, and a message that says where.
pp_score_test(no-rubric ${fixtures}/no-such-rubric.txt -DCASE=${fixtures}/mixed -DOUT=${out}/no-rubric
  "-DFAIL=no-such-rubric.txt: No such file")
pp_score_test(rubric-points ${fixtures}/bad-rubrics/points.txt -DHEADER=
  "-DFAIL=points.txt:9: 'five' is not points")
pp_score_test(rubric-visibility ${fixtures}/bad-rubrics/visibility.txt -DHEADER=
  "-DFAIL=visibility.txt:7: 'secret' is not a visibility")
pp_score_test(rubric-tiers ${fixtures}/bad-rubrics/tiers.txt -DHEADER=
  "-DFAIL=tiers.txt:11: tiers must rise")
pp_score_test(rubric-shadowed ${fixtures}/bad-rubrics/shadowed.txt -DHEADER=
  "-DFAIL=shadowed.txt:9: never used: line 7")
pp_score_test(rubric-shadowed-bracket ${fixtures}/bad-rubrics/shadowed-bracket.txt -DHEADER=
  "-DFAIL=shadowed-bracket.txt:8: never used: line 7 \\(01-saxpy[.]v\\[0-9\\]\\*\\)")
# A graded test that no line matches: refused, named, nothing written.
pp_score_test(rubric-unmatched ${fixtures}/bad-rubrics/unmatched.txt -DCASE=${fixtures}/mixed
  -DOUT=${out}/rubric-unmatched
  "-DFAIL=unmatched.txt: no line matches 01-saxpy.large \\(.*/mixed/results/tests.tsv:10\\)")
pp_score_test(rubric-sum ${fixtures}/bad-rubrics/sum.txt -DCASE=${fixtures}/mixed -DOUT=${out}/rubric-sum
  "-DFAIL=sum.txt:2: 01-saxpy is worth 55 points, but its tests in .* add up to 50")
pp_score_test(tests-tsv ${fixtures}/rubric.txt -DCASE=${fixtures}/bad-tsv -DOUT=${out}/tests-tsv
  "-DFAIL=tests.tsv:2: expected <test> TAB <status> TAB <seconds>")
pp_score_test(no-results ${fixtures}/rubric.txt -DCASE=${fixtures}/no-such-case -DOUT=${out}/no-results
  "-DFAIL=no-such-case/results/tests.tsv: No such file")
