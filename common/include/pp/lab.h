/**
 * @file lab.h
 * @brief The interface between a lab's grader and the harness's driver.
 *
 * A lab's grader (tests/NN-lab/grader.c) describes its problem in a
 * ::pp_problem named `pp_lab`: sizes to sweep, input distributions, how to
 * fill, launch and check, and how to reach the variants the student's file
 * exports. The harness's own main() hands that description to pp_main(), which
 * parses the command line and runs, checks, times and reports. No lab has a
 * main() of its own.
 */
#ifndef PP_LAB_H
#define PP_LAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Variant number that stands for the library peer in pp_problem::launch and pp_problem::check. */
#define PP_PEER (-1)

/** A problem size: n for 1-D labs, M, N, K for matrix products. */
typedef struct pp_size {
  uint64_t dim[3]; /**< extents; unused ones are 1 */
  int rank;        /**< how many of @p dim are meaningful */
} pp_size;

/** A variant's name and its one-line summary, as the student's table gives them. */
typedef struct pp_variant_info {
  const char *name; /**< e.g. "v3-sequential" */
  const char *what; /**< what changed from the previous step, and why it is faster */
} pp_variant_info;

/** The grader's judgement of one run. */
typedef struct pp_verdict {
  int correct;        /**< 1 if every output element is within its tolerance */
  double rel_error;   /**< largest |got - want| / |want| (0 when exact) */
  double bound_ratio; /**< largest |got - want| / tolerance */
  char note[256];     /**< on failure: what was wrong, where, and a hint */
  /** In, set before pp_problem::check (`--grade --accuracy`): judge by the bound of a compensated
   *  sum where the dataset has one (it is then made to tell compensated summation from plain). */
  int compensated;
} pp_verdict;

/** The unit whose peak bounds a compute-bound lab's speed (pp_device_peak()): the checker
 *  believes no time under the lab's operations at that peak. */
typedef enum pp_peak {
  PP_PEAK_FP32,        /**< FP32 fused multiply-adds on the CUDA cores (the default) */
  PP_PEAK_BF16_TENSOR, /**< dense BF16 products with FP32 accumulation on the tensor cores */
} pp_peak;

/** Which variants tools/sweep.sh times when not told (`--list` says, as indices). */
typedef enum pp_sweep_variants {
  PP_SWEEP_ALL_BUT_FIRST, /**< every variant but the baseline, which takes seconds at the largest sizes */
  PP_SWEEP_LAST,          /**< the last only: the early rungs take minutes at the largest sizes */
} pp_sweep_variants;

/** One lab's problem, as its grader describes it to the driver. */
typedef struct pp_problem {
  const char *lab;                /**< folder name, e.g. "01-dot-product" */
  const char *title;              /**< one line for reports */
  const char *peer_name;          /**< the library peer, e.g. "cuBLAS sdot" */
  const char *bench_size;         /**< size timed when `--size` is absent */
  /** How `--size` is written for this lab, for `--help`: e.g. "MxNxK, each a count". */
  const char *size_help;
  const char *const *grade_sizes; /**< sizes the grader sweeps, NULL-terminated */
  const char *const *quick_sizes; /**< small sizes for sanitizer runs, NULL-terminated */
  /** Sizes at the boundaries of the lab's launchers and kernels (block, tile, vector width,
   *  grid cap, each launcher's thresholds), NULL-terminated, or NULL: `--grade` checks each,
   *  and each with one extent moved by 1 to @p boundary_reach either way, so that a
   *  threshold or bound off by up to that much is wrong at a size the sweep checks. */
  const char *const *boundary_sizes;
  int boundary_reach; /**< how far from a boundary the sweep goes: the widest vector, at least 1 */
  /** The largest extent of each dimension that `--grade` draws sizes up to, as a size, or
   *  NULL for no drawn sizes: every grading draws sizes from its seed, each extent
   *  log-uniform in [1, that extent], so that no fixed list of sizes is all it checks. */
  const char *random_max;
  /** Largest product of a drawn size's extents (the work of one case), or 0 for no limit. */
  double random_volume_max;
  const char *const *datasets;    /**< input distributions, NULL-terminated */
  /** How many of @p datasets, the first, a sweep checks unless `--dataset` names one; 0 for
   *  all. Those after them are checked only when named (lab 01's absorbed, for `--accuracy`). */
  int rotated_datasets;
  int bench_dataset;              /**< index of the distribution that is timed */
  /** The sizes tools/sweep.sh times, one run each, NULL-terminated (`--list` prints them). */
  const char *const *sweep_sizes;
  pp_sweep_variants sweep_variants; /**< the variants it times unless told */
  /** The size tools/counters.sh profiles unless told: inputs far larger than L2, yet Nsight
   *  Compute's replays of every kernel near a minute per lab (`--list` prints it). */
  const char *profile_size;
  pp_peak peak; /**< the unit whose peak bounds a compute-bound lab (flops not NULL) */

  /** @return number of variants the student's file exports */
  int (*variant_count)(void);
  /** @return name and summary of variant @p index */
  pp_variant_info (*variant)(int index);

  /** Parses a size; returns 0, or -1 if the text is not a size of this lab. */
  int (*parse_size)(const char *text, pp_size *size);
  /** Writes a size for people to read. */
  void (*format_size)(const pp_size *size, char *out, size_t len);
  /** @return device memory needed at this size, all buffers and guards included */
  size_t (*device_bytes)(const pp_size *size);
  /** @return the fewest DRAM bytes one run must move (inputs read once, outputs written once) */
  double (*bytes_moved)(const pp_size *size);
  /** @return floating-point operations of one run; NULL for a memory-bound lab (GB/s is reported) */
  double (*flops)(const pp_size *size);

  /** Allocates host and device buffers for @p size, and marks which are inputs and which
   *  outputs (pp_buffer_mark()): the checker's clock needs both. */
  void *(*create)(const pp_size *size);
  /** Generates the inputs for @p seed and dataset @p dataset, uploads them, computes the reference. */
  void (*fill)(void *state, uint64_t seed, int dataset);
  /** Poisons every output and scratch buffer (untimed, before each run). */
  void (*prepare)(void *state);
  /** Enqueues variant @p variant, or the library peer for ::PP_PEER, on the inputs of
   *  dataset @p dataset (the last fill()). It reads only what create() set up and @p dataset:
   *  when a submission is graded, it runs in another process that never calls fill(). */
  void (*launch)(void *state, int variant, int dataset);
  /** Downloads the outputs of the last launch and judges them. */
  void (*check)(void *state, int variant, pp_verdict *verdict);
  /** Optional (NULL when fill() keeps host copies): brings the last fill()'s inputs to the
   *  host for cpu_reference(), untimed. */
  void (*cpu_prepare)(void *state);
  /** Recomputes the CPU reference from host inputs (timed for the "vs CPU" column). */
  void (*cpu_reference)(void *state);
  /** Frees everything create() allocated. */
  void (*destroy)(void *state);
} pp_problem;

