// Lab 04's checks on the GPU (compare.h). The data is regenerated from the
// seed with the generator's own element functions (random_core.h), so the
// reference is the scan of the data the grader drew, whatever the kernel under
// test did to device memory. The reference is exact: the prefix sums in int64,
// of the ints themselves or of the floats in units of 2^-24, in three passes:
// the sum of every tile of TILE elements, the exclusive scan of those sums
// (one block), and a block scan of each tile from its offset, which judges
// every element as it goes. Built with --fmad=false: the bounds are computed
// with the same roundings as on the CPU.
#include <type_traits>

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "compare.h"
#include "pp/verify_device.cuh"
#include "random_core.h"

namespace {

// Element i of the data, as the grader's fill made it.
struct int_data {
  uint64_t key;
  int64_t phase;
  __device__ int32_t operator()(size_t i) const {
    return scan_int_value(pp_bits_at(key, i), pp_bits_at(key, i + 1),
                          (int64_t)((i + (uint64_t)phase) % SCAN_INT_PERIOD));
  }
};

struct float_data {
  uint64_t key;
  double lo, step;
  __device__ float operator()(size_t i) const { return pp_uniform_value(pp_bits_at(key, i), lo, step); }
};

int_data int_data_of(uint64_t seed) {
  uint64_t phase = pp_bits_at(pp_stream_key(seed, SCAN_PHASE_STREAM), 0) % SCAN_INT_PERIOD;
  return {pp_stream_key(seed, SCAN_INT_STREAM), (int64_t)phase};
}

// The parameters of the fill's pp_fill_uniform_f32_device(SCAN_FLOAT_LO, SCAN_FLOAT_HI).
float_data float_data_of(uint64_t seed) {
  return {pp_stream_key(seed, SCAN_FLOAT_STREAM), SCAN_FLOAT_LO,
          ((double)SCAN_FLOAT_HI - SCAN_FLOAT_LO) / 16777216.0};
}

// An element in exact int64 units: the int itself, or the float times 2^24
// (each float of the data is a multiple of 2^-24; scaling by 2^24 is exact).
__device__ long long units(int32_t x) {
  return x;
}
__device__ long long units(float x) {
  return (long long)(x * 0x1p24f);
}

template <typename T, class Data>
struct input_unchanged {
  const T *in;
  Data data;
  __device__ pp_judged operator()(size_t i) const { return {(double)in[i], (double)data(i), 0.0, false}; }
};

constexpr int THREADS = 256, ITEMS = 16, TILE = THREADS * ITEMS;

size_t tiles_of(size_t n) {
  return (n + TILE - 1) / TILE;
}

// sums[t] = the sum of tile t's elements, in units.
template <class Data>
__global__ void __launch_bounds__(THREADS) tile_sums_kernel(size_t n, Data data, long long *sums) {
  using reduce = cub::BlockReduce<long long, THREADS>;
  __shared__ typename reduce::TempStorage temp;
  size_t tiles = (n + TILE - 1) / TILE;
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    long long sum = 0;
    for (int j = 0; j < ITEMS; ++j) {
      size_t i = tile * TILE + (size_t)j * THREADS + threadIdx.x;
      if (i < n) sum += units(data(i));
    }
    long long total = reduce(temp).Sum(sum);
    if (threadIdx.x == 0) sums[tile] = total;
    __syncthreads(); // temp is the next tile's
  }
}

// x[0 .. count) becomes its exclusive scan, in one block of SCAN_THREADS.
constexpr int SCAN_THREADS = 1024;
__global__ void __launch_bounds__(SCAN_THREADS) exclusive_scan_kernel(long long *x, size_t count) {
  using scan = cub::BlockScan<long long, SCAN_THREADS>;
  __shared__ typename scan::TempStorage temp;
  long long carry = 0;
  for (size_t base = 0; base < count; base += SCAN_THREADS) {
    size_t i = base + threadIdx.x;
    long long v = i < count ? x[i] : 0, total;
    scan(temp).ExclusiveSum(v, v, total);
    if (i < count) x[i] = carry + v;
    carry += total;
    __syncthreads(); // temp is the next round's
  }
}

