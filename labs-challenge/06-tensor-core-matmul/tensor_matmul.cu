// Lab 06: matrix multiplication on the tensor cores. C = A * B with BF16
// inputs and FP32 accumulation.
//
// Contract: tests/06-tensor-core-matmul/tensor_matmul.h
// Build, run, grade (from the repository root):
//   cmake --build --preset student --target 06-tensor-core-matmul
//   build/student/bin/06-tensor-core-matmul --variant v0-cuda-cores --size 1024x1024x1024
//   ctest --preset student -L 06-tensor-core-matmul
//
// A is M x K row-major, B is K x N column-major, both with pitch
// tensor_matmul_pitch(K) (K rounded up to 8) and NaN past K; C is M x N,
// row-major FP32. Every variant works for any M, N, K: a tile that hangs over
// the edge of a matrix is padded with zeros (elements outside, the padding
// among them, are never used), and elements of C outside the matrix are
// never written. Only the launchers at the bottom of the file are seen by the
// grader, through the table tensor_matmul_variants.

#include <cuda_bf16.h>

#include "pp/check.h"
#include "tensor_matmul.h"

// ---------------------------------------------------------------------------
// v0-cuda-cores (given): the baseline on the CUDA cores. A block computes a
// 32 x 32 tile of C, one element per thread: it copies 32 x 32 tiles of A (32
// rows) and B (32 columns) into shared memory as floats, 32 elements of K at
// a time, and each thread adds its row times its column with FP32 fused
// multiply-adds. Both tiles are read along K, as A and B are stored: a warp's
// loads are coalesced. The blocks are numbered along a 1-D grid, which has no
// limit of 65535 tile rows.

constexpr int V0_TILE = 32;

__global__ void __launch_bounds__(V0_TILE * V0_TILE)
    matmul_v0_kernel(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k, size_t pitch) {
  // a_tile[row][p] and b_tile[column][p]; one float of padding per row keeps
  // a warp's reads of b_tile[threadIdx.x][p] in 32 different banks.
  __shared__ float a_tile[V0_TILE][V0_TILE + 1], b_tile[V0_TILE][V0_TILE + 1];
  int tiles_per_row = (n + V0_TILE - 1) / V0_TILE;
  int row0 = (int)(blockIdx.x / tiles_per_row) * V0_TILE, col0 = (int)(blockIdx.x % tiles_per_row) * V0_TILE;
  int tx = threadIdx.x, ty = threadIdx.y;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += V0_TILE) {
    // Thread (ty, tx) copies element p0 + tx of A's row row0 + ty and of B's column col0 + ty.
    bool in_k = p0 + tx < k;
    a_tile[ty][tx] = row0 + ty < m && in_k ? __bfloat162float(a[(size_t)(row0 + ty) * pitch + p0 + tx]) : 0.0f;
    b_tile[ty][tx] = col0 + ty < n && in_k ? __bfloat162float(b[(size_t)(col0 + ty) * pitch + p0 + tx]) : 0.0f;
    __syncthreads();
    for (int p = 0; p < V0_TILE; ++p) sum = fmaf(a_tile[ty][p], b_tile[tx][p], sum);
    __syncthreads(); // the tiles are the next step's
  }
  int row = row0 + ty, col = col0 + tx;
  if (row < m && col < n) c[(size_t)row * n + col] = sum;
}

static void matmul_v0(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k) {
  if (m == 0 || n == 0) return;
  size_t tiles = ((size_t)m + V0_TILE - 1) / V0_TILE * (((size_t)n + V0_TILE - 1) / V0_TILE);
  matmul_v0_kernel<<<(unsigned)tiles, dim3(V0_TILE, V0_TILE)>>>(a, b, c, m, n, k, (size_t)tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// The ladder, in handout order.

extern "C" const tensor_matmul_variant tensor_matmul_variants[] = {
    {"v0-cuda-cores", "32x32 tiles of A and B in shared memory as floats, FP32 FMAs on the CUDA cores", matmul_v0},
};
extern "C" const int tensor_matmul_variant_count = sizeof tensor_matmul_variants / sizeof tensor_matmul_variants[0];
