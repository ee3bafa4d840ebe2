/* Lab 02 grader: inputs, references, tolerances and checks for the sum of an
 * array. The dataset picks the element type, so that every variant is
 * checked with its int launcher and with its float launcher.
 *
 * - int: nonzero ints in [-M, M], M = min(2^20, (2^31 - 1) / n). Whatever the
 *   order of additions, a partial sum adds at most n terms of magnitude at
 *   most M, so it stays within n M <= 2^31 - 1: int never overflows, and the
 *   only right answer is the exact one (the reference adds in int64). Small
 *   sizes get values up to 2^20; the largest graded size, 2^30 + 1, gets +-1.
 *   (Past 2^31 - 1 elements, which only --size can ask for, M stays 1; a
 *   partial sum of fixed order then passes 2^31 with probability below
 *   2 exp(-2^21) up to n = 2^40, by Hoeffding's inequality.)
 * - float-small-integers: nonzero integers in [-16, 16], as floats. For any
 *   order of additions fixed before the data is seen, every partial sum stays
 *   below 2^24 in magnitude (Hoeffding: a sum of m <= 2^31 terms of range 32
 *   reaches 2^24 with probability at most 2 exp(-2 * 2^48 / (32^2 m)) <=
 *   2 exp(-256), and there are fewer than 2^32 partial sums), so every partial
 *   sum is exact in float: the exact answer is demanded. A missed, repeated
 *   or raced element shows in both exact datasets.
 * - float-uniform: uniform in [0.5, 1.5), judged against a compensated double
 *   reference with an error bound for the ladder's orders (tolerance() below).
 *   Catches lost precision and wrong types; timed by the bench.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "reduction.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/reference.h"
#include "pp/verify.h"

/* The library peer, cub::DeviceReduce::Sum, in peer.cu. */
void reduce_peer_sum_int(const int *in, size_t n, int *result);
void reduce_peer_sum_float(const float *in, size_t n, float *result);
void reduce_peer_release(void);

enum { INTS, FLOAT_SMALL_INTEGERS, FLOAT_UNIFORM };
static const char *const datasets[] = {"int", "float-small-integers", "float-uniform", NULL};

#define SMALL_INTEGER_MAX 16

/* 0 to 5 and 31 to 33 for the four-element vectors and their tail; block
 * boundaries for 256 elements per block (v0..v2), 512 (v3..v5), 1024 (v7,
 * one vector per thread) and 8192 (v6), where a second pass starts; a third
 * pass from 256^2 + 1 (v0..v2: seed 003's limit), 512^2 + 1 (v3..v5) and
 * 8192^2 + 1 = 2^26 + 1 (v6); a fourth from 2^24 + 1 (v0..v2; also past
 * float's exact integers) and 2^27 + 1 (v3..v5: 2^28 + 3); a prime near
 * 10^7; and 2^30 + 1, whose 4 GiB + 4 bytes need 64-bit offsets (the driver
 * skips it where memory does not allow). */
static const char *const grade_sizes[] = {
    "0",      "1",      "2",      "3",      "4",      "5",      "31",     "32",     "33",
    "255",    "256",    "257",    "511",    "512",    "513",    "1023",   "1024",   "1025",
    "4095",   "4097",   "8191",   "8192",   "8193",   "65535",  "65536",  "65537",  "262143",
    "262144", "262145", "2^24+1", "9999991", "2^26+1", "2^28+3", "2^30+1", NULL};
static const char *const quick_sizes[] = {"0", "1", "33", "257", "1025", "8193", "65537", NULL};

typedef struct reduce_state {
  size_t n;
  void *host;          /* n ints or n floats, as the dataset says */
  pp_buffer input;     /* the same on the device */
  pp_buffer result;    /* one element */
  pp_buffer workspace; /* REDUCE_WORKSPACE_BYTES(n) */
  int dataset;
  double want;    /* the sum: exact for the integer datasets, compensated for float-uniform */
  double sum_abs; /* sum of |in[i]|, which scales the float bound */
} reduce_state;

static int variant_count(void) {
  return reduce_variant_count;
}

static pp_variant_info variant(int index) {
  pp_variant_info info = {reduce_variants[index].name, reduce_variants[index].what};
  return info;
}

static size_t device_bytes(const pp_size *size) {
  size_t n = size->dim[0];
  return pp_buffer_footprint(n * sizeof(float)) + pp_buffer_footprint(sizeof(float)) +
         pp_buffer_footprint(REDUCE_WORKSPACE_BYTES(n)) + ((size_t)256 << 20);
}

