/* Lab 02 grader: inputs, references, tolerances and checks for the sum of an
 * array. The dataset picks the element type, so that every variant is
 * checked with its int launcher and with its float launcher.
 *
 * The inputs are drawn on the GPU (the device fills of pp/random.h) and the
 * references are computed there too, exactly, in 128-bit integers
 * (pp/exact.h): ints as they are, floats as integer numbers of units 2^-24
 * (every float of the two float datasets is a multiple of 2^-24, below 2^25
 * units). The exact sum and sum of magnitudes are rounded once to double:
 * exact for the integer data (integers below 2^53), within a relative 2^-53
 * for float-uniform, which shifts its check by at most 2^-52 sum|x|, under
 * 2^-28 of its tolerance (at least u sum|x| = 2^-24 sum|x|). No step of
 * grading does O(n) work on the host; the CPU reference, timed for the
 * table, gets the input from the device first (cpu_prepare, untimed).
 *
 * - int: large ints that telescope (pp_fill_telescoping_i32()): in[i] =
 *   r(i + 1) - r(i), every |in[i]| in [2^30, 2^31 - 4], even, with r(k) even
 *   and below 2^30 in magnitude. The true sum, r(n) - r(0), fits int (and is
 *   even, so never -1, the poison). Any correct order of int additions gives
 *   it exactly: int addition on the GPU wraps modulo 2^32, every order
 *   computes the true sum modulo 2^32, and the one int congruent to it is the
 *   true sum itself, since that fits int. Yet no order stays small: every
 *   element is past 2^24 (and seldom a float), so a float accumulator, or a
 *   sum that converts an element to float, rounds and almost never lands on
 *   the exact answer (mutant int-sum-in-float); and any two elements whose
 *   indices have the same parity sum to at least 2^31 in magnitude, so the
 *   strided and sequential-addressing orders of the ladder pass through int's
 *   wrap-around. The reference does not wrap: its own order (a grid-stride
 *   loop, a tree over threads 128 apart) groups elements of one index parity
 *   too, into partial sums of up to 31 + log2(n) bits, and it adds them in
 *   128-bit integers.
 * - float-small-integers: nonzero integers in [-16, 16], as floats. For any
 *   order of additions fixed before the data is seen, every partial sum stays
 *   below 2^24 in magnitude: by Hoeffding's inequality a sum of m <= n terms
 *   of range 32 reaches 2^24 with probability at most
 *   2 exp(-2 * 2^48 / (32^2 m)) <= 2 exp(-2^39 / n), and an order has fewer
 *   than n partial sums, so the chance that any does is below
 *   2n exp(-2^39 / n): 10^-45 at the large test's 2^32 + 3, 10^-17 at 2^33.
 *   So every partial sum is exact in float, and the exact answer is demanded.
 *   Past 2^33 elements (only --size reaches it) that chance grows fast
 *   (4 10^-4 at 2^34), so there the float-uniform bound applies instead.
 *   A missed, repeated or raced element shows in both exact datasets. The
 *   timed runs use it: a sum that reads part of the input and scales, or
 *   replays an earlier answer, is wrong there, not merely inaccurate.
 * - float-uniform: uniform in [0.5, 1.5), judged against the exact reference
 *   with an error bound for the ladder's orders, worst-case or statistical,
 *   the tighter (tolerance() below). Catches lost precision and wrong types,
 *   and a sum that skips part of the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "reduction.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/exact.h"
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
/* float-uniform's upper end (excluded): no term is larger. */
#define UNIFORM_MAX 1.5
/* Every float of both float datasets is a multiple of 2^-24. */
#define FLOAT_FRAC_BITS 24
/* Up to this n, every partial sum of float-small-integers is exact (see the top). */
#define EXACT_SMALL_INTEGERS_MAX ((size_t)1 << 33)

