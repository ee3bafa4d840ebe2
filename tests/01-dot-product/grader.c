/* Lab 01 grader: inputs, reference, tolerance and checks for the dot product.
 *
 * The inputs are drawn on the GPU (the device fills of pp/random.h) and the
 * reference is computed there too, exactly: every input is an integer
 * multiple of 2^-24 (the quarters, and the uniform floats, all of magnitude
 * at least 0.25), so every product a[i] b[i] (exact in double) is an integer
 * number of units 2^-48, below 2^53 of them, and pp_exact_dot_f32_device()
 * adds them in 128-bit integers. The exact dot product and the exact
 * sum|a[i] b[i]| are then rounded once to double: exact for the quarters
 * (multiples of 2^-4, far below 2^53 of them), within a relative 2^-53 for the
 * uniform data,
 * where that shifts the check by at most 2^-52 sum|a b|, under 2^-28 of the
 * tolerance (which is at least u sum|a b| = 2^-24 sum|a b|). No step of
 * grading does O(n) work on the host; the CPU reference, timed for the
 * table, gets the inputs from the device first (cpu_prepare, untimed).
 *
 * Two input distributions, each aimed at a kind of bug:
 * - quarters: a[i], b[i] nonzero integers in [-4, 4] divided by 4 (+-1/4,
 *   +-1/2, +-3/4 or +-1: three in four not integers). In units of 1/16
 *   every product is an integer of magnitude <= 16 and, for any order of
 *   additions fixed before the data is seen, every partial sum stays below
 *   2^24 units: by Hoeffding's inequality a sum of m <= n such terms (range
 *   32) reaches 2^24 with probability at most 2 exp(-2 * 2^48 / (32^2 m))
 *   <= 2 exp(-2^39 / n), and an order has fewer than n partial sums, so the
 *   chance that any one reaches 2^24 is below 2n exp(-2^39 / n): e^-2000 at
 *   n = 2^28, 10^-45 at the large test's 2^32 + 3, 10^-17 at 2^33. Then
 *   every partial sum is exact in float: the only right answer is the exact
 *   one, and a missed, repeated or raced element shows. Past 2^33 (only
 *   --size reaches it) that chance grows fast (4 10^-4 at 2^34), so there
 *   the uniform bound applies. The timed runs use it: a dot product that
 *   reads part of the input and scales, or replays an earlier answer, is
 *   wrong there, not merely inaccurate, however it tells the data apart;
 *   and as three inputs in four are not integers, neither is an int
 *   accumulator right.
 * - uniform: a[i], b[i] uniform in [0.5, 1.5). Judged against the exact
 *   reference with the bound gamma_L * sum|a[i] b[i]|, where L bounds the
 *   chain of roundings any product goes through in the ladder's orders (one
 *   rounding for the product, at most ceil(n / 4096) in a thread's serial
 *   loop when at least 4096 threads share the work, and at most 1024 in the
 *   trees and passes that follow). Catches lost precision and wrong types
 *   (a half accumulator passes the quarters, not this). Where it is
 *   tighter, a statistical bound applies too (pp_sum_likely_bound()): the
 *   worst case assumes every rounding errs the same way, which random data
 *   does not do.
 *
 * - absorbed (only with --dataset absorbed; absorbed.h): per group of 8
 *   products as v2 adds them, +B, six of g = 2^-24, -B, B in [1, 2) (or 8
 *   g): plain summation loses the g's to B (relative error 0.03 to 1 in the
 *   ladder's orders), Kahan's adds them exactly. Judged by the uniform
 *   data's worst-case bound, which every rung meets; with
 *   --accuracy (the <lab>.accuracy.<variant> test) by the bound of a
 *   compensated sum, (2u + gamma_1024) S, which plain summation misses by 10^4.
 *
 * No exact dataset can expose more: here a float accumulator is the
 * contract, not a bug. Values large enough for partial sums to pass 2^24
 * units would make float rounding legitimate, judged by the same bound as
 * uniform.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "absorbed.h"
#include "dot_product.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/exact.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/reference.h"
#include "pp/verify.h"

enum { QUARTERS, UNIFORM, ABSORBED, ROTATED = ABSORBED };
static const char *const datasets[] = {"quarters", "uniform", "absorbed", NULL};

/* Block-size boundaries for blocks of 256 and of 256 x 8, odd lengths for the
 * float4 tail, one past the array-sum article's 1024^2 limit, a prime near 10^6, 2^24+1
 * (past float's exact integers) and 2^28 (1 GiB per input). */
static const char *const grade_sizes[] = {
    "0",    "1",    "2",    "3",      "31",     "32",     "33",     "255",    "256",
    "257",  "511",  "512",  "513",    "1023",   "1025",   "2047",   "2048",   "2049",
    "4097", "65537", "999983", "2^20+1", "2^24+1", "2^28", NULL};
