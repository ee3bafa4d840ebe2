# The `report` target's command runs as its build tool runs it (/bin/sh -c) and
# times every lab: its list of runners must reach report.cmake whole. Run it
# with CUDA_VISIBLE_DEVICES=-1, so that each runner stops at once (no CUDA
# device) and the test times nothing, GPU or not. Usage:
#   cmake -DBUILD=<build dir> -DMAKE_PROGRAM=<ninja> -DLABS=<lab,lab...> -P report_command.cmake
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" LABS "${LABS}")
execute_process(COMMAND ${MAKE_PROGRAM} -C ${BUILD} -t commands report
                OUTPUT_VARIABLE commands RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ninja -t commands report failed (${status})")
endif()
# The last command is the target's own; the ones before build the runners.
string(STRIP "${commands}" commands)
string(REGEX REPLACE ".*\n" "" command "${commands}")
execute_process(COMMAND sh -c "${command}" OUTPUT_VARIABLE out ERROR_VARIABLE out
                RESULT_VARIABLE status)
message(STATUS "${command}\n${out}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "the report command exited with ${status}")
endif()
foreach(lab IN LISTS LABS)
  string(FIND "${out}" "-- ${lab}: no CUDA device, nothing to report" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the report did not run ${lab}")
  endif()
endforeach()