/* 0 to 5 and 31 to 33 for the four-element vectors and their tail; block
 * boundaries for 256 elements per block (v0..v2), 512 (v3..v5), 1024 (v7,
 * one vector per thread) and 8192 (v6), where a second pass starts; v7's
 * single block up to one tile (4096 elements) and its grid from 4097: 4095
 * and 4096 are the single block's largest, with and without a tail, 4099 the
 * last that one tile of vectors and a tail would cover, 4101 the first that
 * needs a vector more; a third pass from 256^2 + 1 (v0..v2: the array-sum article's
 * limit), 512^2 + 1 (v3..v5) and 8192^2 + 1 = 2^26 + 1 (v6); a fourth from
 * 2^24 + 1 (v0..v2; also past float's exact integers) and 2^27 + 1 (v3..v5:
 * 2^28 + 3); a prime near 10^7; and 2^30 + 1, whose 4 GiB + 4 bytes need
 * 64-bit offsets (the driver skips it where memory does not allow). */
static const char *const grade_sizes[] = {
    "0",      "1",      "2",      "3",      "4",      "5",      "31",     "32",     "33",
    "255",    "256",    "257",    "511",    "512",    "513",    "1023",   "1024",   "1025",
    "4095",   "4096",   "4097",   "4099",   "4101",   "8191",   "8192",   "8193",   "65535",
    "65536",  "65537",  "262143", "262144", "262145", "2^24+1", "9999991", "2^26+1", "2^28+3",
    "2^30+1", NULL};
static const char *const quick_sizes[] = {"0", "1", "33", "257", "1025", "8193", "65537", NULL};
/* The boundaries above, each checked with n up to a vector of four either
 * way: the vector, a warp, blocks of 256, 512, 1024 and 8192 elements, v7's
 * one-block limit (4096), its cap of 4096 blocks of 1024 (2^22, reached only
 * on GPUs that hold that many blocks at once; the grid it has on this GPU,
 * 8 blocks an SM, is left to the drawn sizes), the third passes (256^2,
 * 512^2, 8192^2) and the fourth (2^24, 2^27). */
static const char *const boundary_sizes[] = {"4",     "32",     "256",  "512",  "1024",
                                             "4096",  "8192",   "65536", "262144", "2^22",
                                             "2^24",  "2^26",   "2^27", NULL};

/* tools/sweep.sh's sizes: the powers of two from 2^10 to 2^30 and odd sizes between them. */
static const char *const sweep_sizes[] = {PP_SWEEP_POWERS(""), NULL};

typedef struct reduce_state {
  size_t n;
  pp_buffer input;     /* n ints or n floats, as the dataset says */
  pp_buffer result;    /* one element */
  pp_buffer workspace; /* REDUCE_WORKSPACE_BYTES(n) */
  int dataset;
  double want;    /* the exact sum, rounded to double (exact for the integer datasets) */
  double sum_abs; /* sum of |in[i]|, which scales the float bound */
  void *host;     /* a host copy of the input for the CPU reference, made by cpu_prepare() */
  double cpu;     /* the CPU reference's answer (timed for the table only) */
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
  s->input = pp_buffer_alloc(s->n * sizeof(float));
  s->result = pp_buffer_alloc(sizeof(float));
  s->workspace = pp_buffer_alloc(REDUCE_WORKSPACE_BYTES(s->n));
  pp_buffer_mark(&s->input, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->result, PP_BUFFER_OUTPUT);
  s->host = NULL;
  return s;
}

/* The exact sum of in[first, n) on the GPU, for the dataset of the last fill. */
static pp_sum exact_sum_from(const reduce_state *s, size_t first) {
  if (s->dataset == INTS)
    return pp_exact_rounded(pp_exact_sum_i32_device((const int32_t *)s->input.device + first,
                                                    s->n - first));
  return pp_exact_rounded(
      pp_exact_sum_f32_device((const float *)s->input.device + first, s->n - first, FLOAT_FRAC_BITS));
}

