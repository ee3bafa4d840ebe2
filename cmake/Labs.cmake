# pp_add_lab(): one call per lab, from tests/<lab>/CMakeLists.txt.
#
#   pp_add_lab(<lab> SOURCE <file.cu> GRADER <sources...> [LIBRARIES <libs...>]
#              VARIANTS <names...> GIVEN <names...> [SMALL_SMEM <names...>]
#              [STRESS <names...> [STRESS_DATASET <dataset>]]
#              PERF_SIZE <size> MIN_SPEEDUP <ratio>
#              [LARGE_SIZES <sizes...> [LARGE_DATASET <dataset>]]
#              [TECHNIQUE "<variant> <kernel>[,<kernel>...] <fact>[,<fact>...]"...]
#              [ACCURACY <variants...> ACCURACY_DATASET <dataset>] [FASTER <variants...>]
#              [ARCH_SPECIFIC])
#
# TECHNIQUE: each rung's technique, as facts about its compiled kernels (one
# string per rung, or several for one rung whose kernels show different
# facts): the kernels by the names the skeleton gives them, the facts by the
# names of pp-technique's table (grading/src/technique.c: shuffle, load-128,
# cp-async, wgmma, no-local, tree-unrolled, ...). Each such variant gets a test
# <lab>.technique.<variant> (below).
#
# ACCURACY: the rungs whose technique is accuracy (lab 01's Kahan summation),
# each graded on ACCURACY_DATASET, a dataset only --dataset chooses, by the
# bound of compensated summation that the grader gives it (--accuracy): a
# rung that sums as plainly as the others is right everywhere else and fails
# this test alone. Each such variant gets a test <lab>.accuracy.<variant>.
#
# FASTER: the rungs that the handout's table shows faster than the rung before
# each in VARIANTS at PERF_SIZE, by well over PP_FASTER_BY on the GPUs measured
# (docs/results/): each gets a test <lab>.faster.<variant>, judged from the
# timed test's verdict (grading/faster), which fails a rung that is right but
# not PP_FASTER_BY times faster than the one before it.
#
# ARCH_SPECIFIC: the lab file uses instructions of one architecture only
# (Hopper's warpgroup instructions, wgmma and setmaxnreg, exist in sm_90a
# code, not in sm_90's): every target that compiles it (runner, skeletons, mutants, a
# graded submission's file, in the sandbox too) builds each 90 of
# CMAKE_CUDA_ARCHITECTURES (or CUDAARCHS) as 90a, 90-real and 90-virtual as
# 90a-real and 90a-virtual (pp_arch_specific below); every other lab and the
# graders keep the list as it is. A list of all, all-major or native is kept
# too, and then builds no sm_90a code.
#
# Builds bin/<lab> from labs/<lab>/<file.cu> (PP_GRADE=labs), from
# labs-challenge/<lab>/<file.cu> (challenge) or from solutions/<lab>/<file.cu>
# (solutions, all) linked with the lab's grader, and
# registers its tests, one per check of the gauntlet (pp_gauntlet below):
#   <lab>.<variant>               the grader's sweep of sizes and seeds, per variant
#   <lab>.small-smem.<variant>    (SMALL_SMEM variants: those whose launcher picks a
#                                 smaller configuration where shared memory is short)
#                                 the sweep with 64 KiB of shared memory per block
#   <lab>.warps                   the quick sweep of the file built with every warp
#                                 collective checked (pp/warp_collectives.h)
#   <lab>.sanitizer.<tool>        the quick sweep under compute-sanitizer
#   <lab>.large                   every variant at each of LARGE_SIZES, once (a size that
#                                 does not fit is skipped: "GPU too small"): sizes too costly
#                                 to repeat in every test, one past 2^32 elements in each
#                                 array whose index can pass it
#   <lab>.technique.<variant>     (TECHNIQUE variants) the facts, read from the lab file's
#                                 compiled object by pp-technique (cuobjdump -sass; in a
#                                 graded submission inside the sandbox): a rung that is right
#                                 without its technique fails this test alone; skipped
#                                 where there is no cuobjdump
#   <lab>.accuracy.<variant>      (ACCURACY variants) the sweep on ACCURACY_DATASET, judged by
#                                 the bound of compensated summation (--accuracy): fails,
#                                 saying so, where the rung is no more accurate than plain
#                                 summation
#   <lab>.faster.<variant>        (FASTER variants) after perf: the rung PP_FASTER_BY times
#                                 faster than the one before it in perf's times
#   <lab>.stress.<variant>        (STRESS variants: those whose blocks exchange results within
#                                 one launch, or whose passes must not overwrite what another
#                                 block still reads) many short runs beside an interfering
#                                 kernel, of the file built with its blocks' indices reversed
#                                 and some of its threads late
# and <lab>.perf: one timed run; the last variant must beat the first by
# MIN_SPEEDUP (a generous ratio, never a time).
# pp_add_crosscheck() adds <lab>.crosscheck: the grader's GPU side against its CPU side.
# With PP_GRADE=all, also:
#   <lab>.skeleton.<variant>      the skeleton: GIVEN variants pass, the rest fail cleanly
#   <lab>.challenge.<variant>     the same for the challenge level's file
#   <lab>.skeleton-drift          labs/ is what pp-skeleton makes of solutions/ (guided level)
#   <lab>.challenge-drift         labs-challenge/ is what it makes at the challenge level
#   <lab>.symbols                 the solution and both skeletons pass grading's symbol and section check
#   <lab>.mutant.<name>           each tests/mutants/<lab>/<name>.patch is rejected by a
#                                 check of the gauntlet, and the test says which
#
# With PP_GRADE=submission (grading/grade), instead: the student's file from
# PP_SUBMISSION/<lab>/ becomes bin/<lab>, the checker bin/<lab>-checker judges
# it from another process (common/include/pp/remote.h), and the tests, run by
# CTest through grading/run-test, are listed in grading-tests.txt for
# grading/grade (see pp_add_submission_lab).
#
# GPU tests exit 77 without a CUDA device, which CTest reports as skipped.

include(${CMAKE_CURRENT_LIST_DIR}/Mutants.cmake)

