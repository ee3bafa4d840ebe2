// Lab 06: tensor-core matrix multiplication. C = A * B with BF16 inputs and
// FP32 sums, from lab 05's tiles on the CUDA cores to Hopper's warpgroup
// matrix instructions fed by its copy engine, one technique per step.
//
// Handout: docs/labs/06-tensor-core-matmul.md   Contract: tests/06-tensor-core-matmul/tensor_matmul.h
// Build, run, grade (from the repository root; on an H100 or H200 the build
// makes this file sm_90a code, which v4-v6 need, as CUDAARCHS=90 does on a
// machine without a GPU):
//   cmake --build --preset student --target 06-tensor-core-matmul
//   build/student/bin/06-tensor-core-matmul --variant v2-mma-ldmatrix --size 1024x1024x1024
//   ctest --preset student -L 06-tensor-core-matmul
// Hints for the TODOs: docs/labs/hints/06-tensor-core-matmul.md
//
// A is M x K row-major and B is K x N column-major (N rows of K elements),
// both with pitch ld = K rounded up to 8, their padding NaN; C is M x N
// row-major FP32. Both inputs are "K-major", the layout the tensor cores
// read. Every variant works for any M, N, K: a tile that hangs over an edge
// of A or B, or over column K into the padding, is filled with zeros, and
// elements of C outside the matrix are never written. Blocks are numbered
// along a 1-D grid (no limit of 65535 tile rows); tile_origin() finds a
// block's tile, v6 walks tiles of its own.
//
// v1-v3 need BF16 tensor cores (compute capability 8.0 on); v4-v6 need code
// built for sm_90a, Hopper's own instructions, on a compute capability 9.0
// GPU. Elsewhere a launcher says so once on stderr and runs the rung it can.

#include "tensor_matmul.h"
#include "pp/check.h"
#include "pp/device.h"

#include <cudaTypedefs.h>  // CUtensorMap and cuTensorMapEncodeTiled's type: no link with the driver
#include <mma.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef __nv_bfloat16 bf16;

// Dynamic shared memory of v3-v6 (v4-v6 align their tiles to 1024 bytes themselves).
extern __shared__ __align__(1024) uint8_t dynamic_shared[];

// Device code of the tensor-core rungs is compiled only where its
// instructions exist: BF16 mma from sm_80, wgmma and setmaxnreg in sm_90a.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HAS_BF16_MMA 1
#endif
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define HAS_SM90A 1
#endif

// ---------------------------------------------------------------------------
// Given: tiles, guarded loads and stores, and the checks behind the fallbacks.

// Top-left corner of this block's tile_rows x tile_cols tile of C.
__device__ void tile_origin(int n, int tile_rows, int tile_cols, int *row0, int *col0) {
  int tiles_per_row = (n + tile_cols - 1) / tile_cols;
  *row0 = (int)(blockIdx.x / tiles_per_row) * tile_rows;
  *col0 = (int)(blockIdx.x % tiles_per_row) * tile_cols;
}

static unsigned tile_count(int m, int n, int tile_rows, int tile_cols) {
  return (unsigned)(((size_t)m + tile_rows - 1) / tile_rows * (((size_t)n + tile_cols - 1) / tile_cols));
}

// Elements p .. p + 7 of row `row` of x (`rows` rows of k elements, pitch
// ld) as 16 bytes; zeros past the last row and past column k, so that the
// NaN padding is never read. p is a multiple of 8: the load is aligned.
__device__ uint4 load8_or_zero(const bf16 *x, long long ld, int rows, int k, int row, int p) {
  if (row >= rows || p >= k) return make_uint4(0, 0, 0, 0);
  const bf16 *src = x + row * ld + p;
  if (p + 8 <= k) return *(const uint4 *)src;
  unsigned short h[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) h[i] = p + i < k ? __bfloat16_as_ushort(src[i]) : 0;
  return make_uint4(h[0] | (unsigned)h[1] << 16, h[2] | (unsigned)h[3] << 16, h[4] | (unsigned)h[5] << 16,
                    h[6] | (unsigned)h[7] << 16);
}

// Copies the ROWS x (8 CHUNKS) tile of x at (row0, p0) into `tile` (row
// pitch `pitch` elements, a multiple of 8), 16 bytes per thread and load.
template <int ROWS, int CHUNKS, int THREADS>
__device__ void copy_tile(bf16 *tile, int pitch, const bf16 *x, long long ld, int rows, int k, int row0,
                          int p0) {
  static_assert(ROWS * CHUNKS % THREADS == 0, "every thread copies as many chunks");
#pragma unroll
  for (int i = 0; i < ROWS * CHUNKS / THREADS; ++i) {
    int f = threadIdx.x + i * THREADS, r = f / CHUNKS, chunk = f % CHUNKS;
    *(uint4 *)&tile[r * pitch + chunk * 8] = load8_or_zero(x, ld, rows, k, row0 + r, p0 + chunk * 8);
  }
}

// c[row][col .. col + 1] = v0, v1, the part inside the m x n matrix C
// (col even; one 8-byte store where N is even, which keeps it aligned).
__device__ void store_pair(float *c, int m, int n, int row, int col, float v0, float v1) {
  if (row >= m || col >= n) return;
  float *dst = c + (size_t)row * n + col;
  if (col + 1 >= n) {
    dst[0] = v0;
  } else if (n % 2 == 0) {
    *(float2 *)dst = make_float2(v0, v1);
  } else {
    dst[0] = v0;
    dst[1] = v1;
  }
}

