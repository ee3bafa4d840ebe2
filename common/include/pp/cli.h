/**
 * @file cli.h
 * @brief The command line shared by every lab runner.
 */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a runner does. */
typedef enum pp_mode {
  PP_MODE_BENCH, /**< run, check and time the variants at one size; print the table */
  PP_MODE_GRADE, /**< check the variants over the grader's sizes and seeds */
  PP_MODE_STRESS, /**< check many short runs of each variant beside an interfering kernel */
  PP_MODE_LIST,  /**< print the variants */
  PP_MODE_PROBE, /**< exit 0 if there is a CUDA device, 77 if not */
  PP_MODE_SERVE, /**< answer a checker's requests on descriptor 3 (remote.h) */
  PP_MODE_HELP   /**< print usage */
} pp_mode;

/** Parsed command line. */
typedef struct pp_options {
  pp_mode mode;         /**< what to do */
  const char *size;     /**< problem size as written, or NULL for the lab's default */
  uint64_t seed;        /**< first seed */
  int seeds;            /**< seeds per size when grading */
  int reps;             /**< timed repetitions */
  int warmup;           /**< untimed repetitions before them */
  const char *variants; /**< comma-separated names or numbers, or NULL for all */
  const char *dataset;  /**< the one input distribution to time or grade, or NULL for the lab's */
  const char *json;     /**< where to write the JSON report, or NULL */
  int quick;            /**< grade only the small sizes (for sanitizer runs) */
  int accuracy;         /**< grade: judge by the lab's bound for a compensated sum (pp_verdict) */
  double min_speedup;   /**< bench: least speedup of the last variant over the first, or 0 */
  int or_skip;          /**< a `--size` too large for the GPU exits 77 (skipped), not 2 */
  const char *verdict;  /**< where to write the verdict file, or NULL */
  int no_guards;        /**< buffers without guard zones, for compute-sanitizer memcheck (buffer.h) */
  int max_shared_kib;   /**< cap on pp_shared_memory_per_block(), in KiB, or 0 for none (device.h) */
  double timeout_s;     /**< checker: seconds one launch may take in the runner */
  int stress_runs;      /**< stress: at most this many runs of each variant */
  double stress_seconds; /**< stress: at most this many seconds of runs of each variant */
  char **runner;        /**< checker: the runner's command (after `--`), NULL-terminated; or NULL */
} pp_options;

/**
 * Parses @p argv into @p opt. Unknown flags, missing values, numbers that do
 * not parse, negative counts, zero seeds or repetitions (zero warm-up runs are
 * allowed), `--stress-runs` or `--stress-seconds` out of range or without
 * `--stress`, and output paths that cannot be written (`--json`, `--verdict`:
 * their folder must exist and be writable, and they must not name a folder)
 * are errors. Nothing is created or written.
 * @param argc  argument count
 * @param argv  arguments
 * @param opt   receives the options (defaults filled first)
 * @param err   where error messages go
 * @return 0, or ::PP_EXIT_USAGE after printing a message to @p err
 */
int pp_parse_options(int argc, char **argv, pp_options *opt, FILE *err);

/**
 * Prints the usage text.
 * @param out           where to print
 * @param program       the program's name
 * @param size_default  the lab's size timed without `--size` (pp_problem::bench_size)
 * @param size_help     how the lab writes a size (pp_problem::size_help)
 */
void pp_print_usage(FILE *out, const char *program, const char *size_default, const char *size_help);

/**
 * Parses a non-negative element count: "1000", "2^28", "2^24+1", "2^20-1", "1e6".
 * @param text  the text
 * @param out   receives the count
 * @return 0, or -1 if @p text is not such a count or overflows 64 bits
 */
int pp_parse_count(const char *text, uint64_t *out);

/**
 * Writes @p n as "268435456 (2^28)" or "16777217 (2^24+1)" where that is shorter to read.
 * @param n    the count
 * @param out  destination
 * @param len  its size
 */
void pp_format_count(uint64_t n, char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
