// Lab 05's checks on the GPU (compare.h). A and B are regenerated from the
// seed with the generator's own element functions (random_core.h) to see that
// they are unchanged; the reference product is then computed from them in
// double. Built with --fmad=false: the bounds are computed with the same
// roundings as on the CPU.
#include "compare.h"
#include "pp/verify_device.cuh"
#include "random_core.h"

namespace {

// Element i of A or B, as the grader's fill made it.
struct uniform_entry {
  uint64_t key;
  double lo, step;
  __device__ float operator()(size_t i) const { return pp_uniform_value(pp_bits_at(key, i), lo, step); }
};

// The wide data (compare.h): A's columns at even p and B's rows at odd p wide.
struct wide_entry {
  uint64_t key;
  size_t cols;
  bool is_a;
  __host__ __device__ float operator()(size_t i) const {
    uint64_t bits = pp_bits_at(key, i);
    size_t p = is_a ? i % cols : i / cols;
    if ((p % 2 == 0) != is_a) return pp_nonzero_int_value(bits, MATMUL_WIDE_FACTOR_MAX_ABS);
    float magnitude = (float)(MATMUL_WIDE_MIN + pp_bits_below(bits, MATMUL_WIDE_MAX - MATMUL_WIDE_MIN + 1));
    return bits & 1 ? -magnitude : magnitude; // sign: bottom bit
  }
};

__global__ void fill_wide_kernel(float *x, size_t count, wide_entry entry) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    x[i] = entry(i);
}

wide_entry wide_for(int cols, uint64_t stream, uint64_t seed) {
  return {pp_stream_key(seed, stream), (size_t)cols, stream == MATMUL_A_STREAM};
}

template <class Entry>
struct input_unchanged {
  const float *x;
  Entry entry;
  __device__ pp_judged operator()(size_t i) const { return {x[i], entry(i), 0.0, false}; }
};

constexpr int TILE = 16, THREADS = TILE * TILE;

// The reference, as simple as a tiled product gets: a block computes a TILE x
// TILE tile of C at a time, one element per thread, copying TILE x TILE tiles
// of A and B into shared memory as doubles. Each product of two floats is
// exact in double, and each element adds its K products in order p = 0, 1, ..,
// K - 1, as the CPU reference does (grader.c): the same sums, bit for bit.
// (Its sum of |products|, the bound's scale, likewise.)
__global__ void check_product_kernel(const float *a, const float *b, const float *c, int m, int n, int k,
                                     bool exact, double *want_record, double *bound_record,
                                     pp_mismatch *slots) {
  __shared__ double a_tile[TILE][TILE + 1], b_tile[TILE][TILE + 1];
  int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  size_t tile_cols = ((size_t)n + TILE - 1) / TILE, tiles = ((size_t)m + TILE - 1) / TILE * tile_cols;
  pp_mismatch t = pp_tally_empty();
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int row = (int)(tile / tile_cols) * TILE + ty, col = (int)(tile % tile_cols) * TILE + tx;
    double sum = 0.0, sum_abs = 0.0;
    for (int p0 = 0; p0 < k; p0 += TILE) {
      a_tile[ty][tx] = row < m && p0 + tx < k ? (double)a[(size_t)row * k + p0 + tx] : 0.0;
      b_tile[ty][tx] = p0 + ty < k && col < n ? (double)b[(size_t)(p0 + ty) * n + col] : 0.0;
      __syncthreads();
      int steps = k - p0 < TILE ? k - p0 : TILE;
      for (int p = 0; p < steps; ++p) {
        // The product is exact, so fma() rounds once, as the CPU's sum += product does.
        sum = fma(a_tile[ty][p], b_tile[p][tx], sum);
        sum_abs = fma(fabs(a_tile[ty][p]), fabs(b_tile[p][tx]), sum_abs);
      }
      __syncthreads(); // the tiles are the next step's
    }
    if (row < m && col < n) {
      size_t e = (size_t)row * n + col;
      double bound = matmul_tolerance(exact, k, sum_abs);
      float got = c[e];
      pp_tally_judge(t, e, got, sum, bound, pp_is_poison_device(got));
      if (want_record) {
        want_record[e] = sum;
        bound_record[e] = bound;
      }
    }
  }
  pp_tally_store<THREADS>(t, slots);
}

}  // namespace

extern "C" void matmul_fill_wide(float *x, int rows, int cols, uint64_t stream, uint64_t seed) {
  size_t count = (size_t)rows * (size_t)cols;
  if (count == 0) return;
  fill_wide_kernel<<<pp_tally_grid((count + THREADS - 1) / THREADS), THREADS>>>(x, count,
                                                                      wide_for(cols, stream, seed));
  PP_CHECK_LAUNCH();
}

extern "C" void matmul_fill_wide_host(float *x, int rows, int cols, uint64_t stream, uint64_t seed) {
  wide_entry entry = wide_for(cols, stream, seed);
  for (size_t i = 0; i < (size_t)rows * (size_t)cols; ++i) x[i] = entry(i);
}

extern "C" void matmul_check_input(const float *x, int rows, int cols, int data, uint64_t seed,
                                   uint64_t stream, pp_mismatch *m) {
  size_t count = (size_t)rows * (size_t)cols;
  uint64_t key = pp_stream_key(seed, stream);
  if (data == MATMUL_WIDE) {
    pp_compare_elements(count, input_unchanged<wide_entry>{x, wide_for(cols, stream, seed)}, m);
  } else {
    uniform_entry entry = {key, MATMUL_UNIFORM_LO,
                           ((double)MATMUL_UNIFORM_HI - MATMUL_UNIFORM_LO) / 16777216.0};
    pp_compare_elements(count, input_unchanged<uniform_entry>{x, entry}, m);
  }
}

extern "C" void matmul_check_product(const float *a, const float *b, const float *c, int m, int n, int k,
                                     int exact, double *want_record, double *bound_record,
                                     pp_mismatch *tally) {
  size_t tiles = ((size_t)m + TILE - 1) / TILE * (((size_t)n + TILE - 1) / TILE);
  int blocks = pp_tally_grid(tiles);
  check_product_kernel<<<blocks, THREADS>>>(a, b, c, m, n, k, exact != 0, want_record, bound_record,
                                            pp_tally_slots());
  PP_CHECK_LAUNCH();
  pp_tally_collect(blocks, tally);
}
