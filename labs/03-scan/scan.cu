// Lab 03: scan within a block. From one thread adding up a section to warp
// shuffles at the speed of a copy, through the two classic trees: Kogge-Stone
// (few steps, much work) and Brent-Kung (little work, more steps).
//
// Handout: docs/labs/03-scan.md   Contract: tests/03-scan/scan.h
// Build, run, grade (from the repository root):
//   cmake --build --preset student --target 03-scan
//   build/student/bin/03-scan --variant v3-brent-kung --size 1000000/1024
//   ctest --preset student -L 03-scan
// Hints for the TODOs: docs/labs/hints/03-scan.md
//
// Every variant gives each section of the array to one block, which scans it
// and writes it out; no block looks at another block's section. The section
// length is a run-time value from 1 to SCAN_MAX_SECTION.
//
// Why templates: every kernel runs on int32 and on float data, and would
// otherwise be written twice; the element type T is their one template
// parameter. PER_THREAD in load_section() and store_section() is a
// compile-time count so that their loops unroll and all loads are in flight
// at once.

#include "scan.h"
#include "pp/check.h"

#define MAX_SECTION SCAN_MAX_SECTION
#define PADDED_SLOTS (MAX_SECTION + MAX_SECTION / 32)  // shared-memory slots with v4's padding
#define MAX_BLOCKS_PER_LAUNCH (1 << 20)  // far below gridDim.x's limit, so the grader
                                         // exercises the split into several launches
#define WARP 32
#define FULL_MASK 0xffffffffu
#define ITEMS 8                                     // elements per thread in v5
#define MAX_WARPS (MAX_SECTION / (ITEMS * WARP))    // warps of a v5 block

// ---------------------------------------------------------------------------
// Given: moving a section between global and shared memory.
//
// Thread t of a block of B threads handles elements t, t + B, t + 2B, ...:
// consecutive threads touch consecutive addresses, so every warp's loads and
// stores are coalesced. v0..v4 run B = ceil(section / 2) threads, two
// elements each; v5 runs fewer threads with ITEMS elements each.

__device__ int padded_slot(int p);  // v4, below

// Where element p of the section lives in shared memory.
__device__ int slot(int p, bool padded) {
  return padded ? padded_slot(p) : p;
}

// Elements of this block's section that exist: the last section may be short.
__device__ int section_count(size_t n, int section) {
  size_t left = n - blockIdx.x * (size_t)section;
  return left < (size_t)section ? (int)left : section;
}

// Loads this block's section into xy: PER_THREAD * blockDim.x slots, zeros past
// the end of the array. For the exclusive form element p receives x[p - 1]
// (and p = 0 receives 0), so an inclusive scan of xy is the exclusive scan of
// x: no subtraction, which would cost float accuracy.
template <int PER_THREAD, typename T>
__device__ void load_section(T *xy, const T *in, size_t n, int section, int exclusive, bool padded) {
  size_t start = blockIdx.x * (size_t)section;
  int count = section_count(n, section);
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    int p = threadIdx.x + k * blockDim.x, from = p - exclusive;
    xy[slot(p, padded)] = from >= 0 && from < count ? in[start + from] : (T)0;
  }
}

// Stores the scanned section; only elements that exist in the array.
template <int PER_THREAD, typename T>
__device__ void store_section(T *out, const T *scanned, size_t n, int section, bool padded) {
  size_t start = blockIdx.x * (size_t)section;
  int count = section_count(n, section);
#pragma unroll
  for (int k = 0; k < PER_THREAD; ++k) {
    int p = threadIdx.x + k * blockDim.x;
    if (p < count) out[start + p] = scanned[slot(p, padded)];
  }
}

// ---------------------------------------------------------------------------
// v0, baseline (given). The block loads its section into shared memory, then
// thread 0 adds it up from left to right while the others wait: N - 1
// additions for a section of N, the least work there is, but all of it in
// one thread, one after another.

template <typename T>
__global__ void scan_v0_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T xy[MAX_SECTION];
  load_section<2>(xy, in, n, section, exclusive, false);
  __syncthreads();
  if (threadIdx.x == 0) {
    T running = xy[0];
    for (int p = 1; p < section; ++p) {
      running += xy[p];
      xy[p] = running;
    }
  }
  __syncthreads();
  store_section<2>(out, xy, n, section, false);
}

static long long sequential_additions(int section) {
  return section - 1;
}

