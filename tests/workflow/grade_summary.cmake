# cmake/grade.cmake, on small made-up test suites run by the real ctest: each
# case configures a project of tests that pass (exit 0), fail (1), skip (77)
# or cannot start, labelled as the labs label theirs, grades it, and checks the
# exit code and the summary's last line. Usage:
#   cmake -DSOURCE=<source dir> -DWORK=<scratch dir> -DCTEST=<ctest> -DGENERATOR=<generator>
#         -DMAKE_PROGRAM=<its make program> -P grade_summary.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
set(problems "")

# One test line of a case: NAME OUTCOME LABELS, OUTCOME one of pass fail skip
# (prints what a runner prints without a GPU) sanitizer-missing (pp-expect
# --skip's message) not-built.
function(test_source out name outcome labels)
  if(outcome STREQUAL "pass")
    set(command "sh -c \"echo right\"")
  elseif(outcome STREQUAL "fail")
    set(command "sh -c \"echo 'FAIL at size 257'; exit 1\"")
  elseif(outcome STREQUAL "skip")
    set(command "sh -c \"echo 'no CUDA device (cudaErrorNoDevice): skipped'; exit 77\"")
  elseif(outcome STREQUAL "sanitizer-missing")
    set(command "sh -c \"echo 'compute-sanitizer not found: skipped'; exit 77\"")
  else()
    set(command "${WORK}/never-built")
  endif()
  set(${out} "add_test(NAME ${name} COMMAND ${command})
set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS \"${labels}\")
" PARENT_SCOPE)
endfunction()

# grade_case(CASE GRADE EXIT LAST_LINE OUTPUT_REGEX NAME OUTCOME LABELS...): the
# suite of tests NAME OUTCOME LABELS (labels comma-separated), graded with
# GRADE, must exit with EXIT (0 or 1), end with LAST_LINE and, unless
# OUTPUT_REGEX is "", print what it matches.
function(grade_case case grade want_exit want_last want_output)
  set(project "cmake_minimum_required(VERSION 3.25)\nproject(${case} NONE)\nenable_testing()\n")
  set(words ${ARGN})
  list(LENGTH words n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 3)
    math(EXPR j "${i} + 1")
    math(EXPR k "${i} + 2")
    list(GET words ${i} name)
    list(GET words ${j} outcome)
    list(GET words ${k} labels)
    string(REPLACE "," ";" labels "${labels}")
    test_source(line ${name} ${outcome} "${labels}")
    string(APPEND project "${line}")
  endforeach()
  set(dir ${WORK}/${case})
  file(WRITE ${dir}/CMakeLists.txt "${project}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G ${GENERATOR}
                          -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}
                  OUTPUT_QUIET ERROR_VARIABLE error RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${case}: the made-up suite did not configure: ${error}")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -DBUILD=${dir}/build -DGRADE=${grade} -DSOURCE=${SOURCE}
                          -DCTEST=${CTEST} -P ${SOURCE}/cmake/grade.cmake
                  OUTPUT_VARIABLE out ERROR_VARIABLE error RESULT_VARIABLE status)
  string(STRIP "${out}" stripped)
  string(REGEX REPLACE ".*\n" "" last_line "${stripped}")
  set(why "")
  if(status EQUAL 0)
    set(exit 0)
  else()
    set(exit 1)
  endif()
  if(NOT exit EQUAL want_exit)
    string(APPEND why "\n    exit code ${status}, want ${want_exit}")
  endif()
  if(NOT last_line STREQUAL want_last)
    string(APPEND why "\n    last line: ${last_line}\n         want: ${want_last}")
  endif()
  if(want_output AND NOT out MATCHES "${want_output}")
    string(APPEND why "\n    no line matches ${want_output}")
  endif()
  if(why)
    set(problems "${problems}\n  ${case}:${why}\n--- its output:\n${out}${error}---" PARENT_SCOPE)
  else()
    message(STATUS "${case}: ${last_line}")
  endif()
endfunction()

set(host harness.count pass harness,host cli.help pass cli,host)

# No GPU, every workflow: one line saying so, counted from what ran.
grade_case(no-gpu labs 0
  "No CUDA device: 5 GPU tests skipped, nothing was graded (host tests: 2 passed, 1 skipped: docs.doxygen)."
  ""
  ${host} docs.doxygen sanitizer-missing docs,host
  01-dot-product.v0-serial skip 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved skip 01-dot-product,gpu,grade
  01-dot-product.perf skip 01-dot-product,gpu,perf
  01-dot-product.sanitizer.memcheck sanitizer-missing 01-dot-product,gpu,sanitizer
  cli.size-beyond-device-memory skip cli,gpu)
grade_case(no-gpu-host-fails all 1
  "No CUDA device: 1 GPU tests skipped, nothing was graded (host tests: 1 passed, 1 FAILED: cli.list)."
  ""
  harness.count pass harness,host cli.list fail cli,host
  01-dot-product.mutant.missing-barrier skip 01-dot-product,gpu,mutant)