set(PP_GPU_TEST_TIMEOUT 900 CACHE STRING "Seconds before a GPU test is stopped")
# How much faster than the rung before it a FASTER rung must be: the rungs named
# gain 1.25x to 12x on an H100 and an H200; the timed test's medians move by a
# few percent between runs.
set(PP_FASTER_BY 1.10)

# The gauntlet: the checks a lab's file must pass, in the order pp-gauntlet
# (grading/src/gauntlet.c) runs them for a mutant, the broadest and cheapest first.
# A lab's tests, its mutant tests and a graded submission all take their
# checks from here, so that a planted bug counts as rejected only by a check
# that a student's ctest and grading/grade run too.
#   grade       the grader's sweep of sizes, seeds and datasets, each launch held to the
#               default stream that the contract names (common/src/launch_watch.c) (per variant)
#   small-smem  the same sweep with launchers told that a block gets at most 64 KiB of
#               shared memory (--max-shared-kib 64, a compute capability 7.5 GPU's
#               limit): the smaller configuration of SMALL_SMEM variants, graded on
#               every GPU rather than only where it is needed; every kernel launched
#               must fit the 64 KiB, static and dynamic shared memory together, checked
#               on the launch itself (CUPTI), as such a GPU would   (per variant)
#   warps       the quick sweep of the file built with every warp collective checked
#               (pp/warp_collectives.h, the runner <lab>-warps): a shuffle or vote that a
#               lane its mask names does not call stops the kernel (or leaves it waiting
#               past its 3 s limit). Its lanes read whatever the missing ones' registers
#               hold, so the results can come out right, and synccheck lets it through
#   memcheck    the quick sweep under compute-sanitizer memcheck, with buffers that end
#               where their allocations end (--no-guards), and 64 KiB of memcheck's
#               padding after each (--padding: a read past the end that lands in the next
#               allocation is seen too): a read past the end is an error even when its
#               value reaches no output
#   racecheck   the quick sweep under compute-sanitizer racecheck
#   synccheck   the quick sweep under compute-sanitizer synccheck
#   large       every variant at each of LARGE_SIZES (skipped where it does not fit), on
#               LARGE_DATASET only where given (an exact one: an index that wraps misses or
#               repeats elements, which exact data shows, and each dataset costs seconds)
#   stress      hundreds of short runs, small sizes and sizes of several waves of blocks, each
#               beside a kernel that keeps the GPU busy and its L2 thrashed, each checked
#               (--stress; docs/grading-trust.md, "Stress"): for bugs of order between the blocks
#               of one launch (memory order, a pass written in place), which an idle GPU
#               hides; only on STRESS_DATASET where given (an exact one). It runs the file
#               built with its blocks' indices reversed and some threads' reads of them
#               late (pp/reversed_blocks.h, the runner <lab>-reversed): a kernel that waits
#               on a block of lower index (a look-back keyed on blockIdx.x) is right only
#               because GPUs start blocks in index order; reversed, in a grid larger than
#               the GPU holds, it hangs, and its own spin limit or the launch's 3 s limit
#               (with a runner) catches it                                 (per variant)
#   accuracy    the sweep on ACCURACY_DATASET judged by the grader's bound of compensated
#               summation (--accuracy), one seed: last, as it catches only a rung that is
#               right but no more accurate than plain summation           (per variant)
# Sets in the caller's scope PP_CHECKS, the names in order, and for each check
# C: PP_CHECK_<C>_ARGS, the runner's arguments; PP_CHECK_<C>_TOOL,
# compute-sanitizer's tool or empty, and PP_CHECK_<C>_TOOL_ARGS, its options;
# PP_CHECK_<C>_VARIANTS, the variants of a check made per variant (empty: one
# run over every variant); PP_CHECK_<C>_BUILD, where the check runs the file
# built with a header force-included (pp_checked_build), that build's name; and
# PP_CHECK_BUILDS, the builds the checks need.
function(pp_gauntlet)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "STRESS_DATASET;LARGE_DATASET;ACCURACY_DATASET"
                        "VARIANTS;SMALL_SMEM;STRESS;LARGE_SIZES;ACCURACY")
  foreach(variant IN LISTS ARG_SMALL_SMEM ARG_STRESS ARG_ACCURACY)
    if(NOT variant IN_LIST ARG_VARIANTS)
      message(FATAL_ERROR "SMALL_SMEM, STRESS or ACCURACY names ${variant}, which is not among the VARIANTS")
    endif()
  endforeach()
  if((ARG_ACCURACY AND NOT ARG_ACCURACY_DATASET) OR (ARG_ACCURACY_DATASET AND NOT ARG_ACCURACY))
    message(FATAL_ERROR "ACCURACY and ACCURACY_DATASET go together")
  endif()
  if(ARG_STRESS_DATASET AND NOT ARG_STRESS)
    message(FATAL_ERROR "STRESS_DATASET ${ARG_STRESS_DATASET} without STRESS variants")
  endif()
  set(checks grade)
  # Two seeds for the listed sizes, not the driver's 3: the sizes drawn and
  # those at the launchers' boundaries (one case each) take the third's time.
  set(PP_CHECK_grade_ARGS --grade --seeds 2 PARENT_SCOPE)
  set(PP_CHECK_grade_VARIANTS ${ARG_VARIANTS} PARENT_SCOPE)
  if(ARG_SMALL_SMEM)
    list(APPEND checks small-smem)
    set(PP_CHECK_small-smem_ARGS --grade --seeds 2 --max-shared-kib 64 PARENT_SCOPE)
    set(PP_CHECK_small-smem_VARIANTS ${ARG_SMALL_SMEM} PARENT_SCOPE)
  endif()
  # A hang costs 3 s, not the default 10; the quick sizes take milliseconds.
  list(APPEND checks warps)
  set(PP_CHECK_warps_ARGS --grade --quick --timeout 3 PARENT_SCOPE)
  set(PP_CHECK_warps_BUILD warps PARENT_SCOPE)
  set(builds warps)
  foreach(tool memcheck racecheck synccheck)
    list(APPEND checks ${tool})
    set(PP_CHECK_${tool}_TOOL ${tool} PARENT_SCOPE)
    set(PP_CHECK_${tool}_ARGS --grade --quick PARENT_SCOPE)
  endforeach()
  set(PP_CHECK_memcheck_ARGS --grade --quick --no-guards PARENT_SCOPE)
  set(PP_CHECK_memcheck_TOOL_ARGS --padding 65536 PARENT_SCOPE)
  if(ARG_LARGE_SIZES)
    list(APPEND checks large)
    list(JOIN ARG_LARGE_SIZES "," sizes)
    # 60 s a launch with a runner (10 by default): one launch of lab 03's v0 in
    # sections of 1 (2^32 one-thread blocks) takes 3 s alone on an H100, and
    # past 10 s beside the other tests of a grading, which share the GPU.
    set(args --grade --size ${sizes} --or-skip --timeout 60)
    if(ARG_LARGE_DATASET)
      list(APPEND args --dataset ${ARG_LARGE_DATASET})
    endif()
    set(PP_CHECK_large_ARGS ${args} PARENT_SCOPE)
    # Up to 38 GiB: pp-gauntlet runs one large check at a time (--lock), so that under `ctest -j`
    # a lab's large test and the mutants' large checks never make each other skip for memory.
    set(PP_CHECK_large_LOCK ${PROJECT_BINARY_DIR}/gpu-memory-large.lock PARENT_SCOPE)
  endif()
  if(ARG_STRESS)
    list(APPEND checks stress)
    # 3 s a launch with a runner (10 by default): a reversed kernel that hangs
    # costs its test 3 s, not 10; a stress run takes milliseconds. At most 300
    # runs, not the driver's 1000: 15 variants are stressed in a grading that
    # must end within 120 s.
    set(args --stress --timeout 3 --stress-runs 300)
    if(ARG_STRESS_DATASET)
      list(APPEND args --dataset ${ARG_STRESS_DATASET})
    endif()
    set(PP_CHECK_stress_ARGS ${args} PARENT_SCOPE)
    set(PP_CHECK_stress_VARIANTS ${ARG_STRESS} PARENT_SCOPE)
    set(PP_CHECK_stress_BUILD reversed PARENT_SCOPE)
    list(APPEND builds reversed)
  endif()
  if(ARG_ACCURACY)
    list(APPEND checks accuracy)
    set(PP_CHECK_accuracy_ARGS --grade --seeds 1 --dataset ${ARG_ACCURACY_DATASET} --accuracy PARENT_SCOPE)
    set(PP_CHECK_accuracy_VARIANTS ${ARG_ACCURACY} PARENT_SCOPE)
  endif()
  set(PP_CHECKS ${checks} PARENT_SCOPE)
  set(PP_CHECK_BUILDS ${builds} PARENT_SCOPE)
