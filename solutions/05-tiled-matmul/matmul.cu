// Lab 05: tiled matrix multiplication. C = A * B in FP32 on the CUDA cores,
// from one thread per element of C toward the speed of cuBLAS, one technique
// per step.
//
// Handout: docs/labs/05-tiled-matmul.md   Contract: tests/05-tiled-matmul/matmul.h
// Build, run, grade (from the repository root):
// BEGIN GUIDED
//   cmake --build --preset student --target 05-tiled-matmul
//   build/student/bin/05-tiled-matmul --variant v2-shared-tiles --size 1024x1024x1024
//   ctest --preset student -L 05-tiled-matmul
// Hints for the TODOs: docs/labs/hints/05-tiled-matmul.md
// END GUIDED
// BEGIN CHALLENGE
//   cmake --workflow --preset challenge   (every lab's file in labs-challenge/)
// END CHALLENGE
//
// A is M x K, B is K x N, C is M x N, all row-major. Every variant works for
// any M, N, K: a tile that hangs over the edge of a matrix is padded with
// zeros (elements outside are never read), and elements of C outside the
// matrix are never written. Each block computes one tile of C (in v6, where
// the launcher splits K, one part of its sums); the blocks are numbered along
// a 1-D grid, which has no limit of 65535 tile rows, and tile_origin() finds
// a block's tile. Only the launchers at the bottom of the file are seen by
// the grader, through the table matmul_variants.

#include "matmul.h"
#include "pp/check.h"
#include "pp/device.h"

// ---------------------------------------------------------------------------
// Given: tiles, guarded loads and stores, and the launch.

// Top-left corner of this block's tile_rows x tile_cols tile of C; blocks
// take the tiles row of tiles by row of tiles.
__device__ void tile_origin(int n, int tile_rows, int tile_cols, int *row0, int *col0) {
  int tiles_per_row = (n + tile_cols - 1) / tile_cols;
  *row0 = (int)(blockIdx.x / tiles_per_row) * tile_rows;
  *col0 = (int)(blockIdx.x % tiles_per_row) * tile_cols;
}

// x[row][col] of a rows x cols row-major matrix, or 0 outside it.
__device__ float load_or_zero(const float *x, int rows, int cols, int row, int col) {
  return row < rows && col < cols ? x[(size_t)row * cols + col] : 0.0f;
}

// Copies the tile_rows x tile_cols tile of x whose corner is (row0, col0)
// into tile[] (row-major), zeros outside x. Every thread of the block copies
// its share; consecutive threads take consecutive elements of a row, so the
// loads of a warp are coalesced.
__device__ void load_tile(float *tile, int tile_rows, int tile_cols, const float *x, int rows,
                          int cols, int row0, int col0) {
  for (int e = threadIdx.x; e < tile_rows * tile_cols; e += blockDim.x)
    tile[e] = load_or_zero(x, rows, cols, row0 + e / tile_cols, col0 + e % tile_cols);
}

// c[row][col] = value, only inside the m x n matrix C.
__device__ void store_if_inside(float *c, int m, int n, int row, int col, float value) {
  if (row < m && col < n) c[(size_t)row * n + col] = value;
}

typedef void matmul_kernel(const float *a, const float *b, float *c, int m, int n, int k);

// Tiles of tile_rows x tile_cols that cover an m x n matrix C, partial ones included.
static size_t tile_count(int m, int n, int tile_rows, int tile_cols) {
  return ((size_t)m + tile_rows - 1) / tile_rows * (((size_t)n + tile_cols - 1) / tile_cols);
}

// Launches `kernel` with one block of `threads` per tile_rows x tile_cols
// tile of C. With K = 0 the kernels still run: they write C = 0. (v6 has a
// launcher of its own, at the bottom of the file.)
static void launch_tiles(matmul_kernel *kernel, int tile_rows, int tile_cols, int threads, const float *a,
                         const float *b, float *c, int m, int n, int k) {
  if (m == 0 || n == 0) return;  // C is empty, and a grid of no blocks is an error
  kernel<<<(unsigned)tile_count(m, n, tile_rows, tile_cols), threads>>>(a, b, c, m, n, k);
  PP_CHECK_LAUNCH();
}

// ---------------------------------------------------------------------------
// v0, naive (given). One thread per element of C, computing row `row` of A
// times column `col` of B straight from global memory. The 32 threads of a
// warp take 32 consecutive rows of one column: each of their loads of A falls
// in a different row (32 memory transactions for one instruction), they all
// load the same element of B, and their stores to C are 32 scattered words.

#define NAIVE_TILE 32  // v0, v1: 32 x 32 threads per block, one element of C each

// C[row][col] = sum over p of A[row][p] * B[p][col], if (row, col) is inside C.
__device__ void naive_element(const float *a, const float *b, float *c, int m, int n, int k, int row,
                              int col) {
  if (row >= m || col >= n) return;
  float sum = 0.0f;
  for (int p = 0; p < k; ++p) sum += a[(size_t)row * k + p] * b[(size_t)p * n + col];
  c[(size_t)row * n + col] = sum;
}

__global__ void matmul_v0_kernel(const float *a, const float *b, float *c, int m, int n, int k) {
  int row0, col0;
  tile_origin(n, NAIVE_TILE, NAIVE_TILE, &row0, &col0);
  naive_element(a, b, c, m, n, k, row0 + threadIdx.x % NAIVE_TILE, col0 + threadIdx.x / NAIVE_TILE);
}

// ---------------------------------------------------------------------------
// v1, coalesced. The same work, with the thread mapping turned around: the
// threads of a warp take 32 consecutive columns of one row. Now they load one
// element of A (a broadcast), 32 consecutive floats of B (one 128-byte
// transaction) and store 32 consecutive floats of C.

__global__ void matmul_v1_kernel(const float *a, const float *b, float *c, int m, int n, int k) {
  int row0, col0;
  tile_origin(n, NAIVE_TILE, NAIVE_TILE, &row0, &col0);
  // BEGIN CHALLENGE
  // TODO 1: compute this thread's element of the 32 x 32 tile at (row0, col0)
  // with naive_element(), as v0 does, but with the threads mapped so that the
  // 32 threads of a warp take 32 consecutive columns of one row: loads of B and
  // stores of C coalesced, loads of A broadcast. Every element of the tile
  // exactly once.
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 1: compute the same element as v0 (naive_element()) with the mapping
  // turned round: consecutive threads take consecutive columns of one row of
  // the block's tile, so that a warp's loads of B and stores of C are
  // contiguous and its load of A is one broadcast.
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 1.
  // END GUIDED
  // BEGIN SOLUTION
  naive_element(a, b, c, m, n, k, row0 + threadIdx.x / NAIVE_TILE, col0 + threadIdx.x % NAIVE_TILE);
  // END SOLUTION
}

