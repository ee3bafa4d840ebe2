// The interference behind --stress. A bug of memory order between blocks (a
// result published without __threadfence(), read through this SM's L1 cache,
// or overwritten in place while a late block still needs it) shows only when
// blocks run in an unusual order or at unusual speeds. On an idle GPU they do
// not: blocks start in index order, all at once or in even waves, and L2
// answers at once. This kernel runs beside the variant under test, on a
// stream that neither waits for the default stream nor makes it wait, and
// changes that: its blocks hold some of every SM's threads and shared memory
// (fewer of the variant's blocks fit, so they run in more waves), half of
// them leave at scattered times while the variant runs (its blocks then start
// on whichever SM frees up), and most stream through a buffer twice the size
// of L2 with loads, stores and atomics (the variant's stores and loads wait in
// longer, more uneven queues, and its lines are evicted from L2).
#include <cuda/atomic>

#include "pp/check.h"
#include "random_core.h"
#include "stress.h"

namespace {

constexpr int THREADS = 256;
// A block that leaves early stays up to this long; the others stay until
// stopped, but never longer than MAX_NS, so that nothing waiting for the
// device (a launcher that synchronizes) waits long. MAX_TURNS bounds the loop
// even where the clock were not to advance.
constexpr unsigned long long SHORT_MAX_NS = 100000, MAX_NS = 20000000;
constexpr unsigned MAX_TURNS = 1u << 16;
// Thread 0 of each block reads the stop word (in host memory, over the bus)
// every POLL_NS, or every POLL_TURNS turns, whichever comes first.
constexpr unsigned long long POLL_NS = 10000;
constexpr unsigned POLL_TURNS = 16;
// Uint4s each thread loads and stores between two looks at the clock.
constexpr int TURN_VECTORS = 8;
// Words the atomics hit, spread over many L2 lines.
constexpr int HOT_WORDS = 4096;
// Dynamic shared memory a launch holds without using it, chosen by the seed:
// none, or a part of an SM's that leaves room for every lab's blocks (at most
// a quarter of it, on GPUs with less shared memory than an H100's 228 KiB).
constexpr size_t HELD_BYTES[] = {0, 16 << 10, 40 << 10};
// Keeps the interference's random bits apart from the inputs' (same seeds).
constexpr uint64_t SALT = 0x5354524553530001ull;

__device__ unsigned long long global_ns() {
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

// Thread t owns the vectors t, t + T, t + 2T, ... of the buffer (T threads in
// the grid): no two threads touch one vector, so the buffer needs no atomics.
__global__ void __launch_bounds__(THREADS)
    interference_kernel(uint4 *buffer, size_t vectors, unsigned *hot, unsigned long long *stop,
                        unsigned long long generation, uint64_t key) {
  __shared__ int done;
  uint64_t bits = pp_bits_at(key, blockIdx.x);
  unsigned long long stay = (bits & 1) ? MAX_NS : pp_bits_below(bits, SHORT_MAX_NS);
  bool streams = ((bits >> 1) & 3) != 0; // three blocks in four; the others only hold their place
  size_t threads = (size_t)gridDim.x * blockDim.x;
  size_t first = blockIdx.x * (size_t)blockDim.x + threadIdx.x, i = first;
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> stop_word(*stop);
  unsigned long long start = global_ns(), polled = start;
  for (unsigned turn = 0;; ++turn) {
    if (streams && first < vectors) {
      for (int k = 0; k < TURN_VECTORS; ++k) {
        uint4 v = buffer[i];
        v.x += 1u;
        v.y ^= v.x;
        buffer[i] = v;
        i += threads;
        if (i >= vectors) i = first;
      }
      if (threadIdx.x % 32 == 0)
        atomicAdd(&hot[((size_t)blockIdx.x * 37 + turn * 101 + threadIdx.x / 32) % HOT_WORDS], 1u);
    }
    __syncthreads(); // every thread has finished this turn before thread 0 decides
    if (threadIdx.x == 0) {
      unsigned long long now = global_ns();
      int finished = now - start >= stay || turn >= MAX_TURNS;
      if (!finished && (now - polled >= POLL_NS || turn % POLL_TURNS == POLL_TURNS - 1)) {
        polled = now;
        finished = stop_word.load(cuda::memory_order_relaxed) >= generation;
      }
      done = finished;
    }
    __syncthreads();
    if (done) return;
  }
}

// Allocated on the first start, kept until the process ends.
cudaStream_t stream;
uint4 *buffer;
size_t vectors;
unsigned *hot;
volatile unsigned long long *stop_host; // pinned host memory, polled by the kernel
unsigned long long *stop_device;        // the same word, as the kernel sees it
unsigned long long generation;          // of the last start: a stop word at least this ends it
int sm_count;
size_t held_max;                        // a quarter of an SM's shared memory

void allocate() {
  int device = 0, l2_bytes = 0, unified = 0;
  PP_CHECK(cudaGetDevice(&device));
  // With unified addressing (every 64-bit process has it) a kernel reads
  // pinned host memory through the host's own pointer.
  PP_CHECK(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device));
  if (!unified) PP_CHECK(cudaErrorNotSupported);
  PP_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  PP_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
  int shared_per_sm = 0;
  PP_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  held_max = (size_t)shared_per_sm / 4;
  vectors = 2 * (size_t)(l2_bytes > 0 ? l2_bytes : 4 << 20) / sizeof(uint4);
  PP_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  PP_CHECK(cudaMalloc((void **)&buffer, vectors * sizeof *buffer));
  PP_CHECK(cudaMalloc((void **)&hot, HOT_WORDS * sizeof *hot));
  PP_CHECK(cudaMemsetAsync(buffer, 0, vectors * sizeof *buffer, stream));
  PP_CHECK(cudaMemsetAsync(hot, 0, HOT_WORDS * sizeof *hot, stream));
  void *word = NULL;
  PP_CHECK(cudaMallocHost(&word, sizeof(unsigned long long)));
  stop_host = (volatile unsigned long long *)word;
  stop_device = (unsigned long long *)word;
  *stop_host = 0;
}

} // namespace

extern "C" void pp_interference_start(uint64_t seed) {
  if (!buffer) allocate();
  uint64_t key = pp_stream_key(seed, SALT), shape = pp_splitmix64(key);
  unsigned blocks = (unsigned)sm_count * (1 + (unsigned)(shape & 1)); // one or two per SM
  size_t held = HELD_BYTES[pp_bits_below(shape, sizeof HELD_BYTES / sizeof *HELD_BYTES)];
  if (held > held_max) held = held_max;
  ++generation;
  interference_kernel<<<blocks, THREADS, held, stream>>>(buffer, vectors, hot, stop_device, generation,
                                                         key);
  PP_CHECK_LAUNCH();
}

extern "C" void pp_interference_stop(void) {
  *stop_host = generation;
}
