/* Lab 05 cross-check (a GPU test; 77 without a device): the grader's GPU side
 * against its CPU side, exactly, at small and awkward shapes, every dataset:
 * - the device fills give the host fills' values, element for element;
 * - the GPU reference product equals the CPU reference, and so does every
 *   bound, bit for bit: every element of a small product, the CPU's sampled
 *   rows and columns of a large one;
 * - the device comparison returns what pp_compare_f32() returns on the host,
 *   for a right C, one with a planted wrong element and one never written (at
 *   the right index, counted right), and the grader's check() says so;
 * - a changed A or B is found where it was changed.
 * It includes grader.c to reach the grader's state, fill, check and CPU
 * reference; no student code is linked. */
#include "grader.c"

#include "crosscheck.h"

/* No variants: the grader is under test, not a student's code. */
const matmul_variant matmul_variants[1] = {{"none", "no variant", NULL}};
const int matmul_variant_count = 0;

/* Empty products and K = 0; a dot product, an outer product; partial 16 x 16
 * tiles of the GPU reference in every dimension; K not a multiple of 16; and
 * one product large enough for the CPU reference to sample it. */
static const char *const sizes[] = {"0x0x0",      "0x7x5",     "7x5x0",      "1x1x1",     "1x1x4097",
                                    "1000x999x1", "31x33x17",  "65x63x9",    "130x66x36", "257x383x100",
                                    "2048x2048x40", NULL};

/* The CPU reference of element (i, j), where it has one (every element of a
 * full product; the sampled rows and columns of a large one). */
static int cpu_reference_at(const matmul_state *s, int i, int j, double *want, double *bound) {
  size_t n = (size_t)s->n, m = (size_t)s->m;
  for (int r = 0; r < s->row_count; ++r)
    if ((s->full ? r : s->rows[r]) == i) {
      *want = s->row_want[r * n + (size_t)j];
      *bound = s->row_bound[r * n + (size_t)j];
      return 1;
    }
  for (int c = 0; c < s->col_count; ++c)
    if (s->cols[c] == j) {
      *want = s->col_want[c * m + (size_t)i];
      *bound = s->col_bound[c * m + (size_t)i];
      return 1;
    }
  return 0;
}

/* Runs the device comparison on @p c and, for a full product, holds it
 * against pp_compare_f32() with the CPU reference. */
static void compare_both(matmul_state *s, const float *c, pp_mismatch *gpu) {
  pp_buffer_upload(&s->dc, c);
  matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, NULL, NULL,
                       gpu);
  if (!s->full) return;
  pp_mismatch cpu;
  pp_compare_f32(c, s->row_want, s->row_bound, (size_t)s->m * s->n, &cpu);
  CC_EXPECT(cc_same_mismatch(gpu, &cpu));
}

/* Plants a wrong element and a never-written one in a full product; the first must be found. */
static void check_planted(matmul_state *s, const float *right, size_t wrong_at, size_t unwritten_at) {
  size_t elements = (size_t)s->m * s->n, first = wrong_at < unwritten_at ? wrong_at : unwritten_at;
  float *c = pp_host_alloc(elements * sizeof(float));
  memcpy(c, right, elements * sizeof(float));
  c[wrong_at] = (float)(s->row_want[wrong_at] + 2.0 * s->row_bound[wrong_at] + 1.0);
  memset(&c[unwritten_at], PP_POISON_BYTE, sizeof(float));
  pp_mismatch gpu;
  compare_both(s, c, &gpu);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  char where[48];
  snprintf(where, sizeof where, "C[%zu][%zu]", first / (size_t)s->n, first % (size_t)s->n);
  cc_expect_planted(&gpu, &verdict, wrong_at, unwritten_at, where, "never written (poison)");
  free(c);
}