// ---------------------------------------------------------------------------
// v2, shared-memory tiles. v1 loads every element of A and B from global
// memory (or cache) once per element of C that needs it: N and M times. Here
// the block walks along K in steps of TILE: it copies a TILE x TILE tile of A
// and one of B into shared memory, then every thread takes its TILE products
// from there. Each element loaded from global memory now serves TILE
// threads. Two barriers per step: after the copy (no thread reads a tile
// before all of it is there) and after the products (no thread overwrites a
// tile that others still read). Tiles over the edge of A or B are padded
// with zeros, which add nothing: K need not be a multiple of TILE.

#define TILE 32  // v2: 32 x 32 tiles of A, B and C; 1024 threads, one element of C each

__global__ void matmul_v2_kernel(const float *a, const float *b, float *c, int m, int n, int k) {
  int row0, col0;
  tile_origin(n, TILE, TILE, &row0, &col0);
  int row = threadIdx.x / TILE, col = threadIdx.x % TILE;
  float sum = 0.0f;
  // BEGIN CHALLENGE
  // TODO 2: leave in sum this thread's element (row0 + row, col0 + col) of C,
  // walking along K in steps of TILE with TILE x TILE tiles of A and B copied
  // to shared memory by the whole block (load_tile(): zeros outside the
  // matrices, so any M, N, K works), each element loaded from global memory
  // serving TILE threads. Block barriers only where needed: no thread reads a
  // tile before it is complete, none overwrites one that others still read.
  // Every thread takes part in every copy and barrier, also those whose element
  // lies outside C.
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 2: leave in sum this thread's element of C, walking along K in steps
  // of TILE: at each step the whole block copies a TILE x TILE tile of A and
  // one of B into shared memory (load_tile()), and each thread adds its TILE
  // products from there. The one idea is where the two barriers go: after the
  // copies (no thread reads a tile before it is complete) and after the
  // products (no thread overwrites a tile another still reads). Every thread
  // takes part in every copy and barrier, also those whose element lies outside
  // C.
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 2.
  // END GUIDED
  // BEGIN SOLUTION
  __shared__ float a_tile[TILE][TILE], b_tile[TILE][TILE];
  for (int p0 = 0; p0 < k; p0 += TILE) {
    load_tile(&a_tile[0][0], TILE, TILE, a, m, k, row0, p0);
    load_tile(&b_tile[0][0], TILE, TILE, b, k, n, p0, col0);
    __syncthreads();
    for (int p = 0; p < TILE; ++p) sum += a_tile[row][p] * b_tile[p][col];
    __syncthreads();
  }
  // END SOLUTION
  store_if_inside(c, m, n, row0 + row, col0 + col, sum);
}

// ---------------------------------------------------------------------------
// v3, 1-D register tiling (thread coarsening). In v2 each product costs two
// shared-memory loads. Here each thread computes V3_TM elements down a column
// of C: it loads b_tile[p][col] once into a register and uses it for V3_TM
// products, so one step of p takes 1 + V3_TM shared loads for V3_TM products
// instead of 2 V3_TM (and the a_tile loads are broadcasts: a warp's threads
// share their rows). The tiles of C are 64 x 64 with 512 threads.

#define V3_BM 64  // rows of the tile of C
#define V3_BN 64  // columns
#define V3_BK 8   // step along K
#define V3_TM 8   // elements of C per thread, down a column
#define V3_THREADS (V3_BM / V3_TM * V3_BN)

__global__ void matmul_v3_kernel(const float *a, const float *b, float *c, int m, int n, int k) {
  __shared__ float a_tile[V3_BM][V3_BK], b_tile[V3_BK][V3_BN];
  int row0, col0;
  tile_origin(n, V3_BM, V3_BN, &row0, &col0);
  int row = threadIdx.x / V3_BN * V3_TM, col = threadIdx.x % V3_BN;
  float sum[V3_TM] = {0.0f};
  for (int p0 = 0; p0 < k; p0 += V3_BK) {
    load_tile(&a_tile[0][0], V3_BM, V3_BK, a, m, k, row0, p0);
    load_tile(&b_tile[0][0], V3_BK, V3_BN, b, k, n, p0, col0);
    __syncthreads();
    // BEGIN CHALLENGE
    // TODO 3: add this step's products into sum[], the thread's V3_TM elements
    // of C down column col (tile rows row .. row + V3_TM - 1), reading each
    // value of b_tile it needs once per step into a register and using it V3_TM
    // times; loops with compile-time bounds, so that sum[] stays in registers.
    // END CHALLENGE
    // BEGIN GUIDED
    // TODO 3: add this step's products to the thread's V3_TM sums, down a
    // column. The idea is reuse in registers: load each value of B once per p
    // and use it for all V3_TM rows.
    // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 3.
    // END GUIDED
    // BEGIN SOLUTION
#pragma unroll
    for (int p = 0; p < V3_BK; ++p) {
      float b_value = b_tile[p][col];
#pragma unroll
      for (int i = 0; i < V3_TM; ++i) sum[i] += a_tile[row + i][p] * b_value;
    }
    // END SOLUTION
    __syncthreads();
  }
  for (int i = 0; i < V3_TM; ++i) store_if_inside(c, m, n, row0 + row + i, col0 + col, sum[i]);
}

// ---------------------------------------------------------------------------
// v4, 2-D register tiling. Each thread computes a TM x TN block of C: per
// step of p it loads TM values of A and TN of B into registers and makes
// their TM * TN products (an outer product). 16 shared loads now feed 64
// FMAs, and the 128 x 128 tile of C reuses each element loaded from global
// memory 128 times. v4 and v5 use this geometry; v6 has its own.

#define BM 128  // rows of the tile of C
#define BN 128  // columns
#define BK 8    // step along K
#define TM 8    // rows of C per thread
#define TN 8    // columns of C per thread
#define THREADS (BM / TM * (BN / TN))

// acc[i][j] += a_frag[i] * b_frag[j]: the thread's share of one step of p.
__device__ void outer_product(float acc[TM][TN], const float a_frag[TM], const float b_frag[TN]) {
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
}

__global__ void __launch_bounds__(THREADS) matmul_v4_kernel(const float *a, const float *b, float *c,
                                                            int m, int n, int k) {
  __shared__ float a_tile[BM][BK], b_tile[BK][BN];
  int row0, col0;
  tile_origin(n, BM, BN, &row0, &col0);
  int row = threadIdx.x / (BN / TN) * TM, col = threadIdx.x % (BN / TN) * TN;
  float acc[TM][TN] = {{0.0f}};
  for (int p0 = 0; p0 < k; p0 += BK) {
    load_tile(&a_tile[0][0], BM, BK, a, m, k, row0, p0);
    load_tile(&b_tile[0][0], BK, BN, b, k, n, p0, col0);
    __syncthreads();
    // BEGIN CHALLENGE
    // TODO 4: add this step's products into acc, the thread's TM x TN block of
    // C (tile rows from row, columns from col), as BK outer products: for each
    // p, every one of the TM values of A and TN values of B the thread needs
    // read from shared memory once, into registers, then all TM * TN products
    // (outer_product()).
    // END CHALLENGE
    // BEGIN GUIDED
    // TODO 4: add this step's products to the thread's TM x TN sums. The idea
    // is the outer product: for each p, bring the thread's TM values of A and
    // TN values of B into registers (a_frag, b_frag), then outer_product()
    // multiplies every pair.
    // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 4.
    // END GUIDED
    // BEGIN SOLUTION
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float a_frag[TM], b_frag[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a_frag[i] = a_tile[row + i][p];
#pragma unroll
      for (int j = 0; j < TN; ++j) b_frag[j] = b_tile[p][col + j];
      outer_product(acc, a_frag, b_frag);
    }
    // END SOLUTION
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) store_if_inside(c, m, n, row0 + row + i, col0 + col + j, acc[i][j]);
}