// ---------------------------------------------------------------------------
// v1, Kogge-Stone. In the step with stride s = 1, 2, 4, ... every element p
// >= s adds the element s places to its left, in place, all in parallel:
// after the step, element p holds the sum of the 2s elements ending at p
// (fewer near the start). ceil(log2 N) steps instead of N - 1, but each step
// does up to N additions: N log2 N - (N - 1) in all for N a power of two.
// Within a step a thread reads an element that another thread writes, so the
// step reads everything into registers, waits at a barrier, then writes.

template <typename T>
__global__ void scan_v1_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T xy[MAX_SECTION];
  load_section<2>(xy, in, n, section, exclusive, false);
  // TODO 1a: turn xy[0, section) into its inclusive scan in place by
  // Kogge-Stone's steps: in the step with stride s = 1, 2, 4, ..., every
  // element p >= s adds the element s places to its left, the value it had
  // before this step. Each thread owns its two elements p = threadIdx.x and p +
  // blockDim.x (those below section). The one idea: in place, a thread could
  // read a neighbour that another thread has already updated in this step, so
  // every step reads its addends into registers, waits at a barrier, and only
  // then writes; and it starts with a barrier, so that the previous step's
  // writes are done.
  // Hint: docs/labs/hints/03-scan.md, TODO 1a.
  // Each thread stores the two elements it wrote itself: no barrier needed.
  store_section<2>(out, xy, n, section, false);
}

static long long kogge_stone_additions(int section) {
  // TODO 1b: return the number of additions your steps do for a section of
  // `section` elements: count, step by step, the elements that add something.
  // Hint: docs/labs/hints/03-scan.md, TODO 1b.
  return 0;
}

// ---------------------------------------------------------------------------
// v2, Kogge-Stone with double buffering. Each step reads one buffer and
// writes the other, so no thread can overwrite what another still has to
// read in the same step: one barrier per step instead of two, and no
// registers held across a barrier. The same additions as v1; elements below
// the stride are copied across unchanged.
// Measured on the H100 it is slower than v1 (2.08 against 1.70 ms at 2^28 in
// sections of 2048): saving a barrier did not pay. A step still reads and
// writes every element in shared memory, v2 a little more than v1 (it also
// copies the elements below the stride), and v2 executes 1.5x v1's
// instructions, issued on nearly every cycle: the instructions, not the
// barriers, set the pace (the handout's counters; its question 4 asks you to
// find out where the extra instructions come from, with a profiler).

template <typename T>
__global__ void scan_v2_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T buffer[2][MAX_SECTION];
  load_section<2>(buffer[0], in, n, section, exclusive, false);
  int current = 0;  // the buffer that holds the latest step
  // TODO 2: the same steps with two buffers, buffer[0] and buffer[1]: each step
  // reads one and writes the other, so that no element is read and written in
  // the same step, and one barrier per step is enough. Every element is written
  // at every step: those below the stride are copied across unchanged, or the
  // next step reads stale values. Swap the roles after each step; the final
  // scan must end up where the kernel's store reads it.
  // Hint: docs/labs/hints/03-scan.md, TODO 2.
  store_section<2>(out, buffer[current], n, section, false);
}

// ---------------------------------------------------------------------------
// v3, Brent-Kung. A reduction tree leaves partial sums at the ends of
// blocks of 2, 4, 8, ... elements; a distribution tree then adds each
// complete prefix into the partial sums to its right that still lack it.
// 2N - 2 - log2 N additions for N a power of two (the textbooks' "about
// 2N - 3"): work-efficient, but twice the steps of Kogge-Stone, each with a
// barrier, and in most steps few threads have anything to do.
//
//   reduction, N = 8 (x_i..j = sum of x_i .. x_j)    distribution
//   stride 1: [1] [3] [5] [7] get x_0..1, x_2..3 ...  stride 2: [5] += [3]
//   stride 2: [3] [7] get x_0..3, x_4..7              stride 1: [2] += [1],
//   stride 4: [7] gets x_0..7                                   [4] += [3], [6] += [5]

