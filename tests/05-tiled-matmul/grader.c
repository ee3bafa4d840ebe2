/* Lab 05 grader: inputs, reference, tolerance and checks for C = A * B.
 *
 * Sizes are written MxNxK: A is M x K, B is K x N, C is M x N, row-major.
 *
 * Two input distributions, each aimed at a kind of bug:
 * - wide: each product is a wide integer (2^11 to 2^13 - 1, either sign: 12
 *   or 13 significant bits, more than TF32 or FP16 keep, 11, or BF16, 8)
 *   times a small one (nonzero, |x| <= 2); along K the wide values
 *   alternate between A (columns at even p) and B (rows at odd p), so that
 *   both matrices carry them (compare.h). Every product is an integer below
 *   2^14 in magnitude, exact in float; a partial sum of m of them, for any
 *   order fixed before the data is seen, reaches 2^24 with probability at
 *   most 2 exp(-2 (2^24)^2 / (m (2^15)^2)) = 2 exp(-2^19 / m) (Hoeffding:
 *   the terms have mean 0 and a range of 2^15), and an order has fewer than
 *   M N K partial sums. Where 2 M N K exp(-2^19 / K) <= 10^-20 (wide_exact():
 *   every size the grader sweeps, K up to 4097, is far inside), every
 *   partial sum is an integer below 2^24, a float, so every order gives the
 *   exact answer, and it is demanded: an element or a product missed,
 *   counted twice, taken from the wrong place or raced over shows, and so
 *   does a product of inputs rounded to TF32, BF16 or FP16. The timed runs
 *   use it. (Integers whose partial sums pass 2^24 would expose nothing more
 *   here: every value and every sum is a float by the contract, so a correct
 *   kernel then rounds, in an order of its choosing, and no exact answer
 *   could be demanded. Labs 03 and 04, whose int data must not go through
 *   float, need them.) Past that limit (only --size reaches it) the uniform
 *   bound applies.
 * - uniform: A and B uniform in [-1, 1). Judged against a double reference
 *   with the bound gamma_{K+2} S_ij. A float dot product of length K, in any
 *   order of additions (sequential, tiled, split along K and summed), has
 *   chains of at most K + 1 roundings, so its error is at most
 *   gamma_{K+1} S_ij (Higham, Accuracy and Stability of Numerical
 *   Algorithms, 3.1). The reference itself, summed in double, is off by at
 *   most K 2^-53 S_ij, less than one more float rounding (2^-24 S_ij) for
 *   K <= 2^29: hence K + 2. It catches sums kept in a narrower type; not
 *   TF32 products (10 explicit mantissa bits), whose errors on random data
 *   mostly cancel within that bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "compare.h"
#include "matmul.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/cli.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/verify.h"

enum { WIDE = MATMUL_WIDE, UNIFORM = MATMUL_UNIFORM };
static const char *const datasets[] = {"wide", "uniform", NULL};

/* Empty products and K = 0 (C must be all zeros); 1xKx1 (a dot product) and
 * Mx1xN (an outer product); sizes at and around the tiles of the ladder (32,
 * 64, 128 x 128, v6's 128 x 256, steps of 8, 16 and 32 along K) and between
 * them, with partial tiles in every dimension; N or K not a multiple of 4 (no
 * float4 rows); more tiles than a grid's y dimension holds (2^16 + 1);
 * tall-skinny and short-wide; 1000^3 and 4096^3. v6 splits K where its
 * tiles are too few to fill the GPU (K of 128 or more): 255x511x301 takes the
 * large tile split with unaligned rows, 63x1001x257 the short tile split with
 * unaligned rows, 1000x1000x1000 the large tile split with aligned ones, on a
 * GPU of any size up to 256 SMs. */