// ---------------------------------------------------------------------------
// v5, vectorized loads, A transposed, no bank conflicts. Three changes to v4:
// - Global memory is read 16 bytes at a time: each thread loads one float4
//   of A and one of B per step, where v4's load_tile() makes four scalar
//   loads of each, with the index arithmetic and bounds tests of each.
// - A is stored transposed in shared memory, a_tile[p][row], so that the TM
//   values of A a thread needs for one p are contiguous: two float4 loads.
//   (v4's compiler can vectorize only along p, reading the thread's rows of
//   A four steps of p at a time, which holds four times the registers.)
// - No bank conflicts. The thread's 8 x 8 block of C is split into 2 x 2
//   quadrants of 4 x 4, 64 rows and 64 columns apart. A warp's float4 loads
//   of B then cover 256 contiguous bytes, 2 shared-memory wavefronts; v4's
//   threads read 16 bytes 32 bytes apart, 512 bytes in 4 wavefronts for the
//   same 256 bytes of data. The rows of a_tile are padded by PAD floats so
//   that the transposed stores of a warp fall in 32 different banks rather
//   than 16 banks twice.
// Float4 loads and stores of global memory need rows that start on 16 bytes:
// K and N multiples of 4. The body of the kernel is compiled twice, with
// `aligned` a constant: true (float4 loads) and false (scalar loads); the
// launcher picks. Edges cost nothing inside the loop: rows of A past M and
// columns of B past N are clamped to the last one inside, so they are read
// but feed only elements of C that are never stored. Along K the tiles are
// padded with zeros: those products reach every element of C.

#define PAD 4
#define QUADRANT 4  // 4 x 4 elements of C: one float4 of A times one float4 of B

// A[row][col .. col+3] of an m x k matrix A whose rows start lda floats
// apart, row clamped to the last row of A, zeros past column k. col is a
// multiple of 4. (lda is k, except where v6 splits K: a block's A is then a
// band of the columns of the whole, its rows as far apart as the whole's.)
__device__ float4 load_a4_strided(const float *a, int lda, int m, int k, int row, int col, bool aligned) {
  const float *src = a + (size_t)min(row, m - 1) * lda;
  if (aligned) return col < k ? *(const float4 *)(src + col) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  return make_float4(col < k ? src[col] : 0.0f, col + 1 < k ? src[col + 1] : 0.0f,
                     col + 2 < k ? src[col + 2] : 0.0f, col + 3 < k ? src[col + 3] : 0.0f);
}

// A[row][col .. col+3] of A itself, rows k floats apart.
__device__ float4 load_a4(const float *a, int m, int k, int row, int col, bool aligned) {
  return load_a4_strided(a, k, m, k, row, col, aligned);
}

// B[row][col .. col+3], columns clamped to the last column of B, zeros past row k.
// col is a multiple of 4.
__device__ float4 load_b4(const float *b, int n, int k, int row, int col, bool aligned) {
  if (row >= k) return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const float *src = b + (size_t)row * n;
  if (aligned) return *(const float4 *)(src + min(col, n - 4));
  return make_float4(src[min(col, n - 1)], src[min(col + 1, n - 1)], src[min(col + 2, n - 1)],
                     src[min(col + 3, n - 1)]);
}

// c[row][col .. col+3] = v, the part inside the m x n matrix C. col is a multiple of 4.
__device__ void store4_if_inside(float *c, int m, int n, int row, int col, float4 v, bool aligned) {
  if (row >= m || col >= n) return;
  float *dst = c + (size_t)row * n + col;
  if (aligned) {
    *(float4 *)dst = v;
    return;
  }
  dst[0] = v.x;
  if (col + 1 < n) dst[1] = v.y;
  if (col + 2 < n) dst[2] = v.z;
  if (col + 3 < n) dst[3] = v.w;
}

// Float4s of each tile that every thread copies per step.
#define A_LOADS (BM * BK / 4 / THREADS)
#define B_LOADS (BK * BN / 4 / THREADS)

// This thread's float4s of the tile of A at (row0, p0) and of B at (p0, col0).
// Float4 f of the A tile is at row f / (BK / 4), column f % (BK / 4) * 4; of
// the B tile, at row f / (BN / 4), column f % (BN / 4) * 4. Thread t copies
// f = t, t + THREADS, ...: a warp reads whole rows of B.
__device__ void load_tiles_to_registers(const float *a, const float *b, int m, int n, int k, int row0,
                                        int col0, int p0, bool aligned, float4 a_part[A_LOADS],
                                        float4 b_part[B_LOADS]) {
  // BEGIN CHALLENGE
  // TODO 5a: fill a_part and b_part with this thread's float4s of this step's
  // tiles, numbered and assigned as the comment above says, loaded with
  // load_a4() and load_b4() (rows of A past M and columns of B past N clamped,
  // zeros past K, float4 or scalar loads as `aligned` says).
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 5a: fill a_part and b_part with this thread's float4s of the step's
  // tiles, numbered and assigned as the comment above says (f = threadIdx.x,
  // then f + THREADS, ...), loaded from their place in the matrices with
  // load_a4() and load_b4().
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 5a.
  // END GUIDED
  // BEGIN SOLUTION
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    int f = threadIdx.x + l * THREADS;
    a_part[l] = load_a4(a, m, k, row0 + f / (BK / 4), p0 + f % (BK / 4) * 4, aligned);
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    int f = threadIdx.x + l * THREADS;
    b_part[l] = load_b4(b, n, k, p0 + f / (BN / 4), col0 + f % (BN / 4) * 4, aligned);
  }
  // END SOLUTION
}

// Stores them in shared memory: A transposed, a_tile[p][row], and B as it is.
__device__ void store_tiles(float (*a_tile)[BM + PAD], float (*b_tile)[BN], const float4 a_part[A_LOADS],
                            const float4 b_part[B_LOADS]) {
  // BEGIN CHALLENGE
  // TODO 5b: store a_part and b_part into the shared tiles, each float4 at its
  // place in its tile (numbered as in TODO 5a): B as it is, one 16-byte store
  // per float4; A transposed, a_tile[p][row], so that the values of A one p
  // needs lie contiguous.
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 5b: store the float4s of TODO 5a into the shared tiles, at the same
  // places: B as it is, one float4 store; A transposed (element (row, p) of the
  // tile at a_tile[p][row]), so that TODO 5c can read A's fragments as float4s
  // too.
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 5b.
  // END GUIDED
  // BEGIN SOLUTION
#pragma unroll
  for (int l = 0; l < A_LOADS; ++l) {
    int f = threadIdx.x + l * THREADS, row = f / (BK / 4), p = f % (BK / 4) * 4;
    a_tile[p + 0][row] = a_part[l].x;
    a_tile[p + 1][row] = a_part[l].y;
    a_tile[p + 2][row] = a_part[l].z;
    a_tile[p + 3][row] = a_part[l].w;
  }
#pragma unroll
  for (int l = 0; l < B_LOADS; ++l) {
    int f = threadIdx.x + l * THREADS;
    *(float4 *)&b_tile[f / (BN / 4)][f % (BN / 4) * 4] = b_part[l];
  }
  // END SOLUTION
}

