/**
 * @file reversed_blocks.h
 * @brief A lab's file with its blocks' indices reversed, for the stress check.
 *
 * Force-included (nvcc -include) into a second build of a lab's file, the
 * `<lab>-reversed` runner of the gauntlet's stress check (cmake/Labs.cmake):
 * every `blockIdx` of the file reads blockIdx.x as gridDim.x - 1 - blockIdx.x.
 * CUDA promises nothing about the order in which a grid's blocks start, so a
 * correct kernel gives the same results either way. But GPUs start blocks in
 * index order, and a kernel that waits on a block of lower index (a look-back
 * that takes blockIdx.x as its tile rather than drawing tiles from a
 * counter) is right only because of that order. Reversed, the first blocks to
 * start wait on blocks that cannot start until they end: in a grid larger
 * than the GPU holds at once, such a kernel hangs, and the time limit (or its
 * own spin limit) catches it.
 */
#ifndef PP_REVERSED_BLOCKS_H
#define PP_REVERSED_BLOCKS_H

#include <cuda_runtime.h>

/** blockIdx with x reversed within the grid (host code, which has no block index: zeros). A
 *  __host__ __device__ function, so that every file that builds as it is builds reversed too. */
static __host__ __device__ __forceinline__ uint3 pp_reversed_block_index(void) {
#ifdef __CUDA_ARCH__
  uint3 index = blockIdx;
  index.x = gridDim.x - 1 - index.x;
  return index;
#else
  return make_uint3(0, 0, 0);
#endif
}

/** Every later use of blockIdx in the file reads the reversed index. */
#define blockIdx pp_reversed_block_index()

#endif