// Stores a warp's 16 x (8 N8) block of sums at (row, col), in the layout of
// the tensor cores' accumulators: for each 8 columns j, lane l holds
// acc[4j], acc[4j+1] at row l/4, columns 8j + 2(l%4) + {0, 1}, and
// acc[4j+2], acc[4j+3] eight rows below.
template <int N8>
__device__ void store_warp_rows(float *c, int m, int n, int row, int col, const float *acc) {
  int lane = threadIdx.x % 32, r = row + lane / 4, cc = col + lane % 4 * 2;
#pragma unroll
  for (int j = 0; j < N8; ++j) {
    store_pair(c, m, n, r, cc + 8 * j, acc[4 * j], acc[4 * j + 1]);
    store_pair(c, m, n, r + 8, cc + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

// What this file's device code was built as, where it runs: the
// __CUDA_ARCH__ of the code the GPU runs, and whether it is sm_90a's.
__device__ int built_for[2];
__global__ void probe_build_kernel() {
#ifdef __CUDA_ARCH__
  built_for[0] = __CUDA_ARCH__;
#ifdef HAS_SM90A
  built_for[1] = 1;
#endif
#endif
}

static const int *device_build() {
  static int build[2] = {-1, 0};
  if (build[0] < 0) {
    probe_build_kernel<<<1, 1>>>();
    PP_CHECK_LAUNCH();
    PP_CHECK(cudaMemcpyFromSymbol(build, built_for, sizeof build));
  }
  return build;
}

// Whether the tensor-core rungs can run here: BF16 mma (v1-v3) needs sm_80
// code; wgmma (v4-v6) sm_90a code on a 9.0 GPU and `shared_bytes` of shared
// memory per block. Otherwise `rung` says once on stderr what runs instead.
static bool can_run(int *said, const char *rung, bool hopper, size_t shared_bytes, const char *instead) {
  const int *build = device_build();
  int device = 0, major = 0, minor = 0;
  PP_CHECK(cudaGetDevice(&device));
  PP_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  PP_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  bool ok = hopper ? build[1] && major == 9 && minor == 0 : build[0] >= 800;
  ok = ok && shared_bytes <= (size_t)pp_shared_memory_per_block();
  if (!ok && !*said) {
    fprintf(stderr, "%s: needs %s and %zu bytes of shared memory per block; runs %s instead\n", rung,
            hopper ? "sm_90a code on a compute capability 9.0 GPU" : "sm_80 code or newer", shared_bytes,
            instead);
    *said = 1;
  }
  return ok;
}

// ---------------------------------------------------------------------------
// Given: the PTX instructions of v2-v6, one small wrapper each.

__device__ __forceinline__ uint32_t shared_address(const void *p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

// Four 8 x 8 matrices of 16-bit elements from shared memory, one register of
// each per lane: lanes 8i .. 8i + 7 give the addresses of matrix i's rows.
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t address) {
#ifdef HAS_BF16_MMA
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
#endif
}

// d += a * b for one warp: a 16 x 16 (row-major), b 16 x 8 (column-major).
__device__ __forceinline__ void mma_16x8x16(float d[4], const uint32_t a[4], const uint32_t b[2]) {
#ifdef HAS_BF16_MMA
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
               "{%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

// 16 bytes from global to shared memory in the background; only the first
// src_bytes are read, the rest of the 16 are zeros.
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void *src, int src_bytes) {
#ifdef HAS_BF16_MMA
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
               : "memory");
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifdef HAS_BF16_MMA
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most PENDING of this thread's groups of copies are in flight.
template <int PENDING> __device__ __forceinline__ void cp_async_wait() {
#ifdef HAS_BF16_MMA
  asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING) : "memory");
#endif
}

// Shared memory written by this thread's ordinary stores or cp.async, made
// visible to the tensor cores' and copy engine's reads (the async proxy).
__device__ __forceinline__ void fence_proxy_async() {
#ifdef HAS_SM90A
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

// wgmma: a warpgroup's d (64 x N FP32, N / 2 registers a thread) += A * B,
// A 64 x 16 and B 16 x N, both K-major in shared memory, each named by a
// matrix descriptor. Asynchronous: fence before, commit, then wait.
__device__ __forceinline__ void wgmma_fence() {
#ifdef HAS_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wgmma_commit() {
#ifdef HAS_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
// Waits until at most PENDING of the warpgroup's committed groups are in flight.
template <int PENDING> __device__ __forceinline__ void wgmma_wait() {
#ifdef HAS_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(PENDING) : "memory");
#endif
}
#define ACC8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
                "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define ACC64(i) ACC8(i), ACC8(i + 8), ACC8(i + 16), ACC8(i + 24), ACC8(i + 32), ACC8(i + 40), \
                 ACC8(i + 48), ACC8(i + 56)
template <int N>
__device__ __forceinline__ void wgmma_64xNx16(float (&d)[N / 2], uint64_t a_desc, uint64_t b_desc) {
  static_assert(N == 128 || N == 256, "the two widths the rungs use");
#ifdef HAS_SM90A
  if constexpr (N == 128)
    asm volatile(
      "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "
      "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
      "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, "
      "%59, %60, %61, %62, %63}, "
      "%64, %65, accumulate, 1, 1, 0, 0;\n}\n"
      : ACC64(0)
      : "l"(a_desc), "l"(b_desc), "r"(1));
  else
    asm volatile(
      "{\n.reg .pred accumulate;\nsetp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, "
      "%21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
      "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, "
      "%59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, "
      "%78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, "
      "%97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, "
      "%113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, accumulate, 1, 1, 0, 0;\n}\n"
      : ACC64(0), ACC64(64)
      : "l"(a_desc), "l"(b_desc), "r"(1));
#endif
}
// Keeps the compiler from touching d before the wait that completes it.
template <int R> __device__ __forceinline__ void fence_registers(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// mbarriers (64-bit, in shared memory): a count of arrivals plus a count of
// bytes still to come from the copy engine; a phase completes when both
// reach zero, and waiters ask for the phase by its parity.
__device__ __forceinline__ void mbarrier_init(uint64_t *bar, int arrivals) {
#ifdef HAS_SM90A
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals));
#endif
}
// Makes the initialized barriers visible to the copy engine and the cluster.
__device__ __forceinline__ void fence_mbarrier_init() {
#ifdef HAS_SM90A
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
// Arrives, announcing `bytes` that the copy engine will deliver in this phase.
__device__ __forceinline__ void mbarrier_expect_bytes(uint64_t *bar, uint32_t bytes) {
#ifdef HAS_SM90A
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)),
               "r"(bytes)
               : "memory");
#endif
}
// Arrives on the barrier at bar's place in the shared memory of block `cta`
// of the cluster (this block itself without a cluster). The release is at
// the block's scope (PTX's default), as CUTLASS's cluster barriers arrive:
// what the arrival orders, wgmma's reads of a stage, has completed at
// wgmma_wait(), and no ordinary store is published through it. A release at
// cluster scope costs a GPU-wide memory fence (MEMBAR.ALL.GPU in the SASS)
// at every step, which also waits for the last tile's stores to C.
__device__ __forceinline__ void mbarrier_arrive(uint64_t *bar, uint32_t cta) {
#ifdef HAS_SM90A
  asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(
                   shared_address(bar)),
               "r"(cta)
               : "memory");