// The thread's TM values of A and TN values of B for step p. Its quadrant s
// of rows starts at row `row + s * row_stride` of the tile, its quadrant t
// of columns at column `col + t * col_stride`.
__device__ void load_fragments(float a_frag[TM], float b_frag[TN], const float (*a_tile)[BM + PAD],
                               const float (*b_tile)[BN], int p, int row, int row_stride, int col,
                               int col_stride) {
  // BEGIN CHALLENGE
  // TODO 5c: fill a_frag with the thread's TM values of A for step p and b_frag
  // with its TN values of B, in the quadrant layout that multiply_tiles() and
  // store_quadrants() assume: a_frag[4 s .. 4 s + 3] from the four rows that
  // start at row + s * row_stride, b_frag[4 t .. 4 t + 3] from the four columns
  // that start at col + t * col_stride. One 16-byte shared-memory load per
  // quadrant.
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 5c: fill a_frag and b_frag with the thread's values for step p: four
  // float4 loads from shared memory, one per quadrant, at the rows and columns
  // the comment above gives.
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 5c.
  // END GUIDED
  // BEGIN SOLUTION
#pragma unroll
  for (int s = 0; s < TM / QUADRANT; ++s) {
    float4 v = *(const float4 *)&a_tile[p][row + s * row_stride];
    a_frag[4 * s + 0] = v.x;
    a_frag[4 * s + 1] = v.y;
    a_frag[4 * s + 2] = v.z;
    a_frag[4 * s + 3] = v.w;
  }
#pragma unroll
  for (int t = 0; t < TN / QUADRANT; ++t) {
    float4 v = *(const float4 *)&b_tile[p][col + t * col_stride];
    b_frag[4 * t + 0] = v.x;
    b_frag[4 * t + 1] = v.y;
    b_frag[4 * t + 2] = v.z;
    b_frag[4 * t + 3] = v.w;
  }
  // END SOLUTION
}

// Multiplies the tiles in shared memory into the thread's block of C.
__device__ void multiply_tiles(float acc[TM][TN], const float (*a_tile)[BM + PAD],
                               const float (*b_tile)[BN], int row, int row_stride, int col,
                               int col_stride) {
#pragma unroll
  for (int p = 0; p < BK; ++p) {
    float a_frag[TM], b_frag[TN];
    load_fragments(a_frag, b_frag, a_tile, b_tile, p, row, row_stride, col, col_stride);
    outer_product(acc, a_frag, b_frag);
  }
}

// Writes the thread's block of C, quadrants laid out as in load_fragments(),
// one float4 per row of a quadrant.
__device__ void store_quadrants(float *c, int m, int n, int row0, int col0, const float acc[TM][TN],
                                int row, int row_stride, int col, int col_stride, bool aligned) {
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    int r = row0 + row + i / QUADRANT * row_stride + i % QUADRANT;
#pragma unroll
    for (int t = 0; t < TN / QUADRANT; ++t) {
      const float *v = &acc[i][QUADRANT * t];
      store4_if_inside(c, m, n, r, col0 + col + t * col_stride, make_float4(v[0], v[1], v[2], v[3]),
                       aligned);
    }
  }
}

__device__ __forceinline__ void matmul_v5_body(const float *a, const float *b, float *c, int m, int n,
                                               int k, bool aligned) {
  __shared__ __align__(16) float a_tile[BK][BM + PAD];
  __shared__ __align__(16) float b_tile[BK][BN];
  int row0, col0;
  tile_origin(n, BM, BN, &row0, &col0);
  // Thread (ty, tx) of a 16 x 16 grid: quadrants at rows ty * 4 + {0, 64}, columns tx * 4 + {0, 64}.
  const int row_stride = BM / (TM / QUADRANT), col_stride = BN / (TN / QUADRANT);
  int row = threadIdx.x / (BN / TN) * QUADRANT, col = threadIdx.x % (BN / TN) * QUADRANT;
  float acc[TM][TN] = {{0.0f}};
  for (int p0 = 0; p0 < k; p0 += BK) {
    float4 a_part[A_LOADS], b_part[B_LOADS];
    load_tiles_to_registers(a, b, m, n, k, row0, col0, p0, aligned, a_part, b_part);
    store_tiles(a_tile, b_tile, a_part, b_part);
    __syncthreads();
    multiply_tiles(acc, a_tile, b_tile, row, row_stride, col, col_stride);
    __syncthreads();
  }
  store_quadrants(c, m, n, row0, col0, acc, row, row_stride, col, col_stride, aligned);
}

__global__ void __launch_bounds__(THREADS) matmul_v5_aligned_kernel(const float *a, const float *b,
                                                                    float *c, int m, int n, int k) {
  matmul_v5_body(a, b, c, m, n, k, true);
}

__global__ void __launch_bounds__(THREADS) matmul_v5_any_kernel(const float *a, const float *b, float *c,
                                                                int m, int n, int k) {
  matmul_v5_body(a, b, c, m, n, k, false);
}

// ---------------------------------------------------------------------------
// v6, a bigger tile per thread, warp tiling, and a copy pipeline. Three
// changes to v5 (the measurements that chose them, on the H100 at 4096^3, are
// in docs/results/05-tiled-matmul-tuning.md):
// - A bigger tile: 128 x 256 per block (v6_large below), 8 x 16 elements of
//   C per thread. Per step of p a thread loads 2 float4s of A and 4 of B for
//   128 FMAs (v5: 4 for 64), so more of its instructions are FMAs. Its 128
//   sums, fragments and copies in flight need about 230 registers: one block
//   of 256 threads per SM, which __launch_bounds__(256, 1) allows 255
//   each.
// - Warp tiling: the 8 warps split the tile into 4 x 2 warp tiles of
//   32 x 128, and the 32 lanes of a warp form a LANES_M x LANES_N grid
//   (4 x 8) inside theirs, sub-tiles of 4 x 4 LANES_M * 4 rows and
//   LANES_N * 4 columns apart. A warp's fragment load then reads 4 (A) or
//   8 (B) different float4s, 64 or 128 contiguous bytes: one shared-memory
//   wavefront, the rest broadcasts. (32 x 128 warp tiles measured faster
//   than 64 x 64.)
// - A pipeline of V6_STAGES = 3 copies of the shared tiles, two steps ahead
//   of the FMAs. B goes from global to shared memory by cp.async, a copy
//   that runs in the background without passing through registers; one
//   outside the matrix along K writes zeros (cp.async's source size 0). A
//   must be transposed on the way, which cp.async can do only one 4-byte
//   float at a time: instead a thread loads its float4s of A for step
//   step + 2 into registers as the step begins and stores them transposed
//   at its end, so the step's FMAs hide the loads: faster than 4-byte
//   cp.async copies of A, and faster again with each p's fragments loaded
//   just before its FMAs rather than double-buffered one p ahead (227
//   registers instead of 255). Rows and columns past M and N are clamped as
//   in v5. The steps are V6_BK = 16 long, so the one barrier per step comes
//   every 2048 FMAs of a thread: at a barrier the SM's 8 warps, only 2 per
//   scheduler, wait for the slowest. (Steps of 32, 4 stages, and with
//   cp.async copies of A steps of 8, all measured slower.) The three stages
//   of the large tile take 72.75 KiB (74,496 bytes), past the 48 KiB a block
//   gets unasked: they live in dynamic shared memory (v6_shared_bytes()),
//   which the launcher allows the kernel first. A GPU of compute capability
//   7.5 (a T4) gives a block at most 64 KiB: there v6 runs with 2 stages
//   (48.5 KiB, 49,664 bytes), one step ahead. The number of stages is a
//   template parameter, STAGES, of the kernel.
// The shape of the tile is a template parameter too, G (a v6_tile): the
// launcher, at the bottom of the file, gives a C of few rows or few columns
// a smaller tile, and splits K where the tiles are too few to fill the GPU.

