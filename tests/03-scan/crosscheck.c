/* Lab 03 cross-check (a GPU test; 77 without a device): the grader's GPU side
 * against its CPU side, exactly, at small and awkward sizes, every dataset:
 * - the device fill gives the host fill's values, element for element, and
 *   the int data passes 2^24 while every sum of a section fits int32 (with
 *   --int-data, at every graded size and on the host alone: a host test);
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
const scan_variant scan_variants[1] = {{"none", "no variant", NULL, NULL, NULL}};
const int scan_variant_count = 0;

static const char *const sizes[] = {"0",       "1/1",        "2/2",         "999/2",      "2^21+1/2",
                                    "3145729/3", "30/31",    "1000/33",     "4097/32",    "1023/1023",
                                    "3000/1025", "10000/2047", "2049",      "65537/1",    NULL};

/* The host tally of an output against the CPU reference. */
static void cpu_tally(const scan_state *s, const void *out, pp_mismatch *m) {
  if (is_float(s->dataset))
    pp_compare_f32(out, s->want_f64, s->bound, s->n, m);
  else
    pp_compare_i32(out, s->want_i32, s->n, m);
}

/* out[i] = the CPU reference's value, in the dataset's type; or, @p wrong, a
 * value off by at least 1 (never -1, the int poison). */
static void set_element(const scan_state *s, void *out, size_t i, int wrong) {
  if (is_float(s->dataset)) {
    ((float *)out)[i] = (float)(s->want_f64[i] + wrong);
  } else {
    int64_t w = s->want_i32[i];
    ((int32_t *)out)[i] = (int32_t)(!wrong ? w : w >= 0 ? w + 1 : w - 1);
  }
}

static void poison_element(void *out, size_t i) {
  memset((char *)out + i * sizeof(float), PP_POISON_BYTE, sizeof(float));
}

/* The int data: every partial sum of a section fits int32 (a correct scan
 * adds up nothing else); every section of 128 elements or more has one past
 * 2^24, and so does the array from 64 elements on. */
static void check_int_data(const int32_t *x, size_t n, int section) {
  int64_t largest = 0;
  int fits = 1, long_sections_past = 1;
  for (size_t start = 0; start < n; start += (size_t)section) {
    int64_t sum = 0, section_largest = 0;
    size_t end = n - start < (size_t)section ? n : start + (size_t)section;
    for (size_t i = start; i < end; ++i) {
      sum += x[i];
      fits &= sum >= INT32_MIN && sum <= INT32_MAX;
      section_largest = llabs(sum) > section_largest ? llabs(sum) : section_largest;
    }
    if (end - start >= 128) long_sections_past &= section_largest > (1 << 24);
    largest = section_largest > largest ? section_largest : largest;
  }
  CC_EXPECT(fits);
  CC_EXPECT(long_sections_past);
  if (n >= 64) CC_EXPECT(largest > (1 << 24));
}

/* Runs the device comparison on @p out and holds it against the host's. */
static void compare_both(scan_state *s, const void *out, pp_mismatch *gpu) {
  pp_mismatch cpu;
  pp_buffer_upload(&s->dout, out);
  scan_check_output(s->dout.device, s->n, s->section, is_float(s->dataset), is_exclusive(s->dataset),
                    s->seed, NULL, NULL, gpu);
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
  PP_CHECK(cudaMemcpy(&bits, (char *)s->din.device + k * sizeof bits, sizeof bits,
                      cudaMemcpyDeviceToHost));
  bits ^= 1 << 10; /* another value, in either type */
  PP_CHECK(cudaMemcpy((char *)s->din.device + k * sizeof bits, &bits, sizeof bits,
                      cudaMemcpyHostToDevice));
  pp_mismatch m;
  scan_check_input(s->din.device, s->n, s->section, is_float(s->dataset), s->seed, &m);
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
    pp_fill_uniform_f32(expected, n, SCAN_FLOAT_LO, SCAN_FLOAT_HI, seed, SCAN_INPUT_STREAM);
  else
    pp_fill_ints_i32(expected, n, scan_int_lo(s->section), scan_int_hi(s->section), seed,
                     SCAN_INPUT_STREAM);
  CC_EXPECT(memcmp(expected, s->in, n * sizeof(float)) == 0);
  if (!floats) check_int_data(s->in, n, s->section);
  pp_mismatch m;
  scan_check_input(s->din.device, n, s->section, floats, seed, &m);
  CC_EXPECT(m.wrong == 0);

  /* The reference and the bounds, on a right output. */
  void *right = pp_host_alloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) set_element(s, right, i, 0);
  double *want = cc_device_doubles(n), *bound = cc_device_doubles(n);
  pp_buffer_upload(&s->dout, right);
  scan_check_output(s->dout.device, n, s->section, floats, is_exclusive(dataset), seed, want, bound, &m);
  CC_EXPECT(m.wrong == 0);
  double *gpu_want = pp_host_alloc(n * sizeof(double)), *gpu_bound = pp_host_alloc(n * sizeof(double));
  cc_download_doubles(gpu_want, want, n);
  cc_download_doubles(gpu_bound, bound, n);
  size_t differ = 0, first = 0;
  for (size_t i = 0; i < n; ++i) {
    double cpu_want = floats ? s->want_f64[i] : (double)s->want_i32[i], cpu_bound = floats ? s->bound[i] : 0.0;
    if (gpu_want[i] != cpu_want || gpu_bound[i] != cpu_bound) {
      if (differ++ == 0) first = i;
    }
  }
  if (!CC_EXPECT(differ == 0))
    printf("  %zu references or bounds differ, the first at %zu: GPU %.17g within %.17g\n", differ,
           first, gpu_want[first], gpu_bound[first]);
  pp_mismatch gpu;
  compare_both(s, right, &gpu);
  pp_verdict verdict;
  memset(&verdict, 0, sizeof verdict);
  check(s, PP_PEER, &verdict);
  CC_EXPECT(verdict.correct);

  /* Planted errors, each order; then a changed input. */
  if (n > 0) {
    check_planted(s, right, n / 2 / (size_t)s->section * (size_t)s->section, n - 1);
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
    if (parse_size(grade_sizes[k], &size)) return PP_EXIT_FAIL;
    size_t n = size.dim[0];
    int section = (int)size.dim[1];
    int32_t *x = pp_host_alloc(n * sizeof *x);
    int seeds = n > ((size_t)1 << 24) ? 1 : 3; /* the largest sizes take a while on one core */
    for (uint64_t seed = PP_DEFAULT_SEED; seed < PP_DEFAULT_SEED + (uint64_t)seeds; ++seed) {
      cc_begin("int data, size %s, seed %llu", grade_sizes[k], (unsigned long long)seed);
      pp_fill_ints_i32(x, n, scan_int_lo(section), scan_int_hi(section), seed, SCAN_INPUT_STREAM);
      check_int_data(x, n, section);
    }
    free(x);
  }
  return cc_finish("03-scan int data");
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "--int-data")) return check_int_data_of_grade_sizes();
  return cc_sweep(&pp_lab, sizes, check_case);
}