#endif
}
__device__ __forceinline__ void mbarrier_wait(uint64_t *bar, uint32_t parity) {
#ifdef HAS_SM90A
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(shared_address(bar)), "r"(parity)
                 : "memory");
#endif
}

// The copy engine (TMA): the box of `map` at (x along K, y along rows) into
// shared memory at dst, completing `bar`'s bytes; with a mask, into the same
// place in each block of the cluster that the mask names.
__device__ __forceinline__ void tma_load(uint32_t dst, const CUtensorMap *map, uint64_t *bar, int x, int y) {
#ifdef HAS_SM90A
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes "
               "[%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
               "l"(map), "r"(x), "r"(y), "r"(shared_address(bar))
               : "memory");
#endif
}
__device__ __forceinline__ void tma_load_multicast(uint32_t dst, const CUtensorMap *map, uint64_t *bar, int x,
                                                   int y, uint16_t ctas) {
#ifdef HAS_SM90A
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
               ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
               "l"(map), "r"(x), "r"(y), "r"(shared_address(bar)), "h"(ctas)
               : "memory");
#endif
}

// Warpgroup register budgets (setmaxnreg): the producer gives registers
// back, the consumers take them, while the block runs.
template <int REGISTERS> __device__ __forceinline__ void registers_release() {
#ifdef HAS_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGISTERS));
#endif
}
template <int REGISTERS> __device__ __forceinline__ void registers_claim() {
#ifdef HAS_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGISTERS));
#endif
}

// Clusters: all threads of all blocks of the cluster meet; this block's rank.
__device__ __forceinline__ void cluster_sync() {
#ifdef HAS_SM90A
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t rank = 0;
#ifdef HAS_SM90A
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
#endif
  return rank;
}

// ---------------------------------------------------------------------------
// v0, CUDA cores (given). Lab 05's shared-memory tiles: 32 x 32 tiles of A
// and B, each element loaded once per block and converted to FP32, one FMA
// per product on the CUDA cores, one element of C per thread. B's tile is
// kept as it is stored, b_tile[col][p], padded by one float per row so that
// a warp's 32 columns fall in 32 different banks.

#define V0_TILE 32

__device__ float element_or_zero(const bf16 *x, long long ld, int rows, int k, int row, int p) {
  return row < rows && p < k ? __bfloat162float(x[row * ld + p]) : 0.0f;
}

__global__ void v0_kernel(const bf16 *a, const bf16 *b, float *c, int m, int n, int k, long long ld) {
  __shared__ float a_tile[V0_TILE][V0_TILE + 1], b_tile[V0_TILE][V0_TILE + 1];
  int row0, col0;
  tile_origin(n, V0_TILE, V0_TILE, &row0, &col0);
  int ty = threadIdx.x / V0_TILE, tx = threadIdx.x % V0_TILE;
  float sum = 0.0f;
  for (int p0 = 0; p0 < k; p0 += V0_TILE) {
    a_tile[ty][tx] = element_or_zero(a, ld, m, k, row0 + ty, p0 + tx);
    b_tile[ty][tx] = element_or_zero(b, ld, n, k, col0 + ty, p0 + tx);
    __syncthreads();
    for (int p = 0; p < V0_TILE; ++p) sum += a_tile[ty][p] * b_tile[tx][p];
    __syncthreads();
  }
  if (row0 + ty < m && col0 + tx < n) c[(size_t)(row0 + ty) * n + col0 + tx] = sum;
}

// ---------------------------------------------------------------------------
// v1, wmma. The tensor cores multiply a 16 x 16 by a 16 x 16 block in one
// instruction per warp, BF16 in, FP32 sums: 4096 FMAs where a CUDA core
// does 1. CUDA's nvcuda::wmma hands them out as opaque fragments: a warp
// loads fragments of A and B from shared memory and multiplies them into
// fragments of C. A block of 4 warps computes a 64 x 64 tile, each warp
// 32 x 32 (2 x 2 fragments), along K in steps of 32; the tile rows are 40
// elements long (80 bytes, a multiple of 16 as wmma needs) so that the
// fragment loads spread over the banks.

#define V1_TILE 64
#define V1_BK 32
#define V1_PITCH (V1_BK + 8)
#define V1_THREADS 128

__global__ void __launch_bounds__(V1_THREADS) v1_kernel(const bf16 *a, const bf16 *b, float *c, int m, int n,
                                                        int k, long long ld) {
#ifdef HAS_BF16_MMA
  using namespace nvcuda;
  __shared__ __align__(128) bf16 a_tile[V1_TILE * V1_PITCH], b_tile[V1_TILE * V1_PITCH];
  __shared__ __align__(128) float c_tile[V1_TILE][V1_TILE + 4];
  int row0, col0;
  tile_origin(n, V1_TILE, V1_TILE, &row0, &col0);
  int warp = threadIdx.x / 32, warp_row = warp / 2 * 32, warp_col = warp % 2 * 32;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int p0 = 0; p0 < k; p0 += V1_BK) {
    copy_tile<V1_TILE, V1_BK / 8, V1_THREADS>(a_tile, V1_PITCH, a, ld, m, k, row0, p0);
    copy_tile<V1_TILE, V1_BK / 8, V1_THREADS>(b_tile, V1_PITCH, b, ld, n, k, col0, p0);
    __syncthreads();
    // TODO 1: for each 16 of the step's V1_BK along K: load the warp's two
    // fragments of A (wmma::matrix_a, row_major, at a_tile row warp_row + 16 i)
    // and two of B (wmma::matrix_b, col_major: b_tile row n is column n of B,
    // at row warp_col + 16 j) with wmma::load_matrix_sync(..., V1_PITCH), then
    // wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]) for the four
    // pairs. Each fragment of A serves two products, each of B two.
    // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 1.
    __syncthreads();
  }
  // A fragment's layout is opaque: through shared memory to C, whose edges need guards.
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&c_tile[warp_row + 16 * i][warp_col + 16 * j], acc[i][j], V1_TILE + 4,
                              wmma::mem_row_major);
  __syncthreads();
  for (int e = threadIdx.x; e < V1_TILE * V1_TILE; e += V1_THREADS) {
    int row = row0 + e / V1_TILE, col = col0 + e % V1_TILE;
    if (row < m && col < n) c[(size_t)row * n + col] = c_tile[e / V1_TILE][e % V1_TILE];
  }
