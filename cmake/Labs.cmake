# pp_add_lab(): one call per lab, from tests/<lab>/CMakeLists.txt.
#
#   pp_add_lab(<lab> SOURCE <file.cu> GRADER <sources...> [LIBRARIES <libs...>]
#              VARIANTS <names...> GIVEN <names...>
#              PERF_SIZE <size> MIN_SPEEDUP <ratio> [LARGE_SIZE <size>])
#
# Builds bin/<lab> from labs/<lab>/<file.cu> (PP_GRADE=labs) or from
# solutions/<lab>/<file.cu> (solutions, all) linked with the lab's grader, and
# registers its tests:
#   <lab>.<variant>               the grader's sweep of sizes and seeds, per variant
#   <lab>.perf                    one timed run; the last variant must beat the first
#                                 by MIN_SPEEDUP (a generous ratio, never a time)
#   <lab>.sanitizer.<tool>        the quick sweep under compute-sanitizer
#   <lab>.large                   every variant at LARGE_SIZE, once (skipped where it does
#                                 not fit): a size too costly to repeat in every test
# pp_add_crosscheck() adds <lab>.crosscheck: the grader's GPU side against its CPU side.
# With PP_GRADE=all, also:
#   <lab>.skeleton.<variant>      the skeleton: GIVEN variants pass, the rest fail cleanly
#   <lab>.skeleton-drift          labs/ is what pp-skeleton makes of solutions/
#   <lab>.mutant.<name>           each tests/mutants/<lab>/<name>.patch is rejected
#
# With PP_GRADE=submission (grading/grade), instead: the student's file from
# PP_SUBMISSION/<lab>/ becomes bin/<lab>, the checker bin/<lab>-checker judges
# it from another process (common/include/pp/remote.h), and the tests are
# listed in grading-tests.txt for grading/grade (see pp_add_submission_lab).
#
# GPU tests exit 77 without a CUDA device, which CTest reports as skipped.

set(PP_GPU_TEST_TIMEOUT 900 CACHE STRING "Seconds before a GPU test is stopped")

function(pp_gpu_test name)
  add_test(NAME ${name} COMMAND ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${PP_GPU_TEST_TIMEOUT})
endfunction()

# <lab>.crosscheck: bin/<lab>-crosscheck, built from <source> (which includes
# the lab's grader.c) and the libraries after it, holds the grader's GPU
# generator, reference and comparison against its CPU ones. It tests the
# grader, not a student's code, so a submission's build leaves it out.
function(pp_add_crosscheck lab source)
  if(PP_GRADE STREQUAL "submission")
    return()
  endif()
  add_executable(${lab}-crosscheck ${source})
  target_include_directories(${lab}-crosscheck PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                             ${PROJECT_SOURCE_DIR}/tests/harness)
  target_link_libraries(${lab}-crosscheck PRIVATE pp ${ARGN})
  target_compile_options(${lab}-crosscheck PRIVATE -Wall -Wextra)
  pp_gpu_test(${lab}.crosscheck ${lab}-crosscheck)
  set_tests_properties(${lab}.crosscheck PROPERTIES LABELS "${lab};gpu;crosscheck")
endfunction()

function(pp_lab_runner target source grader)
  add_executable(${target} ${source})
  target_link_libraries(${target} PRIVATE ${grader})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  set_property(GLOBAL APPEND PROPERTY PP_RUNNERS ${target})
endfunction()

# One test of a submission: registered in CTest (label "submission") and
# listed in grading-tests.txt as "<lab> TAB <name> TAB <timeout> TAB <command>".
function(pp_submission_test lab name timeout)
  add_test(NAME ${name} COMMAND ${ARGN})
  set_tests_properties(${name} PROPERTIES LABELS "${lab};submission" SKIP_RETURN_CODE 77
                       TIMEOUT ${timeout})
  list(JOIN ARGN " " command)
  set_property(GLOBAL APPEND_STRING PROPERTY PP_GRADING_TESTS "${lab}\t${name}\t${timeout}\t${command}\n")