# No GPU, but cuobjdump: the technique tests ran; the student's failures are TODOs, an
# instructor's are failures.
grade_case(no-gpu-technique labs 0
  "No CUDA device: 1 GPU tests skipped, only the compiled code's technique was graded (technique: 1 passed, 1 FAILED: 01-dot-product.technique.v5-warp-shuffle; host tests: 2 passed)."
  ""
  ${host}
  01-dot-product.v1-interleaved skip 01-dot-product,gpu,grade
  01-dot-product.technique.v4-unrolled pass 01-dot-product,technique
  01-dot-product.technique.v5-warp-shuffle fail 01-dot-product,technique)
grade_case(no-gpu-technique-all all 1
  "No CUDA device: 1 GPU tests skipped, only the compiled code's technique was graded (technique: 0 passed, 1 FAILED: 01-dot-product.technique.v5-warp-shuffle; host tests: 2 passed)."
  ""
  ${host}
  01-dot-product.v1-interleaved skip 01-dot-product,gpu,grade
  01-dot-product.technique.v5-warp-shuffle fail 01-dot-product,technique)
# Without cuobjdump the technique tests skip, and the line is as without them.
grade_case(no-gpu-no-cuobjdump labs 0
  "No CUDA device: 1 GPU tests skipped, nothing was graded (host tests: 2 passed)."
  ""
  ${host}
  01-dot-product.v1-interleaved skip 01-dot-product,gpu,grade
  01-dot-product.technique.v5-warp-shuffle skip 01-dot-product,technique)

# The student's first run on a GPU: the given variant passes, the TODOs fail.
grade_case(skeleton labs 0
  "  cmake --build --preset student --target 01-dot-product && ctest --preset student -L 01-dot-product"
  "01-dot-product: v1-interleaved v2-kahan perf sanitizer.memcheck\n.*docs/labs/01-dot-product.md, write v1-interleaved in labs/01-dot-product/dot_product.cu, then run\n"
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved fail 01-dot-product,gpu,grade
  01-dot-product.v2-kahan fail 01-dot-product,gpu,grade
  01-dot-product.perf fail 01-dot-product,gpu,perf
  01-dot-product.sanitizer.memcheck fail 01-dot-product,gpu,sanitizer
  02-reduction.v0-interleaved pass 02-reduction,gpu,grade,given
  02-reduction.v1-divergent fail 02-reduction,gpu,grade)
# The same at the challenge level: the file of labs-challenge/, the challenge preset.
grade_case(challenge-skeleton challenge 0
  "  cmake --build --preset challenge --target 01-dot-product && ctest --preset challenge -L 01-dot-product"
  "01-dot-product: v1-interleaved\n.*docs/labs/01-dot-product.md, write v1-interleaved in labs-challenge/01-dot-product/dot_product.cu, then run\n"
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved fail 01-dot-product,gpu,grade)
# Only a technique test fails: the next step names it, not a variant to write.
grade_case(technique-fails labs 0
  "  cmake --build --preset student --target 01-dot-product && ctest --preset student -L 01-dot-product"
  "01-dot-product: technique.v5-warp-shuffle\n.*fix in labs/01-dot-product/dot_product.cu what 01-dot-product.technique.v5-warp-shuffle reports above"
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v5-warp-shuffle pass 01-dot-product,gpu,grade
  01-dot-product.technique.v5-warp-shuffle fail 01-dot-product,technique)
grade_case(perf-fails labs 0
  "  cmake --build --preset student --target 01-dot-product && ctest --preset student -L 01-dot-product"
  "fix in labs/01-dot-product/dot_product.cu what 01-dot-product.perf reports above"
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved pass 01-dot-product,gpu,grade
  01-dot-product.perf fail 01-dot-product,gpu,perf)
grade_case(all-done labs 0
  "Every test passes (4 passed): every TODO of every lab is done."
  ""
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved pass 01-dot-product,gpu,grade)
# A failure that is not the student's TODO: code given complete, or a host test.
grade_case(given-fails labs 1
  "FAILED, and not a TODO of yours: 01-dot-product.v0-serial. These test code you were given, or could not start: see their output above."
  ""
  ${host}
  01-dot-product.v0-serial fail 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved fail 01-dot-product,gpu,grade)
grade_case(not-built labs 1
  "FAILED, and not a TODO of yours: cli.help. These test code you were given, or could not start: see their output above."
  ""
  harness.count pass harness,host cli.help not-built cli,host
  01-dot-product.v1-interleaved fail 01-dot-product,gpu,grade)

# The instructors' workflows on a GPU: any failure fails them.
grade_case(solutions-pass solutions 0
  "Every test passes: 4 passed, 1 skipped: 01-dot-product.sanitizer.memcheck."
  ""
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.v1-interleaved pass 01-dot-product,gpu,grade
  01-dot-product.sanitizer.memcheck sanitizer-missing 01-dot-product,gpu,sanitizer)
grade_case(check-fails all 1
  "FAILED: 1 of 4 tests: 01-dot-product.mutant.missing-barrier."
  ""
  ${host}
  01-dot-product.v0-serial pass 01-dot-product,gpu,grade,given
  01-dot-product.mutant.missing-barrier fail 01-dot-product,gpu,mutant)

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
