// The absorbed dataset's device fill: both arrays in one pass, element for
// element as dot_absorbed_at() (absorbed.h) gives them on the host too.
#include "absorbed.h"
#include "pp/check.h"

// As the harness's fills (common/src/random_device.cu): enough blocks for the
// largest GPU, each thread striding over the rest.
static __global__ void absorbed_kernel(float *a, float *b, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dot_absorbed_at(seed, i, n, &a[i], &b[i]);
}

extern "C" void dot_fill_absorbed_device(float *a, float *b, size_t n, uint64_t seed) {
  if (n == 0) return;
  absorbed_kernel<<<2048, 256>>>(a, b, n, seed);
  PP_CHECK_LAUNCH();
}