endfunction()

# TECHNIQUE's entries (pp_add_lab) as pp-technique's arguments: sets in the
# caller's scope PP_TECHNIQUE_VARIANTS, the variants in the order of VARIANTS,
# and for each V PP_TECHNIQUE_<V>_ARGS, pp-technique's options for its rung:
# --rung V, its --facts NAME,...=FACT,... words and --cuobjdump (the object
# and any --verdict or --sandbox are the caller's).
function(pp_technique)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "" "VARIANTS;GIVEN;ENTRIES")
  set(variants "")
  foreach(entry IN LISTS ARG_ENTRIES)
    string(REGEX REPLACE "[ \t]+" ";" words "${entry}")
    list(LENGTH words count)
    if(NOT count EQUAL 3)
      message(FATAL_ERROR "TECHNIQUE '${entry}': want '<variant> <kernel>[,<kernel>...] <fact>[,<fact>...]'")
    endif()
    list(GET words 0 variant)
    list(GET words 1 kernels)
    list(GET words 2 facts)
    if(NOT variant IN_LIST ARG_VARIANTS OR variant IN_LIST ARG_GIVEN)
      message(FATAL_ERROR "TECHNIQUE names ${variant}, which is not among the VARIANTS the student writes")
    endif()
    list(APPEND variants ${variant})
    list(APPEND args_${variant} --facts "${kernels}=${facts}")
  endforeach()
  set(ordered "")
  foreach(variant IN LISTS ARG_VARIANTS)
    if(variant IN_LIST variants)
      list(APPEND ordered ${variant})
      set(PP_TECHNIQUE_${variant}_ARGS --rung ${variant} ${args_${variant}} --cuobjdump ${PP_CUOBJDUMP}
          PARENT_SCOPE)
    endif()
  endforeach()
  set(PP_TECHNIQUE_VARIANTS ${ordered} PARENT_SCOPE)
endfunction()

# pp-gauntlet's checks for a mutant of a lab with variants <variants>: every
# check of PP_CHECKS (set by pp_gauntlet) in order, one run each, as
# --check NAME [--runner BUILT] [--lock FILE] [--tool TOOL [--tool-arg OPTION]...]
# ARGUMENT... [--variant LIST], the list naming the check's variants where it has its own;
# BUILT, for a check that runs a build of its own, <built> with "<build>" replaced by
# the build's name; FILE, the lock of the checks that run one at a time.
function(pp_gauntlet_arguments out variants built)
  set(gauntlet "")
  foreach(check IN LISTS PP_CHECKS)
    list(APPEND gauntlet --check ${check})
    if(PP_CHECK_${check}_BUILD)
      string(REPLACE "<build>" ${PP_CHECK_${check}_BUILD} runner "${built}")
      list(APPEND gauntlet --runner ${runner})
    endif()
    if(PP_CHECK_${check}_LOCK)
      list(APPEND gauntlet --lock ${PP_CHECK_${check}_LOCK})
    endif()
    if(PP_CHECK_${check}_TOOL)
      pp_check_tool(tool ${check})
      list(APPEND gauntlet ${tool})
    endif()
    list(APPEND gauntlet ${PP_CHECK_${check}_ARGS})
    if(PP_CHECK_${check}_VARIANTS AND NOT PP_CHECK_${check}_VARIANTS STREQUAL variants)
      list(JOIN PP_CHECK_${check}_VARIANTS "," selected)
      list(APPEND gauntlet --variant ${selected})
    endif()
  endforeach()
  set(${out} ${gauntlet} PARENT_SCOPE)
endfunction()