#endif
}

// ---------------------------------------------------------------------------
// v2, mma.sync fed by ldmatrix. The instruction under wmma, with its layout
// known: mma.sync m16n8k16 multiplies a 16 x 16 block of A by a 16 x 8 block
// of B, each lane holding fixed elements of each, so the sums go from
// registers straight to C. ldmatrix loads the fragments, four 8 x 8
// matrices in one instruction. A block of 8 warps computes a 128 x 128 tile,
// each warp a 64 x 32 warp tile: per 16 along K it loads 4 fragments of A
// and 4 of B for 16 mma, each fragment used 4 times from registers (v1's
// 32 x 32 warp tile: twice). The tiles are stored as they come, 32 elements
// (64 bytes) a row: the 8 rows an ldmatrix phase reads fall in two places
// of the 128 bytes of banks, a 4-way bank conflict that v3 removes.

#define MMA_TILE 128   // v2, v3: 128 x 128 tiles of C
#define MMA_THREADS 256
#define V2_BK 32

// Byte offset of 16-byte chunk `chunk` of row r of a tile of ROW_CHUNKS
// chunks a row, SWIZZLED or not (v3).
template <int ROW_CHUNKS, bool SWIZZLED> __device__ __forceinline__ uint32_t tile_offset(int r, int chunk);

// One 16 along K (chunks 2 kk, 2 kk + 1 of the rows) of a warp's 64 x 32
// warp tile at (warp_row, warp_col): acc[i][j] += A rows warp_row + 16 i
// times B columns warp_col + 8 j. a_tile and b_tile are shared addresses.
template <int ROW_CHUNKS, bool SWIZZLED>
__device__ void warp_tile_mma(float acc[4][4][4], uint32_t a_tile, uint32_t b_tile, int warp_row,
                              int warp_col, int kk) {
  int lane = threadIdx.x % 32;
  uint32_t a_frag[4][4], b_frag[4][2];
  // TODO 2: four ldmatrix_x4() for A and two for B, then 16 mma_16x8x16().
  // Lane l gives the address of row l % 8 of matrix l / 8.
  // - a_frag[i]: tile row warp_row + 16 i + l % 16, chunk 2 kk + l / 16 (the
  //   four matrices come out in the order mma's operand a wants).
  // - b_frag[2 j] and b_frag[2 j + 1] from one ldmatrix_x4(r) at b_tile row
  //   warp_col + 16 j + l % 8 + (l / 16) * 8, chunk 2 kk + (l / 8) % 2: r[0],
  //   r[1] are b_frag[2 j], r[2], r[3] b_frag[2 j + 1].
  // Addresses: a_tile + tile_offset<ROW_CHUNKS, SWIZZLED>(row, chunk). Then
  // mma_16x8x16(acc[i][j], a_frag[i], b_frag[j]) for every i and j.
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 2.
  (void)lane, (void)a_frag, (void)b_frag, (void)acc, (void)a_tile, (void)b_tile, (void)warp_row,
  (void)warp_col, (void)kk;
}

// A warp's 64 x 32 warp tile of sums into C.
__device__ void store_warp_tile(float *c, int m, int n, int row, int col, float acc[4][4][4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) store_warp_rows<4>(c, m, n, row + 16 * i, col, &acc[i][0][0]);
}

__global__ void __launch_bounds__(MMA_THREADS) v2_kernel(const bf16 *a, const bf16 *b, float *c, int m, int n,
                                                         int k, long long ld) {
#ifdef HAS_BF16_MMA
  __shared__ __align__(128) bf16 a_tile[MMA_TILE * V2_BK], b_tile[MMA_TILE * V2_BK];
  int row0, col0;
  tile_origin(n, MMA_TILE, MMA_TILE, &row0, &col0);
  int warp = threadIdx.x / 32, warp_row = warp / 4 * 64, warp_col = warp % 4 * 32;
  float acc[4][4][4] = {};
  for (int p0 = 0; p0 < k; p0 += V2_BK) {
    copy_tile<MMA_TILE, V2_BK / 8, MMA_THREADS>(a_tile, V2_BK, a, ld, m, k, row0, p0);
    copy_tile<MMA_TILE, V2_BK / 8, MMA_THREADS>(b_tile, V2_BK, b, ld, n, k, col0, p0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < V2_BK / 16; ++kk)
      warp_tile_mma<V2_BK / 8, false>(acc, shared_address(a_tile), shared_address(b_tile), warp_row, warp_col,
                                      kk);
    __syncthreads();
  }
  store_warp_tile(c, m, n, row0 + warp_row, col0 + warp_col, acc);
#endif
}

// ---------------------------------------------------------------------------
// v3, swizzled tiles and a cp.async pipeline. Two changes to v2:
// - Steps of 64 along K, tile rows of 128 bytes, swizzled (tile_offset()):
//   every ldmatrix phase reads 8 different sets of banks, no conflict.
// - The copies go from global to shared memory by cp.async, 16 bytes at a
//   time, without passing through registers, into STAGES copies of the
//   tiles: the copies of the next STAGES - 1 steps are in flight while one
//   step is multiplied. A chunk past row M (N) or column K is filled with
//   zeros by cp.async itself: it reads only its first src_bytes (0, or the
//   bytes before column K), so neither the padding nor memory past the
//   matrix is read.
// Three stages of 32 KiB take 96 KiB of dynamic shared memory; where a
// block may have only 64 KiB, two.

#define SWZ_BK 64                          // v3-v6: steps of 64 along K, 128 bytes a row
#define TILE_BYTES (128 * SWZ_BK * 2)      // a 128-row tile of A or B: 16 KiB
#define V3_STAGES 3