#define V6_BK 16           // step along K
#define V6_TM 8            // rows of C per thread, in sub-tiles of 4
#define V6_TN 16           // columns of C per thread, in sub-tiles of 4
#define V6_WARPS_PER_SM 8  // warps of about 230 registers a thread that an SM holds
#define V6_STAGES 3        // copies of the shared tiles: steps in flight ...
#define V6_STAGES_SMALL 2  // ... where 3 do not fit a block
static_assert(V6_TM % 4 == 0 && V6_TN % 4 == 0 && V6_BK % 4 == 0, "fragments and copies go by float4");

// A shape of v6's tile: WARPS_M x WARPS_N warps per block, each with a warp
// tile of LANES_M x LANES_N lanes, each lane with V6_TM x V6_TN elements of
// C. Every shape has V6_WARPS_PER_SM warps on an SM (BLOCKS_PER_SM blocks),
// each thread the same 8 x 16 elements: the FMAs per shared-memory load, and
// so the rate of an SM, stay those of the large tile.
template <int WARPS_M_, int WARPS_N_, int LANES_M_> struct v6_tile {
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_;
  static constexpr int LANES_M = LANES_M_, LANES_N = 32 / LANES_M_;
  static constexpr int WARP_M = LANES_M * V6_TM, WARP_N = LANES_N * V6_TN;  // a warp's tile of C
  static constexpr int ROWS = WARPS_M * WARP_M, COLS = WARPS_N * WARP_N;    // the block's
  static constexpr int BLOCK_THREADS = WARPS_M * WARPS_N * 32;
  static constexpr int BLOCKS_PER_SM = V6_WARPS_PER_SM / (WARPS_M * WARPS_N);
  // float4s of each tile that a thread copies per step
  static constexpr int A_COPIES = ROWS * V6_BK / 4 / BLOCK_THREADS, B_COPIES = V6_BK * COLS / 4 / BLOCK_THREADS;
  static_assert(LANES_M * LANES_N == 32, "a warp is 32 lanes");
  static_assert(A_COPIES * BLOCK_THREADS * 4 == ROWS * V6_BK && B_COPIES * BLOCK_THREADS * 4 == V6_BK * COLS,
                "every thread copies the same number of float4s");
};

// The large tile, for products large in M and N: 128 x 256, 8 warps of
// 32 x 128 (4 x 8 lanes), one block per SM.
typedef v6_tile<4, 2, 4> v6_large;
// Half its rows, for a C of few rows: 64 x 256, 4 warps of 32 x 128, two
// blocks per SM.
typedef v6_tile<2, 2, 4> v6_short;
// A quarter of its columns, for a C of few columns: 256 x 64, 4 warps of
// 64 x 64 (8 x 4 lanes: a fragment load still one wavefront), two blocks per
// SM. Each thread copies 8 float4s of A per step, 24 registers more.
typedef v6_tile<4, 1, 8> v6_narrow;

// cp.async (sm_80 and newer): starts copying 4 (16) bytes from global memory
// at src to shared memory at dst; with `inside` false it reads nothing and
// writes zeros. Older GPUs get an ordinary load and store.
__device__ void copy4_async(float *dst, const float *src, bool inside) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
               "l"(src), "r"(inside ? 4 : 0));
#else
  *dst = inside ? *src : 0.0f;
#endif
}

__device__ void copy16_async(float *dst, const float *src, bool inside) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"((unsigned)__cvta_generic_to_shared(dst)),
               "l"(src), "r"(inside ? 16 : 0));
#else
  *(float4 *)dst = inside ? *(const float4 *)src : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#endif
}

// Closes the group of copies this thread started since the last call.
__device__ void commit_copies(void) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Shared memory of `stages` stages of tile G's A and B.
template <class G> static size_t v6_shared_bytes(int stages) {
  return stages * V6_BK * (G::ROWS + PAD + G::COLS) * sizeof(float);
}

// Waits until at most STAGES - 2 of this thread's groups are still in
// flight (the oldest one has landed), then for the whole block. After it,
// the oldest stage in flight is complete for every thread (its A stored,
// its B copied), and every thread has finished reading whatever it read
// before.
template <int STAGES> __device__ void wait_for_stage(void) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
#endif
  __syncthreads();
}

// This thread's float4s of the tile of A at (row0, p0), loaded into
// registers by 16-byte loads (float4 f at row f / (V6_BK / 4), column
// f % (V6_BK / 4) * 4, as in v5); A's rows are lda floats apart ...
template <class G>
__device__ void load_a_tile(float4 a_part[G::A_COPIES], const float *a, int lda, int m, int k, int row0,
                            int p0, bool aligned) {
#pragma unroll
  for (int l = 0; l < G::A_COPIES; ++l) {
    int f = threadIdx.x + l * G::BLOCK_THREADS;
    a_part[l] = load_a4_strided(a, lda, m, k, row0 + f / (V6_BK / 4), p0 + f % (V6_BK / 4) * 4, aligned);
  }
}

// ... and stored transposed into a stage, a_tile[p + 0 .. 3][row].
template <class G>
__device__ void store_a_tile(float (*a_tile)[G::ROWS + PAD], const float4 a_part[G::A_COPIES]) {
#pragma unroll
  for (int l = 0; l < G::A_COPIES; ++l) {
    int f = threadIdx.x + l * G::BLOCK_THREADS, row = f / (V6_BK / 4), p = f % (V6_BK / 4) * 4;
    a_tile[p + 0][row] = a_part[l].x;
    a_tile[p + 1][row] = a_part[l].y;
    a_tile[p + 2][row] = a_part[l].z;
    a_tile[p + 3][row] = a_part[l].w;
  }
}

