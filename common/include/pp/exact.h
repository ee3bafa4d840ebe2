/**
 * @file exact.h
 * @brief Exact sums and dot products on the GPU: the graders' references, in 128-bit fixed point.
 *
 * The graders' inputs lie on a grid: every value is an integer number of
 * units 2^-f (ints: f = 0; floats of magnitude 0.5 or more, and integers, are
 * multiples of 2^-24). The product of two floats is exact in double and, for
 * inputs on the 2^-24 grid, an integer number of units 2^-48. So each term of
 * a sum is an integer, and the sum of the terms is computed exactly in 128-bit
 * integer arithmetic, in whatever order the GPU's threads take: no rounding
 * anywhere, nothing to bound. Only the final conversion to double rounds, once
 * (pp_exact_rounded()).
 *
 * The functions run a grid-stride loop into per-block partial sums, then a
 * second one-block pass, on the default stream, and wait for the result. A
 * term that is not an integer number of units, or whose units reach 2^62
 * (NaN included), means the caller's grid is wrong: they print a grader error
 * and exit with ::PP_EXIT_FAIL rather than return a rounded sum. Below 2^62
 * units a term, any number of terms (up to 2^64) sums within 128 bits.
 */
#ifndef PP_EXACT_H
#define PP_EXACT_H

#include <stddef.h>
#include <stdint.h>

#include "pp/reference.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A 128-bit two's-complement integer: hi * 2^64 + lo. */
typedef struct pp_int128 {
  uint64_t lo; /**< low 64 bits */
  int64_t hi;  /**< high 64 bits, with the sign */
} pp_int128;

/** An exact sum of terms in fixed point, as the GPU references return it. */
typedef struct pp_exact {
  pp_int128 sum; /**< sum of the terms, in units of 2^-frac_bits */
  pp_int128 abs; /**< sum of |term|, same units: scales every rounding-error bound */
  int frac_bits; /**< the unit is 2^-frac_bits */
} pp_exact;

/**
 * Converts a fixed-point number to double with a single rounding (to nearest, ties to even).
 * @param x          the number of units
 * @param frac_bits  the unit is 2^-frac_bits
 * @return x * 2^-frac_bits, correctly rounded (exact where it fits 53 bits); results
 *         are assumed to lie in double's normal range
 */
double pp_int128_to_double(pp_int128 x, int frac_bits);

/**
 * @param e  an exact sum
 * @return its sum and sum of magnitudes, each correctly rounded to double (relative
 *         error at most 2^-53; exact for integers below 2^53)
 */
pp_sum pp_exact_rounded(pp_exact e);

/**
 * Exact sum of an int32 device array, in units of 1 (frac_bits 0).
 * @param x  device array
 * @param n  its length
 * @return the sum and the sum of |x[i]|
 */
pp_exact pp_exact_sum_i32_device(const int32_t *x, size_t n);

/**
 * Exact sum of a float device array whose every element is an integer multiple of 2^-frac_bits.
 * @param x          device array
 * @param n          its length
 * @param frac_bits  the grid: 24 holds floats of magnitude 0.5 or more, and integers
 * @return the sum and the sum of |x[i]|, in units of 2^-frac_bits
 */
pp_exact pp_exact_sum_f32_device(const float *x, size_t n, int frac_bits);

/**
 * Exact dot product of two float device arrays whose every product a[i] * b[i]
 * (exact in double) is an integer multiple of 2^-frac_bits.
 * @param a          device array
 * @param b          device array
 * @param n          length of both
 * @param frac_bits  the grid of the products: 48 for inputs on the 2^-24 grid
 * @return the dot product and the sum of |a[i] * b[i]|, in units of 2^-frac_bits
 */
pp_exact pp_exact_dot_f32_device(const float *a, const float *b, size_t n, int frac_bits);

#ifdef __cplusplus
}
#endif

#endif
