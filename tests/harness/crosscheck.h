/* What the labs' cross-check tests share (tests/NN-name/crosscheck.c). Each
 * holds its grader's GPU side (generator, reference, comparison) against the
 * CPU side, exactly, at small and awkward sizes: a GPU test, skipped (77)
 * where there is no device. */
#ifndef PP_CROSSCHECK_H
#define PP_CROSSCHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "pp/device.h"
#include "pp/verify.h"

static int cc_failures, cc_checks;
static char cc_case[160]; /* what is being checked, for failure messages */

/* Names the case the next checks belong to. */
static void cc_begin(const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(cc_case, sizeof cc_case, format, args);
  va_end(args);
}

/* Records one check; on failure prints the case and what was expected. */
static int cc_expect(int ok, const char *what, int line) {
  cc_checks++;
  if (!ok) {
    cc_failures++;
    if (cc_failures <= 50) printf("FAIL line %d, %s: expected %s\n", line, cc_case, what);
  }
  return ok;
}

#define CC_EXPECT(condition) cc_expect((condition) != 0, #condition, __LINE__)

/* Equal, or both NaN (a poisoned element reads as NaN). */
static int cc_same_double(double a, double b) {
  return a == b || (isnan(a) && isnan(b));
}

/* Whether two tallies agree in every field: the GPU's and pp_compare_*()'s. */
static int cc_same_mismatch(const pp_mismatch *gpu, const pp_mismatch *cpu) {
  int same = gpu->wrong == cpu->wrong && gpu->unwritten == cpu->unwritten &&
             gpu->worst_ratio == cpu->worst_ratio && gpu->worst_rel == cpu->worst_rel;
  if (cpu->wrong)
    same = same && gpu->index == cpu->index && cc_same_double(gpu->got, cpu->got) &&
           gpu->want == cpu->want && gpu->bound == cpu->bound;
  if (!same)
    printf("  GPU: index %zu got %.17g want %.17g bound %.17g wrong %zu unwritten %zu ratio %.17g "
           "rel %.17g\n  CPU: index %zu got %.17g want %.17g bound %.17g wrong %zu unwritten %zu "
           "ratio %.17g rel %.17g\n",
           gpu->index, gpu->got, gpu->want, gpu->bound, gpu->wrong, gpu->unwritten,
           gpu->worst_ratio, gpu->worst_rel, cpu->index, cpu->got, cpu->want, cpu->bound,
           cpu->wrong, cpu->unwritten, cpu->worst_ratio, cpu->worst_rel);
  return same;
}

/* A device array of n doubles (at least one), for the references the GPU records. */
static double *cc_device_doubles(size_t n) {
  double *p;
  PP_CHECK(cudaMalloc((void **)&p, (n ? n : 1) * sizeof *p));
  return p;
}

/* Copies n doubles from the device. */
static void cc_download_doubles(double *host, const double *device, size_t n) {
  PP_CHECK(cudaMemcpy(host, device, n * sizeof *host, cudaMemcpyDeviceToHost));
}

/* Exits 77 (skipped) where there is no CUDA device; opens it otherwise. */
static void cc_open_device(void) {
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    exit(PP_EXIT_SKIP);
  }
  pp_device dev;
  pp_device_open(&dev);
}

/* What must be found in an output with a wrong and a never-written element
 * planted (one element when @p wrong_at == @p unwritten_at): the device
 * comparison @p gpu reports the first of them and counts both; the grader's
 * @p verdict names the first (@p where) and, when it is the unwritten one,
 * says @p unwritten_words. */
static void cc_expect_planted(const pp_mismatch *gpu, const pp_verdict *verdict, size_t wrong_at,
                              size_t unwritten_at, const char *where, const char *unwritten_words) {
  size_t first = wrong_at < unwritten_at ? wrong_at : unwritten_at;
  int both = wrong_at != unwritten_at;
  CC_EXPECT(gpu->index == first && gpu->wrong == (size_t)(1 + both) && gpu->unwritten == 1);
  CC_EXPECT(!verdict->correct && strstr(verdict->note, where));
  if (first == unwritten_at) CC_EXPECT(strstr(verdict->note, unwritten_words));
}

/* Prints the summary; returns the exit code. */
static int cc_finish(const char *lab) {
  printf("%s %s cross-check: %d checks, %d failed\n", cc_failures ? "FAIL" : "PASS", lab, cc_checks,
         cc_failures);
  return cc_failures ? PP_EXIT_FAIL : PP_EXIT_PASS;
}

/* Opens the device, runs @p check_case on every size of @p sizes, every dataset
 * of the lab and two seeds, on a state the lab's create() made; prints the
 * summary and returns the exit code. */
static int cc_sweep(const pp_problem *lab, const char *const *sizes,
                    void (*check_case)(void *state, int dataset, uint64_t seed)) {
  cc_open_device();
  for (int k = 0; sizes[k]; ++k) {
    pp_size size;
    if (lab->parse_size(sizes[k], &size)) return PP_EXIT_FAIL;
    void *state = lab->create(&size);
    for (int d = 0; lab->datasets[d]; ++d)
      for (uint64_t seed = PP_DEFAULT_SEED; seed < PP_DEFAULT_SEED + 2; ++seed) {
        cc_begin("size %s, data %s, seed %llu", sizes[k], lab->datasets[d], (unsigned long long)seed);
        check_case(state, d, seed);
      }
    lab->destroy(state);
  }
  return cc_finish(lab->lab);
}

#endif
