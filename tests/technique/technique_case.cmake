# One pp-technique case on a captured listing: runs it and fails unless it
# exits with EXPECT (0 shown, 1 not shown, 77 not checked), its verdict says
# so, and a line of its output matches REASON.
#   cmake -DTECHNIQUE=<pp-technique> -DLISTING=<file> -DRUNG=<variant> "-DCHECKS=<K=F>;<K=F>..."
#         -DEXPECT=0|1|77 -DREASON=<regex> -DWORK=<folder> -P technique_case.cmake
file(MAKE_DIRECTORY "${WORK}")
set(verdict "${WORK}/verdict")
file(REMOVE "${verdict}")
set(checks "")
foreach(check IN LISTS CHECKS)
  list(APPEND checks --facts "${check}")
endforeach()
execute_process(COMMAND "${TECHNIQUE}" --rung "${RUNG}" ${checks} --verdict "${verdict}" --listing "${LISTING}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
message("${out}${err}")
if(NOT status STREQUAL "${EXPECT}")
  message(FATAL_ERROR "pp-technique exited with ${status}, want ${EXPECT}")
endif()
if(NOT "${out}${err}" MATCHES "${REASON}")
  message(FATAL_ERROR "no line of pp-technique's output matches '${REASON}'")
endif()
if(EXPECT EQUAL 0)
  set(want pass)
elseif(EXPECT EQUAL 77)
  set(want skip)
else()
  set(want fail)
endif()
file(STRINGS "${verdict}" first LIMIT_COUNT 1)
if(NOT first STREQUAL "status ${want}")
  message(FATAL_ERROR "${verdict} begins '${first}', want 'status ${want}'")
endif()
