/**
 * @file verify.h
 * @brief Tolerance-aware comparison: bounds derived from rounding-error analysis, NaN never passes.
 *
 * Float results are judged against a higher-precision reference with a bound
 * of the form gamma_k * sum|terms|, where k is the longest chain of roundings
 * any term goes through in the GPU's order of operations and
 * gamma_k = k u / (1 - k u), u = 2^-24 (Higham, "Accuracy and Stability of
 * Numerical Algorithms", 2nd ed., section 4.2).
 */
#ifndef PP_VERIFY_H
#define PP_VERIFY_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Unit roundoff of IEEE single precision, round to nearest. */
#define PP_FLOAT_UNIT_ROUNDOFF 0x1p-24

/**
 * @def PP_HOST_DEVICE
 * Marks the inline functions below as callable from CUDA device code too: a
 * grader's GPU reference then holds its elements to the very bounds its CPU
 * reference computes, bit for bit.
 */
#ifndef PP_HOST_DEVICE
#ifdef __CUDACC__
#define PP_HOST_DEVICE __host__ __device__
#else
#define PP_HOST_DEVICE
#endif
#endif

/**
 * @param k  number of successive float roundings
 * @return gamma_k = k u / (1 - k u), or +infinity once k u >= 1 (no bound)
 */
static inline PP_HOST_DEVICE double pp_gamma(double k) {
  double ku = k * PP_FLOAT_UNIT_ROUNDOFF;
  return ku < 1.0 ? ku / (1.0 - ku) : INFINITY;
}

/**
 * Worst-case error of a float sum computed with rounding chains of at most
 * @p chain operations: gamma_chain * @p sum_abs.
 * @param chain    longest chain of roundings of any term
 * @param sum_abs  sum of |term|
 * @return the bound
 */
static inline PP_HOST_DEVICE double pp_sum_error_bound(double chain, double sum_abs) {
  return sum_abs == 0.0 ? 0.0 : pp_gamma(chain) * sum_abs;
}

/** The multiple of its scale at which pp_sum_likely_bound() stands: exceeded with probability at
 *  most 2 exp(-8^2 / 2), below 10^-13. */
#define PP_LIKELY_LAMBDA 8.0

/**
 * A statistical bound on the error of a float sum of random terms, far
 * tighter than pp_sum_error_bound() for long sums, which assumes that every
 * rounding errs the same way. The error is the sum of the roundings' errors
 * d_k s_k (s_k each rounded result, |d_k| <= u). Taken as independent with
 * mean 0 (the model under random data: Higham and Mary, "A New Approach to
 * Probabilistic Rounding Error Analysis", 2019), Hoeffding's inequality
 * bounds it by ::PP_LIKELY_LAMBDA u sqrt(sum s_k^2) but with probability at
 * most 2 exp(-::PP_LIKELY_LAMBDA^2 / 2). With S the sum of |term|: each
 * term's own rounding (a product's) adds at most term_max S to sum s_k^2; a
 * thread's serial loop over at most @p serial terms adds at most serial T^2
 * for its sum T <= serial term_max, so all threads at most serial^2
 * term_max S; and chains of at most @p later roundings after that, at most
 * later S^2. A reference rounded once to double adds 2^-52 S.
 * @param serial    most terms one thread's serial loop adds
 * @param later     longest chain of roundings any term goes through after that loop
 * @param term_max  largest |term|
 * @param sum_abs   S, the sum of |term|
 * @return the bound
 */
static inline PP_HOST_DEVICE double pp_sum_likely_bound(double serial, double later, double term_max,
                                                        double sum_abs) {
  double squares = term_max * sum_abs * (1.0 + serial * serial) + later * sum_abs * sum_abs;
  return PP_LIKELY_LAMBDA * PP_FLOAT_UNIT_ROUNDOFF * sqrt(squares) + 0x1p-52 * sum_abs;
}

/**
 * @param got    the value under test
 * @param want   the reference
 * @param bound  largest allowed |got - want|
 * @return 1 only if @p got is finite and within @p bound of @p want
 */
static inline PP_HOST_DEVICE int pp_within(double got, double want, double bound) {
  return isfinite(got) && fabs(got - want) <= bound;
}

/**
 * @param x  a float read back from the device
 * @return 1 if @p x has the bit pattern of a poisoned, never-written float
 */
int pp_is_poison_f32(float x);

/** The first disagreement found by a comparison, and how many there were. */
typedef struct pp_mismatch {
  size_t index;       /**< first wrong element */
  double got;         /**< its value */
  double want;        /**< the reference */
  double bound;       /**< the tolerance it was held to */
  size_t wrong;       /**< number of wrong elements */
  size_t unwritten;   /**< how many of them still hold the poison */
  double worst_ratio; /**< largest |got - want| / bound over the right elements */
  double worst_rel;   /**< largest |got - want| / |want| over the right elements */
} pp_mismatch;

/**
 * Compares a float array with a double reference, element by element.
 * @param got     results
 * @param want    references
 * @param bounds  tolerance per element
 * @param n       length
 * @param m       receives the first mismatch and counts (always filled)
 * @return number of wrong elements
 */
size_t pp_compare_f32(const float *got, const double *want, const double *bounds, size_t n,
                      pp_mismatch *m);

/**
 * Compares int32 arrays exactly.
 * @param got   results
 * @param want  references
 * @param n     length
 * @param m     receives the first mismatch and counts (always filled)
 * @return number of wrong elements
 */
size_t pp_compare_i32(const int32_t *got, const int32_t *want, size_t n, pp_mismatch *m);

#ifdef __cplusplus
}
#endif

#endif