static const char *const grade_sizes[] = {
    "0x0x0",        "0x7x5",       "7x0x5",       "7x5x0",          "1x1x1",          "1x1x4097",
    "1000x999x1",   "2x3x4",       "31x33x17",    "32x32x32",       "33x31x47",       "64x64x64",
    "65x63x9",      "127x129x65",  "128x128x8",   "129x127x9",      "130x66x36",      "132x68x37",
    "257x383x100",  "520x260x516", "127x255x7",   "128x256x16",     "129x257x17",     "128x256x32",
    "129x257x33",   "256x512x64",  "260x516x36",  "383x772x68",     "1000x1000x1000", "8388609x2x3",
    "3x8388612x4",  "20000x36x300", "36x20000x300", "4099x33x129",  "255x511x301",
    "63x1001x257",  "4096x4096x4096", NULL};
/* For the sanitizers: both paths of v5 and v6 (rows aligned or not), with a partial step along K;
 * the last three have partial v6 tiles in every dimension and enough steps to reuse its stages
 * (steps of 16; the last also with steps of 32; v6 splits its K). */
static const char *const quick_sizes[] = {"0x3x5",      "5x7x0",     "1x1x1",      "31x33x17",   "127x129x65",
                                          "130x66x36",  "132x68x37", "68x132x44",  "136x264x68", "129x257x67",
                                          "136x264x164", NULL};
/* The tiles of the ladder, each checked with M, N and K in turn up to a
 * float4 either way: v0..v2's 32 x 32, v3's 64 x 64 with steps of 8, v4 and
 * v5's 128 x 128, v6's 128 x 256, short 64 x 256 and narrow 256 x 64 with
 * steps of 16 (M or N of 64 or less takes the short or narrow tile), and K of
 * 112, past which v6 splits K (from 8 steps of 16: K of 113). */
static const char *const boundary_sizes[] = {"32x32x32",   "64x64x8",    "128x128x8", "128x256x16",
                                             "64x256x16",  "256x64x16",  "128x256x112", NULL};

/* tools/sweep.sh's shapes: squares of 512 to 8192, 4095^3 and 1000x999x1001
 * (extents that are no multiple of a tile), short-wide, tall-skinny and deep. */
static const char *const sweep_sizes[] = {"512x512x512",    "1024x1024x1024", "2048x2048x2048", "4096x4096x4096",
                                          "8192x8192x8192", "4095x4095x4095", "1000x999x1001",  "8192x64x8192",
                                          "64x8192x8192",   "256x256x65536",  NULL};

/* Products up to this many multiply-adds and elements get a CPU reference of
 * every element; larger ones one of SAMPLES whole rows and columns. */
#define FULL_CHECK_MACS ((double)(1 << 27))
#define FULL_CHECK_ELEMENTS ((double)(1 << 22))
#define SAMPLES 8

typedef struct matmul_state {
  int m, n, k;
  pp_buffer da, db, dc;
  int dataset;
  uint64_t seed;         /* of the last fill: the GPU regenerates A and B from it */
  int exact;             /* wide data within its limit (see the top): every answer exact */
  /* For the CPU reference only (cpu_prepare() allocates them): */
  float *a, *b;          /* host copies of A and B */
  int full;              /* every row of C, no columns */
  int rows[SAMPLES], cols[SAMPLES];
  int row_count, col_count;     /* rows computed (all when full) and columns */
  double *row_want, *row_bound; /* row_count x n */
  double *col_want, *col_bound; /* m x col_count */
} matmul_state;

static int variant_count(void) {
  return matmul_variant_count;
}

static pp_variant_info variant(int index) {
  pp_variant_info info = {matmul_variants[index].name, matmul_variants[index].what};
  return info;
}

static double elements(const pp_size *size, int d0, int d1) {
  return (double)size->dim[d0] * (double)size->dim[d1];
}

/* Counted in double: a size that overflows size_t needs more than any device has. */
static size_t device_bytes(const pp_size *size) {
  double bytes = 4.0 * (elements(size, 0, 2) + elements(size, 2, 1) + elements(size, 0, 1)) +
                 3.0 * PP_GUARD_BYTES + (double)(256 << 20);
  return bytes >= 0x1p63 ? (size_t)1 << 63 : (size_t)bytes;
}

static double bytes_moved(const pp_size *size) {
  return 4.0 * (elements(size, 0, 2) + elements(size, 2, 1) + elements(size, 0, 1));
}

static double flops(const pp_size *size) {
  return 2.0 * elements(size, 0, 1) * (double)size->dim[2];
}