// Scans xy[0, section) in place; both trees, with a barrier before every step.
// `padded` chooses v4's shared-memory layout: index xy through slot().
template <typename T>
__device__ void brent_kung_tree(T *xy, int section, bool padded) {
  // TODO 3a: Brent-Kung's two trees in place in xy, every shared index i
  // written slot(i, padded). Reduction: with strides 1, 2, 4, ..., the element
  // at the end of each block of 2 stride elements adds the one `stride` before
  // it. The idea that keeps the working threads contiguous: thread t handles
  // the t-th block of the step, whose last element is (t + 1) * 2 * stride - 1,
  // in both trees. Distribution: strides from large to 1, that element adds
  // into the one `stride` after it (if inside the section). Start the
  // distribution at a quarter of the first power of two >= section (the value
  // the reduction's loop ends with): the trees' partial sums sit at multiples
  // of powers of two, so section / 4 would address wrong elements whenever
  // section is no power of two. A barrier before every step, and one at the
  // end: the caller stores at once.
  // Hint: docs/labs/hints/03-scan.md, TODO 3a.
}

template <typename T>
__global__ void scan_v3_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T xy[MAX_SECTION];
  load_section<2>(xy, in, n, section, exclusive, false);
  brent_kung_tree(xy, section, false);
  store_section<2>(out, xy, n, section, false);
}

static long long brent_kung_additions(int section) {
  // TODO 3b: return the number of additions your two trees do for a section of
  // `section` elements: in each step, count the threads whose index passes the
  // bound test.
  // Hint: docs/labs/hints/03-scan.md, TODO 3b.
  return 0;
}

// ---------------------------------------------------------------------------
// v4, Brent-Kung without bank conflicts. Shared memory serves a warp in one
// pass only when its 32 threads hit 32 different banks (bank = word address
// mod 32). In the trees, neighbouring threads are 2 * stride words apart, so
// at stride 16 all 32 threads of a warp hit the same bank and wait for each
// other 32 times. One unused word after every 32 shifts each run of 32 words
// into the next bank, which spreads those accesses over all banks (for
// strides up to 16, where most of the accesses are).

// Shared-memory slot of element p with one padding word after every 32.
__device__ int padded_slot(int p) {
  // TODO 4: return the slot of element p with one padding word after every 32
  // elements, so that the trees' strided accesses spread over the 32 banks. The
  // array is PADDED_SLOTS long.
  // Hint: docs/labs/hints/03-scan.md, TODO 4.
  return 0;
}

template <typename T>
__global__ void scan_v4_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T xy[PADDED_SLOTS];
  load_section<2>(xy, in, n, section, exclusive, true);
  brent_kung_tree(xy, section, true);
  store_section<2>(out, xy, n, section, true);
}

// ---------------------------------------------------------------------------
// v5, warp shuffles and registers. Fewer, busier threads: ceil(section /
// ITEMS) of them, rounded up to whole warps (v5_threads()), each taking ITEMS
// consecutive elements (zeros past the section) and adding them up in
// registers, the work-efficient sequential scan again. The thread totals are
// scanned within each warp by register shuffles (Kogge-Stone on 32 lanes:
// five steps, no shared memory, no barrier), the warp totals by the first
// warp, and each thread then writes its elements' prefixes. Global memory is
// still read and written in coalesced stripes; shared memory (padded as in
// v4) turns the stripes into each thread's consecutive elements and back. Four barriers per section instead of v4's 22.

// Inclusive scan of x across the 32 lanes of a warp.
template <typename T>
__device__ T warp_inclusive_scan(T x) {
  int lane = threadIdx.x % WARP;
  // TODO 5a: return the inclusive scan of x across the 32 lanes of the warp:
  // Kogge-Stone through registers. __shfl_up_sync() hands each lane the x of
  // the lane `offset` below it, for offset 1, 2, 4, 8, 16; lanes below the
  // offset get their own x back and must not add it. All 32 lanes call this
  // function.
  // Hint: docs/labs/hints/03-scan.md, TODO 5a.
  return x;
}

// The exclusive scan from the inclusive one: one lane up, 0 in lane 0.
template <typename T>
__device__ T warp_exclusive_from_inclusive(T inclusive) {
  T before = __shfl_up_sync(FULL_MASK, inclusive, 1);
  return threadIdx.x % WARP == 0 ? (T)0 : before;
}

