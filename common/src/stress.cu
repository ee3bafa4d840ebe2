// The interference kernel of the stress sweep (pp/stress.h).
#include "pp/check.h"
#include "pp/stress.h"
#include "random_core.h"

namespace {

// A scratch area past the L2 of any current GPU, so that the atomics evict.
constexpr size_t SCRATCH_WORDS = (size_t)64 << 20;  // 256 MiB
constexpr int THREADS = 256;

// Each thread adds into scattered words for `rounds` rounds, sleeping a
// little between them so that the blocks hold their multiprocessors for a
// while without starving the variant's blocks of issue slots entirely.
__global__ void interference_kernel(unsigned *scratch, uint64_t key, int rounds) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    uint64_t bits = pp_bits_at(key, i * 1024 + r);
    atomicAdd(&scratch[bits % SCRATCH_WORDS], 1u);
    __nanosleep((unsigned)(bits >> 54));  // up to ~1 us
  }
}

struct interference {
  cudaStream_t stream;
  unsigned *scratch;
  int sm_count;
};

interference &state() {
  static interference s;
  if (!s.scratch) {
    int device = 0;
    PP_CHECK(cudaGetDevice(&device));
    PP_CHECK(cudaDeviceGetAttribute(&s.sm_count, cudaDevAttrMultiProcessorCount, device));
    PP_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    PP_CHECK(cudaMalloc(&s.scratch, SCRATCH_WORDS * sizeof(unsigned)));
    PP_CHECK(cudaMemsetAsync(s.scratch, 0, SCRATCH_WORDS * sizeof(unsigned), s.stream));
  }
  return s;
}

}  // namespace

extern "C" void pp_interference_launch(uint64_t seed) {
  interference &s = state();
  uint64_t bits = pp_bits_at(pp_stream_key(seed, 0x5757), 0);
  int blocks = 1 + (int)pp_bits_below(bits, (uint64_t)s.sm_count * 2);  // up to two per SM
  int rounds = 16 + (int)pp_bits_below(bits << 32, 240);
  interference_kernel<<<blocks, THREADS, 0, s.stream>>>(s.scratch, bits, rounds);
  PP_CHECK_LAUNCH();
}

extern "C" void pp_interference_wait(void) {
  PP_CHECK(cudaStreamSynchronize(state().stream));
}
