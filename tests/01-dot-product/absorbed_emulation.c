/* 01-dot-product.absorbed-emulation: the absorbed dataset (absorbed.h) summed
 * on the CPU, in float, in the orders of the ladder's rungs as the solution
 * adds them, against the bound the accuracy test judges by. Plain summation
 * (v0's serial blocks, v1's interleaved trees, v6's float4 lanes, and v2's
 * grouping without its compensation) must miss the bound by 10x or more
 * wherever n holds a whole group of 8; Kahan's in v2's grouping (and the
 * trees after it) must meet it at every n. Built with -ffp-contract=off: each
 * operation rounds once, as each float add and fmaf of exact products does
 * on the GPU. Exit 0 when all hold, 1 with the line that failed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "absorbed.h"
#include "pp/random.h"

#define BLOCK DOT_ABSORBED_THREADS
#define ITEMS DOT_ABSORBED_ITEMS
#define MISS 10.0 /* how many times the bound plain summation must miss it by */

typedef enum { PLAIN, KAHAN, KAHAN_SIGN_FLIPPED } chain;

static float *products; /* the products a[i] b[i], each exact in float */
static float *partials;

/* A tree over x[0, count), count a power of two: interleaved (v1, v2) or
 * sequential (the solution's finish_sum(), v3's) addressing. */
static float tree(float *x, int count, int interleaved) {
  if (interleaved) {
    for (int stride = 1; stride < count; stride *= 2)
      for (int t = 0; t + stride < count; t += 2 * stride) x[t] += x[t + stride];
  } else {
    for (int stride = count / 2; stride > 0; stride /= 2)
      for (int t = 0; t < stride; ++t) x[t] += x[t + stride];
  }
  return x[0];
}

/* The solution's finish_sum(): passes of blocks that each add 2 * BLOCK partials. */
static float finish_sum(float *in, size_t count) {
  float cache[BLOCK];
  do {
    size_t blocks = (count + 2 * BLOCK - 1) / (2 * BLOCK);
    for (size_t block = 0; block < blocks; ++block) {
      for (size_t t = 0; t < BLOCK; ++t) {
        size_t i = block * 2 * BLOCK + t;
        float x = 0.0f;
        if (i < count) x = in[i];
        if (i + BLOCK < count) x += in[i + BLOCK];
        cache[t] = x;
      }
      in[block] = tree(cache, BLOCK, 0);
    }
    count = blocks;
  } while (count > 1);
  return in[0];
}

/* v0 (serial == 1) and v1: a block per BLOCK products, then finish_sum(). */
static float one_per_thread(size_t n, int serial) {
  size_t blocks = (n + BLOCK - 1) / BLOCK;
  for (size_t block = 0; block < blocks; ++block) {
    float x[BLOCK], sum = 0.0f;
    for (size_t t = 0; t < BLOCK; ++t) x[t] = block * BLOCK + t < n ? products[block * BLOCK + t] : 0.0f;
    for (size_t t = 0; t < BLOCK && serial; ++t) sum += x[t];
    partials[block] = serial ? sum : tree(x, BLOCK, 1);
  }
  return finish_sum(partials, blocks);
}

/* v2's grouping: each thread's ITEMS products, elements first, first + BLOCK, ...
 * (a plain chain, Kahan's, or the mutant's with the compensation's sign flipped),
 * the interleaved tree, then finish_sum(). */
static float grouped(size_t n, chain how) {
  size_t blocks = (n + BLOCK * ITEMS - 1) / (BLOCK * ITEMS);
  for (size_t block = 0; block < blocks; ++block) {
    float x[BLOCK];
    for (size_t t = 0; t < BLOCK; ++t) {
      float sum = 0.0f, c = 0.0f;
      for (size_t k = 0; k < ITEMS; ++k) {
        size_t i = block * BLOCK * ITEMS + t + k * BLOCK;
        if (i >= n) continue;
        if (how == PLAIN) {
          sum += products[i];
          continue;
        }
        float y = how == KAHAN ? products[i] - c : products[i] + c;
        float s = sum + y;
        c = (s - sum) - y;
        sum = s;
      }
      x[t] = sum;
    }
    partials[block] = tree(x, BLOCK, 1);
  }
  return finish_sum(partials, blocks);
}

