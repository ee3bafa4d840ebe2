# Every timing test (<lab>.perf) runs alone (RUN_SERIAL), so that `ctest -j`
# cannot put other work on the GPU or the CPU while it times: in this build,
# and in a build that grades a submission (grading/grade), configured here in
# WORK with the solutions as the submission. Usage:
#   cmake -DBUILD=<build dir> -DSOURCE=<source dir> -DWORK=<scratch dir> -DCTEST=<ctest>
#         -DGENERATOR=<generator> -DMAKE_PROGRAM=<its make program> -DLABS=<lab,lab...>
#         -P timed_tests.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" LABS "${LABS}")
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK}/build -G ${GENERATOR}
                        -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
                        -DPP_GRADE=submission -DPP_SUBMISSION=${SOURCE}/solutions
                        -DPP_RESULTS=${WORK}/results -DPP_GRADE_SEED=1 "-DPP_LABS=${LABS}"
                OUTPUT_VARIABLE log ERROR_VARIABLE log RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the submission build did not configure:\n${log}")
endif()

set(problems "")
foreach(build IN ITEMS ${BUILD} ${WORK}/build)
  execute_process(COMMAND ${CTEST} --test-dir ${build} --show-only=json-v1
                  OUTPUT_VARIABLE json RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ctest --show-only failed in ${build}")
  endif()
  string(JSON count LENGTH "${json}" tests)
  math(EXPR last "${count} - 1")
  set(timed 0)
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" tests ${i} name)
    if(NOT name MATCHES "[.]perf$")
      continue()
    endif()
    math(EXPR timed "${timed} + 1")
    set(serial OFF)
    string(JSON properties GET "${json}" tests ${i} properties)
    string(JSON n LENGTH "${properties}")
    math(EXPR last_property "${n} - 1")
    foreach(j RANGE ${last_property})
      string(JSON property GET "${properties}" ${j} name)
      if(property STREQUAL "RUN_SERIAL")
        string(JSON serial GET "${properties}" ${j} value)
      endif()
    endforeach()
    if(NOT serial)
      string(APPEND problems "\n  ${build}: ${name} is timed but may run beside other tests")
    endif()
  endforeach()
  if(timed EQUAL 0)
    string(APPEND problems "\n  ${build}: no timing test found")
  endif()
  message(STATUS "${build}: ${timed} timing tests")
endforeach()
if(problems)
  message(FATAL_ERROR "${problems}")
endif()
