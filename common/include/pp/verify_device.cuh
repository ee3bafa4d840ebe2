/**
 * @file verify_device.cuh
 * @brief Comparisons on the GPU, for graders' .cu files: the output never leaves the device.
 *
 * The counterpart of pp_compare_f32() for outputs of gigabytes: each element is
 * judged where it lies, by pp_within() with the bound the lab derives for it,
 * and only a ::pp_mismatch comes back: the first wrong element (the smallest
 * index) with its got, want and bound, the counts of wrong and of unwritten
 * elements, and over the right ones the largest error / bound and relative error.
 *
 * Each thread tallies its own elements (pp_tally_judge()), each block reduces
 * its threads' tallies into one slot (pp_tally_store()), and pp_tally_collect()
 * reduces the slots in one block and copies the result to the host. No atomics:
 * the result does not depend on the order in which blocks run.
 *
 * A lab whose reference is elementwise passes a functor to pp_compare_elements();
 * a lab whose reference needs a block's cooperation (a scan) writes its own
 * kernel, of at most ::PP_TALLY_BLOCKS blocks, around pp_tally_judge() and
 * pp_tally_store(). Either way the lab's bound is computed per element, from the
 * index and the reference, never read from an array of n bounds.
 *
 * The slots are the checker's own device memory, allocated once per process on
 * first use: never shared with a submission's process (pp/remote.h).
 */
#ifndef PP_VERIFY_DEVICE_CUH
#define PP_VERIFY_DEVICE_CUH

#include <stdint.h>

#include <cub/block/block_reduce.cuh>

#include "pp/check.h"
#include "pp/verify.h"

/** Most blocks of one comparison kernel: one slot each. */
#define PP_TALLY_BLOCKS 2048

/** @return an empty tally: nothing wrong, nothing judged */
__host__ __device__ inline pp_mismatch pp_tally_empty() {
  pp_mismatch m = {};
  return m;
}

/**
 * @param x  an output element
 * @return true if it still holds the poison (all bytes ::PP_POISON_BYTE: NaN)
 */
__device__ inline bool pp_is_poison_device(float x) {
  return __float_as_uint(x) == 0xFFFFFFFFu;
}

/**
 * @param x  an output element
 * @return true if it still holds the poison (all bytes ::PP_POISON_BYTE: -1)
 */
__device__ inline bool pp_is_poison_device(int32_t x) {
  return x == -1;
}

/**
 * Judges one element as pp_compare_f32() does and adds it to a thread's tally.
 * @param t          the tally
 * @param i          the element's index
 * @param got        its value
 * @param want       the reference
 * @param bound      largest allowed |got - want| (0: exact)
 * @param unwritten  whether @p got still holds the poison
 */
__device__ inline void pp_tally_judge(pp_mismatch &t, size_t i, double got, double want, double bound,
                                      bool unwritten) {
  if (pp_within(got, want, bound)) {
    double error = fabs(got - want);
    if (bound > 0.0) t.worst_ratio = fmax(t.worst_ratio, error / bound);
    if (want != 0.0) t.worst_rel = fmax(t.worst_rel, error / fabs(want));
    return;
  }
  if (t.wrong == 0 || i < t.index) {
    t.index = i;
    t.got = got;
    t.want = want;
    t.bound = bound;
  }
  t.wrong++;
  t.unwritten += unwritten;
}

/** Merges two tallies of disjoint elements: the earlier first wrong element, counts added. */
struct pp_tally_merge {
  /**
   * @param a  one tally
   * @param b  another
   * @return both together
   */
  __device__ pp_mismatch operator()(const pp_mismatch &a, const pp_mismatch &b) const {
    pp_mismatch r = b.wrong && (!a.wrong || b.index < a.index) ? b : a;
    r.wrong = a.wrong + b.wrong;
    r.unwritten = a.unwritten + b.unwritten;
    r.worst_ratio = fmax(a.worst_ratio, b.worst_ratio);
    r.worst_rel = fmax(a.worst_rel, b.worst_rel);
    return r;
  }
};

/**
 * Reduces the tallies of a block's threads into slots[blockIdx.x]. Every
 * thread of the block must call it (it synchronizes the block).
 * @tparam THREADS  the block's threads (a 1-D block)
 * @param t      this thread's tally
 * @param slots  one per block
 */
template <int THREADS>
__device__ void pp_tally_store(const pp_mismatch &t, pp_mismatch *slots) {
  using reduce = cub::BlockReduce<pp_mismatch, THREADS>;
  __shared__ typename reduce::TempStorage temp;
  pp_mismatch total = reduce(temp).Reduce(t, pp_tally_merge());
  if (threadIdx.x == 0) slots[blockIdx.x] = total;
}

/**
 * Reduces @p count slots into *total, in one block.
 * @tparam THREADS  the block's threads
 * @param slots  the blocks' tallies
 * @param count  how many
 * @param total  receives their merge
 */
