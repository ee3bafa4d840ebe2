/* Lab 06 grader: inputs, reference, tolerance and checks for C = A * B with
 * BF16 inputs and FP32 accumulation (tensor_matmul.h).
 *
 * Sizes are written MxNxK: A is M x K (row-major), B is K x N (column-major),
 * both with pitch tensor_matmul_pitch(K), whose padding holds NaN; C is M x N,
 * row-major FP32.
 *
 * What may compute C: FP32 fused multiply-adds on the CUDA cores (v0) and the
 * tensor cores (v1 on). A product of two BF16 values (8 significant bits
 * each) is exact in FP32. A tensor-core step adds up to 16 such products to
 * the FP32 accumulator in one operation: every term is aligned to the
 * largest one's exponent, the bits below a significand of 24 bits (or a few
 * more) are dropped, and so are those of the sum (truncation, not rounding:
 * Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
 * cores"; Khattak and Mikaitis, "Accurate models of NVIDIA tensor cores", up
 * to the H100 and B200).
 *
 * Two input distributions, each aimed at a kind of bug:
 * - exact: each product is a wide integer (odd, 17 to 255, either sign: 5 to
 *   8 significant bits, all of which BF16 keeps and neither FP8 format does,
 *   E4M3 4, E5M2 3) times a small one (nonzero, |x| <= 2); along K the wide
 *   values alternate between A (even p) and B (odd p), so that both matrices
 *   carry them (compare.h). Every product is an integer below 2^9 in
 *   magnitude, exact in float; a partial sum of m of them, for any order (and
 *   any grouping into tensor-core steps) fixed before the data is seen,
 *   reaches 2^24 with probability at most 2 exp(-2 (2^24)^2 / (m (2^10)^2)) =
 *   2 exp(-2^29 / m) (Hoeffding: the terms have mean 0 and a range of 1020 <
 *   2^10), and an order has fewer than M N K partial sums. Where
 *   2 M N K exp(-2^29 / K) <= 10^-20 (exact_everywhere(): every size the
 *   grader sweeps is far inside, K up to millions), every partial sum is an
 *   integer below 2^24. Such a sum is a float; and aligned to a largest term
 *   below 2^24, a significand of 24 bits drops no bit of an integer: every
 *   order, on either unit, gives the exact answer, and it is demanded. An
 *   element or a product missed, counted twice, taken from the wrong place
 *   (a row for a column, a padding element) or raced over shows, and so do
 *   inputs rounded to FP8 and sums kept in BF16 or FP16. The timed runs use
 *   it. Past that limit (only --size reaches it) the uniform bound applies.
 * - uniform: A and B uniform in [-1, 1), rounded to BF16. Judged against a
 *   double reference with the bound gamma_{4K} S_ij, S_ij = sum_p |a_ip b_pj|.
 *   Any order of evaluation is a tree whose K leaves are the exact products
 *   and whose every node combines r >= 2 values of magnitudes adding up to at
 *   most S_ij (to first order): an FP32 addition (r = 2) errs by at most
 *   u S_ij (u = 2^-24, rounding to nearest), a tensor-core step by less than
 *   2u of its largest term for each of its r - 1 other terms and 2u of its sum
 *   (truncation above), at most 2u r S_ij either way. A tree with K leaves
 *   and nodes of two or more children has at most 2K - 2 edges: the error is
 *   at most 2u (2K - 2) S_ij. The reference itself, summed in double, is off
 *   by at most K 2^-53 S_ij, less than u S_ij for K <= 2^29: gamma_{4K}
 *   covers both. It catches sums kept in a narrower type and NaN (padding read
 *   into a sum); on random data an FP8 product's error mostly cancels within
 *   that bound, which the exact data does not let pass.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "compare.h"
#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/cli.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/verify.h"
#include "tensor_matmul.h"

enum { EXACT = TENSOR_MATMUL_EXACT, UNIFORM = TENSOR_MATMUL_UNIFORM };
static const char *const datasets[] = {"exact", "uniform", NULL};

/* Empty products and K = 0 (C must be all zeros); K = 1 to 9, below and
 * around one 16-byte vector of K (8 elements) and one mma step (16), each
 * with small odd M and N; 1xKx1 (a dot product) and Mx1xN (an outer
 * product); block tiles of 64, 128 and 256 in M and N, at, one below and one
 * above; K at, below and above the steps of 16, 32 and 64 (a 128-byte
 * swizzle span, a copy-engine box) and several of them for the pipelines'
 * stages; K not a multiple of 8 (padding inside the last vector) in most;
 * more tiles than a grid's y dimension holds (2^23 + 1 rows: 2^17 + 1 tiles
 * of 64, 2^16 + 1 of 128); tall-skinny, short-wide and deep (256x256x65536:
 * 1024 steps of 64 per tile); 1000^3 and 4096^3. */