// Byte offset of 16-byte chunk `chunk` of row r of a tile of ROW_CHUNKS
// chunks a row. SWIZZLED (8 chunks, 128 bytes a row): chunk c of row r is
// stored at chunk c ^ (r % 8), so that 8 consecutive rows of one chunk land
// in 8 different sets of banks. This is also the 128-byte swizzle of
// Hopper's copy engine and wgmma (v4-v6).
template <int ROW_CHUNKS, bool SWIZZLED> __device__ __forceinline__ uint32_t tile_offset(int r, int chunk) {
  static_assert(!SWIZZLED || ROW_CHUNKS == 8, "the swizzle permutes the 8 chunks of a 128-byte row");
  if (!SWIZZLED) return (uint32_t)(r * ROW_CHUNKS + chunk) * 16;
  // TODO 3a: as above, with chunk c of row r stored at chunk c ^ (r % 8).
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 3a.
  return 0;
}

// Starts the copy of the ROWS x 64 tile of x at (row0, p0) into the
// swizzled tile at shared address `tile`: zeros past the last row and
// column k. cp.async's groups are left to the caller.
template <int ROWS, int THREADS>
__device__ void copy_tile_async(uint32_t tile, const bf16 *x, long long ld, int rows, int k, int row0,
                                int p0) {
#pragma unroll
  for (int i = 0; i < ROWS * 8 / THREADS; ++i) {
    int f = threadIdx.x + i * THREADS, r = f / 8, chunk = f % 8, row = row0 + r, p = p0 + chunk * 8;
    // TODO 3b: cp_async_16(tile + tile_offset<8, true>(r, chunk), src,
    // src_bytes): src_bytes is 2 bytes per element of the chunk before column
    // k (0 to 16), and 0 past row `rows`; src is the chunk's place in x, or x
    // itself where src_bytes is 0 (a valid address that is not read).
    // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 3b.
    (void)tile, (void)x, (void)ld, (void)rows, (void)k, (void)r, (void)row, (void)p;
  }
}

// Starts the copies of step `step`'s tiles of A and B into stage `stage`.
__device__ void copy_step_async(uint32_t a_tiles, uint32_t b_tiles, int stage, int step, const bf16 *a,
                                const bf16 *b, long long ld, int m, int n, int k, int row0, int col0) {
  copy_tile_async<128, MMA_THREADS>(a_tiles + stage * TILE_BYTES, a, ld, m, k, row0, step * SWZ_BK);
  copy_tile_async<128, MMA_THREADS>(b_tiles + stage * TILE_BYTES, b, ld, n, k, col0, step * SWZ_BK);
}

template <int STAGES>
__global__ void __launch_bounds__(MMA_THREADS) v3_kernel(const bf16 *a, const bf16 *b, float *c, int m, int n,
                                                         int k, long long ld) {
#ifdef HAS_BF16_MMA
  uint32_t a_tiles = shared_address(dynamic_shared), b_tiles = a_tiles + STAGES * TILE_BYTES;
  int row0, col0;
  tile_origin(n, MMA_TILE, MMA_TILE, &row0, &col0);
  int warp = threadIdx.x / 32, warp_row = warp / 4 * 64, warp_col = warp % 4 * 32;
  float acc[4][4][4] = {};
  int steps = (k + SWZ_BK - 1) / SWZ_BK;
  // TODO 3c: before the loop, start the copies of steps 0 .. STAGES - 2
  // (copy_step_async() into stage s, if s < steps) and close one group each
  // with cp_async_commit(), even an empty one. Then for each step:
  // cp_async_wait<STAGES - 2>() (this thread's copies of this step landed)
  // and __syncthreads() (everyone's did, and everyone finished the previous
  // step); start step + STAGES - 1 into the stage the previous step used,
  // and commit; multiply this step's stage, step % STAGES, with
  // warp_tile_mma<8, true>(..., kk) for kk = 0 .. 3.
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 3c.
  (void)&a_tiles, (void)&b_tiles, (void)&steps, (void)&warp_row, (void)&warp_col;
  store_warp_tile(c, m, n, row0 + warp_row, col0 + warp_col, acc);
#endif
}

// ---------------------------------------------------------------------------
// v4, wgmma. Hopper's tensor cores take their operands from shared memory
// themselves: one wgmma.mma_async, issued by a warpgroup (4 warps), makes a
// 64 x 128 x 16 product, A and B read straight from the swizzled tiles, sums
// in registers; nothing goes through ldmatrix. It runs asynchronously: the
// warpgroup issues the 4 wgmma of a step, commits them as a group and waits
// for the group before its stage may be overwritten. A 64-bit matrix
// descriptor names each operand in shared memory: its address, the 128-byte
// swizzle, and 1024 bytes from one group of 8 rows to the next (v3's tile
// layout exactly; tiles aligned to 1024 bytes, the swizzle's period). Two
// warpgroups compute a 128 x 128 tile; the copies are v3's, four stages.
// Shared memory that cp.async wrote is made visible to the tensor cores'
// reads by fence_proxy_async() before the barrier.

#define WG_TILE 128    // v4, v5: 128 x 128 tiles of C, 64 rows per warpgroup
#define WG_THREADS 256
#define WG_STAGES 4
#define WG_SHARED_BYTES (WG_STAGES * 2 * TILE_BYTES + 1024)  // + room to align to 1024

__device__ __forceinline__ uint32_t align_1024(uint32_t address) {
  return (address + 1023) & ~1023u;
}

// The wgmma descriptor of the swizzled K-major tile at shared address
// `tile`: start address, leading offset (unused with a swizzle: 1), stride
// offset 1024 (8 rows of 128 bytes), 128-byte swizzle; addresses in 16s.
// Adding 2 moves it 32 bytes, the next 16 along K.
__device__ __forceinline__ uint64_t matrix_descriptor(uint32_t tile) {
  // TODO 4a: (tile & 0x3FFFF) >> 4 in bits 0-13, 1 in bits 16-29, 1024 >> 4 in
  // bits 32-45, and 1 in bits 62-63 (the 128-byte swizzle). Build it in a
  // uint64_t: the fields past bit 31 need 64-bit shifts.
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 4a.
  return tile;
}

// One step of a warpgroup's 64 x N block: acc += its 64 rows of the A tile
// at `a_rows` times the N-row B tile at `b_tile`, 4 x 16 along K.
template <int N>
__device__ __forceinline__ void wgmma_step(float (&acc)[N / 2], uint32_t a_rows, uint32_t b_tile) {
  uint64_t a_desc = matrix_descriptor(a_rows), b_desc = matrix_descriptor(b_tile);
  // TODO 4b: wgmma_fence(); then for kk = 0 .. 3,
  // wgmma_64xNx16<N>(acc, a_desc + 2 kk, b_desc + 2 kk) (each 16 along K is
  // 32 bytes further along the rows); then wgmma_commit().
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 4b.
  (void)acc, (void)a_desc, (void)b_desc;
}

