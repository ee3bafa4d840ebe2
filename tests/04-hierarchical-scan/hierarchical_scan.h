/**
 * @file hierarchical_scan.h
 * @brief Lab 04 contract: what labs/04-hierarchical-scan/hierarchical_scan.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant scans (prefix-sums) an array of any length n >= 0, entirely on
 * the GPU, for two element types (int and float) and two kinds of scan:
 *
 * - inclusive: out[i] = in[0] + in[1] + ... + in[i]
 * - exclusive: out[i] = in[0] + ... + in[i - 1], so out[0] = 0
 *
 * A launcher only enqueues work on the default stream (the grader synchronizes
 * and checks errors afterwards); n is a size_t and may exceed 2^31.
 *
 * - in and out are device arrays of n elements, 256-byte aligned and distinct;
 *   in is read-only. Reading past in[n - 1] reads NaN (float) or -1 (int), and
 *   writing past out[n - 1] is caught by a guard zone.
 * - out is poisoned (NaN / -1) before every run, so an element never written shows.
 * - workspace holds SCAN_WORKSPACE_BYTES(n) bytes of device scratch, 256-byte
 *   aligned, also poisoned before every run: whatever must start at zero (tile
 *   counters, status flags) the launcher clears itself, on every call.
 *
 * int results must be exact (the grader's data keeps every sum of adjacent
 * elements inside int32). A float result out[i] must be within
 * gamma_L * (in[0] + ... + in[i]) of the exact prefix, L = 64 + 8 * floor(i / 1024):
 * what a scan in tiles of at least 1024 elements guarantees when each element
 * goes through at most 64 roundings inside the tiles and 8 per tile that
 * carries the prefix onward (see the grader for the derivation).
 */
#ifndef HIERARCHICAL_SCAN_H
#define HIERARCHICAL_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Scratch bytes the grader provides to a launcher for a scan of length @p n:
 *  one 8-byte word per 1024 elements, plus 64 KiB. */
#define SCAN_WORKSPACE_BYTES(n) ((size_t)(n) / 128 + 65536)

/** Which prefix sums to compute. */
typedef enum scan_kind {
  SCAN_INCLUSIVE = 0, /**< out[i] = in[0] + ... + in[i] */
  SCAN_EXCLUSIVE = 1  /**< out[i] = in[0] + ... + in[i - 1]; out[0] = 0 */
} scan_kind;

/**
 * Enqueues the scan of @p n ints on the default stream.
 * @param in         device input, @p n elements
 * @param out        device output, @p n elements
 * @param n          number of elements, any value from 0
 * @param kind       inclusive or exclusive
 * @param workspace  SCAN_WORKSPACE_BYTES(@p n) bytes of poisoned device scratch
 */
typedef void scan_int_launcher(const int *in, int *out, size_t n, scan_kind kind, void *workspace);

/**
 * Enqueues the scan of @p n floats on the default stream.
 * @param in         device input, @p n elements
 * @param out        device output, @p n elements
 * @param n          number of elements, any value from 0
 * @param kind       inclusive or exclusive
 * @param workspace  SCAN_WORKSPACE_BYTES(@p n) bytes of poisoned device scratch
 */
typedef void scan_float_launcher(const float *in, float *out, size_t n, scan_kind kind,
                                 void *workspace);

/** One rung of the ladder: the same algorithm for both element types. */
typedef struct scan_variant {
  const char *name;                /**< e.g. "v3-lookback" */
  const char *what;                /**< what changed from the previous rung, and why it is faster */
  scan_int_launcher *scan_int;     /**< its launcher for int */
  scan_float_launcher *scan_float; /**< its launcher for float */
} scan_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const scan_variant scan_variants[];

/** Number of entries in ::scan_variants. */
extern const int scan_variant_count;

#ifdef __cplusplus
}
#endif

#endif