template <int THREADS>
__global__ void pp_tally_finish_kernel(const pp_mismatch *slots, int count, pp_mismatch *total) {
  pp_mismatch t = pp_tally_empty();
  for (int s = threadIdx.x; s < count; s += THREADS) t = pp_tally_merge()(t, slots[s]);
  using reduce = cub::BlockReduce<pp_mismatch, THREADS>;
  __shared__ typename reduce::TempStorage temp;
  pp_mismatch r = reduce(temp).Reduce(t, pp_tally_merge());
  if (threadIdx.x == 0) *total = r;
}

/**
 * The checker's slots: ::PP_TALLY_BLOCKS of them and one for the total, in
 * device memory allocated on first use and kept for the process.
 * @return the slots
 */
inline pp_mismatch *pp_tally_slots() {
  static pp_mismatch *slots;
  if (!slots) PP_CHECK(cudaMalloc(&slots, (PP_TALLY_BLOCKS + 1) * sizeof *slots));
  return slots;
}

/**
 * @param work  units of work (elements, tiles) a comparison kernel strides over
 * @return the blocks to launch: one per unit, at least 1, at most ::PP_TALLY_BLOCKS
 */
inline int pp_tally_grid(size_t work) {
  return work == 0 ? 1 : work < PP_TALLY_BLOCKS ? (int)work : PP_TALLY_BLOCKS;
}

/**
 * Merges the slots of the @p blocks blocks of the comparison kernel just
 * enqueued and copies the result to the host (synchronizes).
 * @param blocks  the kernel's grid
 * @param m       receives the tally
 */
inline void pp_tally_collect(int blocks, pp_mismatch *m) {
  enum { THREADS = 1024 };
  pp_mismatch *slots = pp_tally_slots();
  pp_tally_finish_kernel<THREADS><<<1, THREADS>>>(slots, blocks, slots + PP_TALLY_BLOCKS);
  PP_CHECK_LAUNCH();
  PP_CHECK(cudaMemcpy(m, slots + PP_TALLY_BLOCKS, sizeof *m, cudaMemcpyDeviceToHost));
}

/** One element as an elementwise comparison sees it. */
struct pp_judged {
  double got;     /**< the value under test */
  double want;    /**< the reference */
  double bound;   /**< largest allowed |got - want| */
  bool unwritten; /**< whether @p got still holds the poison */
};

/**
 * Judges element i = 0 .. n - 1 as element(i) describes it. With @p want_record
 * and @p bound_record (device arrays of n doubles; NULL when grading), also
 * writes each element's reference and bound there, for tests that hold the GPU
 * reference against the CPU's.
 */
template <int THREADS, class Element>
__global__ void pp_compare_kernel(size_t n, Element element, double *want_record, double *bound_record,
                                  pp_mismatch *slots) {
  pp_mismatch t = pp_tally_empty();
  for (size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x; i < n; i += (size_t)gridDim.x * THREADS) {
    pp_judged e = element(i);
    pp_tally_judge(t, i, e.got, e.want, e.bound, e.unwritten);
    if (want_record) {
      want_record[i] = e.want;
      bound_record[i] = e.bound;
    }
  }
  pp_tally_store<THREADS>(t, slots);
}

/**
 * Compares n elements on the GPU and returns the tally (synchronizes).
 * @tparam Element  a functor with `__device__ pp_judged operator()(size_t i) const`
 * @param n             elements
 * @param element       judges element i: its value, reference and bound
 * @param m             receives the tally
 * @param want_record   NULL, or a device array that receives every reference
 * @param bound_record  NULL, or a device array that receives every bound
 */
template <class Element>
inline void pp_compare_elements(size_t n, const Element &element, pp_mismatch *m,
                                double *want_record = nullptr, double *bound_record = nullptr) {
  enum { THREADS = 256 };
  int blocks = pp_tally_grid((n + THREADS - 1) / THREADS);
  pp_compare_kernel<THREADS><<<blocks, THREADS>>>(n, element, want_record, bound_record, pp_tally_slots());
  PP_CHECK_LAUNCH();
  pp_tally_collect(blocks, m);
}

/** Writes x[i] = value(i) for i = 0 .. n - 1. */
template <typename T, class Value>
__global__ void pp_generate_kernel(T *x, size_t n, Value value) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = value(i);
}

/**
 * Fills a device array from a per-element function, on the default stream:
 * for inputs that the fills of pp/random.h do not make.
 * @tparam Value  a functor with `__device__ T operator()(size_t i) const`
 * @param x      the device array
 * @param n      its length
 * @param value  element i's value
 */
template <typename T, class Value>
inline void pp_generate_device(T *x, size_t n, const Value &value) {
  enum { THREADS = 256, MOST_BLOCKS = 4096 }; /* enough for any GPU; threads stride over the rest */
  if (n == 0) return;
  size_t blocks = (n + THREADS - 1) / THREADS;
  pp_generate_kernel<<<blocks < MOST_BLOCKS ? (unsigned)blocks : MOST_BLOCKS, THREADS>>>(x, n, value);
  PP_CHECK_LAUNCH();
}

#endif
