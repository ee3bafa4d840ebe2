/* Lab 04 grader: inputs, references, tolerances and checks for the scans.
 *
 * Four datasets, {int, float} x {inclusive, exclusive}; the two kinds of one
 * type scan the same data.
 *
 * - int: the steps of a path (compare.h): x[i] = p(i + 1) - p(i), where p(k)
 *   is a triangle wave between -2^28 and 2^28 that moves 2^14 per element
 *   (with a seeded phase), plus noise uniform in [-2^20, 2^20) drawn afresh
 *   for every k. So the sum of any run of elements a .. b - 1 is p(b) - p(a):
 *   every prefix lies within +-(2^29 + 2^21), inside +-(2^30 - 1), and every
 *   sum of adjacent elements, the difference of two prefixes, which is all a
 *   scan ever adds up, within int32: whatever the order of additions, a
 *   correct scan never overflows, at any n. And the prefixes pass 2^24 within
 *   the first 4096 elements and swing between -2^28 and 2^28 every 2^16
 *   elements, so int data added up in float shows. (The cross-check test
 *   asserts both.) The reference is exact and so must the answer be: an
 *   element missed, counted twice or raced shows.
 *
 * - float: values uniform in [0.5, 1.5) on a grid of 2^-24. Each
 *   is a multiple of 2^-24, so x * 2^24 is an integer and the prefix sums
 *   (below 1.5 * 2^33 * 2^24 < 2^63 for any n a GPU holds) are computed
 *   exactly in int64; the reference is that exact prefix rounded to double.
 *   The tolerance for out[i]
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
 *   So L = 64 + 8 * floor(i / 1024), as the contract states (scan_gamma_at()
 *   in compare.h, which the CPU and GPU references share). The bound is
 *   worst-case and loose for large i (5% at i = 1e8; no bound left past 2^31,
 *   where L u reaches 1): the float data catches broken float paths (unwritten,
 *   NaN, bits reinterpreted wrongly, inclusive and exclusive swapped, a
 *   section's offset wrong in the first million elements); the int data, which
 *   must be exact, catches a wrong element anywhere. So the timed runs use
 *   int-inclusive: far from the start the float bound would let a scan that
 *   skips part of its input and extrapolates pass; the int data makes it
 *   wrong.
 *
 * The data is drawn on the GPU and judged there (compare.cu): the input is
 * regenerated from the seed and must be unchanged, and every output element
 * is compared with the exact prefix, computed on the GPU from the regenerated
 * data; only the first wrong element and the counts come back. The CPU
 * reference below is timed for the table's "vs CPU" column, and the
 * cross-check test (crosscheck.c) holds the GPU's reference to it, element by
 * element and bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
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

#define SECTION 2048 /* the handout's sections (v0..v3) and tiles (v4), for failure notes */
#define TILE 16384

/* Every boundary of the ladder: a warp; 1024 (the largest block, and the
 * smallest tile the contract allows), 2048 (v0..v3), 16384 (v4), and 4096 and
 * 8192 (tiles a student may well choose) elements plus and minus one; a
 * look-back window of 32 tiles plus one (2048, 4096, 8192 and 16384 times 32,
 * plus 1), a prime, 2048^2 plus and minus one (where v1 and v2 go from two
 * levels of sums to three, and one past the seed's limit of 4,194,304), the
 * seed's failing 1e7, and 1e8 + 7. Sizes past 2^31 are graded by the test
 * 04-hierarchical-scan.large (LARGE_SIZES in CMakeLists.txt). */
static const char *const grade_sizes[] = {
    "0",      "1",      "2",      "31",     "32",     "33",     "1023",   "1024",
    "1025",   "2047",   "2048",   "2049",   "4095",   "4096",   "4097",   "8191",
    "8192",   "8193",   "16383",  "16384",  "16385",  "65537",  "131073", "262145",
    "524289", "999983", "2^22-1", "2^22",   "2^22+1", "1e7",    "1e8+7",  NULL};
static const char *const quick_sizes[] = {"0", "1", "33", "2049", "4097", "65537", "131073", NULL};
/* The boundaries above, each checked with n up to a 16-byte vector either
 * way: a warp, a block of 1024, the tiles of 2048, 4096, 8192 and 16384, the
 * look-back window of 32 tiles of 2048, 8192 (v4 and v5's small tiles) and
 * 16384, and 2048^2, where v1 and v2 go from two levels of sums to three. */
static const char *const boundary_sizes[] = {"32",    "1024",  "2048", "4096", "8192", "16384",
                                             "65536", "2^18",  "2^19", "2^22", NULL};

/* tools/sweep.sh's sizes: the powers of two from 2^10 to 2^30 and odd sizes between them. */
static const char *const sweep_sizes[] = {PP_SWEEP_POWERS(""), NULL};

typedef struct scan_state {
  size_t n;
  int dataset;
  uint64_t seed;        /* of the last fill: the GPU regenerates the data from it */
  void *check_scratch;  /* the GPU reference's, allocated by the first fill (the checker's own) */
  /* For the CPU reference only (cpu_prepare() allocates them): */
  void *x;              /* host copy of the input: n int32_t or n floats */
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
         pp_buffer_footprint(scan_peer_temp_bytes(n)) + scan_check_scratch_bytes(n) +
         ((size_t)256 << 20);
}

static double bytes_moved(const pp_size *size) {
  return 2.0 * sizeof(float) * (double)size->dim[0];
}

