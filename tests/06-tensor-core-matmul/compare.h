/**
 * @file compare.h
 * @brief Lab 06's checks on the GPU: the grader's side (compare.cu), not the student's.
 *
 * The grader fills A and B on the GPU, padding included. These functions
 * regenerate them element by element from the seed to see that they are
 * unchanged, then judge every element of C against a reference product in
 * double computed on the GPU: nothing of size M x N crosses to the host.
 *
 * A and B are both stored as "vectors" of K BF16 elements with pitch
 * tensor_matmul_pitch(K) (tensor_matmul.h): A's rows, B's columns. Element p
 * of vector v is at x[v * pitch + p]; p >= K is padding, NaN.
 */
#ifndef TENSOR_MATMUL_COMPARE_H
#define TENSOR_MATMUL_COMPARE_H

#include <stdint.h>
#include <string.h>

#include "pp/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The datasets, in the grader's order (grader.c says what each is for). */
enum tensor_matmul_data { TENSOR_MATMUL_EXACT, TENSOR_MATMUL_UNIFORM };

/** The random stream of A. */
#define TENSOR_MATMUL_A_STREAM 1

/** The random stream of B. */
#define TENSOR_MATMUL_B_STREAM 2

/** The exact data's wide values: odd integers from 17 (5 significant bits) ... */
#define TENSOR_MATMUL_WIDE_MIN 17

/** ... to 255 (8, all that BF16 holds) in magnitude ... */
#define TENSOR_MATMUL_WIDE_MAX 255

/** ... times nonzero integers up to this magnitude. */
#define TENSOR_MATMUL_FACTOR_MAX_ABS 2

/** The uniform data's lower end ... */
#define TENSOR_MATMUL_UNIFORM_LO -1.0f

/** ... and its upper end, excluded (then rounded to BF16). */
#define TENSOR_MATMUL_UNIFORM_HI 1.0f

/** The bits of the padding elements: a BF16 quiet NaN. */
#define TENSOR_MATMUL_PAD_BITS 0x7FC0u

/**
 * @param bits  a BF16 value's 16 bits
 * @return its value (exact: a BF16 is a float with the low 16 bits clear)
 */
static inline PP_HOST_DEVICE double tensor_matmul_value(uint16_t bits) {
  uint32_t word = (uint32_t)bits << 16;
  float value;
  memcpy(&value, &word, sizeof value);
  return value;
}

/**
 * The tolerance of an element of C whose K products have magnitudes adding up
 * to @p sum_abs (derived in grader.c), the same on the CPU and the GPU.
 * @param exact    1 where every order of additions is exact (grader.c says where)
 * @param k        K
 * @param sum_abs  sum over p of |a_ip b_pj|
 * @return the largest allowed |got - reference|
 */
static inline PP_HOST_DEVICE double tensor_matmul_tolerance(int exact, int k, double sum_abs) {
  return exact ? 0.0 : pp_sum_error_bound(4.0 * k, sum_abs);
}

/**
 * Fills A or B, padding included, on the device (enqueued on the default
 * stream). The exact data: along K, A's elements at even p and B's at odd p
 * are wide integers (odd, ::TENSOR_MATMUL_WIDE_MIN to ::TENSOR_MATMUL_WIDE_MAX,
 * either sign), the others small ones (nonzero, at most
 * ::TENSOR_MATMUL_FACTOR_MAX_ABS): each product is a wide value times a small
 * one, and both matrices hold both. The uniform data: uniform in
 * [::TENSOR_MATMUL_UNIFORM_LO, ::TENSOR_MATMUL_UNIFORM_HI) on a grid of
 * 2^24 points, rounded to the nearest BF16 (ties to even).
 * @param x        device matrix A (vectors = M rows) or B (vectors = N columns)
 * @param vectors  its rows (A) or columns (B)
 * @param k        K: the elements of each vector before its padding
 * @param data     the dataset, a ::tensor_matmul_data
 * @param stream   ::TENSOR_MATMUL_A_STREAM (x is A) or ::TENSOR_MATMUL_B_STREAM (x is B)
 * @param seed     the fill's seed
 */
void tensor_matmul_fill(uint16_t *x, int vectors, int k, int data, uint64_t stream, uint64_t seed);

/**
 * tensor_matmul_fill() on the host: the same bits, for the cross-check.
 * @param x        host matrix
 * @param vectors  its rows (A) or columns (B)
 * @param k        K
 * @param data     the dataset
 * @param stream   ::TENSOR_MATMUL_A_STREAM or ::TENSOR_MATMUL_B_STREAM
 * @param seed     the fill's seed
 */
void tensor_matmul_fill_host(uint16_t *x, int vectors, int k, int data, uint64_t stream, uint64_t seed);

/**
 * Compares a device matrix, padding included, bit for bit with what the
 * grader's fill wrote there (synchronizes).
 * @param x        device matrix A or B
 * @param vectors  its rows (A) or columns (B)
 * @param k        K
 * @param data     the dataset
 * @param seed     the fill's seed
 * @param stream   ::TENSOR_MATMUL_A_STREAM or ::TENSOR_MATMUL_B_STREAM
 * @param m        receives the tally; its index is vector * pitch + p, and any
 *                 wrong element is one the kernel changed
 */
void tensor_matmul_check_input(const uint16_t *x, int vectors, int k, int data, uint64_t seed,
                               uint64_t stream, pp_mismatch *m);

/**
 * Judges every element of C against the product of A and B in double
 * (synchronizes). A and B must be the grader's (tensor_matmul_check_input()).
 * @param a             device matrix A, M rows of pitch tensor_matmul_pitch(k)
 * @param b             device matrix B, N columns of that pitch
 * @param c             device matrix C, M x N, row-major FP32
 * @param m             M
 * @param n             N
 * @param k             K
 * @param exact         whether only the exact answer passes (tensor_matmul_tolerance())
 * @param want_record   NULL, or a device array of M x N doubles that receives the reference
 * @param bound_record  NULL, or a device array of M x N doubles that receives the bounds
 * @param tally         receives the tally; its index is row * N + column
 */
void tensor_matmul_check_product(const uint16_t *a, const uint16_t *b, const float *c, int m, int n, int k,
                                 int exact, double *want_record, double *bound_record, pp_mismatch *tally);

#ifdef __cplusplus
}
#endif

#endif