static cublasHandle_t cublas(void) {
  static cublasHandle_t handle;
  if (!handle) PP_CHECK_STATUS("cuBLAS", cublasCreate(&handle));
  return handle;
}

static void *create(const pp_size *size) {
  matmul_state *s = pp_host_alloc(sizeof *s);
  memset(s, 0, sizeof *s);
  s->m = (int)size->dim[0];
  s->n = (int)size->dim[1];
  s->k = (int)size->dim[2];
  size_t m = (size_t)s->m, n = (size_t)s->n, k = (size_t)s->k;
  s->da = pp_buffer_alloc(m * k * sizeof(float));
  s->db = pp_buffer_alloc(k * n * sizeof(float));
  s->dc = pp_buffer_alloc(m * n * sizeof(float));
  pp_buffer_mark(&s->da, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->db, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->dc, PP_BUFFER_OUTPUT);
  s->full = (double)m * n * k <= FULL_CHECK_MACS && (double)m * n <= FULL_CHECK_ELEMENTS;
  s->row_count = s->full ? s->m : s->m < SAMPLES ? s->m : SAMPLES;
  s->col_count = s->full ? 0 : s->n < SAMPLES ? s->n : SAMPLES;
  return s;
}

/* Row i of C: want[j] and bound[j] for every column j. */
static void reference_row(const matmul_state *s, int i, double *want, double *bound) {
  int n = s->n;
  for (int j = 0; j < n; ++j) want[j] = bound[j] = 0.0;
  for (int p = 0; p < s->k; ++p) {
    double x = s->a[(size_t)i * s->k + p];
    const float *b_row = s->b + (size_t)p * n;
    for (int j = 0; j < n; ++j) {
      want[j] += x * b_row[j];
      bound[j] += fabs(x * b_row[j]);
    }
  }
  for (int j = 0; j < n; ++j) bound[j] = matmul_tolerance(s->exact, s->k, bound[j]);
}

/* Column j of C: want[i] and bound[i] for every row i. */
static void reference_col(const matmul_state *s, int j, double *want, double *bound) {
  double *b_col = pp_host_alloc((size_t)s->k * sizeof(double));
  for (int p = 0; p < s->k; ++p) b_col[p] = s->b[(size_t)p * s->n + j];
  for (int i = 0; i < s->m; ++i) {
    const float *a_row = s->a + (size_t)i * s->k;
    double sum = 0.0, sum_abs = 0.0;
    for (int p = 0; p < s->k; ++p) {
      sum += a_row[p] * b_col[p];
      sum_abs += fabs(a_row[p] * b_col[p]);
    }
    want[i] = sum;
    bound[i] = matmul_tolerance(s->exact, s->k, sum_abs);
  }
  free(b_col);
}

static void cpu_reference(void *state) {
  matmul_state *s = state;
  size_t n = (size_t)s->n, m = (size_t)s->m;
  for (int r = 0; r < s->row_count; ++r)
    reference_row(s, s->full ? r : s->rows[r], s->row_want + r * n, s->row_bound + r * n);
  for (int c = 0; c < s->col_count; ++c)
    reference_col(s, s->cols[c], s->col_want + c * m, s->col_bound + c * m);
}

/* Picks the rows (columns) of a large product for the CPU reference: the
 * first, the last, and random ones. */
static void sample(int *picked, int count, int extent, uint64_t seed, uint64_t stream) {
  for (int r = 0; r < count; ++r)
    picked[r] = r == 0 ? 0 : r == 1 ? extent - 1 : (int)(pp_random_bits(seed, stream, (uint64_t)r) % (uint64_t)extent);
}

/* Whether every order of additions is exact on the wide data (see the top):
 * no partial sum reaches 2^24 but with a chance below 10^-20. */
static int wide_exact(size_t m, size_t n, size_t k) {
  return k == 0 || 2.0 * (double)m * (double)n * (double)k * exp(-0x1p19 / (double)k) <= 1e-20;
}