static double bytes_moved(const pp_size *size) {
  return (double)sizeof(float) * (double)size->dim[0];
}

static void *create(const pp_size *size) {
  reduce_state *s = pp_host_alloc(sizeof *s);
  s->n = size->dim[0];
  s->host = pp_host_alloc(s->n * sizeof(float));
  s->input = pp_buffer_alloc(s->n * sizeof(float));
  s->result = pp_buffer_alloc(sizeof(float));
  s->workspace = pp_buffer_alloc(REDUCE_WORKSPACE_BYTES(s->n));
  return s;
}

/* The largest magnitude of the int data at length n; see the top. */
static int32_t int_range(size_t n) {
  const size_t most = (size_t)1 << 20;
  size_t m = n ? (size_t)INT32_MAX / n : most;
  return m < 1 ? 1 : m > most ? (int32_t)most : (int32_t)m;
}

static void fill_ints(reduce_state *s, uint64_t seed) {
  int32_t *x = s->host, m = int_range(s->n);
  pp_fill_ints_i32(x, s->n, -m, m - 1, seed, 1);
  for (size_t i = 0; i < s->n; ++i)
    if (x[i] >= 0) ++x[i]; /* [-m, m - 1] onto the nonzero [-m, m] */
  int64_t sum = pp_reference_sum_i32(x, s->n);
  /* A result never written reads -1, the poison: keep -1 from being right. */
  if (sum == -1) {
    sum -= 2 * (int64_t)x[0];
    x[0] = -x[0];
  }
  s->want = (double)sum; /* |sum| <= 2^31: exact in double */
  s->sum_abs = 0.0;      /* not needed: ints are checked exactly */
}

static void fill(void *state, uint64_t seed, int dataset) {
  reduce_state *s = state;
  s->dataset = dataset;
  if (dataset == INTS) {
    fill_ints(s, seed);
  } else {
    if (dataset == FLOAT_SMALL_INTEGERS)
      pp_fill_nonzero_ints_f32(s->host, s->n, SMALL_INTEGER_MAX, seed, 1);
    else
      pp_fill_uniform_f32(s->host, s->n, 0.5f, 1.5f, seed, 1);
    pp_sum sum = pp_reference_sum_f32(s->host, s->n);
    s->want = sum.value;
    s->sum_abs = sum.abs;
  }
  pp_buffer_upload(&s->input, s->host);
}

static void prepare(void *state) {
  reduce_state *s = state;
  pp_buffer_poison(&s->result);
  pp_buffer_poison(&s->workspace);
}

static void launch(void *state, int v, int dataset) {
  reduce_state *s = state;
  if (dataset == INTS) {
    const int *in = s->input.device;
    int *result = s->result.device;
    if (v == PP_PEER)
      reduce_peer_sum_int(in, s->n, result);
    else
      reduce_variants[v].sum_int(in, s->n, result, s->workspace.device);
  } else {
    const float *in = s->input.device;
    float *result = s->result.device;
    if (v == PP_PEER)
      reduce_peer_sum_float(in, s->n, result);
    else
      reduce_variants[v].sum_float(in, s->n, result, s->workspace.device);
  }
}

/* Longest chain of float roundings on any element's way to the result, in
 * the ladder's orders of addition. Summing floats in any such order errs by
 * at most gamma_L * sum|in[i]| (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., section 4.2). Per variant, for n <= 2^40:
 *   v0..v2  a tree of 8 levels per pass of 256 elements, at most 5 passes: 40;
 *   v3..v5  a pair add and 8 levels per pass of 512, at most 5 passes: 45;
 *   v6      32 serial adds and 8 levels per pass of 8192, at most 4 passes: 160;
 *   v7      a serial chain of at most ceil(n / 4096) + 5 per accumulator
 *           (four per thread, 256 threads per block; with G blocks, either
 *           G >= 4 resident or one block per 256 vectors: each block takes
 *           at most ceil(tiles / G) tiles of 4 vectors per thread, and each
 *           thread at most one of the fewer than 1024 vectors after the last
 *           whole tile), then 2 adds of the four lanes, 1 for the tail, 10
 *           shuffle levels, 16 serial adds of the partial sums in the last
 *           block and 10 more levels: 44 more.
 * L = ceil(n / 4096) + 160 covers them all. */
static double chain_length(size_t n) {
  return ceil((double)n / 4096.0) + 160.0;
}