static void *create(const pp_size *size) {
  scan_state *s = pp_host_alloc(sizeof *s);
  memset(s, 0, sizeof *s);
  s->n = size->dim[0];
  s->in = pp_buffer_alloc(s->n * sizeof(float));
  s->out = pp_buffer_alloc(s->n * sizeof(float));
  s->workspace = pp_buffer_alloc(SCAN_WORKSPACE_BYTES(s->n));
  s->peer_temp = pp_buffer_alloc(scan_peer_temp_bytes(s->n));
  pp_buffer_mark(&s->in, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->out, PP_BUFFER_OUTPUT);
  return s;
}

/* The CPU references: inclusive prefix sums, exact. */
static void reference(scan_state *s) {
  if (!is_float(s->dataset)) {
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

/* Draws the data on the GPU. The GPU reference needs scratch of its own: the
 * checker's, allocated here, since only the checker fills (pp/remote.h). */
static void fill(void *state, uint64_t seed, int dataset) {
  scan_state *s = state;
  s->dataset = dataset;
  s->seed = seed;
  if (!s->check_scratch) PP_CHECK(cudaMalloc(&s->check_scratch, scan_check_scratch_bytes(s->n)));
  if (is_float(dataset))
    pp_fill_uniform_f32_device(s->in.device, s->n, SCAN_FLOAT_LO, SCAN_FLOAT_HI, seed,
                               SCAN_FLOAT_STREAM);
  else
    scan_fill_ints_device(s->in.device, s->n, seed);
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

/* Element i of a device array of the dataset's type, as a double; *poison says
 * whether it holds the poison. One element crosses, for a failure note. */
static double element_at(const scan_state *s, const pp_buffer *buf, size_t i, int *poison) {
  return pp_buffer_element(buf, i, is_float(s->dataset), poison);
}

/* Whether out[i] holds what the other kind of scan would put there: the
 * prefix with in[i] added (exclusive asked) or taken away (inclusive asked). */
static int other_kind_at(const scan_state *s, scan_kind kind, const pp_mismatch *m) {
  double x = element_at(s, &s->in, m->index, NULL);
  double other = kind == SCAN_EXCLUSIVE ? m->want + x : m->want - x;
  if (!is_float(s->dataset)) return m->got == other;
  return pp_within(m->got, other, scan_gamma_at(m->index) * other);
}

/* A hint about the first wrong element: the likeliest cause. The input is
 * unchanged (checked first), so its elements are read from the device. */
static const char *hint(const scan_state *s, scan_kind kind, const pp_mismatch *m) {
  size_t i = m->index;
  int poison;
  element_at(s, &s->out, i, &poison);
  if (poison)
    return "never written (still the poison): a section or tile skipped, or an unfinished TODO";
  if (isnan(m->got))
    return "NaN: a read past the end of in, or an unwritten sum or status word used";
  if (other_kind_at(s, kind, m))
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
  int floats = is_float(s->dataset);
  pp_mismatch m;
  verdict->correct = 0;
  if (!pp_buffer_guard_intact(&s->out)) {
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of out (n = %zu elements): a store without a bounds check", s->n);
    return;
  }
  if (!pp_buffer_guard_intact(&s->workspace)) {
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of the workspace (SCAN_WORKSPACE_BYTES(n) = %zu bytes)",
             (size_t)SCAN_WORKSPACE_BYTES(s->n));
    return;
  }
  scan_check_input(s->in.device, s->n, floats, s->seed, &m);
  if (m.wrong) {
    snprintf(verdict->note, sizeof verdict->note,
             "changed the input, which is read-only (%zu elements, the first in[%zu])", m.wrong,
             m.index);
    return;
  }
  scan_check_output(s->out.device, s->n, floats, kind == SCAN_EXCLUSIVE, s->seed, s->check_scratch,
                    NULL, NULL, &m);
  verdict->correct = m.wrong == 0;
  if (m.wrong) {
    verdict->rel_error = fabs(m.got - m.want) / fmax(fabs(m.want), 1.0);
    verdict->bound_ratio = INFINITY;
    if (snprintf(verdict->note, sizeof verdict->note,
                 "out[%zu] = %.9g, want %.17g%s%.3g (section %zu of 2048, tile %zu of %d); "
                 "%zu wrong, %zu unwritten: %s",
                 m.index, m.got, m.want, floats ? " within " : " exactly; off by ",
                 floats ? m.bound : m.got - m.want, m.index / SECTION, m.index / TILE, TILE, m.wrong,
                 m.unwritten, hint(s, kind, &m)) >= (int)sizeof verdict->note)
      verdict->note[sizeof verdict->note - 2] = '~'; /* mark the cut */
  } else {
    verdict->rel_error = m.worst_rel;
    verdict->bound_ratio = m.worst_ratio;
  }
}

/* Brings the input to the host for the CPU reference (untimed). */
static void cpu_prepare(void *state) {
  scan_state *s = state;
  if (!s->x) {
    s->x = pp_host_alloc(s->n * sizeof(float));
    s->prefix_float = pp_host_alloc(s->n * sizeof(double)); /* shared with the int prefixes */
    s->prefix_int = (int32_t *)s->prefix_float;
  }
  pp_buffer_download(&s->in, s->x, s->n * sizeof(float));
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
  if (s->check_scratch) PP_CHECK(cudaFree(s->check_scratch));
  free(s->x);
  free(s->prefix_float);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "04-hierarchical-scan",
    .title = "scan (prefix sums) of any length",
    .peer_name = "CUB DeviceScan",
    .bench_size = "2^28",
    .size_help = "n, a count: 1000, 2^28, 2^24+1, 1e6",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 4,
    .random_max = "2^26",
    .datasets = datasets,
    .bench_dataset = INT_INCLUSIVE,
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
