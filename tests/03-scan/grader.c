/* Lab 03 grader: inputs, reference, tolerance and checks for the scan of
 * every section of an array (sections of 1 to 2048 elements).
 *
 * Four datasets, element type by form:
 * - int-inclusive, int-exclusive: int32 uniform in [lo, hi], hi = floor((2^31
 *   - 1) / section), lo = -floor(hi / 4) (compare.h). Whatever the order of
 *   additions, a scan of a section only ever adds up runs of consecutive
 *   elements of that section, at most `section` of them: every such sum lies
 *   in [section lo, section hi], inside int32, so int32 arithmetic is exact
 *   and the exact answer is demanded. And the results pass 2^24 in
 *   magnitude: in sections of up to 128 elements the elements themselves
 *   reach past it (hi >= 2^24), and in longer ones the sums drift upward by
 *   3 hi / 8 = 3 (2^31 - 1) / (8 section) per element on average, past 2^24
 *   within the first section / 48 elements or so (the cross-check test
 *   asserts it). So int data added up in float, or read as float, shows;
 *   negative elements (a fifth of them) keep signs in play.
 * - float-inclusive, float-exclusive: uniform in [0.5, 1.5), judged per
 *   element against an exact reference (see tolerance below). Every element
 *   is at least 0.5, more than the largest bound (0.25 at 2048 terms), so an
 *   element missed or added twice anywhere is caught in float data too.
 * The exclusive form is not the inclusive one minus the element: for float
 * data that subtraction loses the bound at the start of a section.
 *
 * The data is drawn on the GPU, and judged there (compare.cu): the input is
 * regenerated from the seed and must be unchanged, and every output element
 * is compared with the exact scan of its section, computed on the GPU from the
 * regenerated input; only the first wrong element and the counts come back.
 * The CPU reference below is timed for the table's "vs CPU" column, and the
 * cross-check test (crosscheck.c) holds the GPU's reference to it, element by
 * element and bit for bit.
 *
 * The size is "n" (sections of SCAN_DEFAULT_SECTION) or "n/section", e.g.
 * "2^28", "1000000/1025"; the section is 1 to SCAN_MAX_SECTION.
 *
 * Each variant also declares the additions its algorithm does per section
 * (scan.h); they are checked against the closed forms of the ladder's
 * algorithms for every power of two N up to 2048.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "peer.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/cli.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/verify.h"
#include "scan.h"

enum { INT_INCLUSIVE, INT_EXCLUSIVE, FLOAT_INCLUSIVE, FLOAT_EXCLUSIVE };
static const char *const datasets[] = {"int-inclusive", "int-exclusive", "float-inclusive",
                                       "float-exclusive", NULL};

/* Every section length of the issue (1, 2, 31, 32, 33, 1023, 1024, 1025,
 * 2047, 2048), each as one short section, one exact section and many
 * sections whose last is partial; more than 2^20 sections (split into two
 * launches), of 1, and of 2 and 3 with a partial last one; and one very large
 * array, with a partial last section (2^27+1: 512 MiB per array, graded with
 * one seed). The perf test checks every variant at 2^28 too, before and after
 * timing. */
static const char *const grade_sizes[] = {
    "0",        "0/1",        "1/1",       "65537/1",   "2^20+1/1",  "2^21+1/2",  "3145729/3",
    "2/2",      "999/2",
    "30/31",    "31/31",      "1000/31",   "32/32",     "4097/32",   "33/33",     "1000/33",
    "1000/1023", "1023/1023", "5000/1023", "1024/1024", "1000000/1024", "1024/1025", "1025/1025",
    "3000/1025", "2046/2047", "10000/2047", "1",        "2047",      "2048",      "2049",
    "999983",   "2^24+1",     "2^27+1",    NULL};
static const char *const quick_sizes[] = {"0", "1/1", "5/2", "70/31", "100/33", "3000/1025", "4097",
                                          NULL};
