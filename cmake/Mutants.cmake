# pp_add_mutants(): the planted bugs of one lab, called by pp_add_lab() (cmake/Labs.cmake)
# with PP_GRADE=all, in its scope (PP_CHECKS, PP_CHECK_BUILDS, PP_TECHNIQUE_VARIANTS).
#
#   pp_add_mutants(<lab> <file.cu> <solution> <grader> "<variants>" "<symbol check command>")
#
# A mutant meets every check of the gauntlet in one test, until one rejects it.
# tests/mutants/<lab>/ holds the mutants that must be rejected: <lab>.mutant.<name>.
# tests/mutants/uncaught/<lab>/ holds those that survived every check when measured on a
# GPU (bugs of memory order that no run showed): not tests of the check preset, but with
# -DPP_UNCAUGHT_MUTANTS=ON <lab>.uncaught.<name> (label uncaught), which
# tests/mutants/run.sh --uncaught builds and runs to measure them again.
# tests/mutants/fresh/<lab>/ holds mutants written after the checks, not yet measured:
# with -DPP_FRESH_MUTANTS=ON <lab>.fresh.<name> (label fresh; tests/mutants/run.sh --fresh).
# The symbol check, then each rung's technique, then the gauntlet's checks in order.
option(PP_UNCAUGHT_MUTANTS
       "With PP_GRADE=all, also register the mutants of tests/mutants/uncaught/ (no check caught them on a GPU)"
       OFF)
option(PP_FRESH_MUTANTS
       "With PP_GRADE=all, also register the mutants of tests/mutants/fresh/ (written after the checks, not yet measured)"
       OFF)

function(pp_add_mutants lab source solution grader variants symbol_check)
  list(LENGTH PP_CHECKS check_count)
  math(EXPR mutant_timeout "${PP_GPU_TEST_TIMEOUT} * ${check_count}")
  find_program(PP_PATCH patch REQUIRED)
  set(kinds mutant)
  foreach(kind IN ITEMS uncaught fresh)
    string(TOUPPER ${kind} upper)
    if(PP_${upper}_MUTANTS)
      list(APPEND kinds ${kind})
      if(NOT TARGET ${kind}-mutants)
        add_custom_target(${kind}-mutants)
        add_dependencies(${kind}-mutants pp-gauntlet pp-symcheck pp-technique)
      endif()
    endif()
  endforeach()
  foreach(kind IN LISTS kinds)
    set(folder ${PROJECT_SOURCE_DIR}/tests/mutants/${lab})
    set(built mutants)
    if(NOT kind STREQUAL "mutant")
      set(folder ${PROJECT_SOURCE_DIR}/tests/mutants/${kind}/${lab})
      set(built ${kind})
    endif()
    file(GLOB mutant_patches CONFIGURE_DEPENDS ${folder}/*.patch)
    foreach(patch_file IN LISTS mutant_patches)
      get_filename_component(mutant ${patch_file} NAME_WE)
      set(mutant_source ${CMAKE_CURRENT_BINARY_DIR}/${built}/${mutant}/${source})
      add_custom_command(
        OUTPUT ${mutant_source}
        COMMAND ${PP_PATCH} --quiet --fuzz=0 --output=${mutant_source} --input=${patch_file} ${solution}
        DEPENDS ${solution} ${patch_file}
        COMMENT "Planting ${kind} ${lab}/${mutant}")
      set(target ${lab}-${kind}-${mutant})
      add_executable(${target} ${mutant_source})
      pp_lab_file_target(${target})
      target_link_libraries(${target} PRIVATE ${grader})
      set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin/${built})
      pp_checked_runners(${target} ${mutant_source} ${grader})
      foreach(build IN LISTS PP_CHECK_BUILDS)
        add_dependencies(${target} ${target}-${build})
      endforeach()
      pp_gauntlet_arguments(gauntlet "${variants}" "$<TARGET_FILE:${target}-<build>>")
      # First, on the host, what grading reads from a student's object: the
      # symbol check, then each rung's technique (without cuobjdump these
      # skip, and a mutant that survives the rest is a skip, not a pass).
      set(technique_checks "")
      foreach(variant IN LISTS PP_TECHNIQUE_VARIANTS)
        list(APPEND technique_checks --check technique.${variant} --command $<TARGET_FILE:pp-technique>
             ${PP_TECHNIQUE_${variant}_ARGS} $<TARGET_OBJECTS:${target}>)
      endforeach()
      pp_gpu_test(${lab}.${kind}.${mutant} pp-gauntlet --mutant ${PP_SANITIZER_OPTION} --
                  $<TARGET_FILE:${target}> --check symbols --command ${symbol_check}
                  $<TARGET_OBJECTS:${target}> ${technique_checks} ${gauntlet})
      set_tests_properties(${lab}.${kind}.${mutant} PROPERTIES LABELS "${lab};gpu;${kind}"
                           TIMEOUT ${mutant_timeout})
      if(NOT kind STREQUAL "mutant")
        add_dependencies(${kind}-mutants ${target})
      endif()
    endforeach()
  endforeach()
endfunction()
