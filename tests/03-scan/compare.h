/**
 * @file compare.h
 * @brief Lab 03's data and checks on the GPU: the grader's side (compare.cu), not the student's.
 *
 * The grader fills the input on the GPU (pp/random.h's device fills). These
 * functions regenerate it element by element from the seed, so that neither the
 * input check nor the reference depends on what is in device memory after the
 * student's code ran, and judge every output element against the exact scan of
 * its section, computed on the GPU: nothing of size n crosses to the host.
 */
#ifndef SCAN_COMPARE_H
#define SCAN_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "pp/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The random stream the input is drawn from. */
#define SCAN_INPUT_STREAM 1

/** Lower end of the float data (uniform on a grid of 2^-24). */
#define SCAN_FLOAT_LO 0.5f

/** Upper end of the float data, excluded. */
#define SCAN_FLOAT_HI 1.5f

/**
 * The int data is uniform in [lo, hi]: hi = floor((2^31 - 1) / section), so
 * any sum of at most @p section elements fits int32, and lo = -floor(hi / 4),
 * so every sum drifts upward by 3 hi / 8 per element on average.
 * @param section  section length, 1 to SCAN_MAX_SECTION
 * @return hi
 */
static inline int32_t scan_int_hi(int section) {
  return (int32_t)(INT32_MAX / section);
}

/**
 * @param section  section length, 1 to SCAN_MAX_SECTION
 * @return lo, the int data's smallest value (see scan_int_hi())
 */
static inline int32_t scan_int_lo(int section) {
  return -(scan_int_hi(section) / 4);
}

/**
 * The tolerance of a float output element that adds up @p terms terms whose
 * magnitudes sum to @p sum_abs (derived in grader.c). The CPU reference and
 * the GPU one call this same function, so their bounds agree bit for bit.
 * @param terms    terms in the prefix: 0 or more
 * @param sum_abs  sum of their magnitudes
 * @return the largest allowed |got - exact|
 */
static inline PP_HOST_DEVICE double scan_tolerance(size_t terms, double sum_abs) {
  double chain = terms > 0 ? (double)(terms - 1) : 0.0;
  return pp_sum_error_bound(chain, sum_abs) + 2.0 * chain * 0x1p-53 * sum_abs;
}

/**
 * Compares the device input with the values the grader's fill gave it (synchronizes).
 * @param in        device input, n int32 or n floats
 * @param n         elements
 * @param section   section length (sets the int range)
 * @param is_float  1 for the float data, 0 for the int data
 * @param seed      the fill's seed
 * @param m         receives the tally: any wrong element is one the kernel changed
 */
void scan_check_input(const void *in, size_t n, int section, int is_float, uint64_t seed,
                      pp_mismatch *m);

/**
 * Judges every output element against the exact scan of its section (synchronizes).
 * @param out           device output, n int32 or n floats
 * @param n             elements
 * @param section       section length, 1 to SCAN_MAX_SECTION
 * @param is_float      1 for the float data, 0 for the int data
 * @param exclusive     1 for the exclusive scan, 0 for the inclusive one
 * @param seed          the fill's seed
 * @param want_record   NULL, or a device array of n doubles that receives the reference
 * @param bound_record  NULL, or a device array of n doubles that receives the bounds
 * @param m             receives the tally
 */
void scan_check_output(const void *out, size_t n, int section, int is_float, int exclusive,
                       uint64_t seed, double *want_record, double *bound_record, pp_mismatch *m);

#ifdef __cplusplus
}
#endif

#endif
