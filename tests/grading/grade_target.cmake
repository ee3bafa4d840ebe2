# The `grade` target runs the tests in parallel (cmake/grade.cmake): two
# made-up tests, each of which passes only once the other has started, pass
# side by side; with CTEST_PARALLEL_LEVEL=1, one at a time, the first fails;
# a CTEST_PARALLEL_LEVEL that is not a number is refused. Usage:
#   cmake -DSOURCE=<source dir> -DWORK=<scratch dir> -DCTEST=<ctest> -DGENERATOR=<generator>
#         -DMAKE_PROGRAM=<its make program> -P grade_target.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})

# wait.sh ME OTHER: marks ME started, then waits up to 10 s for OTHER.
file(WRITE ${WORK}/wait.sh [=[
touch "$1.started"
i=0
while [ ! -e "$2.started" ]; do
  i=$((i + 1))
  [ $i -le 100 ] || { echo "$2 did not start beside $1"; exit 1; }
  sleep 0.1
done
]=])
file(WRITE ${WORK}/suite/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(grade-target NONE)
enable_testing()
add_test(NAME a COMMAND sh ${WORK}/wait.sh ${WORK}/a ${WORK}/b)
add_test(NAME b COMMAND sh ${WORK}/wait.sh ${WORK}/b ${WORK}/a)
")
execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/suite -B ${WORK}/build -G ${GENERATOR}
                        -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
                OUTPUT_QUIET ERROR_VARIABLE error RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the made-up suite did not configure: ${error}")
endif()

# grade(LEVEL WANT_EXIT WANT_REGEX): runs grade.cmake with CTEST_PARALLEL_LEVEL
# set to LEVEL (unset where LEVEL is "unset").
function(grade level want_exit want_regex)
  file(REMOVE ${WORK}/a.started ${WORK}/b.started)
  if(level STREQUAL "unset")
    set(environment -E env --unset=CTEST_PARALLEL_LEVEL)
  else()
    set(environment -E env CTEST_PARALLEL_LEVEL=${level})
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} ${environment}
                          ${CMAKE_COMMAND} -DBUILD=${WORK}/build -DGRADE=solutions -DSOURCE=${SOURCE}
                          -DCTEST=${CTEST} -P ${SOURCE}/cmake/grade.cmake
                  OUTPUT_VARIABLE out ERROR_VARIABLE error RESULT_VARIABLE status)
  if(status EQUAL 0)
    set(got 0)
  else()
    set(got 1)
  endif()
  if(NOT got EQUAL want_exit OR NOT "${out}${error}" MATCHES "${want_regex}")
    message(FATAL_ERROR "CTEST_PARALLEL_LEVEL ${level}: grade exited ${status}, want ${want_exit}, "
                        "and should say '${want_regex}':\n${out}${error}")
  endif()
  message(STATUS "CTEST_PARALLEL_LEVEL ${level}: as expected")
endfunction()

# Unset, the level is the number of cores: on one core, one at a time.
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
if(cores GREATER 1)
  grade(unset 0 "Every test passes: 2 passed[.]")
else()
  grade(unset 1 "FAILED: 1 of 2 tests: a[.]")
endif()
grade(2 0 "Every test passes: 2 passed[.]")
grade(1 1 "FAILED: 1 of 2 tests: a[.]")
grade(lots 1 "CTEST_PARALLEL_LEVEL must be a whole number")