/**
 * @def PP_SWEEP_POWERS
 * tools/sweep.sh's sizes for a lab of one extent n: the powers of two from
 * 2^10 to 2^30 and between each two an odd size that is no multiple of any
 * block or tile, 2^k + 2^(k-1) + 1, each followed by @p suffix (a string
 * literal, "" for none), as initializers of a list of sizes.
 */
#define PP_SWEEP_POWERS(suffix)                                                                          \
  "2^10" suffix, "1537" suffix, "2^11" suffix, "3073" suffix, "2^12" suffix, "6145" suffix,               \
      "2^13" suffix, "12289" suffix, "2^14" suffix, "24577" suffix, "2^15" suffix, "49153" suffix,        \
      "2^16" suffix, "98305" suffix, "2^17" suffix, "196609" suffix, "2^18" suffix, "393217" suffix,      \
      "2^19" suffix, "786433" suffix, "2^20" suffix, "1572865" suffix, "2^21" suffix, "3145729" suffix,   \
      "2^22" suffix, "6291457" suffix, "2^23" suffix, "12582913" suffix, "2^24" suffix,                   \
      "25165825" suffix, "2^25" suffix, "50331649" suffix, "2^26" suffix, "100663297" suffix,             \
      "2^27" suffix, "201326593" suffix, "2^28" suffix, "402653185" suffix, "2^29" suffix,                \
      "805306369" suffix, "2^30" suffix

/**
 * Parses a 1-D size written as pp_parse_count() accepts it.
 * @param text  the text
 * @param size  receives n in dim[0], rank 1
 * @return 0, or -1
 */
int pp_size_parse_1d(const char *text, pp_size *size);

/**
 * Writes a 1-D size as "268435456 (2^28)".
 * @param size  the size
 * @param out   destination
 * @param len   its size
 */
void pp_size_format_1d(const pp_size *size, char *out, size_t len);

/** The largest extent pp_size_parse_mnk() takes, so that every index of a matrix fits an int. */
#define PP_MNK_MAX_EXTENT ((uint64_t)1 << 30)

/**
 * Parses a matrix product's size "MxNxK", each part as pp_parse_count() reads
 * it and at most ::PP_MNK_MAX_EXTENT.
 * @param text  the text
 * @param size  receives M, N, K in dim[0..2], rank 3
 * @return 0, or -1
 */
int pp_size_parse_mnk(const char *text, pp_size *size);

/**
 * Writes a matrix product's size as "MxNxK".
 * @param size  the size
 * @param out   destination
 * @param len   its size
 */
void pp_size_format_mnk(const pp_size *size, char *out, size_t len);

/**
 * Runs a lab: parses the command line, then lists, grades or benchmarks.
 * @param problem  the lab's problem
 * @param argc     argument count
 * @param argv     arguments
 * @return an exit code from ::pp_exit_code
 */
int pp_main(const pp_problem *problem, int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
