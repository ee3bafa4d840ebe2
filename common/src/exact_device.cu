// The GPU references of exact.h: each term becomes an integer number of units,
// and 128-bit integers add them. Written to be read, not to be fast: a
// grid-stride loop into one partial sum per block, then one block adds those.
#include <stdio.h>
#include <stdlib.h>

#include "pp/check.h"
#include "pp/exact.h"

namespace {

typedef __int128 wide;

// At most one wave of an H100-sized GPU: enough threads to keep DRAM busy.
constexpr unsigned BLOCKS = 1024, THREADS = 256;

// A thread's, a block's or the whole array's running sums.
struct totals {
  wide sum, abs;
};

// Scratch of the two passes, and the flag raised by a term off the grid. The
// functions below are synchronous, so one set serves every call.
__device__ totals block_totals[BLOCKS];
__device__ totals grand_total;
__device__ unsigned off_grid;

// Adds one value per thread over the block; every thread gets the block's total.
__device__ totals block_total(totals mine) {
  __shared__ wide sums[THREADS], abs_sums[THREADS];
  unsigned t = threadIdx.x;
  sums[t] = mine.sum;
  abs_sums[t] = mine.abs;
  __syncthreads();
  for (unsigned stride = THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      sums[t] += sums[t + stride];
      abs_sums[t] += abs_sums[t + stride];
    }
    __syncthreads();
  }
  return totals{sums[0], abs_sums[0]};
}

// value * 2^frac_bits as an integer, if it is one below 2^62 in magnitude.
// scalbn() scales by a power of two, exactly; an overflow gives infinity,
// which fails the test, as NaN does.
__device__ bool to_units(double value, int frac_bits, long long *units) {
  double scaled = scalbn(value, frac_bits);
  if (!(scaled == trunc(scaled) && fabs(scaled) < 0x1p62)) return false;
  *units = (long long)scaled;
  return true;
}

// The terms, as integer numbers of units.
struct int_terms {
  const int32_t *x;
  __device__ bool operator()(size_t i, long long *units) const {
    *units = x[i];
    return true;
  }
};

struct float_terms {
  const float *x;
  int frac_bits;
  __device__ bool operator()(size_t i, long long *units) const {
    return to_units(x[i], frac_bits, units);
  }
};

// A product of two floats has at most 48 significant bits: exact in double.
struct product_terms {
  const float *a, *b;
  int frac_bits;
  __device__ bool operator()(size_t i, long long *units) const {
    return to_units((double)a[i] * (double)b[i], frac_bits, units);
  }
};

template <typename Terms>
__global__ void partial_sums_kernel(Terms term, size_t n) {
  totals mine = {0, 0};
  for (size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS) {
    long long units;
    if (!term(i, &units)) {
      atomicOr(&off_grid, 1u);
      units = 0;
    }
    mine.sum += units;
    mine.abs += units < 0 ? -(wide)units : (wide)units;
  }
  totals block = block_total(mine);
  if (threadIdx.x == 0) block_totals[blockIdx.x] = block;
}

// One block adds the partial sums of the first pass's blocks.
__global__ void grand_total_kernel(unsigned blocks) {
  totals mine = {0, 0};
  for (unsigned j = threadIdx.x; j < blocks; j += THREADS) {
    mine.sum += block_totals[j].sum;
    mine.abs += block_totals[j].abs;
  }
  totals all = block_total(mine);
  if (threadIdx.x == 0) grand_total = all;
}

pp_int128 halves(wide x) {
  return pp_int128{(uint64_t)x, (int64_t)(x >> 64)};
}

template <typename Terms>
pp_exact exact_sum(Terms terms, size_t n, int frac_bits, const char *what) {
  const unsigned clear = 0;
  PP_CHECK(cudaMemcpyToSymbol(off_grid, &clear, sizeof clear));
  // A block per THREADS terms, up to BLOCKS (small arrays need no idle blocks).
  size_t wanted = (n + THREADS - 1) / THREADS;
  unsigned blocks = wanted == 0 ? 1 : wanted < BLOCKS ? (unsigned)wanted : BLOCKS;
  partial_sums_kernel<<<blocks, THREADS>>>(terms, n);
  PP_CHECK_LAUNCH();
  grand_total_kernel<<<1, THREADS>>>(blocks);
  PP_CHECK_LAUNCH();
  totals all;
  unsigned bad;
  PP_CHECK(cudaMemcpyFromSymbol(&all, grand_total, sizeof all));
  PP_CHECK(cudaMemcpyFromSymbol(&bad, off_grid, sizeof bad));
  if (bad) {
    fprintf(stderr,
            "grader error: a term of the exact %s is NaN, not a multiple of 2^-%d, or 2^%d or "
            "more: the reference cannot be exact\n",
            what, frac_bits, 62 - frac_bits);
    exit(PP_EXIT_FAIL);
  }
  return pp_exact{halves(all.sum), halves(all.abs), frac_bits};
}

}  // namespace

extern "C" pp_exact pp_exact_sum_i32_device(const int32_t *x, size_t n) {
  return exact_sum(int_terms{x}, n, 0, "int sum");
}

extern "C" pp_exact pp_exact_sum_f32_device(const float *x, size_t n, int frac_bits) {
  return exact_sum(float_terms{x, frac_bits}, n, frac_bits, "float sum");
}

extern "C" pp_exact pp_exact_dot_f32_device(const float *a, const float *b, size_t n,
                                            int frac_bits) {
  return exact_sum(product_terms{a, b, frac_bits}, n, frac_bits, "dot product");
}
