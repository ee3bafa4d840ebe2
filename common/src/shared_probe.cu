// The launch that pp_launch_watch() holds itself to: made with <<<>>>, the
// way the labs launch, so that a watch blind to that path fails at once.
#include "pp/check.h"
#include "launch_watch.h"

namespace {

constexpr int THREADS = 64;  // 256 bytes of static shared memory

__global__ void launch_watch_probe(unsigned *out) {
  __shared__ unsigned fixed[THREADS];
  extern __shared__ unsigned dynamic[];
  fixed[threadIdx.x] = threadIdx.x;
  dynamic[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (out) *out = fixed[THREADS - 1 - threadIdx.x] + dynamic[THREADS - 1 - threadIdx.x];
}

}  // namespace

extern "C" long long pp_shared_probe(int dynamic) {
  struct cudaFuncAttributes a;
  PP_CHECK(cudaFuncGetAttributes(&a, launch_watch_probe));
  launch_watch_probe<<<1, THREADS, (size_t)dynamic>>>(nullptr);
  PP_CHECK_LAUNCH();
  PP_CHECK(cudaDeviceSynchronize());
  return (long long)a.sharedSizeBytes;
}
