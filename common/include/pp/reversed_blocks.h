/**
 * @file reversed_blocks.h
 * @brief A lab's file with its blocks' indices reversed and their reads of them
 *        delayed at random, for the stress check.
 *
 * Force-included (nvcc -include) into a second build of a lab's file, the
 * `<lab>-reversed` runner of the gauntlet's stress check (cmake/Labs.cmake):
 * every `blockIdx` of the file reads blockIdx.x as gridDim.x - 1 - blockIdx.x.
 * CUDA promises nothing about the order in which a grid's blocks start or how
 * fast each runs, so a correct kernel gives the same results either way. But
 * GPUs start blocks in index order, and at nearly the same speed:
 * - a kernel that waits on a block of lower index (a look-back that takes
 *   blockIdx.x as its tile rather than drawing tiles from a counter) is right
 *   only because of that order. Reversed, in a grid larger than the GPU holds
 *   at once, the first blocks to start wait on blocks that cannot start until
 *   they end: it hangs, and the time limit (or its own spin limit) catches it;
 * - a kernel whose blocks overwrite what another block of the same launch has
 *   still to read (a pass written over its own input), or that announces a
 *   result before storing it (a ticket drawn before the partial sum it counts
 *   is stored), is right only while no block falls behind. So, besides the
 *   reversal, one read of the index in PP_DELAY_ODDS, per thread, sleeps for
 *   up to about PP_DELAY_MAX_NS: the thread falls behind the others by
 *   microseconds, as a preempted or starved block can. In about half the
 *   launches, in block 0, the one a pass written over its own input needs
 *   first (it reads what blocks 1, 2, ... store), every thread sleeps at its
 *   reads of the index (PP_DELAY_ODDS_FIRST 1): when a launch's blocks all
 *   fit on the GPU at once, reversal alone hardly delays it, and a warp's
 *   other threads need not wait for a sleeping one before their loads, so
 *   each thread that reads a slot of block 1, 2, ... must be late itself (at
 *   1 in 4, lab 01's finish_sum() in place passed 1 stress check in 8). Not
 *   in every launch: block 0, late, is then usually the last block of the
 *   launch, and a result announced before it is stored shows only while the
 *   last block is not late;
 * - and for the same reason, after one call in PP_ATOMIC_LATE_ODDS, per
 *   thread, of CUDA's atomic functions (atomicAdd() ... atomicCAS()), the
 *   thread sleeps as long before it goes on: what it stores next lands well
 *   after every block can see the atomic's effect. A ticket drawn, or a flag
 *   raised, before the value it announces is stored is then read too early in
 *   many launches, most of all in grids of a few blocks, where the last block
 *   is one of a few. (A sleep before the store at its index read is not
 *   enough: the compiler may read the index before the atomic.)
 */
#ifndef PP_REVERSED_BLOCKS_H
#define PP_REVERSED_BLOCKS_H

#include <cuda_runtime.h>
// Every header that declares an atomic function, before the atomics' macros below rename its calls.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// Each of the odds and times below may be set with -D, to measure what it catches.

/** One read of blockIdx in PP_DELAY_ODDS, per thread, sleeps (a power of two): a warp then
 *  waits for its sleeping thread in about one read in eight. */
#ifndef PP_DELAY_ODDS
#define PP_DELAY_ODDS 256u
#endif
/** The same odds in block 0 (after reversal), in the launches that make it late: every one of
 *  its threads is late there. */
#ifndef PP_DELAY_ODDS_FIRST
#define PP_DELAY_ODDS_FIRST 1u
#endif
/** The longest sleep asked for, in nanoseconds. __nanosleep's time is approximate: an H100,
 *  asked for 16 us, slept 3 to 6. A ticket drawn before its partial is stored shows only if the
 *  late store lands after the last block has drawn its ticket and read the partials: at 16384,
 *  lab 02's v7 with that bug passed 3000 stress runs in a row at 2^24 + 1 elements. */
#ifndef PP_DELAY_MAX_NS
#define PP_DELAY_MAX_NS 65536u
#endif
/** One call of an atomic function in PP_ATOMIC_LATE_ODDS, per thread, is followed by a sleep. */
#ifndef PP_ATOMIC_LATE_ODDS
#define PP_ATOMIC_LATE_ODDS 2u
#endif

/** @p x with every bit of it mixed into every bit of the result (the top bit included). */
static __device__ __forceinline__ unsigned pp_stress_mix(unsigned x) {
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  return x ^ x >> 12;
}