static const char *const grade_sizes[] = {
    "0x0x0",         "0x7x5",          "7x0x5",          "7x5x0",          "1x1x1",          "3x5x2",
    "5x3x3",         "7x9x4",          "9x7x5",          "11x13x6",        "13x11x7",        "15x17x8",
    "17x15x9",       "1x1x4097",       "1000x999x1",     "31x33x15",       "33x31x17",       "64x64x16",
    "63x65x31",      "65x63x33",       "128x128x32",     "127x129x63",     "129x127x65",     "128x128x64",
    "64x256x72",     "256x64x56",      "255x257x100",    "257x255x127",    "256x256x128",    "128x256x192",
    "256x128x257",   "257x383x320",    "520x260x516",    "383x772x1001",   "1000x1000x1000", "8388609x2x3",
    "3x8388612x4",   "20000x36x300",   "36x20000x300",   "4099x33x129",    "256x256x65536",  "4096x4096x4096",
    NULL};
/* For the sanitizers: small sizes with a partial tile in every dimension, K
 * partial in its last vector and step and long enough to cycle a pipeline's
 * stages (K of 200: four steps of 64, the last short). They do not see
 * everything: racecheck and memcheck follow the threads' own loads and stores,
 * and the copy engine's (TMA) writes into shared memory and wgmma's reads of
 * its operands there are neither, so a missing mbarrier wait between the two
 * shows only in the outputs, under the grade sweep. */
static const char *const quick_sizes[] = {"0x3x5",      "5x7x0",      "1x1x1",      "31x33x17",
                                          "65x63x9",    "127x129x65", "130x66x72",  "136x264x136",
                                          "129x257x200", NULL};
/* The tiles of the ladder, each checked with M, N and K in turn up to a
 * vector (8) either way: v1's 64 x 64 blocks with steps of 32 along K; v2's
 * 128 x 128 with steps of 32; v3 to v5's 128 x 128 with steps of 64 (a
 * 128-byte swizzle span, the copy engine's box along K); v6's 128 x 256 tile
 * and its cluster's 256 x 256, with K of 64 and of 512 (8 steps: every one
 * of its 4 stages used twice, each barrier's phase flipped); and 2048 x 512,
 * one group of v6's 8 cluster rows walked by its persistent blocks. */
static const char *const boundary_sizes[] = {"64x64x32",   "128x128x32", "128x128x64", "128x256x64",
                                             "256x256x64", "256x256x512", "2048x512x64", NULL};
/* tools/sweep.sh's shapes: squares of 512 to 16384, 4095^3 and 1000x999x1001
 * (extents that are no multiple of a tile), short-wide, tall-skinny and deep. */
static const char *const sweep_sizes[] = {"512x512x512",    "1024x1024x1024", "2048x2048x2048",
                                          "4096x4096x4096", "8192x8192x8192", "16384x16384x16384",
                                          "4095x4095x4095", "1000x999x1001",  "8192x64x8192",
                                          "64x8192x8192",   "256x256x65536",  NULL};

/* Products up to this many multiply-adds and elements get a CPU reference of
 * every element; larger ones one of SAMPLES whole rows and columns. */
#define FULL_CHECK_MACS ((double)(1 << 27))
#define FULL_CHECK_ELEMENTS ((double)(1 << 22))
#define SAMPLES 8

typedef struct tensor_state {
  int m, n, k;
  size_t pitch;          /* tensor_matmul_pitch(k) */
  pp_buffer da, db, dc;
  int dataset;
  uint64_t seed;         /* of the last fill: the GPU regenerates A and B from it */
  int exact;             /* exact data within its limit (see the top): every answer exact */
  /* For the CPU reference only (cpu_prepare() allocates them): */
  uint16_t *a, *b;       /* host copies of A and B, padding included */
  int full;              /* every row of C, no columns */
  int rows[SAMPLES], cols[SAMPLES];
  int row_count, col_count;     /* rows computed (all when full) and columns */
  double *row_want, *row_bound; /* row_count x n */
  double *col_want, *col_bound; /* m x col_count */
} tensor_state;

