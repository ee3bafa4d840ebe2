/* Lab 04 grader: inputs, references, tolerances and checks for the scans.
 *
 * Four datasets, {int, float} x {inclusive, exclusive}; the two kinds of one
 * type scan the same data.
 *
 * Every value comes from pp_random_bits(seed, stream, index).
 *
 * - int: values uniform in [-1000, 1000], except that a value that would take
 *   the running sum outside +-(2^30 - 1) has its sign flipped (it then stays
 *   inside). So every prefix sum lies within +-(2^30 - 1), and every sum of
 *   adjacent elements, the difference of two prefixes, within +-(2^31 - 2):
 *   whatever the order of additions, a correct scan never overflows int32, at
 *   any n. (With random signs the running sum wanders about 1000 sqrt(n / 3),
 *   some 2.7e7 at n = 2^31, so the flip hardly ever fires; it makes the
 *   guarantee certain rather than probable.) The reference is exact and so
 *   must the answer be: an element missed, counted twice or raced shows.
 *
 * - float: values uniform in [0.5, 1.5) on a grid of 2^-24. Each
 *   is a multiple of 2^-24, so x * 2^24 is an integer and the prefix sums
 *   (below 1.5 * 2^31 * 2^24 < 2^63) are computed exactly in int64; the
 *   reference is that exact prefix rounded to double. The tolerance for out[i]
 *   is gamma_L * (sum of the |terms| it adds up) (Higham, Accuracy and
 *   Stability of Numerical Algorithms, section 4.2): the worst-case error of a
 *   float sum in which every term goes through at most L roundings. The data
 *   is positive, so the sum of |terms| is the exact prefix itself. Counting
 *   the roundings a term goes through on its way to out[i] in the ladder:
 *   - inside one tile (at most 16384 elements): at most 3 in a thread's chunk,
 *     5 in a warp's shuffle scan, 5 in the scan of the warp totals, 1 joining
 *     the two, 7 + 1 joining v4's rows (up to eight) and 1 adding the tile's
 *     prefix: < 24;
 *   - the recursive variants (v1, v2), with chunks of 2 and no rows, take
 *     fewer than 16 per level, the add-back included, and 3 levels suffice
 *     below 2^33 elements: < 48 in all, so 64 covers every variant;
 *   - the chained ones (v0's CPU loop over section sums, v3, v4, CUB) carry
 *     the prefix from tile to tile: for each tile passed, at most 1 rounding
 *     where a tile's inclusive prefix is formed, 5 in the look-back's warp sum
 *     and 1 adding a window into the running prefix: at most 8; with tiles of
 *     at least 1024 elements, fewer than i / 1024 + 1 tiles precede out[i].
 *   So L = 64 + 8 * floor(i / 1024), as the contract states. The bound is
 *   worst-case and loose for large i (5% at i = 1e8; no bound left past 2^31,
 *   where L u reaches 1): the float data catches broken float paths (unwritten,
 *   NaN, bits reinterpreted wrongly, inclusive and exclusive swapped, a
 *   section's offset wrong in the first million elements); the int data, which
 *   must be exact, catches a wrong element anywhere.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hierarchical_scan.h"
#include "peer.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/verify.h"

enum { INT_INCLUSIVE, INT_EXCLUSIVE, FLOAT_INCLUSIVE, FLOAT_EXCLUSIVE };
static const char *const datasets[] = {"int-inclusive", "int-exclusive", "float-inclusive",
                                       "float-exclusive", NULL};

#define INT_MAX_ABS 1000
#define INT_PREFIX_LIMIT ((1 << 30) - 1)
#define SECTION 2048 /* the handout's sections (v0..v3) and tiles (v4), for failure notes */
#define TILE 16384
#define PARALLEL_MIN ((size_t)1 << 20) /* host loops this long use every core (OpenMP) */
#define CHUNK ((size_t)1 << 16)        /* elements per parallel work item of the comparison */

/* Every boundary of the ladder: a warp; 1024 (the largest block, and the
 * smallest tile the contract allows), 2048 (v0..v3), 16384 (v4), and 4096 and
 * 8192 (tiles a student may well choose) elements plus and minus one; a
 * look-back window of 32 tiles plus one (2048, 4096, 8192 and 16384 times 32,
 * plus 1), a prime, 2048^2 plus and minus one (where v1 and v2 go from two
 * levels of sums to three, and one past the seed's limit of 4,194,304), the
 * seed's failing 1e7, and 1e8 + 7. Sizes past 2^31 are graded by the test
 * 04-hierarchical-scan.large (LARGE_SIZE in CMakeLists.txt). */