/* The kernels' boundaries, each checked with n and the section up to 4 either
 * way (the section at most SCAN_MAX_SECTION): a warp (32), v5's warp of 8
 * elements each (256), a block of 1024 threads, the largest section; and the
 * launchers' split into launches of 2^20 sections (of 1 and of 2). */
static const char *const boundary_sizes[] = {"32/32",     "256/256", "1024/1024", "2048/2048",
                                             "6144/2048", "2^20/1",  "2^21/2",    NULL};

/* tools/sweep.sh's sizes: the powers of two from 2^10 to 2^30 and odd sizes between them, in sections of 1024. */
static const char *const sweep_sizes[] = {PP_SWEEP_POWERS("/1024"), NULL};

typedef struct scan_state {
  size_t n;
  int section;
  int dataset;
  uint64_t seed;      /* of the last fill: the GPU regenerates the input from it */
  /* For the CPU reference only (cpu_prepare() allocates them): */
  void *in;           /* host copy of the input: n int32 or n floats */
  double *want_f64;   /* float data: the scan in double */
  int32_t *want_i32;  /* int data: the exact scan, in want_f64's memory */
  double *bound;      /* float data: the tolerance of each element */
  pp_buffer din, dout;
  pp_buffer peer_temp;
} scan_state;

static int is_float(int dataset) {
  return dataset == FLOAT_INCLUSIVE || dataset == FLOAT_EXCLUSIVE;
}

static int is_exclusive(int dataset) {
  return dataset == INT_EXCLUSIVE || dataset == FLOAT_EXCLUSIVE;
}

/* ---- sizes ---- */

static int parse_size(const char *text, pp_size *size) {
  char count[64];
  uint64_t n, section = SCAN_DEFAULT_SECTION;
  const char *slash = strchr(text, '/');
  size_t count_len = slash ? (size_t)(slash - text) : strlen(text);
  if (count_len >= sizeof count) return -1;
  memcpy(count, text, count_len);
  count[count_len] = '\0';
  if (pp_parse_count(count, &n)) return -1;
  if (slash && pp_parse_count(slash + 1, &section)) return -1;
  if (section < 1 || section > SCAN_MAX_SECTION) return -1;
  size->dim[0] = n;
  size->dim[1] = section;
  size->dim[2] = 1;
  size->rank = 2;
  return 0;
}

static void format_size(const pp_size *size, char *out, size_t len) {
  char count[48];
  pp_format_count(size->dim[0], count, sizeof count);
  snprintf(out, len, "%s in sections of %llu", count, (unsigned long long)size->dim[1]);
}

static size_t device_bytes(const pp_size *size) {
  size_t n = size->dim[0];
  return 2 * pp_buffer_footprint(n * sizeof(float)) +
         pp_buffer_footprint(scan_peer_temp_bytes(n, (int)size->dim[1])) + ((size_t)256 << 20);
}

static double bytes_moved(const pp_size *size) {
  return 2.0 * sizeof(float) * (double)size->dim[0]; /* read n, write n */
}

/* ---- the work of each rung ---- */

/* Additions of rung v's algorithm for a section of N, N a power of two; -1
 * past the ladder. v5 has 8 elements per thread and whole warps of 32. */
static long long expected_additions(int v, long long N) {
  long long log2n = 0, warp_scan = 31 + 30 + 28 + 24 + 16, threads = N / 8 < 32 ? 32 : N / 8;
  while ((1LL << log2n) < N) ++log2n;
  switch (v) {
  case 0: return N - 1;                        /* sequential */
  case 1: case 2: return N * log2n - (N - 1);  /* Kogge-Stone: sum of N - s, s = 1, 2, .. N/2 */
  case 3: case 4: return 2 * N - 2 - log2n;    /* Brent-Kung: N - 1 up, N - 1 - log2 N down */
  case 5: return 16 * threads + warp_scan * (threads / 32 + 1);
  default: return -1;
  }
}