static int variant_count(void) {
  return tensor_matmul_variant_count;
}

static pp_variant_info variant(int index) {
  pp_variant_info info = {tensor_matmul_variants[index].name, tensor_matmul_variants[index].what};
  return info;
}

/* The stored elements of A (M rows) and B (N columns): each vector of K padded to the pitch. */
static double stored(const pp_size *size, int d) {
  return (double)size->dim[d] * (double)tensor_matmul_pitch((int)size->dim[2]);
}

static double product_elements(const pp_size *size) {
  return (double)size->dim[0] * (double)size->dim[1];
}

/* Counted in double: a size that overflows size_t needs more than any device has. */
static size_t device_bytes(const pp_size *size) {
  double bytes = 2.0 * (stored(size, 0) + stored(size, 1)) + 4.0 * product_elements(size) +
                 3.0 * PP_GUARD_BYTES + (double)(256 << 20);
  return bytes >= 0x1p63 ? (size_t)1 << 63 : (size_t)bytes;
}

/* A and B read once (their padding need not be), C written once. */
static double bytes_moved(const pp_size *size) {
  double k = (double)size->dim[2];
  return 2.0 * k * ((double)size->dim[0] + (double)size->dim[1]) + 4.0 * product_elements(size);
}

static double flops(const pp_size *size) {
  return 2.0 * product_elements(size) * (double)size->dim[2];
}

static cublasHandle_t cublas(void) {
  static cublasHandle_t handle;
  if (!handle) PP_CHECK_STATUS("cuBLAS", cublasCreate(&handle));
  return handle;
}

static void *create(const pp_size *size) {
  tensor_state *s = pp_host_alloc(sizeof *s);
  memset(s, 0, sizeof *s);
  s->m = (int)size->dim[0];
  s->n = (int)size->dim[1];
  s->k = (int)size->dim[2];
  s->pitch = (size_t)tensor_matmul_pitch(s->k);
  size_t m = (size_t)s->m, n = (size_t)s->n;
  s->da = pp_buffer_alloc(m * s->pitch * sizeof(uint16_t));
  s->db = pp_buffer_alloc(n * s->pitch * sizeof(uint16_t));
  s->dc = pp_buffer_alloc(m * n * sizeof(float));
  pp_buffer_mark(&s->da, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->db, PP_BUFFER_INPUT);
  pp_buffer_mark(&s->dc, PP_BUFFER_OUTPUT);
  double macs = (double)m * n * s->k;
  s->full = macs <= FULL_CHECK_MACS && (double)m * n <= FULL_CHECK_ELEMENTS;
  s->row_count = s->full ? s->m : s->m < SAMPLES ? s->m : SAMPLES;
  s->col_count = s->full ? 0 : s->n < SAMPLES ? s->n : SAMPLES;
  return s;
}

/* C[i][j]'s reference, the dot product of A's row i and B's column j in double, and its bound. */
static void dot(const tensor_state *s, int i, int j, double *want, double *bound) {
  const uint16_t *a_row = s->a + (size_t)i * s->pitch, *b_col = s->b + (size_t)j * s->pitch;
  double total = 0.0, total_abs = 0.0;
  for (int p = 0; p < s->k; ++p) {
    double product = tensor_matmul_value(a_row[p]) * tensor_matmul_value(b_col[p]); /* exact */
    total += product;
    total_abs += fabs(product);
  }
  *want = total;
  *bound = tensor_matmul_tolerance(s->exact, s->k, total_abs);
}

static void cpu_reference(void *state) {
  tensor_state *s = state;
  size_t n = (size_t)s->n, m = (size_t)s->m;
  for (int r = 0; r < s->row_count; ++r) {
    int i = s->full ? r : s->rows[r];
    for (int j = 0; j < s->n; ++j) dot(s, i, j, &s->row_want[r * n + j], &s->row_bound[r * n + j]);
  }
  for (int c = 0; c < s->col_count; ++c)
    for (int i = 0; i < s->m; ++i) dot(s, i, s->cols[c], &s->col_want[c * m + i], &s->col_bound[c * m + i]);
}

/* Picks the rows (columns) of a large product for the CPU reference: the
 * first, the last, and random ones. */
