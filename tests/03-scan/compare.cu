// Lab 03's checks on the GPU (compare.h). The input is regenerated from the
// seed with the generator's own element functions (random_core.h), so the
// reference is the scan of the data the grader drew, whatever the kernel under
// test did to device memory. Built with --fmad=false: the bounds are computed
// with the same roundings as on the CPU.
#include <type_traits>

#include <cub/block/block_scan.cuh>

#include "compare.h"
#include "pp/verify_device.cuh"
#include "random_core.h"
#include "scan.h"

namespace {

// Element i of the input, as the grader's fill made it.
struct int_input {
  uint64_t key;
  int32_t lo;
  uint64_t range;
  __device__ int32_t operator()(size_t i) const { return pp_int_value(pp_bits_at(key, i), lo, range); }
};

struct float_input {
  uint64_t key;
  double lo, step;
  __device__ float operator()(size_t i) const { return pp_uniform_value(pp_bits_at(key, i), lo, step); }
};

// The same parameters as the fill's (grader.c): pp_fill_ints_i32_device(lo, hi)
// and pp_fill_uniform_f32_device(SCAN_FLOAT_LO, SCAN_FLOAT_HI).
int_input int_input_of(int section, uint64_t seed) {
  int32_t lo = scan_int_lo(section), hi = scan_int_hi(section);
  return {pp_stream_key(seed, SCAN_INPUT_STREAM), lo, (uint64_t)((int64_t)hi - lo) + 1};
}

float_input float_input_of(uint64_t seed) {
  return {pp_stream_key(seed, SCAN_INPUT_STREAM), SCAN_FLOAT_LO,
          ((double)SCAN_FLOAT_HI - SCAN_FLOAT_LO) / 16777216.0};
}

template <typename T, class Input>
struct input_unchanged {
  const T *in;
  Input input;
  __device__ pp_judged operator()(size_t i) const { return {(double)in[i], (double)input(i), 0.0, false}; }
};

template <typename T, class Input>
void check_input(const void *in, size_t n, Input input, pp_mismatch *m) {
  pp_compare_elements(n, input_unchanged<T, Input>{(const T *)in, input}, m);
}

constexpr int THREADS = 256, ITEMS = SCAN_MAX_SECTION / THREADS;

// One block judges a chunk of whole sections (at most SCAN_MAX_SECTION
// elements) at a time. It scans the chunk's inputs into prefix[], the
// inclusive prefix sums from the chunk's start; a section's scan is then a
// difference of two of them. Sum is exact for either data: int64 for ints;
// double for floats, whose values are multiples of 2^-24 below 1.5, so every
// partial sum of a chunk is a multiple of 2^-24 below 2^12, 36 significant
// bits: exact in double in any order, and so are the differences.
template <typename T, typename Sum, class Input>
__global__ void check_output_kernel(const T *out, size_t n, int section, int chunk, bool exclusive,
                                    Input input, double *want_record, double *bound_record,
                                    pp_mismatch *slots) {
  using scan = cub::BlockScan<Sum, THREADS>;
  __shared__ typename scan::TempStorage scan_temp;
  __shared__ Sum prefix[SCAN_MAX_SECTION];
  pp_mismatch t = pp_tally_empty();
  size_t chunks = (n + chunk - 1) / chunk;
  for (size_t c = blockIdx.x; c < chunks; c += gridDim.x) {
    size_t base = c * chunk;
    int len = n - base < (size_t)chunk ? (int)(n - base) : chunk;
    Sum x[ITEMS], running = 0;
    for (int j = 0; j < ITEMS; ++j) {
      int e = threadIdx.x * ITEMS + j;
      x[j] = e < len ? (Sum)input(base + e) : (Sum)0;
      running += x[j];
    }
    scan(scan_temp).ExclusiveSum(running, running);
    for (int j = 0; j < ITEMS; ++j) {
      int e = threadIdx.x * ITEMS + j;
      running += x[j];
      if (e < len) prefix[e] = running;
    }
    __syncthreads();
    for (int e = threadIdx.x; e < len; e += THREADS) {
      int start = e / section * section, position = e - start;
      Sum before = start > 0 ? prefix[start - 1] : (Sum)0;
      Sum want = exclusive ? (position > 0 ? prefix[e - 1] - before : (Sum)0) : prefix[e] - before;
      size_t terms = exclusive ? position : position + 1;
      // Float data is positive: the sum of |terms| is the prefix itself.
      double bound = std::is_same<T, float>::value ? scan_tolerance(terms, (double)want) : 0.0;
      T got = out[base + e];
      pp_tally_judge(t, base + e, (double)got, (double)want, bound, pp_is_poison_device(got));
      if (want_record) {
        want_record[base + e] = (double)want;
        bound_record[base + e] = bound;
      }
    }
    __syncthreads(); // prefix[] and scan_temp are the next chunk's
  }
  pp_tally_store<THREADS>(t, slots);
}

template <typename T, typename Sum, class Input>
void check_output(const void *out, size_t n, int section, bool exclusive, Input input,
                  double *want_record, double *bound_record, pp_mismatch *m) {
  int chunk = SCAN_MAX_SECTION / section * section;
  int blocks = pp_tally_grid((n + chunk - 1) / chunk);
  check_output_kernel<T, Sum><<<blocks, THREADS>>>((const T *)out, n, section, chunk, exclusive, input,
                                                   want_record, bound_record, pp_tally_slots());
  PP_CHECK_LAUNCH();
  pp_tally_collect(blocks, m);
}

}  // namespace

extern "C" void scan_check_input(const void *in, size_t n, int section, int is_float, uint64_t seed,
                                 pp_mismatch *m) {
  if (is_float)
    check_input<float>(in, n, float_input_of(seed), m);
  else
    check_input<int32_t>(in, n, int_input_of(section, seed), m);
}

extern "C" void scan_check_output(const void *out, size_t n, int section, int is_float, int exclusive,
                                  uint64_t seed, double *want_record, double *bound_record,
                                  pp_mismatch *m) {
  if (is_float)
    check_output<float, double>(out, n, section, exclusive, float_input_of(seed), want_record,
                                bound_record, m);
  else
    check_output<int32_t, long long>(out, n, section, exclusive, int_input_of(section, seed),
                                     want_record, bound_record, m);
}
