/* Lab 04 cross-check (a GPU test; 77 without a device): the grader's GPU side
 * against its CPU side, exactly, at small and awkward sizes (around the GPU
 * reference's tiles of 4096 and a warp), every dataset:
 * - the device data is the host's, element for element, and the int data keeps
 *   every prefix within +-(2^30 - 1) while passing 2^24 (with --int-data, at
 *   every graded size and on the host alone: a host test);
 * - the GPU reference equals the CPU reference, and so does every bound, bit
 *   for bit;
 * - the device comparison returns what pp_compare_*() returns on the host, for
 *   a right output, one with a planted wrong element and one never written (at
 *   the right index, counted right), and the grader's check() says so;
 * - a changed input is found where it was changed.
 * It includes grader.c to reach the grader's state, fill, check and CPU
 * reference; no student code is linked. */
#include "grader.c"

#include "crosscheck.h"

/* No variants: the grader is under test, not a student's code. */
const scan_variant scan_variants[1] = {{"none", "no variant", NULL, NULL}};
const int scan_variant_count = 0;

static const char *const sizes[] = {"0",    "1",    "2",     "33",    "1023",    "1025",   "4095",
                                    "4096", "4097", "8193",  "16385", "65537",   "1000003", "2^22+1",
                                    NULL};

/* The host's int data, from the same element function as the device's. */
static void host_ints(int32_t *x, size_t n, uint64_t seed) {
  int64_t phase = (int64_t)(pp_random_bits(seed, SCAN_PHASE_STREAM, 0) % SCAN_INT_PERIOD);
  uint64_t bits = pp_random_bits(seed, SCAN_INT_STREAM, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t next_bits = pp_random_bits(seed, SCAN_INT_STREAM, i + 1);
    x[i] = scan_int_value(bits, next_bits, (int64_t)((i + (uint64_t)phase) % SCAN_INT_PERIOD));
    bits = next_bits;
  }
}

/* What the CPU reference wants of out[i] for the dataset's kind, and its bound. */
static double cpu_want(const scan_state *s, size_t i) {
  if (kind_of(s->dataset) == SCAN_EXCLUSIVE) {
    if (i == 0) return 0.0;
    --i;
  }
  return is_float(s->dataset) ? s->prefix_float[i] : (double)s->prefix_int[i];
}

static double cpu_bound(const scan_state *s, size_t i) {
  return is_float(s->dataset) ? scan_gamma_at(i) * cpu_want(s, i) : 0.0;
}

/* The int data: every prefix within +-(2^30 - 1); past 2^24 by 4096 elements. */
static void check_int_data(const int32_t *x, size_t n) {
  int64_t sum = 0, largest = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += x[i];
    largest = llabs(sum) > largest ? llabs(sum) : largest;
    if (i == 4095) CC_EXPECT(largest > (1 << 24));
  }
  CC_EXPECT(largest <= (1 << 30) - 1);
}

/* The host tally of an output against the CPU reference. */
static void cpu_tally(const scan_state *s, const void *out, pp_mismatch *m) {
  size_t n = s->n;
  double *want = pp_host_alloc(n * sizeof(double)), *bound = pp_host_alloc(n * sizeof(double));
  int32_t *want_int = pp_host_alloc(n * sizeof(int32_t));
  for (size_t i = 0; i < n; ++i) {
    want[i] = cpu_want(s, i);
    bound[i] = cpu_bound(s, i);
    want_int[i] = (int32_t)want[i];
  }
  if (is_float(s->dataset))
    pp_compare_f32(out, want, bound, n, m);
  else
    pp_compare_i32(out, want_int, n, m);
  free(want);
  free(bound);
  free(want_int);
}

/* out[i] = the CPU reference's value, in the dataset's type; or, @p wrong, a
 * value off by at least 1 (never -1, the int poison), and for float data by
 * more than |want| too: the bound grows with i (gamma_L * prefix, L rising
 * with i), and an error of 1 is within it past a few thousand elements. */
static void set_element(const scan_state *s, void *out, size_t i, int wrong) {
  double w = cpu_want(s, i);
  if (is_float(s->dataset))
    ((float *)out)[i] = (float)(w + wrong * (1.0 + fabs(w)));
  else
    ((int32_t *)out)[i] = (int32_t)(!wrong ? w : w >= 0 ? w + 1 : w - 1);
}

static void poison_element(void *out, size_t i) {
  memset((char *)out + i * sizeof(float), PP_POISON_BYTE, sizeof(float));
}

/* Runs the device comparison on @p out and holds it against the host's. */
static void compare_both(scan_state *s, const void *out, pp_mismatch *gpu) {
  pp_mismatch cpu;
  pp_buffer_upload(&s->out, out);
  scan_check_output(s->out.device, s->n, is_float(s->dataset), kind_of(s->dataset) == SCAN_EXCLUSIVE,
                    s->seed, s->check_scratch, NULL, NULL, gpu);
  cpu_tally(s, out, &cpu);
  CC_EXPECT(cc_same_mismatch(gpu, &cpu));
}

