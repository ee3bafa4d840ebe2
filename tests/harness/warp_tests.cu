// GPU test of pp/warp_collectives.h, force-included here as it would be into
// a lab's file: which calls of a warp collective it lets through, and which it
// stops. One case a run (a stopped kernel ends its process's CUDA context):
//
//   harness-warp-tests CASE
//
// A case that is right (full, diverged, spin-ballot, half-mask, syncwarp)
// exits 0 when its results are right. A case with a lane missing
// (eight-lanes, outside-mask, syncwarp-eight) exits 1 when the kernel was
// stopped, or was still running after 10 s (a missing lane can leave the
// others waiting), and says which; 0 when it ran to the end, unstopped.
// Without a CUDA device, exit 77 (skipped); an unknown case, 2.
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pp/check.h"
#include "pp/device.h"

#define FULL 0xffffffffu

// The sum over the warp's 32 lanes, in lane 0: lane i adds i + 1.
__global__ void full(int *out) {
  int x = threadIdx.x % 32 + 1;
  for (int offset = 16; offset > 0; offset /= 2) x += __shfl_down_sync(FULL, x, offset);
  out[threadIdx.x] = x;
}

// Lanes take two paths, then all 32 call the collective.
__global__ void diverged(int *out) {
  int lane = threadIdx.x % 32, x;
  if (lane % 3 == 0)
    x = lane * 2;
  else
    x = lane + 100;
  out[threadIdx.x] = __shfl_xor_sync(FULL, x, 1);
}

// Each lane spins a number of rounds of its own (as a look-back waits on a
// flag), then the warp votes.
__global__ void spin_ballot(int *out) {
  int lane = threadIdx.x % 32;
  volatile int rounds = 0;
  for (int i = 0; i < lane * 37; ++i) rounds = rounds + 1;
  out[threadIdx.x] = (int)__ballot_sync(FULL, rounds % 2 == 1);
}

// The low 16 lanes, and only they, shuffle among themselves.
__global__ void half_mask(int *out) {
  int lane = threadIdx.x % 32, x = lane;
  if (lane < 16) x = __shfl_down_sync(0x0000ffffu, x, 1, 16);
  out[threadIdx.x] = x;
}

// Every lane at a __syncwarp() between two writes of shared memory.
__global__ void syncwarp_full(int *out) {
  __shared__ int slot[32];
  int lane = threadIdx.x % 32;
  slot[lane] = lane;
  __syncwarp();
  out[threadIdx.x] = slot[31 - lane];
}

// The bug: 8 lanes call a shuffle whose mask names all 32.
__global__ void eight_lanes(int *out) {
  int lane = threadIdx.x % 32, x = lane + 1;
  if (lane < 8)
    for (int offset = 4; offset > 0; offset /= 2) x += __shfl_down_sync(FULL, x, offset);
  out[threadIdx.x] = x;
}

// Every lane calls with a mask that names only the low 16.
__global__ void outside_mask(int *out) {
  int lane = threadIdx.x % 32;
  out[threadIdx.x] = (int)__ballot_sync(0x0000ffffu, lane % 2);
}

// 8 lanes at a __syncwarp() that names all 32.
__global__ void syncwarp_eight(int *out) {
  int lane = threadIdx.x % 32;
  if (lane < 8) __syncwarp();
  out[threadIdx.x] = lane;
}

// What a right case's lane must hold, or -1 where any value will do.
static int expected(const char *name, int lane) {
  if (!strcmp(name, "full")) return lane == 0 ? 32 * 33 / 2 : -1;
  if (!strcmp(name, "diverged")) return (lane ^ 1) % 3 == 0 ? (lane ^ 1) * 2 : (lane ^ 1) + 100;
  if (!strcmp(name, "spin-ballot")) return (int)0xaaaaaaaau; // the odd lanes spun an odd count
  if (!strcmp(name, "half-mask")) return lane >= 15 ? lane : lane + 1;
  return 31 - lane; // syncwarp
}

typedef struct {
  const char *name;
  void (*kernel)(int *);
  int right; // 1: the checks must let it through
} test_case;

int main(int argc, char **argv) {
  const test_case cases[] = {
      {"full", full, 1},           {"diverged", diverged, 1},
      {"spin-ballot", spin_ballot, 1}, {"half-mask", half_mask, 1},
      {"syncwarp", syncwarp_full, 1},  {"eight-lanes", eight_lanes, 0},
      {"outside-mask", outside_mask, 0}, {"syncwarp-eight", syncwarp_eight, 0},
  };
  const test_case *c = NULL;
  for (size_t i = 0; argc == 2 && i < sizeof cases / sizeof *cases; ++i)
    if (!strcmp(argv[1], cases[i].name)) c = &cases[i];
  if (!c) {
    fprintf(stderr, "usage: %s CASE (full, diverged, spin-ballot, half-mask, syncwarp, "
                    "eight-lanes, outside-mask, syncwarp-eight)\n", argv[0]);
    return 2;
  }
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    return PP_EXIT_SKIP;
  }
  int *out, got[32];
  PP_CHECK(cudaMalloc(&out, sizeof got));
  PP_CHECK(cudaMemset(out, 0, sizeof got));
  c->kernel<<<1, 32>>>(out);
  PP_CHECK(cudaGetLastError());
  // A kernel left waiting on a missing lane never ends: it gets 10 s.
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  cudaError_t status;
  while ((status = cudaStreamQuery(0)) == cudaErrorNotReady) {
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > 10) {
      printf("%s: %s\n", c->name, c->right ? "FAIL, still running after 10 s"
                                           : "stopped by hanging: still running after 10 s");
      return 1;
    }
  }
  if (status != cudaSuccess) {
    printf("%s: %sthe kernel was stopped: %s\n", c->name, c->right ? "FAIL, " : "",
           cudaGetErrorString(status));
    return 1;
  }
  if (!c->right) {
    printf("%s: FAIL, it ran to the end unstopped\n", c->name);
    return 0;
  }
  PP_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (int lane = 0; lane < 32; ++lane) {
    int want = expected(c->name, lane);
    if (want != -1 && got[lane] != want) {
      printf("%s: lane %d got %d, want %d\n", c->name, lane, got[lane], want);
      wrong = 1;
    }
  }
  printf("%s: %s\n", c->name, wrong ? "FAIL, wrong results" : "let through, its results right");
  return wrong;
}
