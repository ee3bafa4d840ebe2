/**
 * @file reduction.h
 * @brief Lab 02 contract: what labs/02-reduction/reduction.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant has two launchers, one for int and one for float; each
 * computes result[0] = in[0] + in[1] + ... + in[n - 1] (0 for n = 0) entirely
 * on the GPU, for any n >= 0: it only enqueues work on the default stream
 * (the grader synchronizes and checks errors afterwards).
 *
 * - in is a device array of n elements, 256-byte aligned. The bytes past
 *   in[n - 1] are 0xFF: NaN as a float, -1 as an int, so reading past the end
 *   changes the answer.
 * - result points to one element on the device, poisoned (0xFF bytes) before
 *   every run.
 * - workspace holds REDUCE_WORKSPACE_BYTES(n) bytes of device scratch,
 *   256-byte aligned, also poisoned before every run: clear whatever must
 *   start at zero.
 * - The grader's ints are large (each at least 2^30 in magnitude, so two of
 *   them can overflow int), but their true sum fits int. int addition on the
 *   GPU wraps around modulo 2^32, so any order of int additions gives the
 *   true sum exactly, and exactly that is demanded.
 */
#ifndef REDUCTION_H
#define REDUCTION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of device scratch the grader provides to a launcher for @p n elements. */
#define REDUCE_WORKSPACE_BYTES(n) ((size_t)(n) / 32 + 65536)

/** Enqueues result[0] = the sum of in[0, n) over ints on the default stream. */
typedef void reduce_int_launcher(const int *in, size_t n, int *result, void *workspace);

/** Enqueues result[0] = the sum of in[0, n) over floats on the default stream. */
typedef void reduce_float_launcher(const float *in, size_t n, float *result, void *workspace);

/** One rung of the ladder: the same kernels, for both element types. */
typedef struct reduce_variant {
  const char *name;                 /**< e.g. "v2-sequential" */
  const char *what;                 /**< what changed from the previous rung, and why it is faster */
  reduce_int_launcher *sum_int;     /**< its launcher for int */
  reduce_float_launcher *sum_float; /**< its launcher for float */
} reduce_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const reduce_variant reduce_variants[];

/** Number of entries in ::reduce_variants. */
extern const int reduce_variant_count;

#ifdef __cplusplus
}
#endif

#endif
