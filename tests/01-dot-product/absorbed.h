/* Lab 01's `absorbed` dataset (--dataset absorbed only): the inputs on which
 * plain float summation loses the answer and Kahan's keeps it, and the bound
 * that tells the two apart. Shared by the device fill (absorbed.cu), the
 * grader and the host emulation test (absorbed_emulation.c).
 *
 * The layout follows v2's grouping: chunks of BLOCK * ITEMS = 2048 elements,
 * thread t of a chunk adding elements t + 256 k, k = 0..7. In each such group
 * whose 8 elements are all below n, the products are, in the thread's order,
 *   +B, g, g, g, g, g, g, -B       B = 1 + m 2^-22 (m drawn per group), g = 2^-24,
 * in three groups in four (drawn); in the others, and in a group cut by n,
 * every product is g (so that v6's lanes, whose stride is a multiple of 2048,
 * meet g's and B's together too). B lies in [1, 2), where floats
 * are 2g apart, with an even significand; the exact sum is S = g * (number of
 * g products), every product and S exact in float and in double.
 *
 * Plain summation, B + g: a tie, rounded to the even neighbour B, and so for
 * every g after it: the group sums to B - B = 0, losing its six g (of 6.5 per
 * group on average: relative error 0.69). In the other rungs' orders (v0's
 * serial blocks, v1's trees over 256 consecutive elements, v6's grid-stride
 * float4 lanes) the g's meet a B, or a sum of B's whose spacing is larger
 * still, before they meet enough of each other: much of S is lost there too.
 *
 * Kahan (sum, c; y = x - c, t = sum + y, c = (t - sum) - y, sum = t): after
 * B, the state is (B + 2jg, c = 0). One g: a tie; the sum stays or moves up
 * by 2g, and c = -g or +g holds what was lost. The next g: y = g - c is 2g or
 * 0, added exactly, c = 0. So every pair of g is added exactly, six g give
 * (B + 6g, 0), and -B (y = -B - 0, exact) leaves 6g: the chain is exact.
 *
 * The bound. Kahan's computed sum is sum (1 + d_k) x_k with |d_k| <= 2u +
 * O(n u^2), where plain summation's d_k reach (n - 1) u (Higham, Accuracy and
 * Stability of Numerical Algorithms, 4.2-4.3). Counted over every term, the
 * B's alone allow Kahan 2u * 2B >= 4g a group, within 1.5x of all that plain
 * summation can lose there (six half-spacings of B, 6g): on 8 products a
 * thread no data separates the two by that bound. Here the B's are never
 * rounded (above), so the bound counts the terms that are, the g's: 2u S.
 * The tree and the passes after the threads add positive thread sums (6g or
 * 8g, k g where n cuts a group) through at most DOT_ABSORBED_LEVELS roundings
 * in any order of the ladder: gamma_L S. In all
 *   |error| <= (2u + gamma_L) S,    about 6.1e-5 S,
 * where plain summation's relative error is 0.03 to 1: the emulation test
 * (absorbed_emulation.c) finds each plain order 500 times or more past it
 * wherever n holds a whole group, and v2's grouping with Kahan exact. */
#ifndef DOT_ABSORBED_H
#define DOT_ABSORBED_H

#include <stddef.h>
#include <stdint.h>

#include "pp/verify.h"
#include "random_core.h"

#define DOT_ABSORBED_CHUNK 2048 /* BLOCK * ITEMS of v2 */
#define DOT_ABSORBED_THREADS 256
#define DOT_ABSORBED_ITEMS 8
/* The most roundings after a thread's chain: the grader's allowance for the
 * trees and passes of every rung (grader.c, "at most 1024"). */
#define DOT_ABSORBED_LEVELS 1024.0
#define DOT_ABSORBED_STREAM 0x4142534fu /* "ABSO" */

/* Element i of n: a[i] and b[i], whose product is exact in float. */
static inline PP_HOST_DEVICE void dot_absorbed_at(uint64_t seed, size_t i, size_t n, float *a, float *b) {
  size_t chunk = i / DOT_ABSORBED_CHUNK, r = i % DOT_ABSORBED_CHUNK;
  size_t k = r / DOT_ABSORBED_THREADS, t = r % DOT_ABSORBED_THREADS;
  uint64_t key = pp_stream_key(seed, DOT_ABSORBED_STREAM);
  float sign = pp_bits_at(key, 2 * (uint64_t)i) & 1 ? -1.0f : 1.0f;
  uint64_t group = (uint64_t)chunk * DOT_ABSORBED_THREADS + t, bits = pp_bits_at(key, 2 * group + 1);
  int whole = chunk * DOT_ABSORBED_CHUNK + (DOT_ABSORBED_ITEMS - 1) * DOT_ABSORBED_THREADS + t < n;
  int small = !whole || (bits & 3) == 0 || (k != 0 && k != DOT_ABSORBED_ITEMS - 1);
  if (small) {
    *a = sign * 0x1p-12f; /* g = 2^-24 */
    *b = sign * 0x1p-12f;
    return;
  }
  uint64_t m = pp_bits_below(bits, ((uint64_t)1 << 22) - 4); /* the top 32 bits */
  float big = 1.0f + (float)m * 0x1p-22f; /* exact: m < 2^22 */
  *a = (k == 0 ? sign : -sign) * big;
  *b = sign;
}

/* The bound on a compensated sum's error over this data (the top). */
static inline PP_HOST_DEVICE double dot_absorbed_bound(double exact) {
  return 2.0 * PP_FLOAT_UNIT_ROUNDOFF * fabs(exact) + pp_sum_error_bound(DOT_ABSORBED_LEVELS, fabs(exact));
}

#ifdef __cplusplus
extern "C" {
#endif

/** Fills a[0, n) and b[0, n) on the device (dot_absorbed_at()). */
void dot_fill_absorbed_device(float *a, float *b, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif
