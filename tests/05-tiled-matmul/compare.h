/**
 * @file compare.h
 * @brief Lab 05's checks on the GPU: the grader's side (compare.cu), not the student's.
 *
 * The grader fills A and B on the GPU (pp/random.h's device fills). These
 * functions regenerate them element by element from the seed to see that they
 * are unchanged, then judge every element of C against a reference product
 * in double computed on the GPU: nothing of size M x N crosses to the host.
 */
#ifndef MATMUL_COMPARE_H
#define MATMUL_COMPARE_H

#include <stdint.h>

#include "pp/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The datasets, in the grader's order (grader.c says what each is for). */
enum matmul_data { MATMUL_WIDE, MATMUL_UNIFORM };

/** The random stream of A. */
#define MATMUL_A_STREAM 1

/** The random stream of B. */
#define MATMUL_B_STREAM 2

/** The wide data's values: integers of 12 or 13 bits, from 2^11 ... */
#define MATMUL_WIDE_MIN 2048

/** ... to 2^13 - 1 in magnitude ... */
#define MATMUL_WIDE_MAX 8191

/** ... times nonzero integers up to this magnitude. */
#define MATMUL_WIDE_FACTOR_MAX_ABS 2

/** The uniform data's lower end ... */
#define MATMUL_UNIFORM_LO -1.0f

/** ... and its upper end, excluded. */
#define MATMUL_UNIFORM_HI 1.0f

/**
 * The tolerance of an element of C whose K products have magnitudes adding up
 * to @p sum_abs (derived in grader.c), the same on the CPU and the GPU.
 * @param exact    1 where every order of additions is exact (grader.c says where)
 * @param k        K
 * @param sum_abs  sum over p of |a_ip b_pj|
 * @return the largest allowed |got - reference|
 */
static inline PP_HOST_DEVICE double matmul_tolerance(int exact, int k, double sum_abs) {
  return exact ? 0.0 : pp_sum_error_bound((double)k + 2.0, sum_abs);
}

/**
 * Compares a device matrix with the values the grader's fill gave it (synchronizes).
 * @param x         device matrix A (rows = M, cols = K) or B (rows = K, cols = N)
 * @param rows      its rows
 * @param cols      its columns
 * @param data      the dataset, a ::matmul_data
 * @param seed      the fill's seed
 * @param stream    ::MATMUL_A_STREAM or ::MATMUL_B_STREAM
 * @param m         receives the tally: any wrong element is one the kernel changed
 */
void matmul_check_input(const float *x, int rows, int cols, int data, uint64_t seed, uint64_t stream,
                        pp_mismatch *m);

/**
 * Fills A or B with the wide data on the device (enqueued on the default
 * stream): along K, the columns of A at even p and the rows of B at odd p hold
 * wide integers (::MATMUL_WIDE_MIN to ::MATMUL_WIDE_MAX, either sign), the
 * others small ones (nonzero, at most ::MATMUL_WIDE_FACTOR_MAX_ABS): each
 * product is a wide value times a small one, and both matrices hold both.
 * @param x       device matrix A (rows = M, cols = K) or B (rows = K, cols = N)
 * @param rows    its rows
 * @param cols    its columns
 * @param stream  ::MATMUL_A_STREAM (x is A) or ::MATMUL_B_STREAM (x is B)
 * @param seed    the fill's seed
 */
void matmul_fill_wide(float *x, int rows, int cols, uint64_t stream, uint64_t seed);

/**
 * matmul_fill_wide() on the host: the same values, for the cross-check.
 * @param x       host matrix
 * @param rows    its rows
 * @param cols    its columns
 * @param stream  ::MATMUL_A_STREAM or ::MATMUL_B_STREAM
 * @param seed    the fill's seed
 */
void matmul_fill_wide_host(float *x, int rows, int cols, uint64_t stream, uint64_t seed);

/**
 * Judges every element of C against the product of A and B in double
 * (synchronizes). A and B must be the grader's (matmul_check_input()).
 * @param a             device matrix A, M x K
 * @param b             device matrix B, K x N
 * @param c             device matrix C, M x N
 * @param m             M
 * @param n             N
 * @param k             K
 * @param exact         whether only the exact answer passes (matmul_tolerance())
 * @param want_record   NULL, or a device array of M x N doubles that receives the reference
 * @param bound_record  NULL, or a device array of M x N doubles that receives the bounds
 * @param tally         receives the tally; its index is row * N + column
 */
void matmul_check_product(const float *a, const float *b, const float *c, int m, int n, int k, int exact,
                          double *want_record, double *bound_record, pp_mismatch *tally);

#ifdef __cplusplus
}
#endif

#endif
