/**
 * @file warp_collectives.h
 * @brief A lab's file with each warp collective checked: every lane its mask
 *        names must call it.
 *
 * Force-included (nvcc -include) into a build of a file. CUDA's warp
 * collectives (__shfl*_sync, __ballot_sync, __all_sync, __any_sync,
 * __match_*_sync, __reduce_*_sync, __syncwarp) name in a mask the lanes that
 * take part, and each lane the mask names must call the same one: a
 * full-mask shuffle called by 8 lanes of a warp reads undefined values from
 * the other 24. On the GPUs this course runs on it reads what those lanes'
 * registers hold, so the sums come out right, and compute-sanitizer's
 * synccheck passes it. Here each call first checks that the calling lane is
 * in its mask, then synchronizes the mask's lanes (__syncwarp) and checks
 * that all of them are active together (__activemask()): a lane that is
 * missing stops the kernel (__trap()), after the warp's lowest active lane has
 * printed the collective, the mask and the lanes that called it. A kernel
 * that has diverged and will call the collective with every lane of its mask
 * passes: the synchronization brings them together first.
 *
 * The rule is stricter than CUDA's in one case: a lane of the mask that has
 * exited is reported missing (CUDA lets it be named, but not read from).
 */
#ifndef PP_WARP_COLLECTIVES_H
#define PP_WARP_COLLECTIVES_H

#include <cuda_runtime.h>
#include <stdio.h>
// Every header that declares a warp collective (for their own types), before
// the macros below rename its calls.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

/** Stops the kernel unless the calling lane and every lane of @p mask call the
 *  collective @p what together. */
static __device__ __forceinline__ void pp_warp_check(unsigned mask, const char *what) {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  if (!(mask >> lane & 1u)) {
    printf("warp check: %s with mask 0x%08x called by lane %u, which the mask does not name "
           "(block %u, thread %u)\n",
           what, mask, lane, blockIdx.x, threadIdx.x);
    __trap();
  }
  __syncwarp(mask);
  unsigned together = __activemask() & mask;
  if (together != mask) {
    if (lane == (unsigned)__ffs(together) - 1)
      printf("warp check: %s with mask 0x%08x called by lanes 0x%08x only (block %u, warp of "
             "thread %u): every lane the mask names must call it\n",
             what, mask, together, blockIdx.x, threadIdx.x);
    __trap();
  }
}

/** Each collective, checked, then CUDA's own (the macros below come after: a
 *  call here is CUDA's). Templates, so that one not called needs no support of
 *  the GPU compiled for (__reduce_*_sync: compute capability 8.0). */
#define PP_WARP_CHECKED(checked, collective)                                                    \
  template <typename... Args>                                                                   \
  static __device__ __forceinline__ auto checked(unsigned mask, Args... args)                   \
      -> decltype(collective(mask, args...)) {                                                  \
    pp_warp_check(mask, #collective);                                                           \
    return collective(mask, args...);                                                           \
  }
PP_WARP_CHECKED(pp_checked_shfl, __shfl_sync)
PP_WARP_CHECKED(pp_checked_shfl_up, __shfl_up_sync)
PP_WARP_CHECKED(pp_checked_shfl_down, __shfl_down_sync)
PP_WARP_CHECKED(pp_checked_shfl_xor, __shfl_xor_sync)
PP_WARP_CHECKED(pp_checked_ballot, __ballot_sync)
PP_WARP_CHECKED(pp_checked_all, __all_sync)
PP_WARP_CHECKED(pp_checked_any, __any_sync)
PP_WARP_CHECKED(pp_checked_match_any, __match_any_sync)
PP_WARP_CHECKED(pp_checked_match_all, __match_all_sync)
PP_WARP_CHECKED(pp_checked_reduce_add, __reduce_add_sync)
PP_WARP_CHECKED(pp_checked_reduce_min, __reduce_min_sync)
PP_WARP_CHECKED(pp_checked_reduce_max, __reduce_max_sync)
PP_WARP_CHECKED(pp_checked_reduce_and, __reduce_and_sync)
PP_WARP_CHECKED(pp_checked_reduce_or, __reduce_or_sync)
PP_WARP_CHECKED(pp_checked_reduce_xor, __reduce_xor_sync)
#undef PP_WARP_CHECKED

/** __syncwarp(), checked: the check's own synchronization is the barrier. */
static __device__ __forceinline__ void pp_checked_syncwarp(unsigned mask = 0xffffffffu) {
  pp_warp_check(mask, "__syncwarp");
}

// Every later call of a collective in the file is checked. (A macro does not
// expand within its own expansion: the call inside a checked one is CUDA's.)
#define __shfl_sync(...) pp_checked_shfl(__VA_ARGS__)             ///< __shfl_sync(), checked
#define __shfl_up_sync(...) pp_checked_shfl_up(__VA_ARGS__)       ///< __shfl_up_sync(), checked
#define __shfl_down_sync(...) pp_checked_shfl_down(__VA_ARGS__)   ///< __shfl_down_sync(), checked
#define __shfl_xor_sync(...) pp_checked_shfl_xor(__VA_ARGS__)     ///< __shfl_xor_sync(), checked
#define __ballot_sync(...) pp_checked_ballot(__VA_ARGS__)         ///< __ballot_sync(), checked
#define __all_sync(...) pp_checked_all(__VA_ARGS__)               ///< __all_sync(), checked
#define __any_sync(...) pp_checked_any(__VA_ARGS__)               ///< __any_sync(), checked
#define __match_any_sync(...) pp_checked_match_any(__VA_ARGS__)   ///< __match_any_sync(), checked
#define __match_all_sync(...) pp_checked_match_all(__VA_ARGS__)   ///< __match_all_sync(), checked
#define __reduce_add_sync(...) pp_checked_reduce_add(__VA_ARGS__) ///< __reduce_add_sync(), checked
#define __reduce_min_sync(...) pp_checked_reduce_min(__VA_ARGS__) ///< __reduce_min_sync(), checked
#define __reduce_max_sync(...) pp_checked_reduce_max(__VA_ARGS__) ///< __reduce_max_sync(), checked
#define __reduce_and_sync(...) pp_checked_reduce_and(__VA_ARGS__) ///< __reduce_and_sync(), checked
#define __reduce_or_sync(...) pp_checked_reduce_or(__VA_ARGS__)   ///< __reduce_or_sync(), checked
#define __reduce_xor_sync(...) pp_checked_reduce_xor(__VA_ARGS__) ///< __reduce_xor_sync(), checked
#define __syncwarp(...) pp_checked_syncwarp(__VA_ARGS__)          ///< __syncwarp(), checked

#endif
