// GPU test of pp/reversed_blocks.h, force-included here as in a lab's stress
// runner: block b of a 2-D grid sees blockIdx.x = gridDim.x - 1 - b and its
// own blockIdx.y, and the atomic functions, which may leave their thread late,
// still return what CUDA's return. Without a CUDA device, exit 77 (skipped).
#include <stdio.h>
#include <stdlib.h>

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

// Every thread draws a ticket; each ticket from 0 to the count is drawn once.
__global__ void draw(unsigned *counter, unsigned *drawn) {
  unsigned ticket = atomicAdd(counter, 1u);
  atomicExch(&drawn[ticket], 1u);
}

// 0 if the tickets of `threads` threads were each drawn once, else how many were not.
static unsigned tickets_missing(unsigned threads) {
  unsigned *counter, *drawn, *got = (unsigned *)malloc(threads * sizeof *got);
  PP_CHECK(cudaMalloc(&counter, sizeof *counter));
  PP_CHECK(cudaMalloc(&drawn, threads * sizeof *drawn));
  PP_CHECK(cudaMemset(counter, 0, sizeof *counter));
  PP_CHECK(cudaMemset(drawn, 0, threads * sizeof *drawn));
  draw<<<threads / 256, 256>>>(counter, drawn);
  PP_CHECK_LAUNCH();
  PP_CHECK(cudaMemcpy(got, drawn, threads * sizeof *got, cudaMemcpyDeviceToHost));
  unsigned missing = 0;
  for (unsigned i = 0; i < threads; ++i) missing += got[i] != 1;
  PP_CHECK(cudaFree(counter));
  PP_CHECK(cudaFree(drawn));
  free(got);
  return missing;
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
  const unsigned threads = 1 << 16;
  unsigned missing = tickets_missing(threads);
  if (missing) fprintf(stderr, "atomics: %u of %u tickets not drawn exactly once\n", missing, threads);
  else printf("atomics: %u tickets, each drawn once\n", threads);
  return wrong || missing ? PP_EXIT_FAIL : PP_EXIT_PASS;
}