// A warpgroup's 64 x N block of sums into C at (row, col).
template <int N>
__device__ void store_warpgroup_block(float *c, int m, int n, int row, int col, const float (&acc)[N / 2]) {
  store_warp_rows<N / 8>(c, m, n, row + threadIdx.x / 32 % 4 * 16, col, acc);
}

__global__ void __launch_bounds__(WG_THREADS) v4_kernel(const bf16 *a, const bf16 *b, float *c, int m, int n,
                                                        int k, long long ld) {
#ifdef HAS_SM90A
  uint32_t a_tiles = align_1024(shared_address(dynamic_shared)), b_tiles = a_tiles + WG_STAGES * TILE_BYTES;
  int row0, col0;
  tile_origin(n, WG_TILE, WG_TILE, &row0, &col0);
  int warpgroup = threadIdx.x / 128;
  float acc[64] = {};
  int steps = (k + SWZ_BK - 1) / SWZ_BK;
#pragma unroll
  for (int s = 0; s < WG_STAGES - 1; ++s) {
    if (s < steps) copy_step_async(a_tiles, b_tiles, s, s, a, b, ld, m, n, k, row0, col0);
    cp_async_commit();
  }
  for (int step = 0; step < steps; ++step) {
    cp_async_wait<WG_STAGES - 2>();
    fence_proxy_async();
    __syncthreads();
    int next = step + WG_STAGES - 1, stage = step % WG_STAGES;
    if (next < steps)
      copy_step_async(a_tiles, b_tiles, next % WG_STAGES, next, a, b, ld, m, n, k, row0, col0);
    cp_async_commit();
    wgmma_step<WG_TILE>(acc, a_tiles + stage * TILE_BYTES + warpgroup * 64 * 128,
                        b_tiles + stage * TILE_BYTES);
    wgmma_wait<0>();  // the stage is read: the next barrier may let it be overwritten
  }
  fence_registers(acc);
  store_warpgroup_block<WG_TILE>(c, m, n, row0 + warpgroup * 64, col0, acc);
#endif
}

// ---------------------------------------------------------------------------
// v5, the copy engine (TMA) and mbarriers. One thread asks the copy engine
// for a whole 128 x 64 tile with one instruction, cp.async.bulk.tensor,
// described by a tensor map (the matrix's address, extents, pitch, box and
// swizzle) made on the host and passed to the kernel as a __grid_constant__
// parameter. The engine writes the tile swizzled and counts its bytes on an
// mbarrier in shared memory; the threads wait on the barrier's phase rather
// than on copies of their own. The map's extent along K is K, not the
// pitch, and its rows end at M (N): the engine fills what lies outside with
// zeros, so edges and the NaN padding need no code. The 256 threads issue
// no copies: all stages are requested ahead, and after each step (a barrier,
// as in v4) thread 0 requests the step STAGES ahead into the stage just read.

#define WG_TX_BYTES (2 * TILE_BYTES)  // a stage of v5: the tiles of A and B

// The tensor map of a matrix of `rows` rows of k BF16 elements with pitch
// ld: boxes of 128 rows of 64 elements (128 bytes, the swizzle's width),
// swizzled; what a box holds past `rows` or column k reads as zeros.
static CUtensorMap tensor_map(const bf16 *x, int rows, int k, long long ld) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
  if (!encode) {
    cudaDriverEntryPointQueryResult found;
    PP_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000,
                                              cudaEnableDefault, &found));
    PP_CHECK(found == cudaDriverEntryPointSuccess ? cudaSuccess : cudaErrorSymbolNotFound);
  }
  CUtensorMap map;
  // TODO 5a: arrays dims {k, rows}, strides {ld * sizeof(bf16)} (one fewer
  // than the dimensions: the first is the element), box {SWZ_BK, 128},
  // element strides {1, 1}; then encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
  // 2, (void *)x, dims, strides, box, element_strides,
  // CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
  // CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
  // (FILL_NONE: zeros), and PP_CHECK() that it returned CUDA_SUCCESS.
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 5a.
  (void)x, (void)rows, (void)k, (void)ld, (void)encode, memset(&map, 0, sizeof map);
  return map;
}

__global__ void __launch_bounds__(WG_THREADS) v5_kernel(const __grid_constant__ CUtensorMap a_map,
                                                        const __grid_constant__ CUtensorMap b_map, float *c,
                                                        int m, int n, int k) {
#ifdef HAS_SM90A
  __shared__ uint64_t full[WG_STAGES];  // full[s] completes a phase when stage s has landed
  uint32_t a_tiles = align_1024(shared_address(dynamic_shared)), b_tiles = a_tiles + WG_STAGES * TILE_BYTES;
  int row0, col0;
  tile_origin(n, WG_TILE, WG_TILE, &row0, &col0);
  int warpgroup = threadIdx.x / 128;
  float acc[64] = {};
  int steps = (k + SWZ_BK - 1) / SWZ_BK;
  // TODO 5b: thread 0: mbarrier_init(&full[s], 1) for every stage,
  // fence_mbarrier_init(), then request steps 0 .. WG_STAGES - 1 (those below
  // `steps`): mbarrier_expect_bytes(&full[s], WG_TX_BYTES), then tma_load()
  // of A's tile (a_map, x = step * SWZ_BK, y = row0) and B's (b_map, y = col0)
  // into stage s, completing full[s]. __syncthreads(), so that no thread waits
  // on a barrier before it is initialized. Then for each step, in stage
  // step % WG_STAGES: mbarrier_wait(&full[stage], (step / WG_STAGES) % 2) (the
  // phase of this use of the stage), wgmma_step() as in v4, wgmma_wait<0>(),
  // __syncthreads() (both warpgroups are done with the stage), and thread 0
  // requests step + WG_STAGES into it, if that step exists.
  // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 5b.
  (void)&full, (void)&a_tiles, (void)&b_tiles, (void)&warpgroup, (void)&steps, (void)&row0, (void)&col0;
  fence_registers(acc);
  store_warpgroup_block<WG_TILE>(c, m, n, row0 + warpgroup * 64, col0, acc);
#endif
}

