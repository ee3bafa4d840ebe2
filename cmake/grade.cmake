# The `grade` target, every workflow's last step: runs every test of the build
# (ctest), then ends the output with what that run means, computed from the
# run's JUnit file and the tests' labels (gpu: needs a GPU; given: a variant
# given complete in the skeleton; technique: a rung's technique read from its
# compiled code, a test of the student's variant that needs no GPU). The tests run in parallel, as many at once
# as CTEST_PARALLEL_LEVEL says, or else as there are cores (one after another,
# the check workflow's tests would take about 25 minutes on a GPU); the
# timing tests still run alone (RUN_SERIAL). Usage:
#   cmake -DBUILD=<build dir> -DGRADE=labs|challenge|solutions|all -DSOURCE=<source dir>
#         -DCTEST=<ctest> -P grade.cmake
#
# Exit code: with GRADE=solutions or all, 0 only when no test failed. With
# GRADE=labs or challenge (the student's workflows, presets student and
# challenge: the files of labs/ or of labs-challenge/), 0 also when the only
# failures are the labs' tests of the variants the student writes: unfinished
# TODOs are where every lab starts, not an error of the workflow. A failure of
# anything else (a variant given complete, a host test, a test that could not
# start) exits 1.
cmake_minimum_required(VERSION 3.25)

if(NOT GRADE MATCHES "^(labs|challenge|solutions|all)$")
  message(FATAL_ERROR "grade.cmake: GRADE must be labs, challenge, solutions or all (got '${GRADE}')")
endif()
# A student's workflow: where the student's files are, and the preset that grades them.
set(student_grade OFF)
if(GRADE STREQUAL "labs")
  set(student_grade ON)
  set(student_folder labs)
  set(student_preset student)
elseif(GRADE STREQUAL "challenge")
  set(student_grade ON)
  set(student_folder labs-challenge)
  set(student_preset challenge)
endif()

