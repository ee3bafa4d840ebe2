/* The checker's hold on the inputs and outputs of its timed requests: why
 * the runner sees the inputs only once the clock runs, and why the clock
 * stops only once the checker holds the whole output. */
#define _POSIX_C_SOURCE 200809L
#include "checker/seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#include <cuda_runtime_api.h>

#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/timer.h"
#include "checker/output_probe.h"
#include "protocol.h"
#include "share.h"

typedef struct sealed {
  pp_buffer *buffer; /* the state's buffer */
  void *shared;      /* its allocation, which the runner maps */
  void *own;         /* the checker's copy, which it cannot: an input's bytes, an output's and its guard */
  size_t bytes;      /* the bytes copied: an input's, or an output's and its guard */
  size_t words;      /* an output's 4-byte words that a probe may read */
} sealed;

struct pp_seal {
  const pp_problem *problem;
  sealed *inputs, *outputs;
  int input_count, output_count;
  size_t output_words;
  uint64_t draw; /* the probes' positions come from it: the runner cannot know them */
};

static void *own_copy(size_t bytes) {
  void *p = NULL;
  cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
  if (err == cudaErrorMemoryAllocation) {
    fprintf(stderr, "error: cannot allocate %.2f GiB of device memory for the checker's copies "
                    "of the inputs and outputs at this size\n",
            (double)bytes / (1024.0 * 1024.0 * 1024.0));
    exit(PP_EXIT_USAGE);
  }
  PP_CHECK(err);
  return p;
}

pp_seal *pp_seal_new(const pp_problem *problem) {
  const pp_mark *marks;
  int count = pp_buffer_marks(&marks);
  pp_seal *seal = calloc(1, sizeof *seal);
  seal->problem = problem;
  seal->inputs = calloc((size_t)(count ? count : 1), sizeof *seal->inputs);
  seal->outputs = calloc((size_t)(count ? count : 1), sizeof *seal->outputs);
  for (int i = 0; i < count; ++i) {
    pp_buffer *buf = marks[i].buffer;
    int input = marks[i].role == PP_BUFFER_INPUT;
    sealed *s = input ? &seal->inputs[seal->input_count++] : &seal->outputs[seal->output_count++];
    s->buffer = buf;
    s->shared = buf->device;
    s->bytes = input ? buf->bytes : buf->bytes + buf->guard;
    s->words = input ? 0 : buf->bytes / 4;
    s->own = own_copy(s->bytes);
    seal->output_words += s->words;
  }
  if (!seal->input_count || !seal->output_count) {
    fprintf(stderr, "grader error: %s's create() marks %d inputs and %d outputs "
                    "(pp_buffer_mark()): the checker's clock needs both\n",
            problem->lab, seal->input_count, seal->output_count);
    exit(PP_EXIT_FAIL);
  }
  if (getrandom(&seal->draw, sizeof seal->draw, 0) != (ssize_t)sizeof seal->draw) {
    perror("error: cannot draw a seed from the operating system");
    exit(PP_EXIT_USAGE);
  }
  return seal;
}

void pp_seal_free(pp_seal *seal) {
  if (!seal) return;
  for (int i = 0; i < seal->input_count; ++i) PP_CHECK(cudaFree(seal->inputs[i].own));
  for (int i = 0; i < seal->output_count; ++i) PP_CHECK(cudaFree(seal->outputs[i].own));
  free(seal->inputs);
  free(seal->outputs);
  free(seal);
}

/* Points each buffer of @p list at the checker's copy, or back at the shared allocation. */
static void point(sealed *list, int count, int own) {
  for (int i = 0; i < count; ++i) list[i].buffer->device = own ? list[i].own : list[i].shared;
}

void pp_seal_fill(pp_seal *seal, void *state, uint64_t seed, int dataset) {
  point(seal->inputs, seal->input_count, 1);
  seal->problem->fill(state, seed, dataset);
  point(seal->inputs, seal->input_count, 0);
}

void pp_seal_check(pp_seal *seal, void *state, int variant, pp_verdict *verdict) {
  point(seal->inputs, seal->input_count, 1);
  point(seal->outputs, seal->output_count, 1);
  seal->problem->check(state, variant, verdict);
  point(seal->inputs, seal->input_count, 0);
  point(seal->outputs, seal->output_count, 0);
}

/* Once the clock runs: the inputs in (the runner could read none of them
 * before), L2 evicted, so that the work finds them in device memory as a
 * student's own timing does. */
static void stage(void *ctx) {
  pp_seal *seal = ctx;
  for (int i = 0; i < seal->input_count; ++i)
    if (seal->inputs[i].bytes)
      PP_CHECK(cudaMemcpyAsync(seal->inputs[i].shared, seal->inputs[i].own, seal->inputs[i].bytes,
                               cudaMemcpyDeviceToDevice, 0));
  pp_flush_l2();
  PP_CHECK(cudaDeviceSynchronize());
}

/* splitmix64: the next of the probes' positions. */
static uint64_t next_draw(pp_seal *seal) {
  uint64_t z = (seal->draw += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Counts the poison among the last word of each output and words drawn
 * uniformly from all of them: a runner that replied before its output was
 * whole cannot tell which words a probe reads. */
static int probe(pp_seal *seal) {
  const unsigned *at[PP_PROBE_WORDS];
  int count = 0;
  for (int i = 0; i < seal->output_count && count < PP_PROBE_WORDS; ++i)
    if (seal->outputs[i].words)
      at[count++] = (const unsigned *)seal->outputs[i].shared + seal->outputs[i].words - 1;
  while (seal->output_words && count < PP_PROBE_WORDS) {
    size_t word = (size_t)(next_draw(seal) % seal->output_words);
    int i = 0;
    while (word >= seal->outputs[i].words) word -= seal->outputs[i++].words;
    at[count++] = (const unsigned *)seal->outputs[i].shared + word;
  }
  return count ? pp_probe_poison(at, count) : 0;
}

/* Snapshots every output with its guard: what the runner writes after this
 * is not judged. */
static void snapshot(pp_seal *seal) {
  for (int i = 0; i < seal->output_count; ++i)
    if (seal->outputs[i].bytes)
      PP_CHECK(cudaMemcpyAsync(seal->outputs[i].own, seal->outputs[i].shared,
                               seal->outputs[i].bytes, cudaMemcpyDeviceToDevice, 0));
  PP_CHECK(cudaDeviceSynchronize());
}

/* After the reply: probes until no word drawn holds the poison (a right
 * output whose word is the poison word only costs one more probe, at other
 * words), then snapshots. */
static int settle_when_whole(void *ctx, double deadline) {
  pp_seal *seal = ctx;
  while (probe(seal))
    if (pp_now_s() >= deadline) return -2;
  snapshot(seal);
  return 0;
}

/* The same cost for a request that writes no output: one probe, whatever it
 * finds, and the snapshot. */
static int settle_after_one_probe(void *ctx, double deadline) {
  (void)deadline;
  pp_seal *seal = ctx;
  probe(seal);
  snapshot(seal);
  return 0;
}

pp_clock_steps pp_seal_steps(pp_seal *seal, int wait) {
  return (pp_clock_steps){stage, wait ? settle_when_whole : settle_after_one_probe, seal};
}