static const char *const grade_sizes[] = {
    "0",      "1",      "2",      "31",     "32",     "33",     "1023",   "1024",
    "1025",   "2047",   "2048",   "2049",   "4095",   "4096",   "4097",   "8191",
    "8192",   "8193",   "16383",  "16384",  "16385",  "65537",  "131073", "262145",
    "524289", "999983", "2^22-1", "2^22",   "2^22+1", "1e7",    "1e8+7",  NULL};
static const char *const quick_sizes[] = {"0", "1", "33", "2049", "4097", "65537", "131073", NULL};

typedef struct scan_state {
  size_t n;
  int dataset;
  int filled_type;      /* 0 int, 1 float, -1 none: what x and the prefixes hold */
  uint64_t filled_seed;
  void *x;              /* host input: n int32_t or n floats */
  void *got;            /* host copy of the output */
  int x_pinned, got_pinned;
  int32_t *prefix_int;  /* inclusive prefixes of the int data, exact */
  double *prefix_float; /* inclusive prefixes of the float data, exact then rounded to double */
  pp_buffer in, out, workspace, peer_temp;
} scan_state;

static int is_float(int dataset) {
  return dataset == FLOAT_INCLUSIVE || dataset == FLOAT_EXCLUSIVE;
}

static scan_kind kind_of(int dataset) {
  return dataset == INT_EXCLUSIVE || dataset == FLOAT_EXCLUSIVE ? SCAN_EXCLUSIVE : SCAN_INCLUSIVE;
}

static int variant_count(void) {
  return scan_variant_count;
}

static pp_variant_info variant(int index) {
  pp_variant_info info = {scan_variants[index].name, scan_variants[index].what};
  return info;
}

static size_t device_bytes(const pp_size *size) {
  size_t n = size->dim[0];
  return 2 * pp_buffer_footprint(n * sizeof(float)) +
         pp_buffer_footprint(SCAN_WORKSPACE_BYTES(n)) +
         pp_buffer_footprint(scan_peer_temp_bytes(n)) + ((size_t)256 << 20);
}

static double bytes_moved(const pp_size *size) {
  return 2.0 * sizeof(float) * (double)size->dim[0];
}

/* Host arrays that travel to and from the device are pinned (page-locked),
 * which copies several times faster; where the system refuses, they stay
 * pageable: slower copies, same results. *pinned says which. */
static void *host_array(size_t bytes, int *pinned) {
  void *p = pp_host_alloc(bytes);
  *pinned = bytes > 0 && cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess;
  if (bytes > 0 && !*pinned) cudaGetLastError(); /* clear the refusal */
  return p;
}

static void free_host_array(void *p, int pinned) {
  if (pinned) PP_CHECK(cudaHostUnregister(p));
  free(p);
}

static void *create(const pp_size *size) {
  scan_state *s = pp_host_alloc(sizeof *s);
  memset(s, 0, sizeof *s);
  s->n = size->dim[0];
  s->filled_type = -1;
  s->x = host_array(s->n * sizeof(float), &s->x_pinned);
  s->got = host_array(s->n * sizeof(float), &s->got_pinned);
  s->prefix_float = pp_host_alloc(s->n * sizeof(double)); /* shared with the int prefixes */
  s->prefix_int = (int32_t *)s->prefix_float;
  s->in = pp_buffer_alloc(s->n * sizeof(float));
  s->out = pp_buffer_alloc(s->n * sizeof(float));
  s->workspace = pp_buffer_alloc(SCAN_WORKSPACE_BYTES(s->n));
  s->peer_temp = pp_buffer_alloc(scan_peer_temp_bytes(s->n));
  return s;
}

/* The references: inclusive prefix sums, exact. */
static void reference(scan_state *s) {
  if (s->filled_type == 0) {
    const int32_t *x = s->x;
    int32_t sum = 0;
    for (size_t i = 0; i < s->n; ++i) s->prefix_int[i] = sum += x[i];
  } else {
    const float *x = s->x;
    int64_t scaled = 0; /* the prefix times 2^24: exact, see the top */
    for (size_t i = 0; i < s->n; ++i) {
      scaled += (int64_t)(x[i] * 0x1p24f); /* scaling by powers of 2 is exact */
      s->prefix_float[i] = (double)scaled * 0x1p-24;
    }
  }
}

/* The data. Every value is a pure function of (seed, stream, index) through
 * pp_random_bits(), so the arrays are generated in parallel. */
static void random_floats(float *x, size_t n, uint64_t seed) {
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
  for (size_t i = 0; i < n; ++i) /* uniform in [0.5, 1.5), on a grid of 2^-24 */
    x[i] = (float)(0.5 + (double)(pp_random_bits(seed, 2, i) >> 40) * 0x1p-24);
}

/* Ints uniform in [-INT_MAX_ABS, INT_MAX_ABS], then the sign flips that keep
 * every prefix within +-INT_PREFIX_LIMIT (see the top): a sequential pass. */