static void fill(void *state, uint64_t seed, int dataset) {
  reduce_state *s = state;
  s->dataset = dataset;
  if (dataset == INTS)
    pp_fill_telescoping_i32_device(s->input.device, s->n, seed, 1);
  else if (dataset == FLOAT_SMALL_INTEGERS)
    pp_fill_nonzero_ints_f32_device(s->input.device, s->n, SMALL_INTEGER_MAX, seed, 1);
  else
    pp_fill_uniform_f32_device(s->input.device, s->n, 0.5f, (float)UNIFORM_MAX, seed, 1);
  pp_sum sum = exact_sum_from(s, 0);
  s->want = sum.value;
  s->sum_abs = sum.abs;
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
 *           block and 10 more levels: 44 more. Up to 4096 elements, one
 *           block and no partial sums: 3 + 2 + 1 + 10.
 * L = ceil(n / 4096) + 160 covers them all. */
static double chain_length(size_t n) {
  return ceil((double)n / 4096.0) + 160.0;
}

static double tolerance(const reduce_state *s) {
  int exact = s->dataset == INTS ||
              (s->dataset == FLOAT_SMALL_INTEGERS && s->n <= EXACT_SMALL_INTEGERS_MAX);
  if (exact) return 0.0;
  double worst = pp_sum_error_bound(chain_length(s->n), s->sum_abs);
  if (s->dataset != FLOAT_UNIFORM) return worst;
  /* Random terms: the statistical bound (pp_sum_likely_bound()) with v7's
   * serial chain of at most ceil(n / 4096) + 5 and at most 160 roundings
   * after it (every other variant's chains among those 160). At 2^28 about
   * 600 times tighter than the worst case: a sum that skips or samples part
   * of the input shows. */
  double likely = pp_sum_likely_bound(ceil((double)s->n / 4096.0) + 5.0, 160.0, UNIFORM_MAX, s->sum_abs);
  return likely < worst ? likely : worst;
}

/* For a wrong exact sum: the largest k < n that is n rounded down to a
 * multiple of 4, 8, ..., 8192 with in[0, k) summing to `got`, which suggests
 * the elements from in[k] on were never added; 0 if there is none. The sums
 * are exact in double, and in[0, k) of the int data sums to r(k) - r(0),
 * within int: no wrap-around to account for. */
static size_t missing_tail(const reduce_state *s, double got) {
  size_t found = 0;
  for (size_t group = 4; group <= 8192; group *= 2) {
    size_t k = s->n / group * group;
    if (k == s->n || k <= found) continue;
    if (s->want - exact_sum_from(s, k).value == got) found = k;
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
  else if (tolerance(s) > 0.0)
    snprintf(note, len, "got %.9g, want %.9g within %.3g (the rounding bound, chains of %.0f); off by %.3g",
             got, s->want, tolerance(s), chain_length(s->n), got - s->want);
  else if ((k = missing_tail(s, got)) != 0)
    snprintf(note, len,
             "got %.17g, want exactly %.17g: the sum of in[0, %zu) only; the last %zu elements, "
             "from in[%zu], were never added (a block count rounded down, an unhandled tail?)",
             got, s->want, k, s->n - k, k);
  else
    snprintf(note, len,
             "got %.17g, want exactly %.17g (exact in any correct order); off by %+.17g: an "
             "element missed or added twice, a race, a read past the end (ints there read -1)%s",
             got, s->want, got - s->want, s->dataset == INTS ? ", or ints added as floats" : "");
}

static void check(void *state, int v, pp_verdict *verdict) {
  reduce_state *s = state;
  (void)v; /* every variant is judged alike */
  double got;
  int unwritten;
  if (s->dataset == INTS) {
    int32_t x;
    pp_buffer_download(&s->result, &x, sizeof x);
    got = x;
    unwritten = x == -1; /* the int data's sums are even: -1 is never right */
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

static void cpu_prepare(void *state) {
  reduce_state *s = state;
  if (!s->host) s->host = pp_host_alloc(s->n * sizeof(float));
  pp_buffer_download(&s->input, s->host, s->n * sizeof(float));
}

static void cpu_reference(void *state) {
  reduce_state *s = state;
  if (s->dataset == INTS)
    s->cpu = (double)pp_reference_sum_i32(s->host, s->n);
  else
    s->cpu = pp_reference_sum_f32(s->host, s->n).value;
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
    .size_help = "n, a count: 1000, 2^28, 2^24+1, 1e6",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 4,
    .random_max = "2^27",
    .datasets = datasets,
    .bench_dataset = FLOAT_SMALL_INTEGERS,
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