static void sample(int *picked, int count, int extent, uint64_t seed, uint64_t stream) {
  for (int r = 0; r < count; ++r)
    picked[r] = r == 0 ? 0 : r == 1 ? extent - 1 : (int)(pp_random_bits(seed, stream, (uint64_t)r) % (uint64_t)extent);
}

/* Whether every order of additions is exact on the exact data (see the top):
 * no partial sum reaches 2^24 but with a chance below 10^-20. */
static int exact_everywhere(size_t m, size_t n, size_t k) {
  return k == 0 || 2.0 * (double)m * (double)n * (double)k * exp(-0x1p29 / (double)k) <= 1e-20;
}

static void fill(void *state, uint64_t seed, int dataset) {
  tensor_state *s = state;
  s->dataset = dataset;
  s->seed = seed;
  s->exact = dataset == EXACT && exact_everywhere((size_t)s->m, (size_t)s->n, (size_t)s->k);
  tensor_matmul_fill(s->da.device, s->m, s->k, dataset, TENSOR_MATMUL_A_STREAM, seed);
  tensor_matmul_fill(s->db.device, s->n, s->k, dataset, TENSOR_MATMUL_B_STREAM, seed);
}

static void prepare(void *state) {
  tensor_state *s = state;
  pp_buffer_poison(&s->dc);
}

