/**
 * @file compare.h
 * @brief Lab 04's data and checks on the GPU: the grader's side (compare.cu), not the student's.
 *
 * The grader draws the input on the GPU. These functions regenerate it element
 * by element from the seed, so that neither the input check nor the reference
 * depends on what is in device memory after the student's code ran, and judge
 * every output element against the exact prefix, computed on the GPU in int64
 * (in units of 2^-24 for the float data): nothing of size n crosses to the host.
 */
#ifndef SCAN_COMPARE_H
#define SCAN_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "pp/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The random stream of the int data's noise. */
#define SCAN_INT_STREAM 1

/** The random stream of the float data. */
#define SCAN_FLOAT_STREAM 2

/** The random stream of the int data's phase. */
#define SCAN_PHASE_STREAM 3

/** Lower end of the float data (uniform on a grid of 2^-24). */
#define SCAN_FLOAT_LO 0.5f

/** Upper end of the float data, excluded. */
#define SCAN_FLOAT_HI 1.5f

/** The int data's drift: a triangle wave between -2^28 and 2^28 ... */
#define SCAN_INT_AMPLITUDE ((int64_t)1 << 28)

/** ... that moves 2^14 per element, ... */
#define SCAN_INT_SLOPE ((int64_t)1 << 14)

/** ... so repeats every 2^16 elements. */
#define SCAN_INT_PERIOD (4 * SCAN_INT_AMPLITUDE / SCAN_INT_SLOPE)

/** The int data's noise: uniform in [-2^20, 2^20). */
#define SCAN_INT_NOISE ((int64_t)1 << 20)

/**
 * The path the int data's prefix sums follow: drift plus noise, within
 * +-(2^28 + 2^20). The int data is its steps (scan_int_value()).
 * @param bits   64 random bits for this point (stream ::SCAN_INT_STREAM)
 * @param phase  where the point is in the drift's period: 0 to ::SCAN_INT_PERIOD - 1
 * @return the point
 */
static inline PP_HOST_DEVICE int64_t scan_int_path(uint64_t bits, int64_t phase) {
  int64_t half = SCAN_INT_PERIOD / 2, up = phase < half ? phase : SCAN_INT_PERIOD - phase;
  return up * SCAN_INT_SLOPE - SCAN_INT_AMPLITUDE + ((int64_t)(bits >> 43) - SCAN_INT_NOISE);
}

/**
 * Element i of the int data: path(i + 1) - path(i), so the sum of elements a
 * to b - 1 is path(b) - path(a), whatever a and b.
 * @param bits       the random bits of point i
 * @param next_bits  those of point i + 1
 * @param phase      (i + the seed's phase) mod ::SCAN_INT_PERIOD
 * @return the element
 */
static inline PP_HOST_DEVICE int32_t scan_int_value(uint64_t bits, uint64_t next_bits, int64_t phase) {
  int64_t next = phase + 1 == SCAN_INT_PERIOD ? 0 : phase + 1;
  return (int32_t)(scan_int_path(next_bits, next) - scan_int_path(bits, phase));
}

/**
 * The tolerance factor of a float output element (derived in grader.c), the
 * same on the CPU and the GPU.
 * @param i  the element's index
 * @return gamma_L, L = 64 + 8 floor(i / 1024)
 */
static inline PP_HOST_DEVICE double scan_gamma_at(size_t i) {
  return pp_gamma(64.0 + 8.0 * (double)(i / 1024));
}

/**
 * Draws the int data into a device array (on the default stream).
 * @param x     device array
 * @param n     its length
 * @param seed  the run's seed
 */
void scan_fill_ints_device(int32_t *x, size_t n, uint64_t seed);

/**
 * Compares the device input with the data drawn for @p seed (synchronizes).
 * @param in        device input, n ints or n floats
 * @param n         elements
 * @param is_float  1 for the float data, 0 for the int data
 * @param seed      the fill's seed
 * @param m         receives the tally: any wrong element is one the kernel changed
 */
void scan_check_input(const void *in, size_t n, int is_float, uint64_t seed, pp_mismatch *m);

/**
 * @param n  elements
 * @return device scratch bytes that scan_check_output() needs
 */
size_t scan_check_scratch_bytes(size_t n);

/**
 * Judges every output element against the exact prefix of the data (synchronizes).
 * @param out           device output, n ints or n floats
 * @param n             elements
 * @param is_float      1 for the float data, 0 for the int data
 * @param exclusive     1 for the exclusive scan, 0 for the inclusive one
 * @param seed          the fill's seed
 * @param scratch       scan_check_scratch_bytes(@p n) bytes of device memory
 * @param want_record   NULL, or a device array of n doubles that receives the reference
 * @param bound_record  NULL, or a device array of n doubles that receives the bounds
 * @param m             receives the tally
 */
void scan_check_output(const void *out, size_t n, int is_float, int exclusive, uint64_t seed,
                       void *scratch, double *want_record, double *bound_record, pp_mismatch *m);

#ifdef __cplusplus
}
#endif

#endif
