/**
 * @file reference.h
 * @brief CPU references in higher precision than the GPU code they judge.
 */
#ifndef PP_REFERENCE_H
#define PP_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A reference sum and the sum of the magnitudes of its terms (for error bounds). */
typedef struct pp_sum {
  double value; /**< the sum, with error far below float rounding */
  double abs;   /**< sum of |term|: scales every rounding-error bound */
} pp_sum;

/** Neumaier's compensated summation in double, the building block of the references. */
typedef struct pp_accumulator {
  double sum;          /**< running sum */
  double compensation; /**< rounding error lost by @p sum so far */
  double abs;          /**< running sum of |term| */
} pp_accumulator;

/**
 * Adds one term to @p acc.
 * @param acc   the accumulator, zero-initialized before the first term
 * @param term  the term
 */
void pp_accumulate(pp_accumulator *acc, double term);

/**
 * @param acc  the accumulator
 * @return its compensated sum and sum of magnitudes
 */
pp_sum pp_accumulated(const pp_accumulator *acc);

/**
 * Dot product of two float arrays. Each product of two floats is exact in
 * double; the sum is compensated, so the result is correct to a few double ulps.
 * @param a  first array
 * @param b  second array
 * @param n  length of both
 * @return the dot product and the sum of |a[i] * b[i]|
 */
pp_sum pp_reference_dot_f32(const float *a, const float *b, size_t n);

/**
 * Sum of a float array, compensated in double.
 * @param x  the array
 * @param n  its length
 * @return the sum and the sum of |x[i]|
 */
pp_sum pp_reference_sum_f32(const float *x, size_t n);

/**
 * Exact sum of an int32 array.
 * @param x  the array
 * @param n  its length (the sum must fit int64, as it does below 2^32 terms)
 * @return the sum
 */
int64_t pp_reference_sum_i32(const int32_t *x, size_t n);

#ifdef __cplusplus
}
#endif

#endif