static void fill(void *state, uint64_t seed, int dataset) {
  matmul_state *s = state;
  size_t m = (size_t)s->m, n = (size_t)s->n, k = (size_t)s->k;
  s->dataset = dataset;
  s->seed = seed;
  s->exact = dataset == WIDE && wide_exact(m, n, k);
  if (dataset == WIDE) {
    matmul_fill_wide(s->da.device, s->m, s->k, MATMUL_A_STREAM, seed);
    matmul_fill_wide(s->db.device, s->k, s->n, MATMUL_B_STREAM, seed);
  } else {
    pp_fill_uniform_f32_device(s->da.device, m * k, MATMUL_UNIFORM_LO, MATMUL_UNIFORM_HI, seed,
                               MATMUL_A_STREAM);
    pp_fill_uniform_f32_device(s->db.device, k * n, MATMUL_UNIFORM_LO, MATMUL_UNIFORM_HI, seed,
                               MATMUL_B_STREAM);
  }
}

static void prepare(void *state) {
  matmul_state *s = state;
  pp_buffer_poison(&s->dc);
}

static void launch(void *state, int v, int dataset) {
  (void)dataset; /* every dataset launches alike */
  matmul_state *s = state;
  const float *a = s->da.device, *b = s->db.device;
  float *c = s->dc.device;
  if (v != PP_PEER) {
    matmul_variants[v].launch(a, b, c, s->m, s->n, s->k);
  } else if (s->m > 0 && s->n > 0 && s->k == 0) {
    PP_CHECK(cudaMemsetAsync(c, 0, (size_t)s->m * s->n * sizeof(float), 0));
  } else if (s->m > 0 && s->n > 0) {
    /* cuBLAS is column-major: row-major C = A B is column-major C^T = B^T A^T.
     * CUBLAS_COMPUTE_32F: FP32 multiply-adds, no TF32 tensor cores. */
    const float one = 1.0f, zero = 0.0f;
    PP_CHECK_STATUS("cuBLAS", cublasGemmEx(cublas(), CUBLAS_OP_N, CUBLAS_OP_N, s->n, s->m, s->k, &one, b,
                                           CUDA_R_32F, s->n, a, CUDA_R_32F, s->k, &zero, c, CUDA_R_32F,
                                           s->n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

/* Where element (row, col) sits, for people: edges are where tiles go wrong. */
static void describe_place(const matmul_state *s, int row, int col, char *out, size_t len) {
  const char *edge = "";
  if (row == s->m - 1 && col == s->n - 1)
    edge = ", the last element";
  else if (row == s->m - 1)
    edge = ", the last row";
  else if (col == s->n - 1)
    edge = ", the last column";
  else if (row >= s->m / 32 * 32 || col >= s->n / 32 * 32)
    edge = ", in a partial tile at the edge";
  snprintf(out, len, "C[%d][%d] (row %d of %d, column %d of %d%s)", row, col, row, s->m, col, s->n,
           edge);
}

/* A changed A or B: which, how many, and the first changed element. */
static int input_changed(const matmul_state *s, const char *name, const pp_buffer *x, int rows,
                         int cols, uint64_t stream, pp_verdict *verdict) {
  pp_mismatch m;
  matmul_check_input(x->device, rows, cols, s->dataset, s->seed, stream, &m);
  if (!m.wrong) return 0;
  snprintf(verdict->note, sizeof verdict->note,
           "changed %s, which is const (%zu elements, the first %s[%zu][%zu]): write only C", name,
           m.wrong, name, m.index / (size_t)cols, m.index % (size_t)cols);
  return 1;
}

static void check(void *state, int v, pp_verdict *verdict) {
  matmul_state *s = state;
  (void)v;
  size_t n = (size_t)s->n, elements = (size_t)s->m * n;
  verdict->correct = 0;
  if (!pp_buffer_guard_intact(&s->dc)) {
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of C (M x N floats): a store without its bounds guard");
    return;
  }
  if (input_changed(s, "A", &s->da, s->m, s->k, MATMUL_A_STREAM, verdict) ||
      input_changed(s, "B", &s->db, s->k, s->n, MATMUL_B_STREAM, verdict))
    return;
  pp_mismatch f;
  matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, NULL, NULL,
                       &f);
  verdict->correct = f.wrong == 0;
  verdict->rel_error = f.worst_rel;
  verdict->bound_ratio = f.wrong ? INFINITY : f.worst_ratio;
  if (verdict->correct) return;
  char place[128], value[128];
  const char *why = "";
  describe_place(s, (int)(f.index / n), (int)(f.index % n), place, sizeof place);
  float got;
  PP_CHECK(cudaMemcpy(&got, (const float *)s->dc.device + f.index, sizeof got, cudaMemcpyDeviceToHost));
  if (pp_is_poison_f32(got)) {
    snprintf(value, sizeof value, "is never written (poison)");
    why = ": a missing block or thread, or a store guard too strict";
  } else if (!isfinite(got)) {
    snprintf(value, sizeof value, "is NaN or infinite");
    why = ": a read past the end of A or B (NaN there) or of unwritten shared memory";
  } else if (s->exact) {
    snprintf(value, sizeof value, "is %.9g, want exactly %.17g (wide data: every order is exact)",
             f.got, f.want);
  } else {
    snprintf(value, sizeof value, "is %.9g, want %.9g within %.3g (gamma_{K+2} sum|a b|)", f.got,
             f.want, f.bound);
  }
  if (snprintf(verdict->note, sizeof verdict->note, "%s %s; %zu of %zu elements wrong, %zu never written%s",
               place, value, f.wrong, elements, f.unwritten, why) >= (int)sizeof verdict->note)
    verdict->note[sizeof verdict->note - 2] = '~'; /* mark the cut */
}

/* Brings A and B to the host for the CPU reference (untimed), and picks the
 * rows and columns of a large product. */
static void cpu_prepare(void *state) {
  matmul_state *s = state;
  size_t m = (size_t)s->m, n = (size_t)s->n, k = (size_t)s->k;
  if (!s->a) {
    s->a = pp_host_alloc(m * k * sizeof(float));
    s->b = pp_host_alloc(k * n * sizeof(float));
    s->row_want = pp_host_alloc((size_t)s->row_count * n * sizeof(double));
    s->row_bound = pp_host_alloc((size_t)s->row_count * n * sizeof(double));
    s->col_want = pp_host_alloc(m * (size_t)s->col_count * sizeof(double));
    s->col_bound = pp_host_alloc(m * (size_t)s->col_count * sizeof(double));
  }
  pp_buffer_download(&s->da, s->a, m * k * sizeof(float));
  pp_buffer_download(&s->db, s->b, k * n * sizeof(float));
  if (!s->full) {
    sample(s->rows, s->row_count, s->m, s->seed, 3);
    sample(s->cols, s->col_count, s->n, s->seed, 4);
  }
}

static void destroy(void *state) {
  matmul_state *s = state;
  pp_buffer_free(&s->da);
  pp_buffer_free(&s->db);
  pp_buffer_free(&s->dc);
  free(s->a);
  free(s->b);
  free(s->row_want);
  free(s->row_bound);
  free(s->col_want);
  free(s->col_bound);
  free(s);
}

const pp_problem pp_lab = {
    .lab = "05-tiled-matmul",
    .title = "C = A B, FP32, row-major (M x K times K x N)",
    .peer_name = "cuBLAS sgemm",
    .bench_size = "4096x4096x4096",
    .size_help = "MxNxK, each a count (A is M x K, B K x N)",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 4,
    /* Thin, tall, deep and square shapes, at most 2^27 multiply-adds. */
    .random_max = "16384x16384x65536",
    .random_volume_max = 0x1p27,
    .datasets = datasets,
    .bench_dataset = WIDE,
    .sweep_sizes = sweep_sizes,
    .sweep_variants = PP_SWEEP_LAST,
    .profile_size = "2048x2048x2048",
    .variant_count = variant_count,
    .variant = variant,
    .parse_size = pp_size_parse_mnk,
    .format_size = pp_size_format_mnk,
    .device_bytes = device_bytes,
    .bytes_moved = bytes_moved,
    .flops = flops,
    .create = create,
    .fill = fill,
    .prepare = prepare,
    .launch = launch,
    .check = check,
    .cpu_prepare = cpu_prepare,
    .cpu_reference = cpu_reference,
    .destroy = destroy,
};
