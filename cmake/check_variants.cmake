# <lab>.variants (cmake -P): the lab file's table, as its runner lists it
# (--list, no GPU needed), names the variants of the lab's CMake call
# (VARIANTS), in order. A graded submission's checker builds its table from
# VARIANTS (cmake/Labs.cmake, pp_checker_table), so the two must agree.
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
message(STATUS "the table and VARIANTS agree: ${listed}")
