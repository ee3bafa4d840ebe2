// Shared memory poisoned before a variant runs. Nothing clears an SM's
// shared memory between kernels: a kernel that reads a slot it never wrote
// gets what the last kernel there left, often a value that happens to be
// harmless (zero, or the same partial sum). This fills every SM's shared
// memory with all-ones words first (NaN as a float, -1 as an int), so that
// such a read shows in the output.
#include "poison_shared.h"
#include "pp/check.h"

namespace {

constexpr int THREADS = 1024;

__global__ void __launch_bounds__(THREADS) poison_shared_kernel(unsigned words) {
  extern __shared__ unsigned slots[];
  for (unsigned i = threadIdx.x; i < words; i += THREADS) slots[i] = 0xffffffffu;
}

}  // namespace

extern "C" void pp_poison_shared(void) {
  static int blocks, bytes;
  if (!blocks) {
    int device = 0, sms = 0;
    PP_CHECK(cudaGetDevice(&device));
    PP_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PP_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    PP_CHECK(cudaFuncSetAttribute(poison_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    PP_CHECK(cudaFuncSetAttribute(poison_shared_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  cudaSharedmemCarveoutMaxShared));
    // One block per SM fits (each takes all a block may have); twice as many
    // blocks make sure that every SM gets one.
    blocks = 2 * sms;
  }
  poison_shared_kernel<<<blocks, THREADS, (size_t)bytes>>>((unsigned)bytes / 4);
  PP_CHECK_LAUNCH();
}