# The tests `ctest -N` lists in BUILD, in the order they were declared.
function(list_tests out)
  execute_process(COMMAND ${CTEST} --test-dir ${BUILD} -N ${ARGN}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ctest -N ${ARGN} failed in ${BUILD}:\n${listing}")
  endif()
  string(REGEX MATCHALL "Test +#[0-9]+: [^\n]+" lines "${listing}")
  list(TRANSFORM lines REPLACE "^Test +#[0-9]+: " "")
  set(${out} ${lines} PARENT_SCOPE)
endfunction()

if(DEFINED ENV{CTEST_PARALLEL_LEVEL} AND NOT "$ENV{CTEST_PARALLEL_LEVEL}" STREQUAL "")
  set(parallel "$ENV{CTEST_PARALLEL_LEVEL}")
  if(NOT parallel MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "grade: CTEST_PARALLEL_LEVEL must be a whole number of tests to run at once, "
                        "not '${parallel}'")
  endif()
else()
  cmake_host_system_information(RESULT parallel QUERY NUMBER_OF_LOGICAL_CORES)
endif()
set(junit_file ${BUILD}/Testing/grade.xml)
file(REMOVE ${junit_file})
execute_process(COMMAND ${CTEST} --test-dir ${BUILD} --output-on-failure --no-tests=error
                        --output-junit ${junit_file} --parallel ${parallel}
                RESULT_VARIABLE ctest_status)
if(NOT EXISTS ${junit_file})
  message(FATAL_ERROR "ctest exited with ${ctest_status} and wrote no results: nothing was graded")
endif()
# What the tests printed: CTest's own log, which CMake 3 and 4 write alike
# (their JUnit files differ there), read before `ctest -N` overwrites it.
set(test_log "")
if(EXISTS ${BUILD}/Testing/Temporary/LastTest.log)
  file(READ ${BUILD}/Testing/Temporary/LastTest.log test_log)
endif()
list_tests(tests)
list_tests(gpu_tests -L "^gpu$")
list_tests(given_tests -L "^given$")
list_tests(technique_tests -L "^technique$")

# Outcomes. CTest's JUnit marks both a skip (exit 77) and a test that could
# not start (its program missing) as "notrun"; only the first is a skip.
file(READ ${junit_file} junit)
string(REGEX MATCHALL "<testcase name=\"[^\"]*\"[^>]*status=\"[a-z]+\">[\t\r\n]*(<skipped message=\"[^\"]*\")?"
       cases "${junit}")
set(passed "")
set(skipped "")
set(failed "")
foreach(case IN LISTS cases)
  string(REGEX REPLACE "^<testcase name=\"([^\"]*)\".*" "\\1" name "${case}")
  if(case MATCHES "status=\"run\"")
    list(APPEND passed "${name}")
  elseif(case MATCHES "<skipped message=\"SKIP_")
    list(APPEND skipped "${name}")
  else()
    list(APPEND failed "${name}")
  endif()
endforeach()
if(cases STREQUAL "")
  message(FATAL_ERROR "no test ran: nothing was graded")
endif()
if(NOT ctest_status EQUAL 0 AND failed STREQUAL "")
  message(FATAL_ERROR "ctest exited with ${ctest_status} but no test failed: see its output above")
endif()

# Each outcome split by kind, in the order the tests were declared: GPU or
# host; and among failures, the student's (a lab's GPU test of a variant not
# given) or not.
foreach(list IN ITEMS gpu_ran gpu_skipped host_passed host_skipped host_failed technique_passed
                      technique_skipped technique_failed todo_failed other_failed)
  set(${list} "")
endforeach()
# sort_by_outcome(KIND NAME): appends test NAME to KIND_passed, KIND_skipped or
# KIND_failed, the first of passed, skipped and failed that holds it (none, for
# a test with no outcome).
function(sort_by_outcome kind name)
  foreach(outcome IN ITEMS passed skipped failed)
    if(name IN_LIST ${outcome})
      list(APPEND ${kind}_${outcome} ${name})
      set(${kind}_${outcome} "${${kind}_${outcome}}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()
foreach(name IN LISTS tests)
  if(name IN_LIST gpu_tests)
    if(name IN_LIST skipped)
      list(APPEND gpu_skipped ${name})
    else()
      list(APPEND gpu_ran ${name})
    endif()
  elseif(name IN_LIST technique_tests)
    sort_by_outcome(technique ${name})
  else()
    sort_by_outcome(host ${name})
  endif()
  if(name IN_LIST failed)
    if(name MATCHES "^[0-9][0-9]-" AND (name IN_LIST gpu_tests OR name IN_LIST technique_tests)
       AND NOT name IN_LIST given_tests)
      list(APPEND todo_failed ${name})
    else()
      list(APPEND other_failed ${name})
    endif()
  endif()
endforeach()

# One line of the summary, from its pieces, on stdout after ctest's own output
# (message() writes to stderr). ARGV<n> keeps the semicolons that ARGN splits on.
function(say)
  set(line "")
  if(ARGC GREATER 0)
    math(EXPR last "${ARGC} - 1")
    foreach(i RANGE ${last})
      string(APPEND line "${ARGV${i}}")
    endforeach()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${line}")
endfunction()

# "N passed", then ", N skipped: names" and ", N FAILED: names" where not zero.
function(tally out passed_list skipped_list failed_list)
  list(LENGTH ${passed_list} count)
  set(text "${count} passed")
  list(LENGTH ${skipped_list} count)
  if(count GREATER 0)
    list(JOIN ${skipped_list} ", " names)
    string(APPEND text ", ${count} skipped: ${names}")
  endif()
  list(LENGTH ${failed_list} count)
  if(count GREATER 0)
    list(JOIN ${failed_list} ", " names)
    string(APPEND text ", ${count} FAILED: ${names}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

list(LENGTH cases ran)
list(LENGTH failed failed_count)
list(LENGTH gpu_skipped gpu_skipped_count)
set(exit_code 1)
say("")
if(gpu_ran STREQUAL "" AND NOT gpu_skipped STREQUAL "")
  # No GPU test ran: say why, from what the skipped tests printed.
  if(test_log MATCHES "no CUDA device")
    set(why "No CUDA device")
  else()
    set(why "No GPU test ran")
  endif()
  tally(host host_passed host_skipped host_failed)
  if(technique_passed STREQUAL "" AND technique_failed STREQUAL "")
    say("${why}: ${gpu_skipped_count} GPU tests skipped, nothing was graded (host tests: ${host}).")
  else()
    # cuobjdump is here: the rungs' technique was read from their code.
    tally(technique technique_passed technique_skipped technique_failed)
    say("${why}: ${gpu_skipped_count} GPU tests skipped, only the compiled code's technique was graded "
        "(technique: ${technique}; host tests: ${host}).")
  endif()
  # The student's technique tests fail while their TODOs are not done.
  if(host_failed STREQUAL "" AND (student_grade OR technique_failed STREQUAL ""))
    set(exit_code 0)
  endif()
elseif(failed STREQUAL "")
  tally(all passed skipped failed)
  if(student_grade)
    say("Every test passes (${all}): every TODO of every lab is done.")
  else()
    say("Every test passes: ${all}.")
  endif()
  set(exit_code 0)
elseif(student_grade AND other_failed STREQUAL "")
  # Only the student's variants fail: say which, lab by lab, and where to start.
  set(labs "")
  foreach(name IN LISTS todo_failed)
    string(REGEX MATCH "^[^.]+" lab ${name})
    if(NOT lab IN_LIST labs)
      list(APPEND labs ${lab})
    endif()
    string(REPLACE "${lab}." "" what ${name})
    list(APPEND failing_${lab} ${what})
  endforeach()
  list(LENGTH passed passed_count)
  list(LENGTH skipped skipped_count)
  say("Graded: ${passed_count} passed, ${failed_count} failed, ${skipped_count} skipped. "
      "The ${failed_count} that fail grade the variants you write: their TODOs are not done (or "
      "not right) yet, which is where every lab starts.")
  foreach(lab IN LISTS labs)
    list(JOIN failing_${lab} " " names)
    say("  ${lab}: ${names}")
  endforeach()
  # Next: the first lab with a failure, its first failing variant if any.
  list(GET labs 0 lab)
  file(GLOB lab_file RELATIVE ${SOURCE} ${SOURCE}/${student_folder}/${lab}/*.cu)
  list(FILTER failing_${lab} EXCLUDE REGEX "^(perf|large|warps|sanitizer[.].*|technique[.].*|accuracy[.].*|faster[.].*)$")
  if(failing_${lab})
    list(GET failing_${lab} 0 variant)
    set(step "write ${variant} in ${lab_file}")
  else()
    list(GET todo_failed 0 name)
    set(step "fix in ${lab_file} what ${name} reports above")
  endif()
  say("Next: with the handout docs/labs/${lab}.md, ${step}, then run")
  say("  cmake --build --preset ${student_preset} --target ${lab} && ctest --preset ${student_preset} -L ${lab}")
  set(exit_code 0)
elseif(student_grade)
  list(JOIN other_failed ", " names)
  say("FAILED, and not a TODO of yours: ${names}. These test code you were given, or could not "
      "start: see their output above.")
else()
  list(JOIN failed ", " names)
  say("FAILED: ${failed_count} of ${ran} tests: ${names}.")
endif()
if(NOT exit_code EQUAL 0)
  message(FATAL_ERROR "grade: failed (see the line above)")
endif()