// Starts this thread's copies of the tile of B at (p0, col0) into a stage:
// float4 f as in v5 where the rows of B start on 16 bytes. Where they do
// not, single floats: float e at row e / COLS, column e % COLS, so that the
// copies of a warp take 32 consecutive floats, 128 contiguous bytes of B into
// 32 different banks. (Copying the four floats of float4 f instead, a
// warp's 32 copies would fall 16 bytes apart: four times the memory requests
// for the same bytes, and 4-way bank conflicts.)
template <class G>
__device__ void copy_b_tile_async(float (*b_tile)[G::COLS], const float *b, int n, int k, int col0, int p0,
                                  bool aligned) {
  if (aligned) {
#pragma unroll
    for (int l = 0; l < G::B_COPIES; ++l) {
      int f = threadIdx.x + l * G::BLOCK_THREADS, row = f / (G::COLS / 4), col = f % (G::COLS / 4) * 4;
      const float *src = b + (size_t)min(p0 + row, k - 1) * n;
      bool inside = p0 + row < k;
      copy16_async(&b_tile[row][col], src + min(col0 + col, n - 4), inside);
    }
  } else {
#pragma unroll
    for (int l = 0; l < 4 * G::B_COPIES; ++l) {
      int e = threadIdx.x + l * G::BLOCK_THREADS, row = e / G::COLS, col = e % G::COLS;
      const float *src = b + (size_t)min(p0 + row, k - 1) * n;
      bool inside = p0 + row < k;
      copy4_async(&b_tile[row][col], src + min(col0 + col, n - 1), inside);
    }
  }
}

// The thread's V6_TM values of A and V6_TN values of B for step p: sub-tile
// s of its rows starts at row + s * LANES_M * 4, sub-tile t of its columns
// at col + t * LANES_N * 4.
template <class G>
__device__ void load_warp_fragments(float a_frag[V6_TM], float b_frag[V6_TN],
                                    const float (*a_tile)[G::ROWS + PAD], const float (*b_tile)[G::COLS], int p,
                                    int row, int col) {
#pragma unroll
  for (int s = 0; s < V6_TM / 4; ++s) {
    float4 v = *(const float4 *)&a_tile[p][row + s * G::LANES_M * 4];
    a_frag[4 * s + 0] = v.x;
    a_frag[4 * s + 1] = v.y;
    a_frag[4 * s + 2] = v.z;
    a_frag[4 * s + 3] = v.w;
  }
#pragma unroll
  for (int t = 0; t < V6_TN / 4; ++t) {
    float4 v = *(const float4 *)&b_tile[p][col + t * G::LANES_N * 4];
    b_frag[4 * t + 0] = v.x;
    b_frag[4 * t + 1] = v.y;
    b_frag[4 * t + 2] = v.z;
    b_frag[4 * t + 3] = v.w;
  }
}

// acc[i][j] += a_frag[i] * b_frag[j], for v6's 8 x 16 block of C.
__device__ void warp_outer_product(float acc[V6_TM][V6_TN], const float a_frag[V6_TM],
                                   const float b_frag[V6_TN]) {
#pragma unroll
  for (int i = 0; i < V6_TM; ++i)
#pragma unroll
    for (int j = 0; j < V6_TN; ++j) acc[i][j] += a_frag[i] * b_frag[j];
}

// With SPLIT, split-K: the grid has gridDim.y parts of K, split_steps steps
// each (the last part what remains), and block (x, y) multiplies only part y:
// the product of a band of A's columns and the same band of B's rows, an
// ordinary product of M x N x (its part of K), which it writes to slice y of
// c, slice_floats apart. Without it (a compile-time choice), none of that
// arithmetic is in the kernel: the large squares run the code they ran before
// the launcher learned to split.
template <class G, int STAGES, bool SPLIT>
__device__ __forceinline__ void matmul_v6_body(const float *a, const float *b, float *c, int m, int n, int k,
                                               int split_steps, size_t slice_floats, bool aligned) {
  // The stages in dynamic shared memory: a_tiles[STAGES][V6_BK][G::ROWS + PAD], then b_tiles.
  extern __shared__ __align__(16) float v6_shared[];
  float (*a_tiles)[V6_BK][G::ROWS + PAD] = (float (*)[V6_BK][G::ROWS + PAD])v6_shared;
  float (*b_tiles)[V6_BK][G::COLS] =
      (float (*)[V6_BK][G::COLS])(v6_shared + STAGES * V6_BK * (G::ROWS + PAD));
  int lda = k;
  if constexpr (SPLIT) {
    // From here on a, b and c are this block's part: a starts at the band's
    // first column (its rows still lda = K floats apart), b at its first row,
    // c at its slice; and k counts the columns from the band's start to the
    // end of A, so that the zeros past K come where they did.
    int p_first = blockIdx.y * split_steps * V6_BK;
    a += p_first;
    b += (size_t)p_first * n;
    c += blockIdx.y * slice_floats;
    k -= p_first;
  } else {
    (void)split_steps, (void)slice_floats;
  }
  int row0, col0;
  tile_origin(n, G::ROWS, G::COLS, &row0, &col0);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = warp / G::WARPS_N * G::WARP_M + lane / G::LANES_N * 4;
  int col = warp % G::WARPS_N * G::WARP_N + lane % G::LANES_N * 4;
  float acc[V6_TM][V6_TN] = {{0.0f}};
  float a_frag[V6_TM], b_frag[V6_TN];
  float4 a_part[G::A_COPIES];  // A of step `next`, stored into its stage at the end of the step
  int steps = (k + V6_BK - 1) / V6_BK;
  if constexpr (SPLIT) steps = min(steps, split_steps);
  // BEGIN CHALLENGE
  // TODO 6: accumulate into acc this thread's 8 x 16 block of C, in the layout
  // the stores below read (that of load_warp_fragments()), over all `steps`
  // steps of V6_BK along K, through a pipeline of STAGES stages of the shared
  // tiles (a_tiles[s], b_tiles[s]): the copies of the next STAGES - 1 steps in
  // flight while a step is multiplied. B goes from global to shared memory by
  // copy_b_tile_async() (cp.async); A through registers, load_a_tile() of a
  // later step into a_part as a step begins and store_a_tile() transposed at
  // its end, so that the step's FMAs hide the loads. One barrier per step,
  // wait_for_stage<STAGES>(), which counts groups of copies: every thread
  // closes one group per step with commit_copies(), the steps past the end
  // included (empty groups). No thread may write a stage that another still
  // reads. Fragments by load_warp_fragments(), products by
  // warp_outer_product(). The helpers take the tile's shape G as a template
  // argument that the compiler cannot deduce: write load_a_tile<G>(...).
  // END CHALLENGE
  // BEGIN GUIDED
  // TODO 6: accumulate into acc this thread's block of C through a pipeline of
  // STAGES stages: while one step is multiplied, the copies of the next
  // STAGES - 1 steps are in flight. Before the loop, fill the first STAGES - 1
  // stages. In each step, after the barrier wait_for_stage<STAGES>(): start the
  // step STAGES - 1 ahead (A into a_part by load_a_tile(), B by
  // copy_b_tile_async()) into the stage the previous step used, which every
  // thread has finished reading; multiply this step's stage
  // (load_warp_fragments() and warp_outer_product() for each p); at the end,
  // store_a_tile() a_part into its stage. wait_for_stage() counts groups of
  // copies, so every thread closes one group per step with commit_copies(),
  // even an empty one. The helpers take the tile's shape G as a template
  // argument that the compiler cannot deduce: write load_a_tile<G>(...),
  // store_a_tile<G>(...), copy_b_tile_async<G>(...) and
  // load_warp_fragments<G>(...).
  // Hint: docs/labs/hints/05-tiled-matmul.md, TODO 6.
  // END GUIDED
  // BEGIN SOLUTION
  //> // Delete the next line when you write TODO 6: it only stops unused-variable warnings.
  //> (void)&a_tiles, (void)&b_tiles, (void)&a_frag, (void)&b_frag, (void)&a_part, (void)&steps, (void)&lda;
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < steps) {
      load_a_tile<G>(a_part, a, lda, m, k, row0, s * V6_BK, aligned);
      store_a_tile<G>(a_tiles[s], a_part);
      copy_b_tile_async<G>(b_tiles[s], b, n, k, col0, s * V6_BK, aligned);
    }
    commit_copies();
  }
  for (int step = 0; step < steps; ++step) {
    int stage = step % STAGES, next = step + STAGES - 1;
    wait_for_stage<STAGES>();
    if (next < steps) {
      load_a_tile<G>(a_part, a, lda, m, k, row0, next * V6_BK, aligned);
      copy_b_tile_async<G>(b_tiles[next % STAGES], b, n, k, col0, next * V6_BK, aligned);
    }
    commit_copies();
#pragma unroll
    for (int p = 0; p < V6_BK; ++p) {
      load_warp_fragments<G>(a_frag, b_frag, a_tiles[stage], b_tiles[stage], p, row, col);
      warp_outer_product(acc, a_frag, b_frag);
    }
    if (next < steps) store_a_tile<G>(a_tiles[next % STAGES], a_part);
  }
  // END SOLUTION
