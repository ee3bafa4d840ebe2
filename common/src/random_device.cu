// The device fills: the same values as the host fills in random.c (both take
// them from random_core.h), written straight into device memory, so that a
// grader need not generate gigabytes on one CPU core and copy them over.
#include "pp/check.h"
#include "pp/random.h"
#include "random_core.h"

namespace {

// Enough blocks to fill the largest GPU; each thread strides over the rest.
constexpr int FILL_BLOCKS = 2048, FILL_THREADS = 256;

template <typename T, typename Value>
__global__ void fill_kernel(T *x, size_t n, uint64_t key, Value value) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    x[i] = value(key, i);
}

template <typename T, typename Value>
void fill(T *x, size_t n, uint64_t seed, uint64_t stream, Value value) {
  if (n == 0) return;
  fill_kernel<<<FILL_BLOCKS, FILL_THREADS>>>(x, n, pp_stream_key(seed, stream), value);
  PP_CHECK_LAUNCH();
}

// The value of element i of the array with this key: one functor per distribution.
struct uniform_f32 {
  double lo, step;
  __device__ float operator()(uint64_t key, size_t i) const {
    return pp_uniform_value(pp_bits_at(key, i), lo, step);
  }
};
struct nonzero_int_f32 {
  int max_abs;
  float unit; // a power of two: the scaling is exact
  __device__ float operator()(uint64_t key, size_t i) const {
    return pp_nonzero_int_value(pp_bits_at(key, i), max_abs) * unit;
  }
};
struct int_i32 {
  int32_t lo;
  uint64_t range;
  __device__ int32_t operator()(uint64_t key, size_t i) const {
    return pp_int_value(pp_bits_at(key, i), lo, range);
  }
};
struct telescoping_i32 {
  __device__ int32_t operator()(uint64_t key, size_t i) const { return pp_telescoping_value(key, i); }
};

}  // namespace

extern "C" void pp_fill_uniform_f32_device(float *x, size_t n, float lo, float hi, uint64_t seed,
                                           uint64_t stream) {
  fill(x, n, seed, stream, uniform_f32{lo, ((double)hi - lo) / 16777216.0});
}

extern "C" void pp_fill_nonzero_ints_f32_device(float *x, size_t n, int max_abs, uint64_t seed,
                                                uint64_t stream) {
  fill(x, n, seed, stream, nonzero_int_f32{max_abs, 1.0f});
}

extern "C" void pp_fill_nonzero_quarters_f32_device(float *x, size_t n, int max_abs, uint64_t seed,
                                                    uint64_t stream) {
  fill(x, n, seed, stream, nonzero_int_f32{max_abs, 0.25f});
}

extern "C" void pp_fill_ints_i32_device(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed,
                                        uint64_t stream) {
  fill(x, n, seed, stream, int_i32{lo, (uint64_t)((int64_t)hi - lo) + 1});
}

extern "C" void pp_fill_telescoping_i32_device(int32_t *x, size_t n, uint64_t seed, uint64_t stream) {
  fill(x, n, seed, stream, telescoping_i32{});
}