/* Checks rung v's declared additions; on a mismatch writes a note, returns 0.
 * A graded submission's checker has a table of names only (cmake/Labs.cmake,
 * pp_checker_table): no additions() to ask there. */
static int additions_right(int v, char *note, size_t len) {
  if (!scan_variants[v].additions) return 1;
  for (int N = 1; N <= SCAN_MAX_SECTION; N *= 2) {
    long long want = expected_additions(v, N), got = scan_variants[v].additions(N);
    if (want >= 0 && got != want) {
      snprintf(note, len,
               "additions(%d) says %lld, but the algorithm of %s does %lld additions for a "
               "section of %d: count them again (see the handout's table)",
               N, got, scan_variants[v].name, want, N);
      return 0;
    }
  }
  return 1;
}

static int variant_count(void) {
  return scan_variant_count;
}

/* The student's summary with the additions per default section appended. */
static pp_variant_info variant(int index) {
  enum { MOST = 32 };
  static char what[MOST][256];
  pp_variant_info info = {scan_variants[index].name, scan_variants[index].what};
  if (index < MOST && scan_variants[index].additions) {
    snprintf(what[index], sizeof what[index], "%s [%lld additions per section of %d]",
             info.what, scan_variants[index].additions(SCAN_DEFAULT_SECTION), SCAN_DEFAULT_SECTION);
    info.what = what[index];
  }
  return info;
}

/* ---- inputs and reference ---- */

/* Tolerance for float data (scan_tolerance() in compare.h). Output element i
 * is a sum of m float terms: m = its position in the section + 1 (inclusive)
 * or its position (exclusive). However a variant groups the additions (left
 * to right, Kogge-Stone's or Brent-Kung's trees, shuffles, CUB's), each term
 * goes through at most m - 1 roundings, so |computed - exact| <= gamma_{m-1}
 * * sum|terms| (Higham, Accuracy and Stability of Numerical Algorithms, 2nd
 * ed., section 4.2, for any order of pairwise additions). The ladder's
 * longest chain is v0's, exactly m - 1 (Kogge-Stone's is ceil(log2 m),
 * Brent-Kung's at most 2 log2 m), so this bound holds for every rung; adding
 * the zeros of padding is exact. The tolerance adds 2 (m - 1) 2^-53 sum|terms|
 * on top: twice what a double reference summed from left to right could be
 * off. Both references are in fact exact (a sum of at most 2048 multiples of
 * 2^-24 below 1.5 needs 36 bits, which double holds, in any order: the CPU's
 * left to right and the GPU's tree in compare.cu alike), so that term is only
 * a margin. For m = 0 and m = 1 the bound is 0: 0 or the element itself,
 * exactly. */

/* Scans every section of the host input in exact integers or in double (exact too). */
static void compute_reference(scan_state *s) {
  int exclusive = is_exclusive(s->dataset);
  for (size_t start = 0; start < s->n; start += (size_t)s->section) {
    size_t end = s->n - start < (size_t)s->section ? s->n : start + (size_t)s->section;
    if (!is_float(s->dataset)) {
      const int32_t *x = s->in;
      int64_t sum = 0;
      for (size_t i = start; i < end; ++i) {
        if (!exclusive) sum += x[i];
        s->want_i32[i] = (int32_t)sum;
        if (exclusive) sum += x[i];
      }
    } else {
      const float *x = s->in;
      double sum = 0.0, sum_abs = 0.0;
      for (size_t i = start; i < end; ++i) {
        size_t terms = i - start + !exclusive;
        if (!exclusive) {
          sum += x[i];
          sum_abs += fabs(x[i]);
        }
        s->want_f64[i] = sum;
        s->bound[i] = scan_tolerance(terms, sum_abs);
        if (exclusive) {
          sum += x[i];
          sum_abs += fabs(x[i]);
        }
      }
    }
  }
}

