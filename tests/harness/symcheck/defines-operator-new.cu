// Refused: defines operator new (_Znwm), which every allocation of the
// runner's C++ code, the CUDA runtime's included, would then go through.
#include <stdlib.h>

#include "sample.cuh"

void *operator new(size_t bytes) { return malloc(bytes ? bytes : 1); }

static void launch_sample(float *x, size_t n) {
  if (n > 0) twice_kernel<<<(unsigned)((n + 255) / 256), 256>>>(x, n);
}