# The test name of check <check> (of variant <variant>, for a check made per
# variant) in lab <lab>: <lab>.<variant> for grade, <lab>.sanitizer.<tool>,
# otherwise <lab>.<check>[.<variant>].
function(pp_check_test_name out lab check variant)
  if(check STREQUAL "grade")
    set(name ${lab}.${variant})
  elseif(PP_CHECK_${check}_TOOL)
    set(name ${lab}.sanitizer.${check})
  elseif(variant)
    set(name ${lab}.${check}.${variant})
  else()
    set(name ${lab}.${check})
  endif()
  set(${out} ${name} PARENT_SCOPE)
endfunction()

# pp-gauntlet's description of check <check>'s sanitizer: --tool TOOL
# [--tool-arg OPTION]...
function(pp_check_tool out check)
  set(options --tool ${PP_CHECK_${check}_TOOL})
  foreach(option IN LISTS PP_CHECK_${check}_TOOL_ARGS)
    list(APPEND options --tool-arg ${option})
  endforeach()
  set(${out} ${options} PARENT_SCOPE)
endfunction()

# pp-gauntlet's --sanitizer option, or nothing where compute-sanitizer was not
# found (its checks then report a skip, never a pass).
if(PP_COMPUTE_SANITIZER)
  set(PP_SANITIZER_OPTION --sanitizer ${PP_COMPUTE_SANITIZER})
else()
  set(PP_SANITIZER_OPTION "")
endif()

# PP_GPU_TESTS lists them, so that the tamper suite (tests/grading/) can start
# only after them: its gradings time on the GPU, beside nothing else of CTest's.
function(pp_gpu_test name)
  add_test(NAME ${name} COMMAND ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${PP_GPU_TEST_TIMEOUT})
  set_property(GLOBAL APPEND PROPERTY PP_GPU_TESTS ${name})
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

# The builds of a lab's file that a check runs instead of the file as it is,
# each with a header force-included: reversed, its blocks' indices reversed
# (the stress check's); warps, every warp collective checked (the warps check's).
set(PP_BUILD_reversed_HEADER ${PROJECT_SOURCE_DIR}/common/include/pp/reversed_blocks.h)
set(PP_BUILD_warps_HEADER ${PROJECT_SOURCE_DIR}/common/include/pp/warp_collectives.h)

# A lab file's target compiled as build <build>.
function(pp_checked_build target build)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-include ${PP_BUILD_${build}_HEADER}>)
endfunction()

# <target>-<build> for each build of PP_CHECK_BUILDS: <source> built so,
# beside <target>.
function(pp_checked_runners target source grader)
  get_target_property(folder ${target} RUNTIME_OUTPUT_DIRECTORY)
  foreach(build IN LISTS PP_CHECK_BUILDS)
    add_executable(${target}-${build} ${source})
    pp_lab_file_target(${target}-${build})
    target_link_libraries(${target}-${build} PRIVATE ${grader})
    pp_checked_build(${target}-${build} ${build})
    if(folder)
      set_target_properties(${target}-${build} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${folder})
    endif()
  endforeach()
endfunction()

