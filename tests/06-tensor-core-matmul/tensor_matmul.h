/**
 * @file tensor_matmul.h
 * @brief Lab 06 contract: what labs/06-tensor-core-matmul/tensor_matmul.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant's launcher computes C = A * B with BF16 inputs and FP32
 * accumulation (on the tensor cores from v1 on) for any M, N, K >= 0; it only
 * enqueues work on the default stream (the grader synchronizes and checks
 * errors afterwards).
 *
 * Layouts, as tensor cores want them (both inputs K-major, "TN"):
 * - A is M x K, row-major: element (i, p) at a[i * ld + p].
 * - B is K x N, column-major: element (p, j) at b[j * ld + p] (B's columns
 *   are stored as rows of K elements, the layout cuBLAS calls transposed).
 * - ld = tensor_matmul_pitch(k), K rounded up to a multiple of 8: every row
 *   of A and every column of B starts on a 16-byte boundary, as 16-byte
 *   loads and the Hopper copy engine (TMA) need. The padding elements
 *   (p >= K) hold NaN: a kernel that reads them must not let them reach C.
 * - C is M x N, row-major FP32: element (i, j) at c[i * N + j].
 * - a, b and c are device arrays, 256-byte aligned; reading past the end of
 *   a or b reads NaN, so it poisons the answer.
 * - c is poisoned before every run: every one of its M * N elements must be
 *   written, zeros included when K is 0.
 */
#ifndef TENSOR_MATMUL_H
#define TENSOR_MATMUL_H

#ifdef __cplusplus
#include <cuda_bf16.h>
/** A BF16 value: CUDA's own type in the lab file, its 16 bits in the C grader. */
typedef __nv_bfloat16 tensor_bf16;
extern "C" {
#else
#include <stdint.h>
typedef uint16_t tensor_bf16;
#endif

/** Row pitch of A and column pitch of B, in elements: K rounded up to a multiple of 8. */
static inline long long tensor_matmul_pitch(int k) {
  return ((long long)k + 7) / 8 * 8;
}

/**
 * Enqueues C = A * B on the default stream.
 * @param a  device matrix A, M x K, row-major with pitch tensor_matmul_pitch(k)
 * @param b  device matrix B, K x N, column-major with pitch tensor_matmul_pitch(k)
 * @param c  device matrix C, M x N, row-major FP32, written entirely
 * @param m  M, rows of A and C, >= 0
 * @param n  N, columns of B and C, >= 0
 * @param k  K, columns of A and rows of B, >= 0
 */
typedef void tensor_matmul_launcher(const tensor_bf16 *a, const tensor_bf16 *b, float *c, int m,
                                    int n, int k);

/** One rung of the ladder. */
typedef struct tensor_matmul_variant {
  const char *name;                /**< e.g. "v2-mma-ldmatrix" */
  const char *what;                /**< what changed from the previous rung, and why it is faster */
  tensor_matmul_launcher *launch;  /**< its launcher */
} tensor_matmul_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const tensor_matmul_variant tensor_matmul_variants[];

/** Number of entries in ::tensor_matmul_variants. */
extern const int tensor_matmul_variant_count;

#ifdef __cplusplus
}
#endif

#endif
