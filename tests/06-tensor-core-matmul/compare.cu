// Lab 06's checks on the GPU (compare.h). A and B are regenerated from the
// seed with the generator's own element functions (random_core.h), padding
// included, to see that they are unchanged; the reference product is then
// computed from them in double. Built with --fmad=false: the bounds are
// computed with the same roundings as on the CPU.
#include "compare.h"
#include "pp/verify_device.cuh"
#include "random_core.h"
#include "tensor_matmul.h"

namespace {

// The 16 bits of the BF16 nearest to f (ties to even), f finite.
__host__ __device__ uint16_t bf16_nearest(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}

// Element i of A's or B's buffer (compare.h): the vector i / pitch, its
// element p = i % pitch, padding past K.
struct input_entry {
  uint64_t key;
  size_t pitch;
  int k;
  int data;
  bool is_a;
  __host__ __device__ uint16_t operator()(size_t i) const {
    size_t p = i % pitch;
    if (p >= (size_t)k) return TENSOR_MATMUL_PAD_BITS;
    uint64_t bits = pp_bits_at(key, i);
    if (data == TENSOR_MATMUL_UNIFORM)
      return bf16_nearest(pp_uniform_value(bits, TENSOR_MATMUL_UNIFORM_LO,
                                           ((double)TENSOR_MATMUL_UNIFORM_HI - TENSOR_MATMUL_UNIFORM_LO) / 16777216.0));
    float value;
    if ((p % 2 == 0) == is_a) { // a wide value: odd, from the top bits; its sign from the bottom one
      int odd = TENSOR_MATMUL_WIDE_MIN +
                2 * (int)pp_bits_below(bits, (TENSOR_MATMUL_WIDE_MAX - TENSOR_MATMUL_WIDE_MIN) / 2 + 1);
      value = (float)(bits & 1 ? -odd : odd);
    } else {
      value = pp_nonzero_int_value(bits, TENSOR_MATMUL_FACTOR_MAX_ABS);
    }
    return bf16_nearest(value); // exact: BF16 holds every integer of 8 bits
  }
};

input_entry entry_for(int k, int data, uint64_t stream, uint64_t seed) {
  return {pp_stream_key(seed, stream), (size_t)tensor_matmul_pitch(k), k, data, stream == TENSOR_MATMUL_A_STREAM};
}

__global__ void fill_kernel(uint16_t *x, size_t count, input_entry entry) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
    x[i] = entry(i);
}

// The bits, compared as numbers: the padding's NaN must still be that NaN.
struct input_unchanged {
  const uint16_t *x;
  input_entry entry;
  __device__ pp_judged operator()(size_t i) const { return {(double)x[i], (double)entry(i), 0.0, false}; }
};

constexpr int TILE = 16, THREADS = TILE * TILE;

// The reference, as simple as a tiled product gets: a block computes a TILE x
// TILE tile of C at a time, one element per thread, copying TILE x TILE tiles
// of A (rows) and B (columns) into shared memory as doubles, both read along
// K. Each product of two BF16 values is exact in double, and each element adds
// its K products in order p = 0, 1, .., K - 1, as the CPU reference does
// (grader.c): the same sums, bit for bit. (Its sum of |products|, the bound's
// scale, likewise.)
__global__ void check_product_kernel(const uint16_t *a, const uint16_t *b, const float *c, int m, int n, int k,
                                     size_t pitch, bool exact, double *want_record, double *bound_record,
                                     pp_mismatch *slots) {
  __shared__ double a_tile[TILE][TILE + 1], b_tile[TILE][TILE + 1]; // a_tile[row][p], b_tile[p][column]
  int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  size_t tile_cols = ((size_t)n + TILE - 1) / TILE, tiles = ((size_t)m + TILE - 1) / TILE * tile_cols;
  pp_mismatch t = pp_tally_empty();
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    int row0 = (int)(tile / tile_cols) * TILE, col0 = (int)(tile % tile_cols) * TILE;
    int row = row0 + ty, col = col0 + tx;
    double sum = 0.0, sum_abs = 0.0;
    for (int p0 = 0; p0 < k; p0 += TILE) {
      bool in_k = p0 + tx < k; // each thread reads along K: A's row row0 + ty, B's column col0 + ty
      a_tile[ty][tx] = row < m && in_k ? tensor_matmul_value(a[(size_t)row * pitch + p0 + tx]) : 0.0;
      b_tile[tx][ty] = col0 + ty < n && in_k ? tensor_matmul_value(b[(size_t)(col0 + ty) * pitch + p0 + tx]) : 0.0;
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
      double bound = tensor_matmul_tolerance(exact, k, sum_abs);
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

extern "C" void tensor_matmul_fill(uint16_t *x, int vectors, int k, int data, uint64_t stream, uint64_t seed) {
  size_t count = (size_t)vectors * (size_t)tensor_matmul_pitch(k);
  if (count == 0) return;
  fill_kernel<<<pp_tally_grid((count + THREADS - 1) / THREADS), THREADS>>>(x, count,
                                                                          entry_for(k, data, stream, seed));
  PP_CHECK_LAUNCH();
}

extern "C" void tensor_matmul_fill_host(uint16_t *x, int vectors, int k, int data, uint64_t stream,
                                        uint64_t seed) {
  input_entry entry = entry_for(k, data, stream, seed);
  for (size_t i = 0; i < (size_t)vectors * (size_t)tensor_matmul_pitch(k); ++i) x[i] = entry(i);
}

extern "C" void tensor_matmul_check_input(const uint16_t *x, int vectors, int k, int data, uint64_t seed,
                                          uint64_t stream, pp_mismatch *m) {
  size_t count = (size_t)vectors * (size_t)tensor_matmul_pitch(k);
  pp_compare_elements(count, input_unchanged{x, entry_for(k, data, stream, seed)}, m);
}

extern "C" void tensor_matmul_check_product(const uint16_t *a, const uint16_t *b, const float *c, int m, int n,
                                            int k, int exact, double *want_record, double *bound_record,
                                            pp_mismatch *tally) {
  size_t tiles = ((size_t)m + TILE - 1) / TILE * (((size_t)n + TILE - 1) / TILE);
  int blocks = pp_tally_grid(tiles);
  check_product_kernel<<<blocks, THREADS>>>(a, b, c, m, n, k, (size_t)tensor_matmul_pitch(k), exact != 0,
                                            want_record, bound_record, pp_tally_slots());
  PP_CHECK_LAUNCH();
  pp_tally_collect(blocks, tally);
}