/* Plants a wrong element and a never-written one; the first must be found. */
static void check_planted(scan_state *s, const void *right, size_t wrong_at, size_t unwritten_at) {
  size_t n = s->n, first = wrong_at < unwritten_at ? wrong_at : unwritten_at;
  void *out = pp_host_alloc(n * sizeof(float));
  memcpy(out, right, n * sizeof(float));
  set_element(s, out, wrong_at, 1);
  poison_element(out, unwritten_at);
  pp_mismatch gpu;
  compare_both(s, out, &gpu);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  char where[48];
  snprintf(where, sizeof where, "out[%zu]", first);
  cc_expect_planted(&gpu, &verdict, wrong_at, unwritten_at, where, "never written");
  free(out);
}

/* Changes one input element on the device: the input check must find it. */
static void check_changed_input(scan_state *s, size_t k) {
  int32_t bits;
  PP_CHECK(cudaMemcpy(&bits, (char *)s->in.device + k * sizeof bits, sizeof bits,
                      cudaMemcpyDeviceToHost));
  bits ^= 1 << 10; /* another value, in either type */
  PP_CHECK(cudaMemcpy((char *)s->in.device + k * sizeof bits, &bits, sizeof bits,
                      cudaMemcpyHostToDevice));
  pp_mismatch m;
  scan_check_input(s->in.device, s->n, is_float(s->dataset), s->seed, &m);
  CC_EXPECT(m.wrong == 1 && m.index == k);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  CC_EXPECT(!verdict.correct && strstr(verdict.note, "changed the input"));
}

static void check_case(void *state, int dataset, uint64_t seed) {
  scan_state *s = state;
  size_t n = s->n;
  int floats = is_float(dataset);
  fill(s, seed, dataset);
  cpu_prepare(s);
  cpu_reference(s);

  /* The generator. */
  void *expected = pp_host_alloc(n * sizeof(float));
  if (floats)
    pp_fill_uniform_f32(expected, n, SCAN_FLOAT_LO, SCAN_FLOAT_HI, seed, SCAN_FLOAT_STREAM);
  else
    host_ints(expected, n, seed);
  CC_EXPECT(memcmp(expected, s->x, n * sizeof(float)) == 0);
  if (!floats) check_int_data(s->x, n);
  pp_mismatch m;
  scan_check_input(s->in.device, n, floats, seed, &m);
  CC_EXPECT(m.wrong == 0);

  /* The reference and the bounds, on a right output. */
  void *right = pp_host_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) set_element(s, right, i, 0);
  double *want = cc_device_doubles(n), *bound = cc_device_doubles(n);
  pp_buffer_upload(&s->out, right);
  scan_check_output(s->out.device, n, floats, kind_of(dataset) == SCAN_EXCLUSIVE, seed, s->check_scratch,
                    want, bound, &m);
  CC_EXPECT(m.wrong == 0);
  double *gpu_want = pp_host_alloc(n * sizeof(double)), *gpu_bound = pp_host_alloc(n * sizeof(double));
  cc_download_doubles(gpu_want, want, n);
  cc_download_doubles(gpu_bound, bound, n);
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < n; ++i)
    if (gpu_want[i] != cpu_want(s, i) || gpu_bound[i] != cpu_bound(s, i)) {
      if (differ++ == 0) first = i;
    }
  if (!CC_EXPECT(differ == 0))
    printf("  %zu references or bounds differ, the first at %zu: GPU %.17g within %.17g, CPU %.17g "
           "within %.17g\n",
           differ, first, gpu_want[first], gpu_bound[first], cpu_want(s, first), cpu_bound(s, first));
  pp_mismatch gpu;
  compare_both(s, right, &gpu);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  CC_EXPECT(verdict.correct);

  /* Planted errors, each order (the first at a section start); then a changed input. */
  if (n > 0) {
    check_planted(s, right, n / 2 / SECTION * SECTION, n - 1);
    check_planted(s, right, n - 1, n / 3);
    check_changed_input(s, n - 1 - n / 4);
  }
  PP_CHECK(cudaFree(want));
  PP_CHECK(cudaFree(bound));
  free(expected);
  free(right);
  free(gpu_want);
  free(gpu_bound);
}

/* --int-data: the int data's guarantees at every graded size, on the host
 * alone (a host test: it needs no GPU). */
static int check_int_data_of_grade_sizes(void) {
  for (int k = 0; grade_sizes[k]; ++k) {
    pp_size size;
    if (pp_size_parse_1d(grade_sizes[k], &size)) return PP_EXIT_FAIL;
    size_t n = size.dim[0];
    int32_t *x = pp_host_alloc(n * sizeof *x);
    int seeds = n > ((size_t)1 << 24) ? 1 : 3; /* the largest sizes take a while on one core */
    for (uint64_t seed = PP_DEFAULT_SEED; seed < PP_DEFAULT_SEED + (uint64_t)seeds; ++seed) {
      cc_begin("int data, size %s, seed %llu", grade_sizes[k], (unsigned long long)seed);
      host_ints(x, n, seed);
      check_int_data(x, n);
    }
    free(x);
  }
  return cc_finish("04-hierarchical-scan int data");
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--int-data")) return check_int_data_of_grade_sizes();
  return cc_sweep(&pp_lab, sizes, check_case);
}
