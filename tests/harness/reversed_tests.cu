// GPU test of pp/reversed_blocks.h, force-included here as in a lab's stress
// runner: block b of a 2-D grid sees blockIdx.x = gridDim.x - 1 - b and its
// own blockIdx.y. Without a CUDA device, exit 77 (skipped).
#include <stdio.h>

#include "pp/check.h"
#include "pp/device.h"

__global__ void record(unsigned *seen) {
  // Where the block truly is, from the special registers, which the macro does not touch.
  unsigned x, y;
  asm("mov.u32 %0, %%ctaid.x;" : "=r"(x));
  asm("mov.u32 %0, %%ctaid.y;" : "=r"(y));
  if (threadIdx.x == 0) {
    seen[2 * (y * gridDim.x + x)] = blockIdx.x;
    seen[2 * (y * gridDim.x + x) + 1] = blockIdx.y;
  }
}

int main() {
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    return PP_EXIT_SKIP;
  }
  const unsigned nx = 1000, ny = 3, words = 2 * nx * ny;
  unsigned *seen, got[2 * 1000 * 3];
  PP_CHECK(cudaMalloc(&seen, words * sizeof *seen));
  record<<<dim3(nx, ny), 32>>>(seen);
  PP_CHECK_LAUNCH();
  PP_CHECK(cudaMemcpy(got, seen, sizeof got, cudaMemcpyDeviceToHost));
  PP_CHECK(cudaFree(seen));
  unsigned wrong = 0;
  for (unsigned y = 0; y < ny; ++y)
    for (unsigned x = 0; x < nx; ++x)
      wrong += got[2 * (y * nx + x)] != nx - 1 - x || got[2 * (y * nx + x) + 1] != y;
  if (wrong) fprintf(stderr, "%u of %u blocks saw another index than the reversed one\n", wrong, nx * ny);
  else printf("reversed: all %u blocks saw x reversed and y as it is\n", nx * ny);
  return wrong ? PP_EXIT_FAIL : PP_EXIT_PASS;
}