#pragma unroll
  for (int i = 0; i < V6_TM; ++i) {
    int r = row0 + row + i / 4 * G::LANES_M * 4 + i % 4;
#pragma unroll
    for (int t = 0; t < V6_TN / 4; ++t) {
      const float *v = &acc[i][4 * t];
      store4_if_inside(c, m, n, r, col0 + col + t * G::LANES_N * 4, make_float4(v[0], v[1], v[2], v[3]),
                       aligned);
    }
  }
}

template <class G, int STAGES, bool SPLIT>
__global__ void __launch_bounds__(G::BLOCK_THREADS, G::BLOCKS_PER_SM) matmul_v6_aligned_kernel(
    const float *a, const float *b, float *c, int m, int n, int k, int split_steps, size_t slice_floats) {
  matmul_v6_body<G, STAGES, SPLIT>(a, b, c, m, n, k, split_steps, slice_floats, true);
}

template <class G, int STAGES, bool SPLIT>
__global__ void __launch_bounds__(G::BLOCK_THREADS, G::BLOCKS_PER_SM) matmul_v6_any_kernel(
    const float *a, const float *b, float *c, int m, int n, int k, int split_steps, size_t slice_floats) {
  matmul_v6_body<G, STAGES, SPLIT>(a, b, c, m, n, k, split_steps, slice_floats, false);
}

// C = the sum of the `splits` partial products in `partials`, slices
// slice_floats apart, added in the order of the parts of K: the same inputs
// give the same C, bit for bit, whichever blocks finished first (float
// atomics would add the parts in the order they come). Each thread sums four
// consecutive elements, by float4: the slices start on 16 bytes, as C does.
__global__ void sum_splits_kernel(const float *partials, size_t slice_floats, int splits, float *c,
                                  size_t elements) {
  size_t i = 4 * ((size_t)blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= elements) return;
  float4 sum = *(const float4 *)&partials[i];
#pragma unroll 4
  for (int s = 1; s < splits; ++s) {
    float4 part = *(const float4 *)&partials[s * slice_floats + i];
    sum.x += part.x;
    sum.y += part.y;
    sum.z += part.z;
    sum.w += part.w;
  }
  if (i + 4 <= elements) {
    *(float4 *)&c[i] = sum;
  } else {  // the last elements of C, where M N is not a multiple of 4
    c[i] = sum.x;
    if (i + 1 < elements) c[i + 1] = sum.y;
    if (i + 2 < elements) c[i + 2] = sum.z;
  }
}

// ---------------------------------------------------------------------------
// Launchers and the table the grader reads.

static void matmul_v0(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(matmul_v0_kernel, NAIVE_TILE, NAIVE_TILE, NAIVE_TILE * NAIVE_TILE, a, b, c, m, n, k);
}

static void matmul_v1(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(matmul_v1_kernel, NAIVE_TILE, NAIVE_TILE, NAIVE_TILE * NAIVE_TILE, a, b, c, m, n, k);
}

static void matmul_v2(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(matmul_v2_kernel, TILE, TILE, TILE * TILE, a, b, c, m, n, k);
}

static void matmul_v3(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(matmul_v3_kernel, V3_BM, V3_BN, V3_THREADS, a, b, c, m, n, k);
}

static void matmul_v4(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(matmul_v4_kernel, BM, BN, THREADS, a, b, c, m, n, k);
}

// v5 and v6 use float4 loads and stores of global memory when every row of A,
// B and C starts on 16 bytes.
static int rows_aligned(int n, int k) {
  return n % 4 == 0 && k % 4 == 0;
}

static void matmul_v5(const float *a, const float *b, float *c, int m, int n, int k) {
  launch_tiles(rows_aligned(n, k) ? matmul_v5_aligned_kernel : matmul_v5_any_kernel, BM, BN, THREADS, a, b,
               c, m, n, k);
}

// v6's launcher: a tile and a split of K to suit the shape of C. One block
// of the large tile per SM keeps an H100 busy from about 2048^3 on; other
// shapes leave SMs idle, or compute for nothing:
// - A C of few rows or few columns fills the 128 x 256 tile only in part:
//   rows past M and columns past N are computed, then thrown away (64 x N
//   uses half of each tile, M x 64 a quarter). Where the short (64 x 256) or
//   narrow (256 x 64) tile computes at least a quarter fewer elements, the
//   launcher takes it: blocks half as large, two to an SM, at the same rate.
// - A C of few tiles leaves SMs without a block (512^3: 8 tiles for 132
//   SMs), and the blocks it has walk all of K, step after step. Split-K cuts
//   K into parts, one block per tile and part, as many parts as the SMs hold
//   blocks for at once: each block writes its part's sums to its own slice
//   of a scratch area, v6_workspace, and sum_splits_kernel() adds the slices
//   into C in a fixed order. The round trip of the slices through memory
//   (L2, at these sizes) and the second launch cost about as much as a few
//   steps, so K is split only where it has V6_SPLIT_MIN_STEPS steps or more.
// Splitting K only changes the order of the additions: an element's
// rounding chain (its part's products, then one addition per later part)
// is never longer than K, within the grader's bound as any order is.
#define V6_SPLIT_MIN_STEPS 8          // split K only from 8 steps (128) on
#define V6_WORKSPACE_FLOATS (1 << 23) // 32 MiB
#define SUM_THREADS 256