endfunction()

# PP_GRADE=submission: the student's runner, the instructor's checker, and the
# tests grading/grade runs. The checker is linked with the solution only to
# resolve the variant table; it launches nothing from it.
function(pp_add_submission_lab lab grader source perf_size)
  set(submitted ${PP_SUBMISSION}/${lab}/${source})
  if(NOT EXISTS ${submitted})
    message(STATUS "${lab}: no ${source} in the submission")
    return()
  endif()
  add_library(${lab}-student OBJECT ${submitted})
  target_link_libraries(${lab}-student PRIVATE ${grader})
  target_compile_options(${lab}-student PRIVATE -lineinfo)
  add_executable(${lab})
  target_link_libraries(${lab} PRIVATE ${lab}-student ${grader})
  pp_lab_runner(${lab}-checker ${PROJECT_SOURCE_DIR}/solutions/${lab}/${source} ${grader})
  add_custom_target(${lab}-grading)
  add_dependencies(${lab}-grading ${lab} ${lab}-checker pp-symcheck pp-expect pp-score)

  set(results ${PP_RESULTS})
  set(checker $<TARGET_FILE:${lab}-checker> --seed ${PP_GRADE_SEED})
  set(runner $<TARGET_FILE:${lab}>)
  pp_submission_test(${lab} ${lab}.symbols 120
    $<TARGET_FILE:pp-symcheck> --allow ${PROJECT_SOURCE_DIR}/grading/allowed-symbols.txt
    --verdict ${results}/${lab}.symbols.verdict $<TARGET_OBJECTS:${lab}-student>)
  foreach(variant IN LISTS ARGN)
    pp_submission_test(${lab} ${lab}.${variant} ${PP_GPU_TEST_TIMEOUT}
      ${checker} --grade --variant ${variant} --verdict ${results}/${lab}.${variant}.verdict -- ${runner})
  endforeach()
  pp_submission_test(${lab} ${lab}.perf ${PP_GPU_TEST_TIMEOUT}
    ${checker} --size ${perf_size} --verdict ${results}/${lab}.perf.verdict
    --json ${results}/${lab}.perf.json -- ${runner})
  foreach(tool racecheck synccheck memcheck)
    if(PP_COMPUTE_SANITIZER)
      pp_submission_test(${lab} ${lab}.sanitizer.${tool} ${PP_GPU_TEST_TIMEOUT}
        ${checker} --grade --quick --verdict ${results}/${lab}.sanitizer.${tool}.verdict
        -- ${PP_COMPUTE_SANITIZER} --tool ${tool} --error-exitcode 3 ${runner})
    else()
      pp_submission_test(${lab} ${lab}.sanitizer.${tool} 60
        $<TARGET_FILE:pp-expect> --skip "compute-sanitizer not found")
    endif()
  endforeach()
endfunction()