# The architectures of an ARCH_SPECIFIC lab's file: CMAKE_CUDA_ARCHITECTURES
# with each 90 made 90a (its -real or -virtual suffix kept).
function(pp_arch_specific out)
  set(architectures "")
  foreach(architecture IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(architecture MATCHES "^90(-real|-virtual)?$")
      set(architecture 90a${CMAKE_MATCH_1})
    endif()
    list(APPEND architectures ${architecture})
  endforeach()
  set(${out} "${architectures}" PARENT_SCOPE)
endfunction()

# A target that compiles the lab's file: the lab's architectures where
# pp_add_lab() set PP_LAB_ARCHITECTURES (ARCH_SPECIFIC), else the build's.
function(pp_lab_file_target target)
  if(PP_LAB_ARCHITECTURES)
    set_property(TARGET ${target} PROPERTY CUDA_ARCHITECTURES ${PP_LAB_ARCHITECTURES})
  endif()
endfunction()

function(pp_lab_runner target source grader)
  add_executable(${target} ${source})
  pp_lab_file_target(${target})
  target_link_libraries(${target} PRIVATE ${grader})
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  set_property(GLOBAL APPEND PROPERTY PP_RUNNERS ${target})
endfunction()

# One test of a submission, as CTest runs it: through grading/run-test, which
# writes <name>.result (status, seconds) in PP_RESULTS, holds a shared GPU's
# lock by <kind>, and ends whatever of the submission is left when the test
# ends. <kind> says what the test may run beside: host (needs no GPU), quick
# (the sanitizers' small sizes), sweep (the grader's sizes, a few GiB), large
# (up to 34 GiB of the GPU's memory), timed, or after (needs no GPU: it judges
# what a timed test wrote, once every timed test has ended). CTest runs the timed ones alone
# (RUN_SERIAL) after every other test of the lab (DEPENDS), and never two
# large ones together (RESOURCE_GROUPS). CTest starts the highest COST first:
# the large ones, one after another beside the others (started last, they ran
# alone), then the quick ones (the longest). grading-tests.txt lists
# the tests, "test TAB lab TAB name TAB kind", in this order, for grading/grade.
function(pp_submission_test lab name timeout kind)
  add_test(NAME ${name}
           COMMAND sh ${PROJECT_SOURCE_DIR}/grading/run-test ${PP_RESULTS} ${name} ${kind} ${timeout}
                   -- ${ARGN})
  # No CTest TIMEOUT: run-test's own limit (scaled by PP_TIMEOUT_SCALE) stops it.
  list(JOIN PP_SANDBOX_SYSTEM ":" system)
  set_tests_properties(${name} PROPERTIES LABELS "${lab};submission;${kind}" SKIP_RETURN_CODE 77
                       ENVIRONMENT "PP_SANDBOX_SYSTEM=${system}")
  # A large test takes up to 34 GiB of the GPU's memory: grading/grade gives
  # CTest a resource spec (grading-resources.json) of 1000 slots of it, of
  # which a sweep takes one and a large test 600, so that two large tests never
  # run together and sweeps run beside one. A test that skipped a size or failed
  # for want of memory beside the others runs again alone (grading/grade).
  if(kind STREQUAL "timed")
    get_property(before GLOBAL PROPERTY PP_SUBMISSION_TESTS_${lab})
    set_tests_properties(${name} PROPERTIES RUN_SERIAL ON DEPENDS "${before}")
  elseif(kind STREQUAL "after")
    set_tests_properties(${name} PROPERTIES DEPENDS ${lab}.perf)
  else()
    set_property(GLOBAL APPEND PROPERTY PP_SUBMISSION_TESTS_${lab} ${name})
  endif()
  if(kind STREQUAL "large")
    set_tests_properties(${name} PROPERTIES RESOURCE_GROUPS "gpu_memory:600" COST 1000)
  elseif(kind STREQUAL "sweep")
    set_tests_properties(${name} PROPERTIES RESOURCE_GROUPS "gpu_memory:1")
  elseif(kind STREQUAL "quick")
    set_tests_properties(${name} PROPERTIES COST 100)
  endif()
  set_property(GLOBAL APPEND_STRING PROPERTY PP_GRADING_TESTS "test\t${lab}\t${name}\t${kind}\n")
endfunction()

# The checker's variant table, made from the lab's VARIANTS: names only (its
# launchers are never called in the checker), so that the checker holds
# neither the student's code nor the solution. The table's type and names
# come from the contract header's "extern const <type> <table>[];" and
# "extern const int <count>;".
function(pp_checker_table out lab header)
  file(STRINGS ${header} declarations REGEX "^extern const ")
  string(REGEX MATCH "extern const ([A-Za-z_0-9]+) ([A-Za-z_0-9]+)\\[\\]" table "${declarations}")
  set(type ${CMAKE_MATCH_1})
  set(table ${CMAKE_MATCH_2})
  string(REGEX MATCH "extern const int ([A-Za-z_0-9]+)" count "${declarations}")
  set(count ${CMAKE_MATCH_1})
  if(NOT type OR NOT table OR NOT count)
    message(FATAL_ERROR "${header}: no 'extern const <type> <table>[];' and 'extern const int <count>;'")
  endif()
  get_filename_component(header_name ${header} NAME)
  set(entries "")
  foreach(variant IN LISTS ARGN)
    string(APPEND entries "  {.name = \"${variant}\", .what = \"\"},\n")
  endforeach()
  list(LENGTH ARGN n)
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${lab}-checker-variants.c)
  file(CONFIGURE OUTPUT ${file} CONTENT
"/* Made by cmake/Labs.cmake (pp_checker_table) from ${lab}'s VARIANTS. */
#include \"${header_name}\"

const ${type} ${table}[] = {
${entries}};
const int ${count} = ${n};
")
  set(${out} ${file} PARENT_SCOPE)
endfunction()

# PP_GRADE=submission: the student's runner, the instructor's checker, and the
# tests grading/grade runs: the gauntlet's checks (PP_CHECKS, set by the
# caller), each judged by the checker, plus the symbol check and perf. With
# PP_SANDBOX (grading/sandbox; grading/grade sets it unless --no-sandbox), the
# student's file is compiled in the sandbox, seeing only itself, its lab's
# contract header and common/include, the runner is linked in it (seeing
# only the system's folders and the files the link names) and runs in it.
# The toolchain's folders that lie outside the system's (e.g. a host compiler
# in /opt/gcc, whose libraries the runner loads too): the sandbox binds them
# read-only (grading/sandbox --system), as it binds /usr.
set(PP_SANDBOX_SYSTEM "")
if(PP_GRADE STREQUAL "submission")
  foreach(tool IN ITEMS ${CMAKE_CUDA_COMPILER} ${CMAKE_CUDA_HOST_COMPILER} ${CMAKE_CXX_COMPILER}
                        ${CMAKE_C_COMPILER})
    file(REAL_PATH ${tool} real)
    get_filename_component(prefix ${real} DIRECTORY)
    get_filename_component(prefix ${prefix} DIRECTORY)
    if(NOT prefix MATCHES "^/(usr|bin|sbin|lib|lib32|lib64|etc)(/|$)" AND NOT prefix IN_LIST PP_SANDBOX_SYSTEM)
      list(APPEND PP_SANDBOX_SYSTEM ${prefix})
    endif()
  endforeach()
endif()

# <out>: the command line that runs grading/sandbox <mode> with <arguments>,
# the toolchain's folders (--system) and "--", as a list (a launcher property).
function(pp_sandbox_command out mode)
  set(command sh ${PP_SANDBOX} ${mode} ${ARGN})
  foreach(dir IN LISTS PP_SANDBOX_SYSTEM)
    list(APPEND command --system ${dir})
  endforeach()
  list(APPEND command --)
  set(${out} "${command}" PARENT_SCOPE)
endfunction()

# The link of a submission's runner <target>: without GCC's LTO plugin
# (-fno-lto, -fno-use-linker-plugin: gcc then runs no lto1 and no assembler
# at link time, whatever sections an object holds), and with PP_SANDBOX in
# the sandbox (grading/sandbox link), which shows the linker the system's
# folders and the files its command line names, and nothing else of this
# machine's. RULE_LAUNCH_LINK is one string of shell words: each is quoted.
function(pp_submission_link target)
  target_link_options(${target} PRIVATE -fno-lto -fno-use-linker-plugin)
  if(NOT PP_SANDBOX)
    return()
  endif()
  pp_sandbox_command(command link)
  set(launcher "")
  foreach(word IN LISTS command)
    string(REPLACE "'" "'\\''" word "${word}")
    string(APPEND launcher "'${word}' ")
  endforeach()
  set_target_properties(${target} PROPERTIES RULE_LAUNCH_LINK "${launcher}")
endfunction()

function(pp_add_submission_lab lab grader source perf_size contract)
  set(submitted ${PP_SUBMISSION}/${lab}/${source})
  if(NOT EXISTS ${submitted})
    message(STATUS "${lab}: no ${source} in the submission")
    return()
  endif()
  pp_checker_table(table ${lab} ${contract} ${ARGN})
  add_executable(${lab}-checker ${table})
  target_link_libraries(${lab}-checker PRIVATE ${grader})
  set_target_properties(${lab}-checker PROPERTIES LINKER_LANGUAGE CUDA)
  add_dependencies(pp-trusted ${lab}-checker)

  add_library(${lab}-student OBJECT ${submitted})
  pp_lab_file_target(${lab}-student)
  target_link_libraries(${lab}-student PRIVATE ${grader})
  target_compile_options(${lab}-student PRIVATE -lineinfo)
  if(PP_SANDBOX)
    # The object leaves the sandbox only if it holds nothing but what nvcc
    # emits for a lab file (pp-symcheck --sections, built first).
    pp_sandbox_command(launcher compile --ro ${submitted} --ro ${contract}
                       --ro ${PROJECT_SOURCE_DIR}/common/include
                       --sections $<TARGET_FILE:pp-symcheck> ${PROJECT_SOURCE_DIR}/grading/allowed-sections.txt)
    set_target_properties(${lab}-student PROPERTIES CUDA_COMPILER_LAUNCHER "${launcher}")
    add_dependencies(${lab}-student pp-symcheck)
  endif()
  add_executable(${lab})
  target_link_libraries(${lab} PRIVATE ${lab}-student ${grader})
  pp_submission_link(${lab})
  add_custom_target(${lab}-grading)
  add_dependencies(${lab}-grading ${lab} pp-trusted)
  # The file again as each build a check runs (pp_checked_build), compiled in
  # the same sandbox, with the same section check.
  foreach(build IN LISTS PP_CHECK_BUILDS)
    add_library(${lab}-student-${build} OBJECT ${submitted})
    pp_lab_file_target(${lab}-student-${build})
    target_link_libraries(${lab}-student-${build} PRIVATE ${grader})
    pp_checked_build(${lab}-student-${build} ${build})
    if(PP_SANDBOX)
      set_target_properties(${lab}-student-${build} PROPERTIES CUDA_COMPILER_LAUNCHER "${launcher}")
      add_dependencies(${lab}-student-${build} pp-symcheck)
    endif()
    add_executable(${lab}-${build})
    target_link_libraries(${lab}-${build} PRIVATE ${lab}-student-${build} ${grader})
    pp_submission_link(${lab}-${build})
    add_dependencies(${lab}-grading ${lab}-${build})
  endforeach()

  set(results ${PP_RESULTS})
  set(checker $<TARGET_FILE:${lab}-checker>)
  set(seed --seed ${PP_GRADE_SEED})
  set(runner $<TARGET_FILE:${lab}>)
  if(PP_SANDBOX)
    set(sandboxed sh ${PP_SANDBOX} run --ro ${runner} -- ${runner})
    set(gauntlet_sandbox --sandbox ${PP_SANDBOX})
  else()
    set(sandboxed ${runner})
    set(gauntlet_sandbox "")
  endif()
  pp_submission_test(${lab} ${lab}.symbols 120 host
    $<TARGET_FILE:pp-symcheck> --allow ${PROJECT_SOURCE_DIR}/grading/allowed-symbols.txt
    --sections ${PROJECT_SOURCE_DIR}/grading/allowed-sections.txt --contract ${contract}
    --verdict ${results}/${lab}.symbols.verdict $<TARGET_OBJECTS:${lab}-student>)
  foreach(check IN LISTS PP_CHECKS)
    set(args ${PP_CHECK_${check}_ARGS})
    set(check_sandboxed ${sandboxed})
    if(PP_CHECK_${check}_BUILD)
      set(check_runner $<TARGET_FILE:${lab}-${PP_CHECK_${check}_BUILD}>)
      set(check_sandboxed ${check_runner})
      if(PP_SANDBOX)
        set(check_sandboxed sh ${PP_SANDBOX} run --ro ${check_runner} -- ${check_runner})
      endif()
    endif()
    if(PP_CHECK_${check}_VARIANTS)
      foreach(variant IN LISTS PP_CHECK_${check}_VARIANTS)
        pp_check_test_name(name ${lab} ${check} ${variant})
        pp_submission_test(${lab} ${name} ${PP_GPU_TEST_TIMEOUT} sweep
          ${checker} ${seed} ${args} --variant ${variant} --verdict ${results}/${name}.verdict
          -- ${check_sandboxed})
      endforeach()
    else()
      pp_check_test_name(name ${lab} ${check} "")
      if(PP_CHECK_${check}_TOOL)
        # pp-gauntlet first makes sure that compute-sanitizer runs here (a
        # failure there is the machine's, not the student's), then hands over
        # to the checker, with the sanitizer and the runner in the sandbox.
        pp_check_tool(tool ${check})
        pp_submission_test(${lab} ${name} ${PP_GPU_TEST_TIMEOUT} quick
          $<TARGET_FILE:pp-gauntlet> ${PP_SANITIZER_OPTION} --checker ${checker} ${gauntlet_sandbox}
          -- ${runner} --check ${check} ${tool} ${seed} ${args} --verdict ${results}/${name}.verdict)
      else()
        if(check STREQUAL "large")
          set(kind large)
        else()
          set(kind quick)
        endif()
        pp_submission_test(${lab} ${name} ${PP_GPU_TEST_TIMEOUT} ${kind}
          ${checker} ${seed} ${args} --verdict ${results}/${name}.verdict -- ${check_sandboxed})
      endif()
    endif()
  endforeach()
  # The technique: pp-technique reads the object's SASS, which cuobjdump
  # lists inside the sandbox (grading/sandbox inspect): the object is the
  # student's, and cuobjdump parses it.
  set(technique_sandbox "")
  if(PP_SANDBOX)
    set(technique_sandbox --sandbox ${PP_SANDBOX})
  endif()
  foreach(variant IN LISTS PP_TECHNIQUE_VARIANTS)
    pp_submission_test(${lab} ${lab}.technique.${variant} 120 host
      $<TARGET_FILE:pp-technique> ${PP_TECHNIQUE_${variant}_ARGS}
      --verdict ${results}/${lab}.technique.${variant}.verdict ${technique_sandbox}
      $<TARGET_OBJECTS:${lab}-student>)
  endforeach()
  # Graded perf: 10 timed repetitions after 2 warm-ups, not 20 after 3: the
  # tiers are generous fractions of the peer's speed, and the timed tests,
  # which hold the GPU alone, then take half the time.
  pp_submission_test(${lab} ${lab}.perf ${PP_GPU_TEST_TIMEOUT} timed
    ${checker} ${seed} --size ${perf_size} --reps 10 --warmup 2 --verdict ${results}/${lab}.perf.verdict
    --json ${results}/${lab}.perf.json -- ${sandboxed})
  pp_faster_tests(${lab} ${results}/${lab}.perf.verdict)
endfunction()

# <lab>.faster.<variant> for each of PP_FASTER (pp_add_lab's FASTER), judged
# from <perf_verdict>, the timed test's: in grading, a test of kind "after"
# (grading/grade runs those once the timed ones have ended) with a verdict of
# its own; in a lab's build, after <lab>.perf, skipped where its verdict is
# older than the lab's runner.
function(pp_faster_tests lab perf_verdict)
  foreach(variant IN LISTS PP_FASTER)
    list(FIND PP_LAB_VARIANTS ${variant} at)
    math(EXPR at "${at} - 1")
    list(GET PP_LAB_VARIANTS ${at} previous)
    set(name ${lab}.faster.${variant})
    set(judge sh ${PROJECT_SOURCE_DIR}/grading/faster)
    if(PP_GRADE STREQUAL "submission")
      pp_submission_test(${lab} ${name} 120 after ${judge} --verdict ${PP_RESULTS}/${name}.verdict
                         ${perf_verdict} ${variant} ${previous} ${PP_FASTER_BY})
    else()
      add_test(NAME ${name} COMMAND ${judge} --newer-than $<TARGET_FILE:${lab}> ${perf_verdict}
                                    ${variant} ${previous} ${PP_FASTER_BY})
      # gpu: a test of the student's rung that skips without a GPU (cmake/grade.cmake)
      set_tests_properties(${name} PROPERTIES LABELS "${lab};gpu;perf" DEPENDS ${lab}.perf SKIP_RETURN_CODE 77)
    endif()
  endforeach()
endfunction()

function(pp_add_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "ARCH_SPECIFIC"
                        "SOURCE;PERF_SIZE;MIN_SPEEDUP;STRESS_DATASET;LARGE_DATASET;ACCURACY_DATASET"
                        "GRADER;LIBRARIES;VARIANTS;GIVEN;SMALL_SMEM;STRESS;LARGE_SIZES;TECHNIQUE;ACCURACY;FASTER")
  # Read by pp_faster_tests() in the functions called below.
  set(PP_LAB_VARIANTS ${ARG_VARIANTS})
  set(PP_FASTER ${ARG_FASTER})
  foreach(variant IN LISTS ARG_FASTER)
    list(FIND ARG_VARIANTS ${variant} at)
    if(at LESS 1)
      message(FATAL_ERROR "FASTER names ${variant}, which is not among the VARIANTS after the first")
    endif()
  endforeach()
  pp_technique(VARIANTS ${ARG_VARIANTS} GIVEN ${ARG_GIVEN} ENTRIES ${ARG_TECHNIQUE})
  set(PP_LAB_ARCHITECTURES "") # read by pp_lab_file_target() in the functions called below
  if(ARG_ARCH_SPECIFIC)
    pp_arch_specific(PP_LAB_ARCHITECTURES)
  endif()
  set(grader ${lab}-grader)
  add_library(${grader} OBJECT ${ARG_GRADER})
  target_include_directories(${grader} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${grader} PUBLIC pp ${ARG_LIBRARIES})
  pp_gauntlet(VARIANTS ${ARG_VARIANTS} SMALL_SMEM ${ARG_SMALL_SMEM} LARGE_SIZES ${ARG_LARGE_SIZES} LARGE_DATASET ${ARG_LARGE_DATASET}
              STRESS ${ARG_STRESS} STRESS_DATASET ${ARG_STRESS_DATASET}
              ACCURACY ${ARG_ACCURACY} ACCURACY_DATASET ${ARG_ACCURACY_DATASET})
  # The contract header, named like the lab file (dot_product.cu: dot_product.h):
  # the only external names the file may define besides its kernels (pp-symcheck).
  get_filename_component(stem ${ARG_SOURCE} NAME_WE)
  set(contract ${CMAKE_CURRENT_SOURCE_DIR}/${stem}.h)
  if(NOT EXISTS ${contract})
    message(FATAL_ERROR "${lab}: no contract header ${contract} beside the grader")
  endif()
  set_property(GLOBAL PROPERTY PP_CONTRACT_${lab} ${contract})

  if(PP_GRADE STREQUAL "submission")
    pp_add_submission_lab(${lab} ${grader} ${ARG_SOURCE} ${ARG_PERF_SIZE} ${contract} ${ARG_VARIANTS})
    return()
  endif()

  set(solution ${PROJECT_SOURCE_DIR}/solutions/${lab}/${ARG_SOURCE})
  set(skeleton ${PROJECT_SOURCE_DIR}/labs/${lab}/${ARG_SOURCE})
  set(challenge ${PROJECT_SOURCE_DIR}/labs-challenge/${lab}/${ARG_SOURCE})
  set(runner_source ${solution})
  if(PP_GRADE STREQUAL "labs")
    set(runner_source ${skeleton})
  elseif(PP_GRADE STREQUAL "challenge")
    set(runner_source ${challenge})
  endif()
  if(NOT EXISTS ${runner_source})
    message(FATAL_ERROR "${lab}: no ${runner_source}, the file PP_GRADE=${PP_GRADE} grades")
  endif()
  pp_lab_runner(${lab} ${runner_source} ${grader})

  pp_checked_runners(${lab} ${runner_source} ${grader}) # built with the lab's target (tests/CMakeLists.txt)
  foreach(check IN LISTS PP_CHECKS)
    set(args ${PP_CHECK_${check}_ARGS})
    set(check_runner ${lab})
    if(PP_CHECK_${check}_BUILD)
      set(check_runner ${lab}-${PP_CHECK_${check}_BUILD})
    endif()
    if(PP_CHECK_${check}_VARIANTS)
      foreach(variant IN LISTS PP_CHECK_${check}_VARIANTS)
        pp_check_test_name(name ${lab} ${check} ${variant})
        pp_gpu_test(${name} ${check_runner} ${args} --variant ${variant})
        set_tests_properties(${name} PROPERTIES LABELS "${lab};gpu;grade")
        if(check STREQUAL "stress" OR check STREQUAL "accuracy") # ctest -L stress, -L accuracy
          set_property(TEST ${name} APPEND PROPERTY LABELS ${check})
        endif()
        if(variant IN_LIST ARG_GIVEN) # the `grade` target tells these from the student's TODOs
          set_property(TEST ${name} APPEND PROPERTY LABELS given)
        endif()
      endforeach()
    elseif(PP_CHECK_${check}_TOOL)
      pp_check_test_name(name ${lab} ${check} "")
      pp_check_tool(tool ${check})
      pp_gpu_test(${name} pp-gauntlet ${PP_SANITIZER_OPTION} -- $<TARGET_FILE:${lab}>
                  --check ${check} ${tool} ${args})
      set_tests_properties(${name} PROPERTIES LABELS "${lab};gpu;sanitizer")
    elseif(NOT check STREQUAL "large")
      pp_check_test_name(name ${lab} ${check} "")
      pp_gpu_test(${name} ${check_runner} ${args})
      set_tests_properties(${name} PROPERTIES LABELS "${lab};gpu;grade")
    else()
      # The large check, under pp-gauntlet for its lock, which the mutants' large checks share;
      # CTest's resource lock keeps the lab's large tests from waiting on each other in its slots.
      pp_check_test_name(name ${lab} ${check} "")
      set(lock "")
      if(PP_CHECK_${check}_LOCK)
        set(lock --lock ${PP_CHECK_${check}_LOCK})
      endif()
      pp_gpu_test(${name} pp-gauntlet -- $<TARGET_FILE:${lab}> --check ${check} ${lock} ${args})
      set_tests_properties(${name} PROPERTIES LABELS "${lab};gpu;grade" COST 1000
                           RESOURCE_LOCK gpu-memory-large)
    endif()
  endforeach()

  # Timed: it runs alone, so that `ctest -j` cannot put other work beside it.
  pp_gpu_test(${lab}.perf ${lab} --size ${ARG_PERF_SIZE} --min-speedup ${ARG_MIN_SPEEDUP}
              --json ${PROJECT_BINARY_DIR}/results/${lab}-perf.json
              --verdict ${PROJECT_BINARY_DIR}/results/${lab}-perf.verdict)
  set_tests_properties(${lab}.perf PROPERTIES LABELS "${lab};gpu;perf" RUN_SERIAL ON)
  pp_faster_tests(${lab} ${PROJECT_BINARY_DIR}/results/${lab}-perf.verdict)
  # The technique, read from the runner's object (the lab file alone: the
  # grader is another target's). Host tests: cuobjdump needs no GPU.
  foreach(variant IN LISTS PP_TECHNIQUE_VARIANTS)
    add_test(NAME ${lab}.technique.${variant}
             COMMAND pp-technique ${PP_TECHNIQUE_${variant}_ARGS} $<TARGET_OBJECTS:${lab}>)
    set_tests_properties(${lab}.technique.${variant} PROPERTIES LABELS "${lab};technique" SKIP_RETURN_CODE 77)
  endforeach()
  # The file's table and VARIANTS agree (a graded submission's checker takes
  # its table from VARIANTS).
  add_test(NAME ${lab}.variants
           COMMAND ${CMAKE_COMMAND} -DRUNNER=$<TARGET_FILE:${lab}> "-DVARIANTS=${ARG_VARIANTS}"
                   -P ${PROJECT_SOURCE_DIR}/cmake/check_variants.cmake)
  set_tests_properties(${lab}.variants PROPERTIES LABELS "${lab};host")

  if(NOT PP_GRADE STREQUAL "all")
    return()
  endif()

  # Both levels of the student's file, made by pp-skeleton from the one
  # solution: labs/ (guided, <lab>-skeleton, <lab>.skeleton.*) and
  # labs-challenge/ (challenge, <lab>-challenge, <lab>.challenge.*).
  set(write_commands "")
  foreach(level IN ITEMS skeleton challenge)
    if(level STREQUAL "skeleton")
      set(level_file ${skeleton})
      set(level_option --level guided)
    else()
      set(level_file ${challenge})
      set(level_option --level challenge)
    endif()
    pp_lab_runner(${lab}-${level} ${level_file} ${grader})
    foreach(variant IN LISTS ARG_VARIANTS)
      if(variant IN_LIST ARG_GIVEN)
        set(expected 0)
      else()
        set(expected 1)
      endif()
      pp_gpu_test(${lab}.${level}.${variant} pp-expect ${expected} --
                  $<TARGET_FILE:${lab}-${level}> --grade --variant ${variant})
      set_tests_properties(${lab}.${level}.${variant} PROPERTIES LABELS "${lab};gpu;${level}")
    endforeach()
    add_test(NAME ${lab}.${level}-drift COMMAND pp-skeleton ${solution} ${level_option} --check ${level_file})
    set_tests_properties(${lab}.${level}-drift PROPERTIES LABELS "${lab};host")
    list(APPEND write_commands COMMAND pp-skeleton ${solution} ${level_option} --write ${level_file})
  endforeach()
  add_custom_target(${lab}-write-skeleton ${write_commands}
                    COMMENT "Writing ${skeleton} and ${challenge} from the solution")
  add_dependencies(skeletons ${lab}-write-skeleton)

  # What grading/grade refuses, the course's own files must not use.
  set(symbol_check $<TARGET_FILE:pp-symcheck> --allow ${PROJECT_SOURCE_DIR}/grading/allowed-symbols.txt
      --sections ${PROJECT_SOURCE_DIR}/grading/allowed-sections.txt --contract ${contract})
  add_test(NAME ${lab}.symbols COMMAND ${symbol_check}
           $<TARGET_OBJECTS:${lab}> $<TARGET_OBJECTS:${lab}-skeleton> $<TARGET_OBJECTS:${lab}-challenge>)
  set_tests_properties(${lab}.symbols PROPERTIES LABELS "${lab};host")

  pp_add_mutants(${lab} ${ARG_SOURCE} ${solution} ${grader} "${ARG_VARIANTS}" "${symbol_check}")
endfunction()
