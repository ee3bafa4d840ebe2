// GPU tests of what the harness does around a variant's launch:
//   harness-launch-tests GROUP    poison | shared-cap | stream
// poison: after pp_poison_shared(), a kernel that reads shared memory it never
// wrote reads all-ones words, on every SM (a grid of several blocks per SM).
// shared-cap: with pp_launch_watch(64 KiB), a kernel of 1 KiB static and
// 63 KiB dynamic shared memory runs clean, and the same kernel with 1 KiB
// more fails pp_launch_error(), naming it; the GPU itself would run both.
// Each of the launch calls a lab may use: <<<>>>, cudaLaunchKernel and
// cudaLaunchKernelEx (each its own CUPTI callback).
// stream: with pp_launch_watch(0), a kernel launched on the default stream (0
// or cudaStreamLegacy) runs clean, and one launched on cudaStreamPerThread or
// on a stream of its own, by <<<>>> or cudaLaunchKernelEx, fails
// pp_launch_error(), naming it: the contract names the default stream, and the
// results of either are right.
// Without a CUDA device, exit 77 (skipped).
#include <stdio.h>
#include <string.h>

#include "poison_shared.h"
#include "pp/check.h"
#include "pp/device.h"
#include "share.h"
#include "launch_watch.h"

namespace {

constexpr int THREADS = 256, STATIC_WORDS = 256;  // 1 KiB of static shared memory
constexpr unsigned POISON = 0xffffffffu;

// Each thread copies one word of the block's shared memory, never written, to out.
__global__ void read_unwritten(unsigned *out) {
  __shared__ unsigned never_written[THREADS];
  out[blockIdx.x * THREADS + threadIdx.x] = never_written[threadIdx.x];
}

// Static and dynamic shared memory, touched so that neither is optimized away.
__global__ void use_shared(unsigned *out) {
  __shared__ unsigned fixed[STATIC_WORDS];
  extern __shared__ unsigned dynamic[];
  fixed[threadIdx.x] = threadIdx.x;
  dynamic[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) *out = fixed[THREADS - 1] + dynamic[THREADS - 1];
}

int test_poison() {
  int device = 0, sms = 0;
  PP_CHECK(cudaGetDevice(&device));
  PP_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int blocks = 8 * sms;
  size_t words = (size_t)blocks * THREADS;
  unsigned *out;
  PP_CHECK(cudaMalloc(&out, words * sizeof *out));
  PP_CHECK(cudaMemset(out, 0, words * sizeof *out));
  pp_poison_shared();
  read_unwritten<<<blocks, THREADS>>>(out);
  PP_CHECK_LAUNCH();
  unsigned *got = new unsigned[words];
  PP_CHECK(cudaMemcpy(got, out, words * sizeof *out, cudaMemcpyDeviceToHost));
  size_t wrong = 0;
  for (size_t i = 0; i < words; ++i) wrong += got[i] != POISON;
  if (wrong) fprintf(stderr, "%zu of %zu unwritten shared words were not the poison\n", wrong, words);
  else printf("poison: all %zu unwritten shared words read the poison\n", words);
  delete[] got;
  PP_CHECK(cudaFree(out));
  return wrong ? PP_EXIT_FAIL : PP_EXIT_PASS;
}

const char *const LAUNCHES[] = {"<<<>>>", "cudaLaunchKernel", "cudaLaunchKernelEx"};

// Launches use_shared with `dynamic` bytes through LAUNCHES[how]; returns
// pp_launch_error()'s verdict.
int launch_with(int how, unsigned *out, int dynamic, char *note, size_t len) {
  if (how == 0) {
    use_shared<<<1, THREADS, dynamic>>>(out);
  } else if (how == 1) {
    void *args[] = {&out};
    (void)cudaLaunchKernel((const void *)use_shared, dim3(1), dim3(THREADS), args, (size_t)dynamic, 0);
  } else {
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(1);
    config.blockDim = dim3(THREADS);
    config.dynamicSmemBytes = (size_t)dynamic;
    (void)cudaLaunchKernelEx(&config, use_shared, out);
  }
  return pp_launch_error(note, len);
}

int test_shared_cap() {
  const int cap = 64 << 10, fixed = STATIC_WORDS * 4;
  int device = 0, most = 0;
  PP_CHECK(cudaGetDevice(&device));
  PP_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (most < cap + 1024) {
    printf("shared-cap: this GPU gives a block at most %d KiB itself: skipped\n", most / 1024);
    return PP_EXIT_SKIP;
  }
  PP_CHECK(cudaFuncSetAttribute(use_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, cap));
  unsigned *out;
  PP_CHECK(cudaMalloc(&out, sizeof *out));
  pp_launch_watch(cap);
  int failed = 0;
  for (int how = 0; how < 3; ++how) {
    const char *launch = LAUNCHES[how];
    char note[384] = "";
    int within = launch_with(how, out, cap - fixed, note, sizeof note);
    if (within) fprintf(stderr, "%s: a launch of exactly 64 KiB failed: %s\n", launch, note);
    note[0] = '\0';
    int past = launch_with(how, out, cap - fixed + 1024, note, sizeof note);
    if (!past) fprintf(stderr, "%s: a launch of 65 KiB passed the 64 KiB cap unnoticed\n", launch);
    else if (!strstr(note, "use_shared"))
      fprintf(stderr, "%s: the note does not name the kernel: %s\n", launch, note);
    else printf("shared-cap: %s: 64 KiB ran, 65 KiB refused: %s\n", launch, note);
    failed |= within || !past || !strstr(note, "use_shared");
  }
  PP_CHECK(cudaFree(out));
  return failed ? PP_EXIT_FAIL : PP_EXIT_PASS;
}

int test_stream() {
  unsigned *out;
  cudaStream_t own;
  PP_CHECK(cudaMalloc(&out, sizeof *out));
  PP_CHECK(cudaStreamCreate(&own));
  pp_launch_watch(0);
  const struct {
    const char *what;
    cudaStream_t stream;
    int ex, refused;
  } cases[] = {{"<<<>>> on 0", 0, 0, 0},
               {"<<<>>> on cudaStreamLegacy", cudaStreamLegacy, 0, 0},
               {"cudaLaunchKernelEx on 0", 0, 1, 0},
               {"<<<>>> on cudaStreamPerThread", cudaStreamPerThread, 0, 1},
               {"<<<>>> on a stream of its own", own, 0, 1},
               {"cudaLaunchKernelEx on a stream of its own", own, 1, 1}};
  int failed = 0;
  for (const auto &c : cases) {
    char note[384] = "";
    if (c.ex) {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(1);
      config.blockDim = dim3(THREADS);
      config.dynamicSmemBytes = THREADS * sizeof *out;
      config.stream = c.stream;
      (void)cudaLaunchKernelEx(&config, use_shared, out);
    } else {
      use_shared<<<1, THREADS, THREADS * sizeof *out, c.stream>>>(out);
    }
    PP_CHECK(cudaDeviceSynchronize());
    int refused = pp_launch_error(note, sizeof note) != 0;
    int right = refused == c.refused && (!refused || strstr(note, "use_shared"));
    if (!right)
      fprintf(stderr, "stream: %s was %s, not %s: %s\n", c.what, refused ? "refused" : "let through",
              c.refused ? "refused, naming the kernel" : "let through", note);
    else printf("stream: %s %s%s\n", c.what, refused ? "refused: " : "ran clean", note);
    failed |= !right;
  }
  PP_CHECK(cudaStreamDestroy(own));
  PP_CHECK(cudaFree(out));
  return failed ? PP_EXIT_FAIL : PP_EXIT_PASS;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s poison|shared-cap|stream\n", argv[0]);
    return PP_EXIT_USAGE;
  }
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    return PP_EXIT_SKIP;
  }
  if (!strcmp(argv[1], "poison")) return test_poison();
  if (!strcmp(argv[1], "shared-cap")) return test_shared_cap();
  if (!strcmp(argv[1], "stream")) return test_stream();
  fprintf(stderr, "unknown group %s\n", argv[1]);
  return PP_EXIT_USAGE;
}