/* Changes one element of A or B on the device: the input check must find it. */
static void check_changed_input(matmul_state *s, const pp_buffer *x, int rows, int cols, uint64_t stream,
                                const char *name) {
  size_t k = (size_t)rows * cols / 2;
  int32_t bits;
  PP_CHECK(cudaMemcpy(&bits, (char *)x->device + k * sizeof bits, sizeof bits, cudaMemcpyDeviceToHost));
  bits ^= 1 << 10; /* another float */
  PP_CHECK(cudaMemcpy((char *)x->device + k * sizeof bits, &bits, sizeof bits, cudaMemcpyHostToDevice));
  pp_mismatch m;
  matmul_check_input(x->device, rows, cols, s->dataset, s->seed, stream, &m);
  CC_EXPECT(m.wrong == 1 && m.index == k);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  char what[32];
  snprintf(what, sizeof what, "changed %s", name);
  CC_EXPECT(!verdict.correct && strstr(verdict.note, what));
  bits ^= 1 << 10; /* back as it was */
  PP_CHECK(cudaMemcpy((char *)x->device + k * sizeof bits, &bits, sizeof bits, cudaMemcpyHostToDevice));
}

static void check_case(void *state, int dataset, uint64_t seed) {
  matmul_state *s = state;
  size_t m = (size_t)s->m, n = (size_t)s->n, k = (size_t)s->k, elements = m * n;
  fill(s, seed, dataset);
  cpu_prepare(s);
  cpu_reference(s);

  /* The generator. */
  float *a = pp_host_alloc(m * k * sizeof(float)), *b = pp_host_alloc(k * n * sizeof(float));
  if (dataset == WIDE) {
    matmul_fill_wide_host(a, s->m, s->k, MATMUL_A_STREAM, seed);
    matmul_fill_wide_host(b, s->k, s->n, MATMUL_B_STREAM, seed);
  } else {
    pp_fill_uniform_f32(a, m * k, MATMUL_UNIFORM_LO, MATMUL_UNIFORM_HI, seed, MATMUL_A_STREAM);
    pp_fill_uniform_f32(b, k * n, MATMUL_UNIFORM_LO, MATMUL_UNIFORM_HI, seed, MATMUL_B_STREAM);
  }
  CC_EXPECT(memcmp(a, s->a, m * k * sizeof(float)) == 0 && memcmp(b, s->b, k * n * sizeof(float)) == 0);

  /* The reference and the bounds, on a right C: the CPU reference rounded to float. */
  double *want = cc_device_doubles(elements), *bound = cc_device_doubles(elements);
  float *right = pp_host_alloc(elements * sizeof(float));
  double *gpu_want = pp_host_alloc(elements * sizeof(double)), *gpu_bound = pp_host_alloc(elements * sizeof(double));
  pp_mismatch gpu;
  PP_CHECK(cudaMemset(s->dc.device, 0, elements * sizeof(float)));
  matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, want, bound,
                       &gpu);
  cc_download_doubles(gpu_want, want, elements);
  cc_download_doubles(gpu_bound, bound, elements);
  size_t differ = 0, compared = 0, first = 0;
  for (size_t e = 0; e < elements; ++e) {
    double cpu_want, cpu_bound;
    if (!cpu_reference_at(s, (int)(e / n), (int)(e % n), &cpu_want, &cpu_bound)) continue;
    compared++;
    if ((gpu_want[e] != cpu_want || gpu_bound[e] != cpu_bound) && differ++ == 0) first = e;
  }
  CC_EXPECT(s->full ? compared == elements : compared >= n);
  if (!CC_EXPECT(differ == 0))
    printf("  %zu references or bounds differ, the first C[%zu][%zu]: GPU %.17g within %.17g\n", differ,
           first / n, first % n, gpu_want[first], gpu_bound[first]);
  for (size_t e = 0; e < elements; ++e) right[e] = (float)gpu_want[e];
  compare_both(s, right, &gpu);
  CC_EXPECT(gpu.wrong == 0);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  CC_EXPECT(verdict.correct);

  /* Planted errors, each order; then a changed A and B. */
  if (s->full && elements > 0) {
    check_planted(s, right, elements / 2, elements - 1);
    check_planted(s, right, elements - 1, elements / 3);
  }
  if (m * k > 0) check_changed_input(s, &s->da, s->m, s->k, MATMUL_A_STREAM, "A");
  if (k * n > 0) check_changed_input(s, &s->db, s->k, s->n, MATMUL_B_STREAM, "B");
  PP_CHECK(cudaFree(want));
  PP_CHECK(cudaFree(bound));
  free(a);
  free(b);
  free(right);
  free(gpu_want);
  free(gpu_bound);
}

int main(void) {
  return cc_sweep(&pp_lab, sizes, check_case);
}