// Each block scans tiles from their offsets: thread k holds elements k * ITEMS
// to k * ITEMS + ITEMS - 1 of the tile, adds them up, and learns the prefix
// before them from a block scan of the threads' totals.
template <typename T, class Data>
__global__ void __launch_bounds__(THREADS) check_output_kernel(const T *out, size_t n, bool exclusive, Data data,
                                    const long long *offsets, double *want_record,
                                    double *bound_record, pp_mismatch *slots) {
  using scan = cub::BlockScan<long long, THREADS>;
  __shared__ typename scan::TempStorage temp;
  pp_mismatch t = pp_tally_empty();
  size_t tiles = (n + TILE - 1) / TILE;
  for (size_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    size_t first = tile * TILE + (size_t)threadIdx.x * ITEMS;
    long long x[ITEMS], running = 0;
    for (int j = 0; j < ITEMS; ++j) {
      x[j] = first + j < n ? units(data(first + j)) : 0;
      running += x[j];
    }
    scan(temp).ExclusiveSum(running, running);
    running += offsets[tile];
    for (int j = 0; j < ITEMS && first + j < n; ++j) {
      size_t i = first + j;
      long long before = running; // elements 0 .. i - 1
      running += x[j];
      long long prefix = exclusive ? before : running;
      double want, bound;
      if (std::is_same<T, float>::value) {
        want = (double)prefix * 0x1p-24; // the exact prefix, rounded once
        bound = scan_gamma_at(i) * want; // positive data: sum |terms| = the prefix
      } else {
        want = (double)prefix;
        bound = 0.0;
      }
      T got = out[i];
      pp_tally_judge(t, i, (double)got, want, bound, pp_is_poison_device(got));
      if (want_record) {
        want_record[i] = want;
        bound_record[i] = bound;
      }
    }
    __syncthreads(); // temp is the next tile's
  }
  pp_tally_store<THREADS>(t, slots);
}

template <typename T, class Data>
void check_output(const void *out, size_t n, bool exclusive, Data data, long long *offsets,
                  double *want_record, double *bound_record, pp_mismatch *m) {
  size_t tiles = tiles_of(n);
  int blocks = pp_tally_grid(tiles);
  if (tiles > 0) {
    tile_sums_kernel<<<blocks, THREADS>>>(n, data, offsets);
    PP_CHECK_LAUNCH();
    exclusive_scan_kernel<<<1, SCAN_THREADS>>>(offsets, tiles);
    PP_CHECK_LAUNCH();
  }
  check_output_kernel<T><<<blocks, THREADS>>>((const T *)out, n, exclusive, data, offsets, want_record,
                                              bound_record, pp_tally_slots());
  PP_CHECK_LAUNCH();
  pp_tally_collect(blocks, m);
}

}  // namespace

extern "C" void scan_fill_ints_device(int32_t *x, size_t n, uint64_t seed) {
  pp_generate_device(x, n, int_data_of(seed));
}

extern "C" void scan_check_input(const void *in, size_t n, int is_float, uint64_t seed, pp_mismatch *m) {
  if (is_float)
    pp_compare_elements(n, input_unchanged<float, float_data>{(const float *)in, float_data_of(seed)}, m);
  else
    pp_compare_elements(n, input_unchanged<int32_t, int_data>{(const int32_t *)in, int_data_of(seed)}, m);
}

extern "C" size_t scan_check_scratch_bytes(size_t n) {
  return (tiles_of(n) + 1) * sizeof(long long);
}

extern "C" void scan_check_output(const void *out, size_t n, int is_float, int exclusive, uint64_t seed,
                                  void *scratch, double *want_record, double *bound_record,
                                  pp_mismatch *m) {
  long long *offsets = (long long *)scratch;
  if (is_float)
    check_output<float>(out, n, exclusive, float_data_of(seed), offsets, want_record, bound_record, m);
  else
    check_output<int32_t>(out, n, exclusive, int_data_of(seed), offsets, want_record, bound_record, m);
}
