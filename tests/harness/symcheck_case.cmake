# One pp-symcheck case: runs it on OBJECT and fails unless it exits with EXPECT
# (0 clean, 1 refused), its verdict file says so, and a line of its output
# matches REASON (so that a refusal is the one the sample plants).
#   cmake -DSYMCHECK=<pp-symcheck> [-DALLOW=<list>] [-DSECTIONS=<list>] -DCONTRACT=<header>
#         -DOBJECT=<file> -DEXPECT=0|1 -DREASON=<regex> -DWORK=<folder> [-DTRUNCATE=<bytes>]
#         -P symcheck_case.cmake
# ALLOW and SECTIONS are pp-symcheck's --allow and --sections (either or both).
# With TRUNCATE, it checks a copy of OBJECT cut to its first TRUNCATE bytes.
file(MAKE_DIRECTORY "${WORK}")
if(DEFINED TRUNCATE)
  get_filename_component(name "${OBJECT}" NAME)
  set(cut "${WORK}/${name}.first-${TRUNCATE}-bytes")
  execute_process(COMMAND head -c ${TRUNCATE} "${OBJECT}" OUTPUT_FILE "${cut}" RESULT_VARIABLE status)
  file(SIZE "${cut}" size)
  if(NOT status EQUAL 0 OR NOT size EQUAL TRUNCATE)
    message(FATAL_ERROR "cannot cut ${OBJECT} to ${TRUNCATE} bytes (got ${size})")
  endif()
  set(OBJECT "${cut}")
endif()
set(verdict "${WORK}/verdict")
file(REMOVE "${verdict}")
set(lists "")
if(ALLOW)
  list(APPEND lists --allow "${ALLOW}")
endif()
if(SECTIONS)
  list(APPEND lists --sections "${SECTIONS}")
endif()
execute_process(COMMAND "${SYMCHECK}" ${lists} --contract "${CONTRACT}" --verdict "${verdict}" "${OBJECT}"
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE status)
message("${out}${err}")
if(NOT status STREQUAL "${EXPECT}")
  message(FATAL_ERROR "pp-symcheck exited with ${status}, want ${EXPECT}")
endif()
if(NOT "${out}${err}" MATCHES "${REASON}")
  message(FATAL_ERROR "no line of pp-symcheck's output matches '${REASON}'")
endif()
set(want_status fail)
if(EXPECT EQUAL 0)
  set(want_status pass)
endif()
file(STRINGS "${verdict}" first LIMIT_COUNT 1)
if(NOT first STREQUAL "status ${want_status}")
  message(FATAL_ERROR "${verdict} begins '${first}', want 'status ${want_status}'")
endif()
