/**
 * @file matmul.h
 * @brief Lab 05 contract: what labs/05-tiled-matmul/matmul.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant's launcher computes C = A * B in single precision (FP32 fused
 * multiply-adds on the CUDA cores, no tensor cores) for any M, N, K >= 0:
 * it only enqueues work on the default stream (the grader synchronizes and
 * checks errors afterwards).
 *
 * - All three matrices are dense and row-major: A is M x K (element (i, p) at
 *   a[i * K + p]), B is K x N, C is M x N.
 * - a, b and c are device arrays, 256-byte aligned; reading past the end of
 *   a or b reads NaN, so it poisons the answer.
 * - c is poisoned before every run: every one of its M * N elements must be
 *   written, zeros included when K is 0.
 */
#ifndef MATMUL_H
#define MATMUL_H

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Enqueues C = A * B on the default stream.
 * @param a  device matrix A, M x K, row-major
 * @param b  device matrix B, K x N, row-major
 * @param c  device matrix C, M x N, row-major, written entirely
 * @param m  M, rows of A and C, >= 0
 * @param n  N, columns of B and C, >= 0
 * @param k  K, columns of A and rows of B, >= 0
 */
typedef void matmul_launcher(const float *a, const float *b, float *c, int m, int n, int k);

/** One rung of the ladder. */
typedef struct matmul_variant {
  const char *name;         /**< e.g. "v4-2d-register-tile" */
  const char *what;         /**< what changed from the previous rung, and why it is faster */
  matmul_launcher *launch;  /**< its launcher */
} matmul_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const matmul_variant matmul_variants[];

/** Number of entries in ::matmul_variants. */
extern const int matmul_variant_count;

#ifdef __cplusplus
}
#endif

#endif
