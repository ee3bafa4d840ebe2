# Host tests of pp-score (tools/score/), included from tests/grading/CMakeLists.txt.
# Every test runs this same file as a script (cmake -P, the branch below): pp-score
# on a fixture results folder, then a check of what it wrote or of how it refused.
#
# Fixtures (fixtures/): rubric.txt is a small rubric of two made-up labs, 01-saxpy
# and 02-sum; each <case>/results is what grading leaves for one submission and
# <case>/expected what pp-score must write for it (plus its warnings, stderr.txt).
# full-pass is graded with the real grading/rubric.txt instead: it must score full
# marks with no warning, which checks that rubric against the five labs' tests.
# After a deliberate change of the reports, rewrite expected/ with:
#   pp-score --rubric fixtures/rubric.txt --results fixtures/<case>/results \
#            --student <its student> --out fixtures/<case>/expected 2> fixtures/<case>/expected/stderr.txt
# and read the diff before committing it.

if(CMAKE_SCRIPT_MODE_FILE)
  # cmake -DSCORE=<pp-score> -DRUBRIC=<rubric> [-DCASE=<fixture> -DOUT=<dir>]
  #       [-DHEADER=<line> | -DFULL=ON | -DUNGRADED=ON | -DFAIL=<regex>] -P score.cmake
  set(command "${SCORE}" --rubric "${RUBRIC}")
  if(DEFINED HEADER)
    list(APPEND command --csv-header)
  elseif(DEFINED CASE)
    file(REMOVE_RECURSE "${OUT}")
    file(MAKE_DIRECTORY "${OUT}")
    set(student nobody)
    if(EXISTS "${CASE}/results/submission.txt")
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
      if(NOT short STREQUAL "" OR NOT stderr STREQUAL "" OR NOT row MATCHES "^${student},${score},${score},.*,graded\n$")
        message(FATAL_ERROR "expected full marks and no warning; got:${short}\n${stderr}row.csv: ${row}")
      endif()
      message(STATUS "${score} of ${score}, every test passed")
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

pp_score_test(full-pass ${rubric} -DCASE=${fixtures}/full-pass -DOUT=${out}/full-pass -DFULL=ON)
pp_score_test(csv-header ${rubric}
  "-DHEADER=student,score,max_score,01-dot-product,02-reduction,03-scan,04-hierarchical-scan,05-tiled-matmul,seed,status")
foreach(case IN ITEMS mixed not-built missing-lab symbols-fail bad-bytes)
  pp_score_test(${case} ${fixtures}/rubric.txt -DCASE=${fixtures}/${case} -DOUT=${out}/${case})
endforeach()
# What grading/grade leaves where no GPU is usable: reports that say ungraded.
pp_score_test(ungraded ${fixtures}/rubric.txt -DCASE=${fixtures}/ungraded -DOUT=${out}/ungraded -DUNGRADED=ON)

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
pp_score_test(rubric-sum ${fixtures}/bad-rubrics/sum.txt -DCASE=${fixtures}/mixed -DOUT=${out}/rubric-sum
  "-DFAIL=sum.txt:2: 01-saxpy is worth 55 points, but its tests in .* add up to 50")
pp_score_test(tests-tsv ${fixtures}/rubric.txt -DCASE=${fixtures}/bad-tsv -DOUT=${out}/tests-tsv
  "-DFAIL=tests.tsv:2: expected <test> TAB <status> TAB <seconds>")
pp_score_test(no-results ${fixtures}/rubric.txt -DCASE=${fixtures}/no-such-case -DOUT=${out}/no-results
  "-DFAIL=no-such-case/results/tests.tsv: No such file")