template <typename T>
__global__ void scan_v5_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T staged[PADDED_SLOTS];
  __shared__ T warp_offset[MAX_WARPS];
  int first = threadIdx.x * ITEMS;  // this thread's first element
  load_section<ITEMS>(staged, in, n, section, exclusive, true);
  __syncthreads();
  T x[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) x[k] = staged[padded_slot(first + k)];
  // TODO 5b: leave the inclusive scan of the section in staged[] (element p at
  // padded_slot(p)). Three levels, each a scan: each thread adds its ITEMS
  // elements in registers; the warp scans its threads' totals
  // (warp_inclusive_scan()); warp 0 scans the warp totals, handed over in
  // warp_offset[]. Then each thread writes its prefixes, starting from the
  // totals of the warps and of the lanes before it
  // (warp_exclusive_from_inclusive() turns an inclusive scan into the exclusive
  // one). A shuffle names the full mask: never call one inside a branch that
  // leaves lanes of its warp out. A barrier wherever values pass through shared
  // memory, and one at the end.
  // Hint: docs/labs/hints/03-scan.md, TODO 5b.
  store_section<ITEMS>(out, staged, n, section, true);
}

// Threads of a v5 block: ITEMS elements each, whole warps.
static int v5_threads(int section) {
  int threads = (section + ITEMS - 1) / ITEMS;
  return (threads + WARP - 1) / WARP * WARP;
}

static long long warp_shuffle_additions(int section) {
  // TODO 5c: return v5's additions for one section, the padding zeros included
  // (a block runs whole warps): those of each thread (its total, its offset,
  // its prefixes) and those of each shuffle scan (one per warp, and warp 0's
  // scan of the warp totals). In a shuffle scan, lanes below the offset add
  // nothing.
  // Hint: docs/labs/hints/03-scan.md, TODO 5c.
  return 0;
}

// ---------------------------------------------------------------------------
// Launchers and the table the grader reads.

template <typename T>
using scan_kernel = void(const T *in, T *out, size_t n, int section, int exclusive);

// One block of `threads` per section, in launches of at most
// MAX_BLOCKS_PER_LAUNCH blocks, each given its part of the arrays.
template <typename T>
static void launch_per_section(scan_kernel<T> *kernel, int threads, const T *in, T *out, size_t n,
                               int section, int exclusive) {
  size_t sections = (n + section - 1) / section;
  for (size_t first = 0; first < sections; first += MAX_BLOCKS_PER_LAUNCH) {
    size_t blocks = sections - first < MAX_BLOCKS_PER_LAUNCH ? sections - first : MAX_BLOCKS_PER_LAUNCH;
    size_t offset = first * section;
    kernel<<<(unsigned)blocks, threads>>>(in + offset, out + offset, n - offset, section, exclusive);
    PP_CHECK_LAUNCH();
  }
}

// Threads of a v0..v4 block: two elements each.
static int pair_threads(int section) {
  return (section + 1) / 2;
}

template <typename T>
static void scan_v0(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v0_kernel<T>, pair_threads(section), in, out, n, section, exclusive);
}

template <typename T>
static void scan_v1(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v1_kernel<T>, pair_threads(section), in, out, n, section, exclusive);
}

template <typename T>
static void scan_v2(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v2_kernel<T>, pair_threads(section), in, out, n, section, exclusive);
}

template <typename T>
static void scan_v3(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v3_kernel<T>, pair_threads(section), in, out, n, section, exclusive);
}

template <typename T>
static void scan_v4(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v4_kernel<T>, pair_threads(section), in, out, n, section, exclusive);
}

template <typename T>
static void scan_v5(const T *in, T *out, size_t n, int section, int exclusive) {
  launch_per_section(scan_v5_kernel<T>, v5_threads(section), in, out, n, section, exclusive);
}

extern "C" const scan_variant scan_variants[] = {
    {"v0-sequential", "baseline: thread 0 adds the section up while the block waits",
     scan_v0<int32_t>, scan_v0<float>, sequential_additions},
    {"v1-kogge-stone", "log2 N parallel steps, in place: a barrier between read and write",
     scan_v1<int32_t>, scan_v1<float>, kogge_stone_additions},
    {"v2-double-buffer", "Kogge-Stone reading one buffer, writing the other: one barrier a step",
     scan_v2<int32_t>, scan_v2<float>, kogge_stone_additions},
    {"v3-brent-kung", "reduction and distribution trees: about 2N additions, 2 log2 N steps",
     scan_v3<int32_t>, scan_v3<float>, brent_kung_additions},
    {"v4-conflict-free", "Brent-Kung with a padding word every 32: fewer bank conflicts",
     scan_v4<int32_t>, scan_v4<float>, brent_kung_additions},
    {"v5-warp-shuffle", "8 elements per thread in registers, warps scan by shuffles",
     scan_v5<int32_t>, scan_v5<float>, warp_shuffle_additions},
};
extern "C" const int scan_variant_count = sizeof scan_variants / sizeof scan_variants[0];