// ---------------------------------------------------------------------------
// v6, warp specialization, a cluster that shares B, persistent blocks. In
// v5 every thread waits at every step's barrier, and the tensor cores idle
// from the end of one step's products to the start of the next. Here:
// - Roles: warpgroup 0 is the producer: one of its threads requests the
//   tiles, STAGES ahead. Warpgroups 1 and 2 are consumers: each waits on
//   a stage's `full` barrier, issues its products and, as soon as they are
//   done (wgmma_wait<1>() leaves the next step's products running), arrives
//   on the stage's `empty` barrier, for which the producer waits before it
//   requests the stage again. No block-wide barrier: each side waits only
//   for what it needs. The producer needs few registers: setmaxnreg gives
//   its share to the consumers, 232 each.
// - A larger tile, 128 x 256: each consumer a 64 x 256 block, 128 sums per
//   thread, one m64n256k16 wgmma per 16 along K; each byte brought from L2
//   serves more operations (a stage of 48 KiB for 4.2 M: 85 a byte; v5: 64).
// - A cluster of 2 blocks takes two tiles one above the other, which need
//   the same B: each block requests half of B's tile, and the copy engine
//   writes it into both blocks (multicast). L2 then sends each block 32 KiB
//   a step instead of 48. A stage is free only when the consumers of both
//   blocks are done with it, so each consumer arrives on the `empty`
//   barrier of both. (A C of one row of tiles runs without a cluster.)
// - Persistent blocks: the grid is as many clusters as the GPU holds at
//   once, and each walks units of work (a cluster's tiles), gridDim apart,
//   down groups of V6_GROUP unit rows, then along (units running at once
//   share rows of A and columns of B in L2). The producer runs on into the
//   next tile while the consumers store this one.

#define V6_BN 256
#define V6_THREADS 384
#define V6_STAGES 4
#define V6_STAGE_BYTES (3 * TILE_BYTES)  // A 128 x 64, B 256 x 64
#define V6_SHARED_BYTES (V6_STAGES * V6_STAGE_BYTES + 1024)
#define V6_GROUP 8

// Tile row and column of unit u: units go down V6_GROUP rows, then along.
__device__ void unit_tile(int u, int units_m, int units_n, int group, int *um, int *un) {
  int per_group = group * units_n, first = u / per_group * group, in_group = u % per_group;
  int rows = min(units_m - first, group);
  *um = first + in_group % rows;
  *un = in_group / rows;
}

template <int CLUSTER>
__global__ void __launch_bounds__(V6_THREADS, 1)
    v6_kernel(const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map, float *c,
              int m, int n, int k, int group) {
#ifdef HAS_SM90A
  __shared__ uint64_t full[V6_STAGES], empty[V6_STAGES];
  uint32_t stages = align_1024(shared_address(dynamic_shared));  // stage s: A, then B's two 128-row halves
  uint32_t rank = CLUSTER > 1 ? cluster_rank() : 0;
  if (threadIdx.x == 0) {
    for (int s = 0; s < V6_STAGES; ++s) mbarrier_init(&full[s], 1), mbarrier_init(&empty[s], 2 * CLUSTER);
    fence_mbarrier_init();
  }
  if (CLUSTER > 1) cluster_sync();  // the other block's barriers are ready too
  else __syncthreads();
  int units_m = ((m + 127) / 128 + CLUSTER - 1) / CLUSTER, units_n = (n + V6_BN - 1) / V6_BN;
  int units = units_m * units_n, steps = (k + SWZ_BK - 1) / SWZ_BK;
  int first_unit = blockIdx.x / CLUSTER, unit_stride = gridDim.x / CLUSTER;
  if (threadIdx.x < 128) {
    registers_release<40>();
    // TODO 6a: in thread 0, a counter `use` of stage uses over all the block's
    // tiles: stage = use % V6_STAGES. For its u-th use with u = use /
    // V6_STAGES >= 1, mbarrier_wait(&empty[stage], (u - 1) % 2). Then
    // mbarrier_expect_bytes(&full[stage], V6_STAGE_BYTES) and, at x = step *
    // SWZ_BK: tma_load() of A into the stage at y = tile_row * 128; B's half h
    // goes TILE_BYTES * (1 + h) into the stage, from y = tile_col * V6_BN +
    // 128 h: both halves by tma_load() where CLUSTER is 1, else half `rank` by
    // tma_load_multicast(..., (1 << CLUSTER) - 1), all blocks of the cluster.
    // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 6a.
    (void)&a_map, (void)&b_map, (void)&stages, (void)&rank, (void)&units, (void)&steps, (void)&first_unit,
    (void)&unit_stride, (void)&units_m, (void)&units_n;
  } else {
    registers_claim<232>();
    int consumer = threadIdx.x / 128 - 1, thread = threadIdx.x % 128;
    // TODO 6b: per unit, the tile's row and column as in TODO 6a, and float
    // acc[V6_BN / 2] = {}. For each step, the same `use` counter as the
    // producer's: mbarrier_wait(&full[stage], use / V6_STAGES % 2);
    // wgmma_step<V6_BN>(acc, the stage's A rows 64 consumer on, its B tile);
    // wgmma_wait<1>(): the previous step's products are done, so (from the
    // second step on) free its stage: threads 0 .. CLUSTER - 1 of the
    // consumer call mbarrier_arrive(&empty[previous stage], thread), one
    // arrival in each block. After the last step: wgmma_wait<0>(), free the
    // last stage, fence_registers(acc), store_warpgroup_block<V6_BN>().
    // Hint: docs/labs/hints/06-tensor-core-matmul.md, TODO 6b.
    (void)&consumer, (void)&thread, (void)&c;
  }
  if (CLUSTER > 1) cluster_sync();  // no block leaves while the other may still write to it
#endif
}

// ---------------------------------------------------------------------------
// Launchers and the table the grader reads. Each returns at once for an
// empty C, and writes zeros for K = 0 (every tile of C is written).

static bool nothing_to_multiply(float *c, int m, int n, int k) {
  if (m == 0 || n == 0) return true;  // C is empty, and a grid of no blocks is an error
  if (k > 0) return false;
  PP_CHECK(cudaMemsetAsync(c, 0, (size_t)m * n * sizeof(float), 0));
  return true;
}