/** A hash of the thread, of @p salt and of the SM's clock: each call draws anew. */
static __device__ __forceinline__ unsigned pp_stress_hash(unsigned salt) {
  return pp_stress_mix(salt * 0x9E3779B1u ^ (threadIdx.x + 1024u * threadIdx.y) * 0x85EBCA77u ^
                       (unsigned)clock64() * 0xC2B2AE3Du);
}

/** Whether this launch makes block 0 late: about half do, by a hash of the launch's own number
 *  (%gridid), alike for every block of a launch. (A bit of the GPU's clock would be alike for
 *  every launch of a stress run whose runs repeat at a multiple of its period.) */
static __device__ __forceinline__ bool pp_launch_late(void) {
  unsigned long long launch;
  asm("mov.u64 %0, %%gridid;" : "=l"(launch));
  return pp_stress_mix((unsigned)(launch ^ launch >> 32) * 0x9E3779B1u) >> 31;
}

/** What an atomic function returned, handed back after a sleep in one call in
 *  PP_ATOMIC_LATE_ODDS. The empty asm statements, which clobber memory, keep the file's next loads
 *  and stores after the sleep, and the sleep after the atomic. */
template <typename T>
static __device__ __forceinline__ T pp_late_after_atomic(T old) {
  asm volatile("" ::: "memory");
  unsigned h = pp_stress_hash(blockIdx.x);
  if (h % PP_ATOMIC_LATE_ODDS == 0) __nanosleep(h / PP_ATOMIC_LATE_ODDS % PP_DELAY_MAX_NS);
  asm volatile("" ::: "memory");
  return old;
}

/** blockIdx with x reversed within the grid; at random, late (host code, which has no block
 *  index: zeros). A __host__ __device__ function, so that every file that builds as it is builds
 *  reversed too. */
static __host__ __device__ __forceinline__ uint3 pp_reversed_block_index(void) {
#ifdef __CUDA_ARCH__
  uint3 index = blockIdx;
  index.x = gridDim.x - 1 - index.x;
  unsigned h = pp_stress_hash(index.x);  // which reads sleep, and how long
  unsigned odds = index.x == 0 && pp_launch_late() ? PP_DELAY_ODDS_FIRST : PP_DELAY_ODDS;
  if (h % odds == 0) __nanosleep(h / odds % PP_DELAY_MAX_NS);
  return index;
#else
  return make_uint3(0, 0, 0);
#endif
}

/** Every later use of blockIdx in the file reads the reversed index. */
#define blockIdx pp_reversed_block_index()

// Every later call of an atomic function in the file may leave its thread late after it. (A
// macro does not expand within its own expansion: the inner call is CUDA's.)
#define atomicAdd(...) pp_late_after_atomic(atomicAdd(__VA_ARGS__)) ///< atomicAdd(), its thread perhaps late after it
#define atomicSub(...) pp_late_after_atomic(atomicSub(__VA_ARGS__)) ///< atomicSub(), its thread perhaps late after it
#define atomicExch(...) pp_late_after_atomic(atomicExch(__VA_ARGS__)) ///< atomicExch(), its thread perhaps late after it
#define atomicMin(...) pp_late_after_atomic(atomicMin(__VA_ARGS__)) ///< atomicMin(), its thread perhaps late after it
#define atomicMax(...) pp_late_after_atomic(atomicMax(__VA_ARGS__)) ///< atomicMax(), its thread perhaps late after it
#define atomicInc(...) pp_late_after_atomic(atomicInc(__VA_ARGS__)) ///< atomicInc(), its thread perhaps late after it
#define atomicDec(...) pp_late_after_atomic(atomicDec(__VA_ARGS__)) ///< atomicDec(), its thread perhaps late after it
#define atomicCAS(...) pp_late_after_atomic(atomicCAS(__VA_ARGS__)) ///< atomicCAS(), its thread perhaps late after it
#define atomicAnd(...) pp_late_after_atomic(atomicAnd(__VA_ARGS__)) ///< atomicAnd(), its thread perhaps late after it
#define atomicOr(...) pp_late_after_atomic(atomicOr(__VA_ARGS__)) ///< atomicOr(), its thread perhaps late after it
#define atomicXor(...) pp_late_after_atomic(atomicXor(__VA_ARGS__)) ///< atomicXor(), its thread perhaps late after it

#endif
