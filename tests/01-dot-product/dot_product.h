/**
 * @file dot_product.h
 * @brief Lab 01 contract: what labs/01-dot-product/dot_product.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant's launcher computes result[0] = sum of a[i] * b[i] over
 * 0 <= i < n, entirely on the GPU, for any n >= 0: it only enqueues work on the
 * default stream (the grader synchronizes and checks errors afterwards).
 *
 * - a and b are device arrays of n floats, 256-byte aligned; reading past
 *   a[n - 1] reads NaN, so it poisons the answer.
 * - result points to one float on the device, poisoned before every run.
 * - workspace holds DOT_WORKSPACE_FLOATS(n) floats of device scratch, also
 *   poisoned before every run: clear whatever must start at zero.
 */
#ifndef DOT_PRODUCT_H
#define DOT_PRODUCT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Scratch floats the grader provides to a launcher for a dot product of length @p n. */
#define DOT_WORKSPACE_FLOATS(n) ((size_t)(n) / 16 + 65536)

/** Enqueues result[0] = dot(a, b) on the default stream. */
typedef void dot_launcher(const float *a, const float *b, size_t n, float *result, float *workspace);

/** One rung of the ladder. */
typedef struct dot_variant {
  const char *name;      /**< e.g. "v3-sequential" */
  const char *what;      /**< what changed from the previous rung, and why it is faster */
  dot_launcher *launch;  /**< its launcher */
} dot_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const dot_variant dot_variants[];

/** Number of entries in ::dot_variants. */
extern const int dot_variant_count;

#ifdef __cplusplus
}
#endif

#endif