// Split-K's partial products, one slice per part of K, each the size of C
// rounded up to whole float4s. Allocated with the program, so that no launch
// waits for cudaMalloc; room for the parts of one full wave of any tile
// (32768 elements of C per SM) on a GPU of up to 256 SMs, and fewer parts
// beyond.
__device__ __align__(16) float v6_workspace[V6_WORKSPACE_FLOATS];

typedef void matmul_split_kernel(const float *a, const float *b, float *c, int m, int n, int k,
                                 int split_steps, size_t slice_floats);

// Parts to split K into for `tiles` blocks of `kernel`: as many as let every
// part's blocks run at once (the SMs times the blocks of `kernel` each
// holds), and that fit the workspace; 1 where that is fewer than 2, or K has
// fewer than V6_SPLIT_MIN_STEPS steps.
static int v6_splits(matmul_split_kernel *kernel, int threads, size_t shared_bytes, size_t tiles,
                     size_t slice_floats, int steps) {
  if (steps < V6_SPLIT_MIN_STEPS) return 1;
  int device = 0, sms = 0, per_sm = 0;
  PP_CHECK(cudaGetDevice(&device));
  PP_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PP_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes));
  size_t splits = (size_t)sms * (size_t)(per_sm > 0 ? per_sm : 1) / tiles;
  if (splits > V6_WORKSPACE_FLOATS / slice_floats) splits = V6_WORKSPACE_FLOATS / slice_floats;
  return splits < 2 ? 1 : (int)splits;
}

// v6's kernel for tile G, STAGES stages, rows of B aligned or not, K split
// or not.
template <class G, int STAGES, bool SPLIT> static matmul_split_kernel *v6_kernel(bool aligned) {
  matmul_split_kernel *kernel =
      aligned ? matmul_v6_aligned_kernel<G, STAGES, SPLIT> : matmul_v6_any_kernel<G, STAGES, SPLIT>;
  PP_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)v6_shared_bytes<G>(STAGES)));
  return kernel;
}

// v6 with tile G and STAGES stages, K split where v6_splits() says.
template <class G, int STAGES>
static void launch_v6_tiles(const float *a, const float *b, float *c, int m, int n, int k) {
  bool aligned = rows_aligned(n, k);
  size_t shared_bytes = v6_shared_bytes<G>(STAGES), tiles = tile_count(m, n, G::ROWS, G::COLS);
  size_t slice_floats = ((size_t)m * n + 3) / 4 * 4;
  int steps = (k + V6_BK - 1) / V6_BK;
  matmul_split_kernel *split_kernel = v6_kernel<G, STAGES, true>(aligned);
  int splits = v6_splits(split_kernel, G::BLOCK_THREADS, shared_bytes, tiles, slice_floats, steps);
  int split_steps = (steps + splits - 1) / splits;
  if (split_steps > 0) splits = (steps + split_steps - 1) / split_steps;  // every part at least one step
  if (splits == 1) {
    v6_kernel<G, STAGES, false>(aligned)<<<(unsigned)tiles, G::BLOCK_THREADS, shared_bytes>>>(
        a, b, c, m, n, k, steps, slice_floats);
    PP_CHECK_LAUNCH();
    return;
  }
  float *partials;
  PP_CHECK(cudaGetSymbolAddress((void **)&partials, v6_workspace));
  dim3 grid((unsigned)tiles, (unsigned)splits);
  split_kernel<<<grid, G::BLOCK_THREADS, shared_bytes>>>(a, b, partials, m, n, k, split_steps, slice_floats);
  PP_CHECK_LAUNCH();
  size_t threads = slice_floats / 4;
  sum_splits_kernel<<<(unsigned)((threads + SUM_THREADS - 1) / SUM_THREADS), SUM_THREADS>>>(
      partials, slice_floats, splits, c, (size_t)m * n);
  PP_CHECK_LAUNCH();
}

// Elements of C, inside it or not, that tiles of G compute for an m x n C.
template <class G> static size_t v6_tiled_elements(int m, int n) {
  return tile_count(m, n, G::ROWS, G::COLS) * G::ROWS * G::COLS;
}

// The large tile, or the short or narrow one where it computes at least a
// quarter fewer elements (the short one where both do, equally).
template <int STAGES> static void launch_v6(const float *a, const float *b, float *c, int m, int n, int k) {
  if (m == 0 || n == 0) return;  // C is empty, and a grid of no blocks is an error
  size_t large_work = v6_tiled_elements<v6_large>(m, n), enough = large_work - large_work / 4;
  size_t short_work = v6_tiled_elements<v6_short>(m, n), narrow_work = v6_tiled_elements<v6_narrow>(m, n);
  if (short_work <= enough && short_work <= narrow_work)
    launch_v6_tiles<v6_short, STAGES>(a, b, c, m, n, k);
  else if (narrow_work <= enough)
    launch_v6_tiles<v6_narrow, STAGES>(a, b, c, m, n, k);
  else
    launch_v6_tiles<v6_large, STAGES>(a, b, c, m, n, k);
}

// The stages that fit: pp_shared_memory_per_block() is the device's limit, or
// less where the grader asks (--max-shared-kib 64 grades the two stages of a
// 7.5 GPU on any GPU). They are counted for the large tile: the smaller ones
// would fit three stages in 64 KiB, but take two with it, so that the test
// grades the two stages of every tile.
static void matmul_v6(const float *a, const float *b, float *c, int m, int n, int k) {
  if (v6_shared_bytes<v6_large>(V6_STAGES) <= (size_t)pp_shared_memory_per_block())
    launch_v6<V6_STAGES>(a, b, c, m, n, k);
  else
    launch_v6<V6_STAGES_SMALL>(a, b, c, m, n, k);
}

extern "C" const matmul_variant matmul_variants[] = {
    {"v0-naive", "one thread per element of C; a warp walks down a column of C", matmul_v0},
    {"v1-coalesced", "a warp walks along a row: B loads and C stores coalesced", matmul_v1},
    {"v2-shared-tiles", "32x32 tiles of A and B in shared memory, each load used 32 times", matmul_v2},
    {"v3-1d-register-tile", "8 outputs per thread down a column: 9 shared loads per 8 FMAs",
     matmul_v3},
    {"v4-2d-register-tile", "8x8 outputs per thread, 128x128 tiles: 16 shared loads per 64 FMAs",
     matmul_v4},
    {"v5-vectorized", "float4 loads, A transposed in shared memory, conflict-free quadrants",
     matmul_v5},
    {"v6-warp-tile-pipeline",
     "128x256 tiles, 8x16 per thread, warp tiles, 3-stage cp.async; thin C: thin tiles; few tiles: split K",
     matmul_v6},
};
extern "C" const int matmul_variant_count = sizeof matmul_variants / sizeof matmul_variants[0];