static void *create(const pp_size *size) {
  scan_state *s = pp_host_alloc(sizeof *s);
  memset(s, 0, sizeof *s);
  s->n = size->dim[0];
  s->section = (int)size->dim[1];
  s->din = pp_buffer_alloc(s->n * sizeof(float));
  s->dout = pp_buffer_alloc(s->n * sizeof(float));
  s->peer_temp = pp_buffer_alloc(scan_peer_temp_bytes(s->n, s->section));
  pp_buffer_mark(&s->din, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->dout, PP_BUFFER_OUTPUT);
  return s;
}

static void fill(void *state, uint64_t seed, int dataset) {
  scan_state *s = state;
  s->dataset = dataset;
  s->seed = seed;
  if (is_float(dataset))
    pp_fill_uniform_f32_device(s->din.device, s->n, SCAN_FLOAT_LO, SCAN_FLOAT_HI, seed,
                               SCAN_INPUT_STREAM);
  else
    pp_fill_ints_i32_device(s->din.device, s->n, scan_int_lo(s->section), scan_int_hi(s->section),
                            seed, SCAN_INPUT_STREAM);
}

static void prepare(void *state) {
  scan_state *s = state;
  pp_buffer_poison(&s->dout);
}

static void launch(void *state, int v, int dataset) {
  scan_state *s = state;
  int exclusive = is_exclusive(dataset);
  if (v == PP_PEER)
    scan_peer(is_float(dataset) ? SCAN_PEER_FLOAT : SCAN_PEER_INT32, exclusive, s->din.device,
              s->dout.device, s->n, s->section, s->peer_temp.device, s->peer_temp.bytes);
  else if (is_float(dataset))
    scan_variants[v].scan_f32(s->din.device, s->dout.device, s->n, s->section, exclusive);
  else
    scan_variants[v].scan_i32(s->din.device, s->dout.device, s->n, s->section, exclusive);
}

/* ---- checking ---- */

/* Element i of a device array of the dataset's type, as a double; *poison says
 * whether it holds the poison. One element crosses, for a failure note. */
static double element_at(const scan_state *s, const pp_buffer *buf, size_t i, int *poison) {
  return pp_buffer_element(buf, i, is_float(s->dataset), poison);
}

/* Whether a wrong value is recognizably some other value; floats within a slack. */
static int looks_like(const scan_state *s, double got, double other, double bound) {
  double slack = is_float(s->dataset) ? bound + 1e-5 * fabs(other) : 0.0;
  return fabs(got - other) <= slack;
}

/* What the first wrong element suggests. The input is unchanged (checked
 * first), so its elements are read from the device. */
static const char *hint(const scan_state *s, const pp_mismatch *m, char *buf, size_t len) {
  size_t i = m->index, position = i % (size_t)s->section;
  double got = m->got, want = m->want;
  int poison;
  element_at(s, &s->dout, i, &poison);
  if (poison)
    return "never written (still poison): a store skipped, or a section never launched (grid "
           "rounded down?)";
  if (isnan(got))
    return "NaN: read past the end of the input (its guard is NaN) or a shared slot never written";
  double x = element_at(s, &s->din, i, NULL);
  if (is_exclusive(s->dataset) && looks_like(s, got, want + x, m->bound))
    return "that is the inclusive scan's value: the exclusive form puts x[p - 1] at position p "
           "and 0 first";
  if (!is_exclusive(s->dataset) && position > 0 && looks_like(s, got, want - x, m->bound))
    return "that is the exclusive scan's value: off by one position";
  if (position > 0 && looks_like(s, got, x, m->bound))
    return "that is the element itself: the scan never reached the output";
  if (position != i && looks_like(s, got, element_at(s, &s->din, position, NULL), m->bound)) {
    snprintf(buf, len,
             "that is in[%zu], the input at the position's index: the store reads the input where "
             "the scanned shared array was meant",
             position);
    return buf;
  }
  return is_float(s->dataset) ? "beyond the rounding-error bound: a term missed, added twice or "
                                "raced, or lost precision"
                              : "a term missed or added twice, or a race between threads";
}

