/**
 * @file random.h
 * @brief Seeded, reproducible random inputs: never zeros, never constants.
 *
 * Every value is a pure function of (seed, stream, index), so the same seed
 * gives the same data on every machine and in any order of generation; the
 * stream separates the arrays of one problem (a and b of a dot product).
 */
#ifndef PP_RANDOM_H
#define PP_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The seed used when the command line names none. */
#define PP_DEFAULT_SEED 20261122u

/**
 * 64 random bits for element @p index of array @p stream (splitmix64 mixing).
 * @param seed    the run's seed
 * @param stream  which array
 * @param index   which element
 * @return the bits
 */
uint64_t pp_random_bits(uint64_t seed, uint64_t stream, uint64_t index);

/**
 * Fills @p x with floats uniform in [lo, hi), on a grid of (hi - lo) / 2^24.
 * @param x       the array
 * @param n       its length
 * @param lo      lower end, included
 * @param hi      upper end, excluded
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_uniform_f32(float *x, size_t n, float lo, float hi, uint64_t seed, uint64_t stream);

/**
 * Fills @p x with nonzero integers in [-max_abs, max_abs], stored as floats.
 * Sums of such values are exact in float while every partial sum stays
 * below 2^24 in magnitude, which lets graders demand the exact answer.
 * @param x        the array
 * @param n        its length
 * @param max_abs  largest magnitude, 1 to 2^20
 * @param seed     the run's seed
 * @param stream   which array
 */
void pp_fill_nonzero_ints_f32(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream);

/**
 * pp_fill_nonzero_ints_f32()'s values divided by 4 (exactly): small numbers,
 * integers only where the value before the division is a multiple of 4 (a
 * quarter of them for @p max_abs 4), whose sums are exact in any order
 * wherever those of the integers are.
 * @param x        the array
 * @param n        its length
 * @param max_abs  largest magnitude before the division, 1 to 2^20
 * @param seed     the run's seed
 * @param stream   which array
 */
void pp_fill_nonzero_quarters_f32(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream);

/**
 * Fills @p x with integers uniform in [lo, hi].
 * @param x       the array
 * @param n       its length
 * @param lo      smallest value
 * @param hi      largest value, at least @p lo
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_ints_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream);

/**
 * Fills @p x with large ints whose sums over any range telescope:
 * x[i] = r(i + 1) - r(i), where r(k) is even, of magnitude in [2^29, 2^30),
 * with the sign of (-1)^k. So every |x[i]| lies in [2^30, 2^31 - 4] (past
 * float's exact integers, and seldom a float), every x[i] is even, the sum of
 * any x[a..b) is r(b) - r(a), within int32 and even (never -1, the poison),
 * while the sum of any two elements whose indices have the same parity is at
 * least 2^31 in magnitude: an order of additions that groups such elements
 * passes through int32's wrap-around (or needs 64 bits) on the way to the
 * exact total.
 * @param x       the array
 * @param n       its length
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_telescoping_i32(int32_t *x, size_t n, uint64_t seed, uint64_t stream);

/**
 * pp_fill_uniform_f32() on device memory: the same values, element for
 * element, enqueued on the default stream.
 * @param x       the device array
 * @param n       its length
 * @param lo      lower end, included
 * @param hi      upper end, excluded
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_uniform_f32_device(float *x, size_t n, float lo, float hi, uint64_t seed, uint64_t stream);

/**
 * pp_fill_nonzero_ints_f32() on device memory: the same values, enqueued on the default stream.
 * @param x        the device array
 * @param n        its length
 * @param max_abs  largest magnitude, 1 to 2^20
 * @param seed     the run's seed
 * @param stream   which array
 */
void pp_fill_nonzero_ints_f32_device(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream);

/**
 * pp_fill_nonzero_quarters_f32() on device memory: the same values, enqueued on the default stream.
 * @param x        the device array
 * @param n        its length
 * @param max_abs  largest magnitude before the division, 1 to 2^20
 * @param seed     the run's seed
 * @param stream   which array
 */
void pp_fill_nonzero_quarters_f32_device(float *x, size_t n, int max_abs, uint64_t seed,
                                         uint64_t stream);

/**
 * pp_fill_ints_i32() on device memory: the same values, enqueued on the default stream.
 * @param x       the device array
 * @param n       its length
 * @param lo      smallest value
 * @param hi      largest value, at least @p lo
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_ints_i32_device(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream);

/**
 * pp_fill_telescoping_i32() on device memory: the same values, enqueued on the default stream.
 * @param x       the device array
 * @param n       its length
 * @param seed    the run's seed
 * @param stream  which array
 */
void pp_fill_telescoping_i32_device(int32_t *x, size_t n, uint64_t seed, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif
