# <lab>.variants (cmake -P): the lab file's table, as its runner lists it
# (--list, no GPU needed), names the variants of the lab's CMake call
# (VARIANTS), in order. A graded submission's checker builds its table from
# VARIANTS (cmake/Labs.cmake, pp_checker_table), so the two must agree. The
# listing also holds the lines that tools/sweep.sh and tools/counters.sh read
# (the runner refuses sizes of the grader's that are no sizes of the lab).
#   -DRUNNER=<bin/lab> -DVARIANTS=<a;b;c>
execute_process(COMMAND ${RUNNER} --list OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${RUNNER} --list exited ${status}")
endif()
string(REGEX MATCHALL "(^|\n)[0-9]+ +[^ \n]+" rows "${listing}")
set(listed "")
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\n?[0-9]+ +" "" name "${row}")
  list(APPEND listed ${name})
endforeach()
if(NOT listed STREQUAL VARIANTS)
  message(FATAL_ERROR "the file's table lists '${listed}', the lab's VARIANTS '${VARIANTS}': make them the same")
endif()
foreach(line IN ITEMS "sweep sizes: [^ \n]+( [^ \n]+)*" "sweep variants: [0-9]+(,[0-9]+)*" "profile size: [^ \n]+")
  if(NOT listing MATCHES "\n${line}\n")
    string(REGEX REPLACE ":.*" "" key "${line}")
    message(FATAL_ERROR "${RUNNER} --list has no '${key}: ...' line for the tools:\n${listing}")
  endif()
endforeach()
message(STATUS "the table and VARIANTS agree: ${listed}; the tools' lines are there")
