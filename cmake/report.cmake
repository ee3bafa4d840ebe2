# Runs every lab runner once at its default size and prints its table; the
# JSON goes to RESULTS/<lab>.json. A wrong variant shows in its table and
# does not stop the others. Usage:
#   cmake -DRESULTS=<dir> -DRUNNERS=<runner;runner...> -P report.cmake
foreach(runner IN LISTS RUNNERS)
  get_filename_component(lab ${runner} NAME)
  message(STATUS "== ${lab}")
  execute_process(COMMAND ${runner} --json ${RESULTS}/${lab}.json RESULT_VARIABLE status)
  if(status EQUAL 77)
    message(STATUS "${lab}: no CUDA device, nothing to report")
  elseif(NOT status EQUAL 0)
    message(STATUS "${lab}: exit code ${status}: some variants are wrong or missing (see above)")
  endif()
endforeach()