static double tolerance(const reduce_state *s) {
  return s->dataset == FLOAT_UNIFORM ? pp_sum_error_bound(chain_length(s->n), s->sum_abs) : 0.0;
}

/* For a wrong exact sum: the largest k < n that is n rounded down to a
 * multiple of 4, 8, ..., 8192 with in[0, k) summing to `got`, which suggests
 * the elements from in[k] on were never added; 0 if there is none. Sums of
 * the integer datasets are exact in double. */
static size_t missing_tail(const reduce_state *s, double got) {
  size_t found = 0;
  for (size_t group = 4; group <= 8192; group *= 2) {
    size_t k = s->n / group * group;
    if (k == s->n || k <= found) continue;
    double tail = 0.0;
    for (size_t i = k; i < s->n; ++i)
      tail += s->dataset == INTS ? ((const int32_t *)s->host)[i] : ((const float *)s->host)[i];
    if (s->want - tail == got) found = k;
  }
  return found;
}

static void explain(const reduce_state *s, double got, int unwritten, pp_verdict *verdict) {
  char *note = verdict->note;
  size_t len = sizeof verdict->note, k;
  if (!pp_buffer_guard_intact(&s->result))
    snprintf(note, len, "wrote past the end of result (one element)");
  else if (!pp_buffer_guard_intact(&s->workspace))
    snprintf(note, len, "wrote past the end of the workspace (REDUCE_WORKSPACE_BYTES(n) bytes)");
  else if (unwritten)
    snprintf(note, len,
             "result never written (it still holds the poison): unfinished TODO, or no block "
             "found itself the last?");
  else if (isnan(got))
    snprintf(note, len,
             "result is NaN: read past the end of in (the guard there is NaN), or a partial sum "
             "that was never written");
  else if (s->dataset == FLOAT_UNIFORM)
    snprintf(note, len, "got %.9g, want %.9g within %.3g (gamma_L * sum|x|, L = %.0f); off by %.3g",
             got, s->want, tolerance(s), chain_length(s->n), got - s->want);
  else if ((k = missing_tail(s, got)) != 0)
    snprintf(note, len,
             "got %.17g, want exactly %.17g: the sum of in[0, %zu) only; the last %zu elements, "
             "from in[%zu], were never added (a block count rounded down, an unhandled tail?)",
             got, s->want, k, s->n - k, k);
  else
    snprintf(note, len,
             "got %.17g, want exactly %.17g (integer data: every order of additions is exact); "
             "off by %+.17g: an element missed or added twice, a race, or a read past the end "
             "(ints there read -1)",
             got, s->want, got - s->want);
}

static void check(void *state, int v, pp_verdict *verdict) {
  reduce_state *s = state;
  (void)v;
  double got;
  int unwritten;
  if (s->dataset == INTS) {
    int32_t x;
    pp_buffer_download(&s->result, &x, sizeof x);
    got = x;
    unwritten = x == -1; /* fill() keeps -1 from being the right answer */
  } else {
    float x;
    pp_buffer_download(&s->result, &x, sizeof x);
    got = x;
    unwritten = pp_is_poison_f32(x);
  }
  double bound = tolerance(s), error = fabs(got - s->want);
  verdict->correct = pp_within(got, s->want, bound) && pp_buffer_guard_intact(&s->result) &&
                     pp_buffer_guard_intact(&s->workspace);
  verdict->rel_error = s->want != 0.0 ? error / fabs(s->want) : error;
  verdict->bound_ratio = bound > 0.0 ? error / bound : (error == 0.0 ? 0.0 : INFINITY);
  if (!verdict->correct) explain(s, got, unwritten, verdict);
}

static void cpu_reference(void *state) {
  reduce_state *s = state;
  if (s->dataset == INTS)
    s->want = (double)pp_reference_sum_i32(s->host, s->n);
  else
    s->want = pp_reference_sum_f32(s->host, s->n).value;
}

static void destroy(void *state) {
  reduce_state *s = state;
  pp_buffer_free(&s->input);
  pp_buffer_free(&s->result);
  pp_buffer_free(&s->workspace);
  reduce_peer_release();
  free(s->host);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "02-reduction",
    .title = "sum of an int or float array",
    .peer_name = "CUB DeviceReduce::Sum",
    .bench_size = "2^28",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .datasets = datasets,
    .bench_dataset = FLOAT_UNIFORM,
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
    .cpu_reference = cpu_reference,
    .destroy = destroy,
};