static void launch(void *state, int v, int dataset) {
  (void)dataset; /* every dataset launches alike */
  tensor_state *s = state;
  const tensor_bf16 *a = s->da.device, *b = s->db.device;
  float *c = s->dc.device;
  if (v != PP_PEER) {
    tensor_matmul_variants[v].launch(a, b, c, s->m, s->n, s->k);
  } else if (s->m > 0 && s->n > 0 && s->k == 0) {
    PP_CHECK(cudaMemsetAsync(c, 0, (size_t)s->m * s->n * sizeof(float), 0));
  } else if (s->m > 0 && s->n > 0) {
    /* cuBLAS is column-major. Row-major C (M x N) is column-major C^T (N x M,
     * leading dimension N); A's rows of pitch ld are the columns of a
     * column-major K x M matrix, A^T, and B's columns those of a K x N one, B:
     * C^T = B^T A^T is op(B) = B transposed (N x K) times A^T as stored (K x M),
     * the "TN" product. BF16 inputs, FP32 accumulation and output. */
    const float one = 1.0f, zero = 0.0f;
    int ld = (int)s->pitch;
    PP_CHECK_STATUS("cuBLAS", cublasGemmEx(cublas(), CUBLAS_OP_T, CUBLAS_OP_N, s->n, s->m, s->k, &one, b,
                                           CUDA_R_16BF, ld, a, CUDA_R_16BF, ld, &zero, c, CUDA_R_32F, s->n,
                                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

/* Where element (row, col) sits, for people: edges are where tiles go wrong. */
static void describe_place(const tensor_state *s, int row, int col, char *out, size_t len) {
  const char *edge = "";
  if (row == s->m - 1 && col == s->n - 1)
    edge = ", the last element";
  else if (row == s->m - 1)
    edge = ", the last row";
  else if (col == s->n - 1)
    edge = ", the last column";
  else if (row >= s->m / 64 * 64 || col >= s->n / 64 * 64)
    edge = ", in a partial tile at the edge";
  snprintf(out, len, "C[%d][%d] (row %d of %d, column %d of %d%s)", row, col, row, s->m, col, s->n,
           edge);
}

/* A changed A or B: which, how many, and the first changed element. */
static int input_changed(const tensor_state *s, const char *name, const char *vector, const pp_buffer *x,
                         int vectors, uint64_t stream, pp_verdict *verdict) {
  pp_mismatch m;
  tensor_matmul_check_input(x->device, vectors, s->k, s->dataset, s->seed, stream, &m);
  if (!m.wrong) return 0;
  size_t v = m.index / s->pitch, p = m.index % s->pitch;
  snprintf(verdict->note, sizeof verdict->note,
           "changed %s, which is const (%zu elements, the first element %zu of %s %zu%s): write only C", name,
           m.wrong, p, vector, v, p >= (size_t)s->k ? ", in its padding" : "");
  return 1;
}

static void check(void *state, int v, pp_verdict *verdict) {
  tensor_state *s = state;
  (void)v;
  size_t n = (size_t)s->n, elements = (size_t)s->m * n;
  verdict->correct = 0;
  if (!pp_buffer_guard_intact(&s->dc)) {
    snprintf(verdict->note, sizeof verdict->note,
             "wrote past the end of C (M x N floats): a store without its bounds guard");
    return;
  }
  if (input_changed(s, "A", "row", &s->da, s->m, TENSOR_MATMUL_A_STREAM, verdict) ||
      input_changed(s, "B", "column", &s->db, s->n, TENSOR_MATMUL_B_STREAM, verdict))
    return;
  pp_mismatch f;
  tensor_matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, NULL,
                              NULL, &f);
  verdict->correct = f.wrong == 0;
  verdict->rel_error = f.worst_rel;
  verdict->bound_ratio = f.wrong ? INFINITY : f.worst_ratio;
  if (verdict->correct) return;
  char place[128], value[160];
  const char *why = "";
  describe_place(s, (int)(f.index / n), (int)(f.index % n), place, sizeof place);
  float got;
  PP_CHECK(cudaMemcpy(&got, (const float *)s->dc.device + f.index, sizeof got, cudaMemcpyDeviceToHost));
  if (pp_is_poison_f32(got)) {
    snprintf(value, sizeof value, "is never written (poison)");
    why = ": a missing block or thread, or a store guard too strict";
  } else if (!isfinite(got)) {
    snprintf(value, sizeof value, "is NaN or infinite");
    why = ": a read of A's or B's padding (NaN, from K to the pitch), past their end (NaN there) or of "
          "unwritten shared memory";
  } else if (s->exact) {
    snprintf(value, sizeof value, "is %.9g, want exactly %.17g (exact data)", f.got, f.want);
    why = ": a product missed or doubled, a race, or values narrower than BF16 and FP32";
  } else {
    snprintf(value, sizeof value, "is %.9g, want %.9g within %.3g (gamma_{4K} sum|a b|)", f.got, f.want,
             f.bound);
  }
  if (snprintf(verdict->note, sizeof verdict->note, "%s %s; %zu of %zu elements wrong, %zu never written%s",
               place, value, f.wrong, elements, f.unwritten, why) >= (int)sizeof verdict->note)
    verdict->note[sizeof verdict->note - 2] = '~'; /* mark the cut */
}

/* Brings A and B to the host for the CPU reference (untimed), and picks the
 * rows and columns of a large product. */
static void cpu_prepare(void *state) {
  tensor_state *s = state;
  size_t m = (size_t)s->m, n = (size_t)s->n;
  if (!s->a) {
    s->a = pp_host_alloc(m * s->pitch * sizeof(uint16_t));
    s->b = pp_host_alloc(n * s->pitch * sizeof(uint16_t));
    s->row_want = pp_host_alloc((size_t)s->row_count * n * sizeof(double));
    s->row_bound = pp_host_alloc((size_t)s->row_count * n * sizeof(double));
    s->col_want = pp_host_alloc(m * (size_t)s->col_count * sizeof(double));
    s->col_bound = pp_host_alloc(m * (size_t)s->col_count * sizeof(double));
  }
  pp_buffer_download(&s->da, s->a, m * s->pitch * sizeof(uint16_t));
  pp_buffer_download(&s->db, s->b, n * s->pitch * sizeof(uint16_t));
  if (!s->full) {
    sample(s->rows, s->row_count, s->m, s->seed, 3);
    sample(s->cols, s->col_count, s->n, s->seed, 4);
  }
}

static void destroy(void *state) {
  tensor_state *s = state;
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
    .lab = "06-tensor-core-matmul",
    .title = "C = A B, BF16 inputs, FP32 accumulation and output (A row-major M x K, B column-major K x N)",
    .peer_name = "cuBLAS GemmEx (BF16, FP32 compute)",
    .bench_size = "4096x4096x4096",
    .size_help = "MxNxK, each a count (A is M x K, B K x N)",
    .grade_sizes = grade_sizes,
    .quick_sizes = quick_sizes,
    .boundary_sizes = boundary_sizes,
    .boundary_reach = 8, /* one 16-byte vector of BF16 along K */
    /* Thin, tall, deep and square shapes, at most 2^27 multiply-adds. */
    .random_max = "16384x16384x65536",
    .random_volume_max = 0x1p27,
    .datasets = datasets,
    .bench_dataset = EXACT,
    .sweep_sizes = sweep_sizes,
    .sweep_variants = PP_SWEEP_LAST,
    .profile_size = "4096x4096x4096",
    .peak = PP_PEAK_BF16_TENSOR,
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