static void random_ints(int32_t *x, size_t n, uint64_t seed) {
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
  for (size_t i = 0; i < n; ++i) /* multiply-shift of the top 32 bits onto the range */
    x[i] = (int32_t)(((pp_random_bits(seed, 1, i) >> 32) * (2 * INT_MAX_ABS + 1)) >> 32) - INT_MAX_ABS;
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) {
    if (llabs(sum + x[i]) > INT_PREFIX_LIMIT) x[i] = -x[i];
    sum += x[i];
  }
}

static void fill(void *state, uint64_t seed, int dataset) {
  scan_state *s = state;
  int type = is_float(dataset);
  s->dataset = dataset;
  if (s->filled_type != type || s->filled_seed != seed) { /* the other kind reuses the data */
    if (type)
      random_floats(s->x, s->n, seed);
    else
      random_ints(s->x, s->n, seed);
    s->filled_type = type;
    s->filled_seed = seed;
    reference(s);
  }
  pp_buffer_upload(&s->in, s->x);
}

static void prepare(void *state) {
  scan_state *s = state;
  pp_buffer_poison(&s->out);
  pp_buffer_poison(&s->workspace);
}

static void launch(void *state, int v, int dataset) {
  scan_state *s = state;
  scan_kind kind = kind_of(dataset);
  void *in = s->in.device, *out = s->out.device, *workspace = s->workspace.device;
  if (v == PP_PEER)
    scan_peer(is_float(dataset), kind, in, out, s->n, s->peer_temp.device, s->peer_temp.bytes);
  else if (is_float(dataset))
    scan_variants[v].scan_float(in, out, s->n, kind, workspace);
  else
    scan_variants[v].scan_int(in, out, s->n, kind, workspace);
}

/* What out[i] should hold: the inclusive prefix i, or i - 1 (exclusive), for
 * the data's type (the other type's array is not read). */
static int32_t want_int(const scan_state *s, scan_kind kind, size_t i) {
  if (kind == SCAN_EXCLUSIVE) return i ? s->prefix_int[i - 1] : 0;
  return s->prefix_int[i];
}

static double want_float(const scan_state *s, scan_kind kind, size_t i) {
  if (kind == SCAN_EXCLUSIVE) return i ? s->prefix_float[i - 1] : 0.0;
  return s->prefix_float[i];
}

/* The tolerance factor gamma_L for out[i]; see the top. */
static double gamma_at(size_t i) {
  return pp_gamma(64.0 + 8.0 * (double)(i / 1024));
}

/* What a comparison found: the first wrong element, the counts, and over the
 * right elements the largest relative error and error / tolerance. */
typedef struct mismatch {
  size_t first, wrong, unwritten;
  double got, want, bound;
  double worst_rel, worst_ratio;
} mismatch;

static void record(mismatch *m, size_t i, double got, double want, double bound, int unwritten) {
  if (m->wrong++ == 0) {
    m->first = i;
    m->got = got;
    m->want = want;
    m->bound = bound;
  }
  m->unwritten += unwritten != 0;
}

static void compare_ints(const scan_state *s, scan_kind kind, size_t start, size_t end, mismatch *m) {
  const int32_t *got = s->got;
  for (size_t i = start; i < end; ++i) {
    int32_t want = want_int(s, kind, i);
    if (got[i] != want) record(m, i, got[i], want, 0.0, got[i] == -1);
  }
}

/* In blocks of 1024 elements, where the tolerance factor is constant; the
 * block's largest error / want is tracked without a division per element. */
static void compare_floats(const scan_state *s, scan_kind kind, size_t start, size_t end,
                           mismatch *m) {
  const float *got = s->got;
  for (size_t block = start; block < end; block += 1024) {
    size_t stop = end - block < 1024 ? end : block + 1024;
    double gamma = gamma_at(block), top_error = 0.0, top_want = 1.0;
    for (size_t i = block; i < stop; ++i) {
      double want = want_float(s, kind, i), bound = gamma * want, error = fabs(got[i] - want);
      if (!(isfinite(got[i]) && error <= bound)) /* as pp_within(), inlined: NaN fails */
        record(m, i, got[i], want, bound, pp_is_poison_f32(got[i]));
      else if (error * top_want > top_error * want)
        top_error = error, top_want = want;
    }
    m->worst_rel = fmax(m->worst_rel, top_error / top_want);
    m->worst_ratio = fmax(m->worst_ratio, top_error / top_want / gamma);
  }
}