static const char *const quick_sizes[] = {"0", "1", "33", "257", "2049", "65537", NULL};
/* The launchers' boundaries, each checked with n up to a float4 either way:
 * the vector (4); blocks of 256 (v0, v1), 512 (one block of the partial sums'
 * pass), 2048 (v2..v5: 8 per thread); v6's least block of 1024 (a float4 per
 * thread) and one turn of its unrolled loop (4096: 4 float4 per thread);
 * finish_sum()'s second pass from 512 blocks of 256 and of 2048 (2^17, 2^20)
 * and its third from 512^2 blocks of 256 (2^26); v6's grid cap of 512 blocks
 * a turn of 4096 (2^21), past which its threads loop. */
static const char *const boundary_sizes[] = {"4",    "256",  "512",  "1024", "2048", "4096",
                                             "2^17", "2^20", "2^21", "2^26", NULL};

/* Every input is a multiple of 2^-24, so every product is one of 2^-48. */
#define PRODUCT_FRAC_BITS 48
/* Up to this n, every partial sum of the quarters is exact (see the top). */
#define EXACT_QUARTERS_MAX ((size_t)1 << 33)
/* The uniform data's largest product, 1.5 * 1.5. */
#define UNIFORM_PRODUCT_MAX 2.25

/* tools/sweep.sh's sizes: the powers of two from 2^10 to 2^30 and odd sizes between them. */
static const char *const sweep_sizes[] = {PP_SWEEP_POWERS(""), NULL};

typedef struct dot_state {
  size_t n;
  pp_buffer da, db;    /* device inputs */
  pp_buffer result;    /* one float */
  pp_buffer workspace; /* DOT_WORKSPACE_FLOATS(n) floats */
  pp_sum want;         /* the exact reference and sum of |a[i] b[i]|, rounded to double */
  int dataset;
  float *a, *b;        /* host copies for the CPU reference, made by cpu_prepare() */
  pp_sum cpu;          /* the CPU reference's answer (timed for the table only) */
} dot_state;