static void describe_mismatch(const scan_state *s, int v, const pp_mismatch *m, char *note,
                              size_t len) {
  size_t i = m->index, block = i / (size_t)s->section;
  int position = (int)(i % (size_t)s->section);
  char where[80], tolerance_text[48] = "", unwritten[48] = "", buf[192];
  if (v >= 0 && v <= 4) /* v0..v4: thread t holds positions t and t + ceil(section / 2) */
    snprintf(where, sizeof where, "block %zu, position %d, thread %d", block, position,
             position % ((s->section + 1) / 2));
  else
    snprintf(where, sizeof where, "block %zu, position %d", block, position);
  if (is_float(s->dataset)) snprintf(tolerance_text, sizeof tolerance_text, " within %.2g", m->bound);
  if (m->unwritten) snprintf(unwritten, sizeof unwritten, " (%zu never written)", m->unwritten);
  if (snprintf(note, len, "%zu of %zu wrong%s; first out[%zu] (%s): got %.9g, want %.9g%s: %s",
               m->wrong, s->n, unwritten, i, where, m->got, m->want, tolerance_text,
               hint(s, m, buf, sizeof buf)) >= (int)len)
    note[len - 2] = '~'; /* mark the cut */
}

static void check(void *state, int v, pp_verdict *verdict) {
  scan_state *s = state;
  int floats = is_float(s->dataset);
  pp_mismatch m;
  verdict->correct = 0;
  if (!pp_buffer_guard_intact(&s->dout)) {
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of out (n elements): the last, partial section's stores are "
             "not guarded by its length");
    return;
  }
  scan_check_input(s->din.device, s->n, s->section, floats, s->seed, &m);
  if (m.wrong) {
    snprintf(verdict->note, sizeof verdict->note,
             "changed the input, which is const (%zu elements, the first in[%zu]): scan in shared "
             "memory or registers and write out",
             m.wrong, m.index);
    return;
  }
  scan_check_output(s->dout.device, s->n, s->section, floats, is_exclusive(s->dataset), s->seed,
                    NULL, NULL, &m);
  verdict->rel_error = m.worst_rel;
  verdict->bound_ratio = m.wrong ? INFINITY : m.worst_ratio;
  if (m.wrong) {
    describe_mismatch(s, v, &m, verdict->note, sizeof verdict->note);
    return;
  }
  if (v >= 0 && !additions_right(v, verdict->note, sizeof verdict->note)) return;
  verdict->correct = 1;
}

/* Brings the input to the host for the CPU reference (untimed). */
static void cpu_prepare(void *state) {
  scan_state *s = state;
  if (!s->in) {
    s->in = pp_host_alloc(s->n * sizeof(float));
    s->want_f64 = pp_host_alloc(s->n * sizeof(double));
    s->want_i32 = (int32_t *)s->want_f64; /* one dataset at a time: they share the memory */
    s->bound = pp_host_alloc(s->n * sizeof(double));
  }
  pp_buffer_download(&s->din, s->in, s->n * sizeof(float));
}

static void cpu_reference(void *state) {
  compute_reference(state);
}

static void destroy(void *state) {
  scan_state *s = state;
  pp_buffer_free(&s->din);
  pp_buffer_free(&s->dout);
  pp_buffer_free(&s->peer_temp);
  free(s->in);
  free(s->want_f64);
  free(s->bound);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "03-scan",
    .title = "scan of every section of an array (inclusive and exclusive, int32 and float)",
    .peer_name = "CUB scan by key",
    .bench_size = "2^28/2048",
    .size_help = "N/SECTION: N a count (1000, 2^28, 2^24+1, 1e6), SECTION 1 to 2048 (2048 if left out)",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 4,
    .random_max = "2^24/2048",
    .datasets = datasets,
    .bench_dataset = FLOAT_INCLUSIVE,
    .sweep_sizes = sweep_sizes,
    .profile_size = "2^24/2048",
    .variant_count = variant_count,
    .variant = variant,
    .parse_size = parse_size,
    .format_size = format_size,
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