/* Compares the whole output, chunks in parallel, then merges them in order. */
static void compare(const scan_state *s, scan_kind kind, mismatch *m) {
  size_t chunks = (s->n + CHUNK - 1) / CHUNK;
  mismatch *part = calloc(chunks ? chunks : 1, sizeof *part);
  if (!part) PP_CHECK(cudaErrorMemoryAllocation);
#pragma omp parallel for schedule(dynamic, 4) if (s->n >= PARALLEL_MIN)
  for (size_t c = 0; c < chunks; ++c) {
    size_t start = c * CHUNK, end = s->n - start < CHUNK ? s->n : start + CHUNK;
    if (is_float(s->dataset))
      compare_floats(s, kind, start, end, &part[c]);
    else
      compare_ints(s, kind, start, end, &part[c]);
  }
  memset(m, 0, sizeof *m);
  for (size_t c = 0; c < chunks; ++c) {
    if (part[c].wrong && !m->wrong) {
      m->first = part[c].first;
      m->got = part[c].got;
      m->want = part[c].want;
      m->bound = part[c].bound;
    }
    m->wrong += part[c].wrong;
    m->unwritten += part[c].unwritten;
    m->worst_rel = fmax(m->worst_rel, part[c].worst_rel);
    m->worst_ratio = fmax(m->worst_ratio, part[c].worst_ratio);
  }
  free(part);
}

/* Whether out[i] holds what the other kind of scan would put there. */
static int other_kind_at(const scan_state *s, scan_kind kind, size_t i, double got) {
  scan_kind other = kind == SCAN_EXCLUSIVE ? SCAN_INCLUSIVE : SCAN_EXCLUSIVE;
  if (!is_float(s->dataset)) return got == want_int(s, other, i);
  double want = want_float(s, other, i);
  return pp_within(got, want, gamma_at(i) * want);
}

/* A hint about the first wrong element: the likeliest cause. */
static const char *hint(const scan_state *s, scan_kind kind, const mismatch *m) {
  size_t i = m->first;
  if (!is_float(s->dataset) ? m->got == -1.0 && m->want != -1.0 : pp_is_poison_f32((float)m->got))
    return "never written (still the poison): a section or tile skipped, or an unfinished TODO";
  if (isnan(m->got))
    return "NaN: a read past the end of in, or an unwritten sum or status word used";
  if (other_kind_at(s, kind, i, m->got))
    return kind == SCAN_EXCLUSIVE ? "this is the inclusive scan's value: exclusive asked"
                                  : "this is the exclusive scan's value: inclusive asked";
  if (i >= ((size_t)1 << 31)) return "past 2^31: a 32-bit index or count overflowed?";
  if (i > 0 && (i % SECTION == 0 || i % TILE == 0))
    return "first element of a section or tile: the offset added to it is wrong "
           "(missing, from the wrong section, or not all sums scanned)";
  return "an element missed or counted twice, or a race";
}

static void check(void *state, int v, pp_verdict *verdict) {
  scan_state *s = state;
  (void)v;
  scan_kind kind = kind_of(s->dataset);
  pp_buffer_download(&s->out, s->got, s->n * sizeof(float));
  mismatch m;
  compare(s, kind, &m);
  verdict->correct = m.wrong == 0;
  if (m.wrong) {
    verdict->rel_error = fabs(m.got - m.want) / fmax(fabs(m.want), 1.0);
    verdict->bound_ratio = INFINITY;
  } else {
    verdict->rel_error = m.worst_rel;
    verdict->bound_ratio = m.worst_ratio;
  }
  if (!pp_buffer_guard_intact(&s->out)) {
    verdict->correct = 0;
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of out (n = %zu elements): a store without a bounds check", s->n);
  } else if (!pp_buffer_guard_intact(&s->workspace)) {
    verdict->correct = 0;
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of the workspace (SCAN_WORKSPACE_BYTES(n) = %zu bytes)",
             (size_t)SCAN_WORKSPACE_BYTES(s->n));
  } else if (m.wrong) {
    snprintf(verdict->note, sizeof verdict->note,
             "out[%zu] = %.9g, want %.17g%s%.3g (section %zu of 2048, tile %zu of %d); "
             "%zu wrong, %zu unwritten: %s",
             m.first, m.got, m.want, is_float(s->dataset) ? " within " : " exactly; off by ",
             is_float(s->dataset) ? m.bound : m.got - m.want, m.first / SECTION, m.first / TILE, TILE,
             m.wrong, m.unwritten, hint(s, kind, &m));
  }
}

static void cpu_reference(void *state) {
  reference(state);
}

static void destroy(void *state) {
  scan_state *s = state;
  pp_buffer_free(&s->in);
  pp_buffer_free(&s->out);
  pp_buffer_free(&s->workspace);
  pp_buffer_free(&s->peer_temp);
  free_host_array(s->x, s->x_pinned);
  free_host_array(s->got, s->got_pinned);
  free(s->prefix_float);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "04-hierarchical-scan",
    .title = "scan (prefix sums) of any length",
    .peer_name = "CUB DeviceScan",
    .bench_size = "2^28",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .datasets = datasets,
    .bench_dataset = FLOAT_INCLUSIVE,
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
