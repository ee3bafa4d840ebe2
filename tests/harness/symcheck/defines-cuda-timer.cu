// Refused: defines cudaEventElapsedTime, which the harness's timer in the
// runner would then call instead of the CUDA runtime's (a timer that reports
// what it likes).
#include "sample.cuh"

extern "C" cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0.001f;
  return cudaSuccess;
}

static void launch_sample(float *x, size_t n) {
  if (n > 0) twice_kernel<<<(unsigned)((n + 255) / 256), 256>>>(x, n);
}