static cublasHandle_t cublas(void) {
  static cublasHandle_t handle;
  if (!handle) {
    PP_CHECK_STATUS("cuBLAS", cublasCreate(&handle));
    PP_CHECK_STATUS("cuBLAS", cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
  }
  return handle;
}

static int variant_count(void) {
  return dot_variant_count;
}

static pp_variant_info variant(int index) {
  pp_variant_info info = {dot_variants[index].name, dot_variants[index].what};
  return info;
}

static size_t device_bytes(const pp_size *size) {
  size_t n = size->dim[0];
  return 2 * pp_buffer_footprint(n * sizeof(float)) + pp_buffer_footprint(sizeof(float)) +
         pp_buffer_footprint(DOT_WORKSPACE_FLOATS(n) * sizeof(float)) + ((size_t)256 << 20);
}

static double bytes_moved(const pp_size *size) {
  return 2.0 * sizeof(float) * (double)size->dim[0];
}

static void *create(const pp_size *size) {
  dot_state *s = pp_host_alloc(sizeof *s);
  s->n = size->dim[0];
  s->da = pp_buffer_alloc(s->n * sizeof(float));
  s->db = pp_buffer_alloc(s->n * sizeof(float));
  s->result = pp_buffer_alloc(sizeof(float));
  s->workspace = pp_buffer_alloc(DOT_WORKSPACE_FLOATS(s->n) * sizeof(float));
  pp_buffer_mark(&s->da, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->db, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->result, PP_BUFFER_OUTPUT);
  s->a = s->b = NULL;
  return s;
}

static void fill(void *state, uint64_t seed, int dataset) {
  dot_state *s = state;
  float *a = s->da.device, *b = s->db.device;
  s->dataset = dataset;
  if (dataset == QUARTERS) {
    pp_fill_nonzero_quarters_f32_device(a, s->n, 4, seed, 1);
    pp_fill_nonzero_quarters_f32_device(b, s->n, 4, seed, 2);
  } else if (dataset == ABSORBED) {
    dot_fill_absorbed_device(a, b, s->n, seed);
  } else {
    pp_fill_uniform_f32_device(a, s->n, 0.5f, 1.5f, seed, 1);
    pp_fill_uniform_f32_device(b, s->n, 0.5f, 1.5f, seed, 2);
  }
  s->want = pp_exact_rounded(pp_exact_dot_f32_device(a, b, s->n, PRODUCT_FRAC_BITS));
}

static void prepare(void *state) {
  dot_state *s = state;
  pp_buffer_poison(&s->result);
  pp_buffer_poison(&s->workspace);
}

static void launch(void *state, int v, int dataset) {
  (void)dataset; /* every dataset launches alike */
  dot_state *s = state;
  const float *a = s->da.device, *b = s->db.device;
  if (v == PP_PEER)
    PP_CHECK_STATUS("cuBLAS", cublasSdot_64(cublas(), (int64_t)s->n, a, 1, b, 1, s->result.device));
  else
    dot_variants[v].launch(a, b, s->n, s->result.device, s->workspace.device);
}

/* The tolerance; see the comment at the top. @p compensated: the absorbed
 * data under --accuracy. */
static double tolerance(const dot_state *s, int compensated) {
  if (compensated) return dot_absorbed_bound(s->want.value);
  if (s->dataset == QUARTERS && s->n <= EXACT_QUARTERS_MAX) return 0.0;
  double chain = 1.0 + ceil((double)s->n / 4096.0) + 1024.0;
  double worst = pp_sum_error_bound(chain, s->want.abs);
  if (s->dataset != UNIFORM) return worst;
  /* The same orders (see the top): at most ceil(n / 4096) products in a
   * thread's serial loop, at most 1024 roundings after it. At 2^28 about 250
   * times tighter than the worst case: a sum that skips or samples part of
   * the input shows (half of it, doubled, is off by 2.5e-5 S in the mean). */
  double likely = pp_sum_likely_bound(ceil((double)s->n / 4096.0), 1024.0, UNIFORM_PRODUCT_MAX,
                                      s->want.abs);
  return likely < worst ? likely : worst;
}

static void check(void *state, int v, pp_verdict *verdict) {
  dot_state *s = state;
  (void)v;
  float got;
  pp_buffer_download(&s->result, &got, sizeof got);
  int compensated = verdict->compensated && s->dataset == ABSORBED;
  double want = s->want.value, bound = tolerance(s, compensated), error = fabs((double)got - want);
  verdict->correct = pp_within(got, want, bound);
  verdict->rel_error = want != 0.0 ? error / fabs(want) : error;
  verdict->bound_ratio = bound > 0.0 ? error / bound : (error == 0.0 ? 0.0 : INFINITY);
  if (!pp_buffer_guard_intact(&s->result)) {
    verdict->correct = 0;
    snprintf(verdict->note, sizeof verdict->note, "wrote past the end of result (one float)");
  } else if (!pp_buffer_guard_intact(&s->workspace)) {
    verdict->correct = 0;
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of the workspace (DOT_WORKSPACE_FLOATS(n) floats)");
  } else if (verdict->correct) {
    return;
  } else if (pp_is_poison_f32(got)) {
    snprintf(verdict->note, sizeof verdict->note,
             "result never written (it still holds the poison): unfinished TODO?");
  } else if (isnan(got)) {
    snprintf(verdict->note, sizeof verdict->note,
             "result is NaN: read past the end of a or b (the guard there is NaN) or an "
             "unwritten partial sum");
  } else if (compensated) {
    snprintf(verdict->note, sizeof verdict->note,
             "not more accurate than plain summation: got %.9g, want %.9g within %.3g (Kahan's "
             "bound, absorbed.h); off by %.3g, %.0fx the bound: the small products were lost to "
             "the large one, as a plain sum loses them",
             got, want, bound, (double)got - want, error / bound);
  } else if (bound == 0.0) {
    snprintf(verdict->note, sizeof verdict->note,
             "got %.9g, want exactly %.17g (quarters: every order of additions is exact); "
             "off by %+.17g: a product missed or added twice, or a race",
             got, want, (double)got - want);
  } else {
    snprintf(verdict->note, sizeof verdict->note,
             "got %.9g, want %.9g within %.3g (the rounding bound); off by %.3g", got, want, bound,
             (double)got - want);
  }
}

static void cpu_prepare(void *state) {
  dot_state *s = state;
  if (!s->a) {
    s->a = pp_host_alloc(s->n * sizeof(float));
    s->b = pp_host_alloc(s->n * sizeof(float));
  }
  pp_buffer_download(&s->da, s->a, s->n * sizeof(float));
  pp_buffer_download(&s->db, s->b, s->n * sizeof(float));
}

static void cpu_reference(void *state) {
  dot_state *s = state;
  s->cpu = pp_reference_dot_f32(s->a, s->b, s->n);
}

static void destroy(void *state) {
  dot_state *s = state;
  pp_buffer_free(&s->da);
  pp_buffer_free(&s->db);
  pp_buffer_free(&s->result);
  pp_buffer_free(&s->workspace);
  free(s->a);
  free(s->b);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "01-dot-product",
    .title = "dot product of two float arrays",
    .peer_name = "cuBLAS sdot",
    .bench_size = "2^28",
    .size_help = "n, a count: 1000, 2^28, 2^24+1, 1e6",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 4,
    .random_max = "2^26",
    .datasets = datasets,
    .rotated_datasets = ROTATED,
    .bench_dataset = QUARTERS,
    .sweep_sizes = sweep_sizes,
    .profile_size = "2^24",
    .variant_count = variant_count,
    .variant = variant,
    .parse_size = pp_size_parse_1d,
    .format_size = pp_size_format_1d,
    .device_bytes = device_bytes,
    .bytes_moved = bytes_moved,
    .create = create,
    .fill = fill,
    .prepare = prepare,
    .launch = launch,
    .check = check,
    .cpu_prepare = cpu_prepare,
    .cpu_reference = cpu_reference,
    .destroy = destroy,
};
