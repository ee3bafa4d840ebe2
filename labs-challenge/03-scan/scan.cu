// Lab 03: scan within a block. From one thread adding up a section to warp
// shuffles at the speed of a copy, through the two classic trees: Kogge-Stone
// (few steps, much work) and Brent-Kung (little work, more steps).
//
// Handout: docs/labs/03-scan.md   Contract: tests/03-scan/scan.h
// Build, run, grade (from the repository root):
//   cmake --workflow --preset challenge   (every lab's file in labs-challenge/)
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
  // TODO 1a: turn xy[0, section) in place into its inclusive scan by
  // Kogge-Stone's steps (the handout's first diagram): ceil(log2 section)
  // steps, the distance doubling, in each of which every element is updated at
  // once. One array, in shared memory: within a step a thread reads elements
  // that other threads write, so no element may be read before the previous
  // step's writes are done, nor written before every read of its own step is
  // done (racecheck runs). The block has ceil(section / 2) threads, thread t
  // owning elements t and t + blockDim.x (those below section); load_section()
  // ends without a barrier, and after your code each thread stores only the
  // elements it owns.
  // Each thread stores the two elements it wrote itself: no barrier needed.
  store_section<2>(out, xy, n, section, false);
}

static long long kogge_stone_additions(int section) {
  // TODO 1b: return the number of additions your TODO 1a executes for one whole
  // section of `section` elements (inclusive form). The grader checks it for
  // every power of two from 1 to 2048 against Kogge-Stone's count in the
  // handout's table.
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
  // TODO 2: Kogge-Stone again (the same additions as v1), double-buffered: each
  // step reads only buffer[current] and writes only the other buffer, so that
  // one barrier per step suffices and no value waits in a register across a
  // barrier. When the steps are done, buffer[current] must hold the whole
  // inclusive scan of the section, every element of it (store_section() reads
  // that buffer). load_section() filled buffer[0] and ends without a barrier.
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
  // TODO 3a: turn xy[0, section) in place into its inclusive scan with
  // Brent-Kung's two trees (the handout's second diagram): a reduction tree
  // that leaves the sum of each block of 2, 4, 8, ... elements at the block's
  // last element, then a distribution tree that adds those sums into the
  // elements that still lack them. section is any length from 1 to 2048, not
  // only a power of two; the block has ceil(section / 2) threads; xy is as
  // load_section() left it (no barrier yet). Index shared memory only through
  // slot(i, padded): v4 runs this code on a padded layout. Return only once
  // every write is visible to the whole block: the caller stores at once, each
  // thread elements that others wrote.
}

template <typename T>
__global__ void scan_v3_kernel(const T *in, T *out, size_t n, int section, int exclusive) {
  __shared__ T xy[MAX_SECTION];
  load_section<2>(xy, in, n, section, exclusive, false);
  brent_kung_tree(xy, section, false);
  store_section<2>(out, xy, n, section, false);
}

static long long brent_kung_additions(int section) {
  // TODO 3b: return the number of additions your two trees execute for one
  // whole section. The grader checks it for every power of two from 1 to 2048
  // against Brent-Kung's count in the handout's table.
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
  // TODO 4: return the shared-memory slot of element p (0 <= p < 2048) in a
  // layout with one unused word after every 32 elements, so that the trees'
  // accesses, 2 * stride words apart, spread over all 32 banks for strides up
  // to 16. Slots are distinct and below PADDED_SLOTS; the function runs in
  // every access of the trees, so keep it to an instruction or two.
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
  // TODO 5a: return the inclusive scan of x across the warp: lane l gets the
  // sum of x over lanes 0 .. l. Register shuffles only, in log2(32) = 5
  // Kogge-Stone steps (no shared memory, no barrier); a lane adds only values
  // that come from lanes below it. All 32 lanes call it together (full mask).
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
  // TODO 5b: x[0, ITEMS) holds this thread's ITEMS consecutive elements of the
  // section, from element `first`. Leave the inclusive scan of the whole
  // section in staged[], element p at padded_slot(p), for store_section() to
  // write out. Constraints: each thread adds its own elements serially, in
  // registers; the thread totals are scanned within each warp by
  // warp_inclusive_scan(), and the warp totals (warp_offset[], one per warp) by
  // warp 0 the same way (warp_exclusive_from_inclusive(), given, shifts a
  // warp's inclusive scan by one lane); three block barriers here, four in the
  // kernel. blockDim.x is a multiple of 32 (v5_threads()), and elements past
  // the section are zeros. Shuffles name the full mask: never call one inside a
  // branch that leaves lanes of its warp out.
  store_section<ITEMS>(out, staged, n, section, true);
}

// Threads of a v5 block: ITEMS elements each, whole warps.
static int v5_threads(int section) {
  int threads = (section + ITEMS - 1) / ITEMS;
  return (threads + WARP - 1) / WARP * WARP;
}

static long long warp_shuffle_additions(int section) {
  // TODO 5c: return the number of additions of v5's design for one whole
  // section (a power of two from 1 to 2048), those of padding zeros and of
  // both levels of shuffle scans included (a lane that does not add counts
  // nothing). The grader compares it with the v5 row of the handout's table,
  // which says what that design counts; it does not count what your kernel
  // executes.
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
