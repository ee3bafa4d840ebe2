/* Lab 06 cross-check (a GPU test; 77 without a device): the grader's GPU side
 * against its CPU side, exactly, at small and awkward shapes, every dataset:
 * - the device fills give the host fills' bits, element for element, the
 *   padding's NaN included, and the exact data's values are what compare.h
 *   says (odd wide integers of 5 to 8 significant bits times small ones);
 * - the GPU reference product equals the CPU reference, and so does every
 *   bound, bit for bit: every element of a small product, the CPU's sampled
 *   rows and columns of a large one;
 * - the device comparison returns what pp_compare_f32() returns on the host,
 *   for a right C, one with a planted wrong element and one never written (at
 *   the right index, counted right), and the grader's check() says so;
 * - cuBLAS, the peer, passes the check;
 * - a changed A or B, in a value or in the padding, is found where it was
 *   changed.
 * It includes grader.c to reach the grader's state, fill, check and CPU
 * reference; no student code is linked. */
#include "grader.c"

#include "crosscheck.h"

/* No variants: the grader is under test, not a student's code. */
const tensor_matmul_variant tensor_matmul_variants[1] = {{"none", "no variant", NULL}};
const int tensor_matmul_variant_count = 0;

/* Empty products and K = 0; a dot product, an outer product; partial 16 x 16
 * tiles of the GPU reference in every dimension; K of 1 to 9 and others not a
 * multiple of 8 or 16 (padding inside the last vector); and one product large
 * enough for the CPU reference to sample it. */
static const char *const sizes[] = {"0x0x0",     "0x7x5",      "7x5x0",       "1x1x1",     "3x5x2",
                                    "9x7x9",     "1x1x4097",   "1000x999x1",  "31x33x17",  "65x63x9",
                                    "130x66x36", "257x383x100", "2048x2048x40", NULL};

/* The CPU reference of element (i, j), where it has one (every element of a
 * full product; the sampled rows and columns of a large one). */
static int cpu_reference_at(const tensor_state *s, int i, int j, double *want, double *bound) {
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
static void compare_both(tensor_state *s, const float *c, pp_mismatch *gpu) {
  pp_buffer_upload(&s->dc, c);
  tensor_matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, NULL,
                              NULL, gpu);
  if (!s->full) return;
  pp_mismatch cpu;
  pp_compare_f32(c, s->row_want, s->row_bound, (size_t)s->m * s->n, &cpu);
  CC_EXPECT(cc_same_mismatch(gpu, &cpu));
}