function(pp_add_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;PERF_SIZE;MIN_SPEEDUP;LARGE_SIZE"
                        "GRADER;LIBRARIES;VARIANTS;GIVEN")
  set(grader ${lab}-grader)
  add_library(${grader} OBJECT ${ARG_GRADER})
  target_include_directories(${grader} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${grader} PUBLIC pp ${ARG_LIBRARIES})

  if(PP_GRADE STREQUAL "submission")
    pp_add_submission_lab(${lab} ${grader} ${ARG_SOURCE} ${ARG_PERF_SIZE} ${ARG_VARIANTS})
    return()
  endif()

  set(solution ${PROJECT_SOURCE_DIR}/solutions/${lab}/${ARG_SOURCE})
  set(skeleton ${PROJECT_SOURCE_DIR}/labs/${lab}/${ARG_SOURCE})
  if(PP_GRADE STREQUAL "labs")
    pp_lab_runner(${lab} ${skeleton} ${grader})
  else()
    pp_lab_runner(${lab} ${solution} ${grader})
  endif()

  foreach(variant IN LISTS ARG_VARIANTS)
    pp_gpu_test(${lab}.${variant} ${lab} --grade --variant ${variant})
    set_tests_properties(${lab}.${variant} PROPERTIES LABELS "${lab};gpu;grade")
  endforeach()

  pp_gpu_test(${lab}.perf ${lab} --size ${ARG_PERF_SIZE} --min-speedup ${ARG_MIN_SPEEDUP}
              --json ${PROJECT_BINARY_DIR}/results/${lab}-perf.json)
  set_tests_properties(${lab}.perf PROPERTIES LABELS "${lab};gpu;perf" RUN_SERIAL ON)

  if(ARG_LARGE_SIZE)
    pp_gpu_test(${lab}.large ${lab} --grade --size ${ARG_LARGE_SIZE} --or-skip)
    set_tests_properties(${lab}.large PROPERTIES LABELS "${lab};gpu;grade" COST 1000)
  endif()

  foreach(tool racecheck synccheck memcheck)
    if(PP_COMPUTE_SANITIZER)
      pp_gpu_test(${lab}.sanitizer.${tool} sh -c
        "\"$0\" --probe && exec \"${PP_COMPUTE_SANITIZER}\" --tool ${tool} --error-exitcode 1 \"$0\" --grade --quick"
        $<TARGET_FILE:${lab}>)
    else()
      pp_gpu_test(${lab}.sanitizer.${tool} pp-expect --skip "compute-sanitizer not found")
    endif()
    set_tests_properties(${lab}.sanitizer.${tool} PROPERTIES LABELS "${lab};gpu;sanitizer")
  endforeach()

  if(NOT PP_GRADE STREQUAL "all")
    return()
  endif()

  pp_lab_runner(${lab}-skeleton ${skeleton} ${grader})
  foreach(variant IN LISTS ARG_VARIANTS)
    if(variant IN_LIST ARG_GIVEN)
      set(expected 0)
    else()
      set(expected 1)
    endif()
    pp_gpu_test(${lab}.skeleton.${variant} pp-expect ${expected} --
                $<TARGET_FILE:${lab}-skeleton> --grade --variant ${variant})
    set_tests_properties(${lab}.skeleton.${variant} PROPERTIES LABELS "${lab};gpu;skeleton")
  endforeach()

  add_test(NAME ${lab}.skeleton-drift COMMAND pp-skeleton ${solution} --check ${skeleton})
  set_tests_properties(${lab}.skeleton-drift PROPERTIES LABELS "${lab};host")
  add_custom_target(${lab}-write-skeleton COMMAND pp-skeleton ${solution} --write ${skeleton}
                    COMMENT "Writing ${skeleton} from the solution")
  add_dependencies(skeletons ${lab}-write-skeleton)

  find_program(PP_PATCH patch REQUIRED)
  file(GLOB mutant_patches CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/mutants/${lab}/*.patch)
  foreach(patch_file IN LISTS mutant_patches)
    get_filename_component(mutant ${patch_file} NAME_WE)
    set(mutant_source ${CMAKE_CURRENT_BINARY_DIR}/mutants/${mutant}/${ARG_SOURCE})
    add_custom_command(
      OUTPUT ${mutant_source}
      COMMAND ${PP_PATCH} --quiet --fuzz=0 --output=${mutant_source} --input=${patch_file} ${solution}
      DEPENDS ${solution} ${patch_file}
      COMMENT "Planting mutant ${lab}/${mutant}")
    set(target ${lab}-mutant-${mutant})
    add_executable(${target} ${mutant_source})
    target_link_libraries(${target} PRIVATE ${grader})
    set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin/mutants)
    pp_gpu_test(${lab}.mutant.${mutant} pp-expect 1 -- $<TARGET_FILE:${target}> --grade)
    set_tests_properties(${lab}.mutant.${mutant} PROPERTIES LABELS "${lab};gpu;mutant")
  endforeach()
endfunction()