static void tensor_matmul_v0(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  if (nothing_to_multiply(c, m, n, k)) return;
  v0_kernel<<<tile_count(m, n, V0_TILE, V0_TILE), V0_TILE * V0_TILE>>>(a, b, c, m, n, k,
                                                                       tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

static void tensor_matmul_v1(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v1-wmma", false, 0, "v0-cuda-cores")) return tensor_matmul_v0(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  v1_kernel<<<tile_count(m, n, V1_TILE, V1_TILE), V1_THREADS>>>(a, b, c, m, n, k, tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

static void tensor_matmul_v2(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v2-mma-ldmatrix", false, 0, "v0-cuda-cores"))
    return tensor_matmul_v0(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  v2_kernel<<<tile_count(m, n, MMA_TILE, MMA_TILE), MMA_THREADS>>>(a, b, c, m, n, k, tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

template <int STAGES> static void launch_v3(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  size_t shared_bytes = STAGES * 2 * TILE_BYTES;
  PP_CHECK(cudaFuncSetAttribute(v3_kernel<STAGES>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)shared_bytes));
  v3_kernel<STAGES><<<tile_count(m, n, MMA_TILE, MMA_TILE), MMA_THREADS, shared_bytes>>>(
      a, b, c, m, n, k, tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

// Three stages where a block may have 96 KiB, else two (64 KiB).
static void tensor_matmul_v3(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v3-swizzled-pipeline", false, 2 * 2 * TILE_BYTES, "v0-cuda-cores"))
    return tensor_matmul_v0(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  if (V3_STAGES * 2 * TILE_BYTES <= pp_shared_memory_per_block())
    launch_v3<V3_STAGES>(a, b, c, m, n, k);
  else
    launch_v3<2>(a, b, c, m, n, k);
}

static void tensor_matmul_v4(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v4-wgmma", true, WG_SHARED_BYTES, "v3-swizzled-pipeline"))
    return tensor_matmul_v3(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  PP_CHECK(cudaFuncSetAttribute(v4_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, WG_SHARED_BYTES));
  v4_kernel<<<tile_count(m, n, WG_TILE, WG_TILE), WG_THREADS, WG_SHARED_BYTES>>>(a, b, c, m, n, k,
                                                                               tensor_matmul_pitch(k));
  PP_CHECK_LAUNCH();
}

static void tensor_matmul_v5(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v5-tma-mbarrier", true, WG_SHARED_BYTES, "v3-swizzled-pipeline"))
    return tensor_matmul_v3(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  long long ld = tensor_matmul_pitch(k);
  CUtensorMap a_map = tensor_map(a, m, k, ld), b_map = tensor_map(b, n, k, ld);
  PP_CHECK(cudaFuncSetAttribute(v5_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, WG_SHARED_BYTES));
  v5_kernel<<<tile_count(m, n, WG_TILE, WG_TILE), WG_THREADS, WG_SHARED_BYTES>>>(a_map, b_map, c, m, n, k);
  PP_CHECK_LAUNCH();
}

// v6 with clusters of CLUSTER blocks: as many clusters as the GPU holds at
// once (cudaOccupancyMaxActiveClusters: not every SM can pair), at most one
// per unit of work.
template <int CLUSTER>
static void launch_v6(const bf16 *a, const bf16 *b, float *c, int m, int n, int k, int group) {
  long long ld = tensor_matmul_pitch(k);
  CUtensorMap a_map = tensor_map(a, m, k, ld), b_map = tensor_map(b, n, k, ld);
  void (*kernel)(CUtensorMap, CUtensorMap, float *, int, int, int, int) = v6_kernel<CLUSTER>;
  PP_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, V6_SHARED_BYTES));
  int units = (int)tile_count(m, n, 128 * CLUSTER, V6_BN);
  cudaLaunchAttribute cluster;
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = CLUSTER, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((unsigned)(units * CLUSTER)), config.blockDim = dim3(V6_THREADS);
  config.dynamicSmemBytes = V6_SHARED_BYTES, config.stream = 0, config.attrs = &cluster, config.numAttrs = 1;
  int clusters = 0;
  PP_CHECK(cudaOccupancyMaxActiveClusters(&clusters, (void *)kernel, &config));
  config.gridDim = dim3((unsigned)(min(units, max(clusters, 1)) * CLUSTER));
  PP_CHECK(cudaLaunchKernelEx(&config, kernel, a_map, b_map, c, m, n, k, group));
}

// Pairs of tiles where C has at least two rows of tiles.
static void tensor_matmul_v6(const bf16 *a, const bf16 *b, float *c, int m, int n, int k) {
  static int said = 0;
  if (!can_run(&said, "v6-warp-specialized", true, V6_SHARED_BYTES, "v3-swizzled-pipeline"))
    return tensor_matmul_v3(a, b, c, m, n, k);
  if (nothing_to_multiply(c, m, n, k)) return;
  if (m > 128)
    launch_v6<2>(a, b, c, m, n, k, V6_GROUP);
  else
    launch_v6<1>(a, b, c, m, n, k, V6_GROUP);
}

extern "C" const tensor_matmul_variant tensor_matmul_variants[] = {
    {"v0-cuda-cores", "lab 05's 32x32 shared tiles, BF16 converted to FP32, one FMA per product",
     tensor_matmul_v0},
    {"v1-wmma", "tensor cores through wmma: 16x16x16 BF16 fragments, FP32 sums, 64x64 tiles",
     tensor_matmul_v1},
    {"v2-mma-ldmatrix", "mma.sync m16n8k16 fed by ldmatrix, 64x32 warp tiles, sums stored from registers",
     tensor_matmul_v2},
    {"v3-swizzled-pipeline", "XOR-swizzled 128-byte tile rows (no bank conflicts), 3-stage cp.async pipeline",
     tensor_matmul_v3},
    {"v4-wgmma", "Hopper wgmma: a warpgroup's 64x128x16 products straight from swizzled shared memory",
     tensor_matmul_v4},
    {"v5-tma-mbarrier",
     "the copy engine brings whole tiles (zeros past the edges), threads wait on mbarriers",
     tensor_matmul_v5},
    {"v6-warp-specialized",
     "producer and consumer warpgroups, 128x256 tiles, B multicast to a 2-block cluster, persistent blocks",
     tensor_matmul_v6},
};
extern "C" const int tensor_matmul_variant_count =
    sizeof tensor_matmul_variants / sizeof tensor_matmul_variants[0];