/* Plants a wrong element and a never-written one in a full product; the first must be found. */
static void check_planted(tensor_state *s, const float *right, size_t wrong_at, size_t unwritten_at) {
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

/* Changes element @p at of A or B on the device: the input check must find it there. */
static void check_changed_input(tensor_state *s, const pp_buffer *x, int vectors, uint64_t stream,
                                const char *name, size_t at) {
  uint16_t bits;
  char *element = (char *)x->device + at * sizeof bits;
  PP_CHECK(cudaMemcpy(&bits, element, sizeof bits, cudaMemcpyDeviceToHost));
  bits ^= 1 << 3; /* another value, or another NaN in the padding */
  PP_CHECK(cudaMemcpy(element, &bits, sizeof bits, cudaMemcpyHostToDevice));
  pp_mismatch m;
  tensor_matmul_check_input(x->device, vectors, s->k, s->dataset, s->seed, stream, &m);
  CC_EXPECT(m.wrong == 1 && m.index == at);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  char what[32];
  snprintf(what, sizeof what, "changed %s", name);
  CC_EXPECT(!verdict.correct && strstr(verdict.note, what));
  bits ^= 1 << 3; /* back as it was */
  PP_CHECK(cudaMemcpy(element, &bits, sizeof bits, cudaMemcpyHostToDevice));
}

/* The fill's bits: padding NaN, and on the exact data the values compare.h describes. */
static void check_values(const tensor_state *s, const uint16_t *x, int vectors, int wide_at_even) {
  size_t wrong = 0;
  for (size_t v = 0; v < (size_t)vectors; ++v)
    for (size_t p = 0; p < s->pitch; ++p) {
      uint16_t bits = x[v * s->pitch + p];
      double value = tensor_matmul_value(bits), magnitude = fabs(value);
      if (p >= (size_t)s->k)
        wrong += bits != TENSOR_MATMUL_PAD_BITS;
      else if (s->dataset == UNIFORM)
        wrong += !(value >= TENSOR_MATMUL_UNIFORM_LO && value <= TENSOR_MATMUL_UNIFORM_HI);
      else if ((p % 2 == 0) == wide_at_even)
        wrong += !(magnitude >= TENSOR_MATMUL_WIDE_MIN && magnitude <= TENSOR_MATMUL_WIDE_MAX &&
                   fmod(magnitude, 2.0) == 1.0);
      else
        wrong += !(magnitude >= 1 && magnitude <= TENSOR_MATMUL_FACTOR_MAX_ABS && magnitude == floor(magnitude));
    }
  CC_EXPECT(wrong == 0);
}

static void check_case(void *state, int dataset, uint64_t seed) {
  tensor_state *s = state;
  size_t m = (size_t)s->m, n = (size_t)s->n, elements = m * n;
  fill(s, seed, dataset);
  cpu_prepare(s);
  cpu_reference(s);

  /* The generator. */
  uint16_t *a = pp_host_alloc(m * s->pitch * sizeof *a), *b = pp_host_alloc(n * s->pitch * sizeof *b);
  tensor_matmul_fill_host(a, s->m, s->k, dataset, TENSOR_MATMUL_A_STREAM, seed);
  tensor_matmul_fill_host(b, s->n, s->k, dataset, TENSOR_MATMUL_B_STREAM, seed);
  CC_EXPECT(memcmp(a, s->a, m * s->pitch * sizeof *a) == 0 && memcmp(b, s->b, n * s->pitch * sizeof *b) == 0);
  check_values(s, a, s->m, 1);
  check_values(s, b, s->n, 0);

  /* The reference and the bounds, on a right C: the CPU reference rounded to float. */
  double *want = cc_device_doubles(elements), *bound = cc_device_doubles(elements);
  float *right = pp_host_alloc(elements * sizeof(float));
  double *gpu_want = pp_host_alloc(elements * sizeof(double)), *gpu_bound = pp_host_alloc(elements * sizeof(double));
  pp_mismatch gpu;
  PP_CHECK(cudaMemset(s->dc.device, 0, elements * sizeof(float)));
  tensor_matmul_check_product(s->da.device, s->db.device, s->dc.device, s->m, s->n, s->k, s->exact, want,
                              bound, &gpu);
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

  /* The peer, on the same inputs: right, and exact on the exact data. */
  prepare(s);
  launch(s, PP_PEER, dataset);
  PP_CHECK(cudaDeviceSynchronize());
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  if (!CC_EXPECT(verdict.correct)) printf("  cuBLAS: %s\n", verdict.note);

  /* Planted errors, each order; then a changed A and B, in a value and in the padding. */
  if (s->full && elements > 0) {
    check_planted(s, right, elements / 2, elements - 1);
    check_planted(s, right, elements - 1, elements / 3);
  }
  if (m * (size_t)s->k > 0) {
    check_changed_input(s, &s->da, s->m, TENSOR_MATMUL_A_STREAM, "A", m / 2 * s->pitch + (size_t)s->k / 2);
    if (s->pitch > (size_t)s->k) check_changed_input(s, &s->da, s->m, TENSOR_MATMUL_A_STREAM, "A", s->pitch - 1);
  }
  if (n * (size_t)s->k > 0) {
    check_changed_input(s, &s->db, s->n, TENSOR_MATMUL_B_STREAM, "B", n / 2 * s->pitch + (size_t)s->k / 2);
    if (s->pitch > (size_t)s->k)
      check_changed_input(s, &s->db, s->n, TENSOR_MATMUL_B_STREAM, "B", n * s->pitch - 1);
  }
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