/* v6 with a grid of at most @p grid blocks (v6_grid(): 512 on an H200): four
 * float lanes per thread over a grid-stride loop of float4s, the tail, then
 * warp shuffles, the warps' sums in warp 0, and finish_sum(). */
static float vectorized(size_t n, size_t grid) {
  size_t per_block = (n + grid - 1) / grid;
  if (per_block < 4 * BLOCK) per_block = 4 * BLOCK;
  size_t blocks = (n + per_block - 1) / per_block, n4 = n / 4, stride = blocks * BLOCK;
  for (size_t block = 0; block < blocks; ++block) {
    float x[BLOCK];
    for (size_t t = 0; t < BLOCK; ++t) {
      size_t first = block * BLOCK + t;
      float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      size_t i = first;
      for (; i + 3 * stride < n4; i += 4 * stride)
        for (size_t k = 0; k < 4; ++k)
          for (int lane = 0; lane < 4; ++lane) acc[lane] += products[4 * (i + k * stride) + lane];
      for (; i < n4; i += stride)
        for (int lane = 0; lane < 4; ++lane) acc[lane] += products[4 * i + lane];
      float sum = (acc[0] + acc[1]) + (acc[2] + acc[3]);
      if (first < n - 4 * n4) sum += products[4 * n4 + first];
      x[t] = sum;
    }
    float warps[BLOCK / 32] = {0};
    for (int w = 0; w < BLOCK / 32; ++w) /* __shfl_down_sync by 16, 8, 4, 2, 1: lane 0's sum */
      warps[w] = tree(x + 32 * w, 32, 0);
    float last[32] = {0};
    for (int w = 0; w < BLOCK / 32; ++w) last[w] = warps[w];
    partials[block] = tree(last, 32, 0);
  }
  return finish_sum(partials, blocks);
}

int main(void) {
  /* Whole chunks, cut groups (n % 2048 = 3 and odd sizes), and the grid's
   * turn of v6 (2^21 and past it). */
  static const size_t sizes[] = {2048, 2049, 65537, 999983, (size_t)1 << 20, ((size_t)1 << 21) + 3,
                                 (size_t)1 << 22};
  size_t most = (size_t)1 << 22;
  products = malloc(most * sizeof *products);
  partials = malloc((most / BLOCK + 1) * sizeof *partials);
  if (!products || !partials) return 1;
  int failed = 0;
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; ++s) {
    size_t n = sizes[s];
    double exact = 0.0; /* exact in double: multiples of 2^-24 far below 2^53 of them */
    for (size_t i = 0; i < n; ++i) {
      float a, b;
      dot_absorbed_at(PP_DEFAULT_SEED, i, n, &a, &b);
      products[i] = a * b;
      exact += products[i];
    }
    double bound = dot_absorbed_bound(exact);
    printf("n = %zu: exact sum %.9g, Kahan's bound %.3g (relative %.2e)\n", n, exact, bound, bound / exact);
    struct {
      const char *order;
      int plain;
      float got;
    } runs[] = {
        {"v0 serial blocks (plain)", 1, one_per_thread(n, 1)},
        {"v1 interleaved trees (plain)", 1, one_per_thread(n, 0)},
        {"v2's grouping without compensation (plain)", 1, grouped(n, PLAIN)},
        {"v2's grouping, compensation's sign flipped", 1, grouped(n, KAHAN_SIGN_FLIPPED)},
        {"v6 float4 lanes, grid 512 (plain)", 1, vectorized(n, 512)},
        {"v6 float4 lanes, grid 100 (plain)", 1, vectorized(n, 100)},
        {"v2-kahan (Kahan per thread, then the trees)", 0, grouped(n, KAHAN)},
    };
    for (size_t r = 0; r < sizeof runs / sizeof *runs; ++r) {
      double error = fabs((double)runs[r].got - exact), ratio = error / bound;
      int ok = runs[r].plain ? ratio >= MISS : ratio <= 1.0;
      printf("  %-46s got %-13.9g relative error %.2e, %9.3g x the bound%s\n", runs[r].order, runs[r].got,
             error / exact, ratio, ok ? "" : runs[r].plain ? "  FAIL: misses it by less than 10x" : "  FAIL: misses it");
      failed |= !ok;
    }
  }
  free(products);
  free(partials);
  printf(failed ? "FAIL\n" : "PASS: plain summation misses the bound by 10x or more, Kahan's meets it\n");
  return failed;
}
