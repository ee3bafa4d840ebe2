/* GPU tests of the harness: each device fill gives its host fill's values,
 * element for element, and each GPU reference (pp/exact.h) the CPU's answer,
 * exactly, at sizes 0, 1, 2^k - 1 and 2^k + 1 around every block, grid and
 * wave boundary of the kernels, for several seeds.
 *   harness-gpu-tests GROUP    fills | references | off-grid | nan
 * The last two must end in a grader error (exit 1): a reference that cannot
 * be exact refuses to answer (exit 3 if it answers). Without a CUDA device,
 * exit 77 (skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/device.h"
#include "pp/exact.h"
#include "pp/random.h"
#include "pp/reference.h"

static int failures, cases;

#define EXPECT(condition, ...)                                                   \
  do {                                                                           \
    ++cases;                                                                     \
    if (!(condition)) {                                                          \
      fprintf(stderr, "%s:%d: expected %s: ", __FILE__, __LINE__, #condition);   \
      fprintf(stderr, __VA_ARGS__);                                              \
      fputc('\n', stderr);                                                       \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

/* 2^k +- 1 around a warp, the 256-thread blocks, the references' largest
 * grid of 1024 x 256 threads (2^18) and the fills' grid of 2048 x 256 (2^19),
 * after which a thread takes a second element; 2^20 + 1 for good measure. */
static const size_t sizes[] = {0,     1,      2,      3,      31,     33,     255,
                               257,   1023,   1025,   65535,  65537,  262143, 262145,
                               524287, 524289, 1048577};
static const uint64_t seeds[] = {1, PP_DEFAULT_SEED, UINT64_MAX};
#define COUNT(array) (sizeof array / sizeof *array)
#define MAX_SIZE ((size_t)1048577)

/* One distribution with its parameters; every value is 4 bytes. */
typedef enum { UNIFORM, NONZERO_INTS, NONZERO_QUARTERS, INTS, TELESCOPING } kind;
typedef struct distribution {
  const char *name;
  kind kind;
  float lo, hi;     /* UNIFORM */
  int max_abs;      /* NONZERO_INTS, NONZERO_QUARTERS */
  int32_t ilo, ihi; /* INTS */
} distribution;

static const distribution fills[] = {
    {"uniform [0.5, 1.5)", UNIFORM, 0.5f, 1.5f, 0, 0, 0},
    {"uniform [-1, 1)", UNIFORM, -1.0f, 1.0f, 0, 0, 0},
    {"uniform [-3.25, 1000)", UNIFORM, -3.25f, 1000.0f, 0, 0, 0},
    {"nonzero ints to 1", NONZERO_INTS, 0, 0, 1, 0, 0},
    {"nonzero ints to 4", NONZERO_INTS, 0, 0, 4, 0, 0},
    {"nonzero ints to 16", NONZERO_INTS, 0, 0, 16, 0, 0},
    {"nonzero ints to 2^20", NONZERO_INTS, 0, 0, 1 << 20, 0, 0},
    {"nonzero quarters to 4/4", NONZERO_QUARTERS, 0, 0, 4, 0, 0},
    {"ints [-3, 3]", INTS, 0, 0, 0, -3, 3},
    {"ints [7, 7]", INTS, 0, 0, 0, 7, 7},
    {"ints [INT32_MIN, INT32_MAX]", INTS, 0, 0, 0, INT32_MIN, INT32_MAX},
    {"telescoping ints", TELESCOPING, 0, 0, 0, 0, 0},
};

static void fill_host(const distribution *d, void *x, size_t n, uint64_t seed, uint64_t stream) {
  switch (d->kind) {
    case UNIFORM: pp_fill_uniform_f32(x, n, d->lo, d->hi, seed, stream); break;
    case NONZERO_INTS: pp_fill_nonzero_ints_f32(x, n, d->max_abs, seed, stream); break;
    case NONZERO_QUARTERS: pp_fill_nonzero_quarters_f32(x, n, d->max_abs, seed, stream); break;
    case INTS: pp_fill_ints_i32(x, n, d->ilo, d->ihi, seed, stream); break;
    case TELESCOPING: pp_fill_telescoping_i32(x, n, seed, stream); break;
  }
}

static void fill_device(const distribution *d, void *x, size_t n, uint64_t seed, uint64_t stream) {
  switch (d->kind) {
    case UNIFORM: pp_fill_uniform_f32_device(x, n, d->lo, d->hi, seed, stream); break;
    case NONZERO_INTS: pp_fill_nonzero_ints_f32_device(x, n, d->max_abs, seed, stream); break;
    case NONZERO_QUARTERS: pp_fill_nonzero_quarters_f32_device(x, n, d->max_abs, seed, stream); break;
    case INTS: pp_fill_ints_i32_device(x, n, d->ilo, d->ihi, seed, stream); break;
    case TELESCOPING: pp_fill_telescoping_i32_device(x, n, seed, stream); break;
  }
  PP_CHECK(cudaDeviceSynchronize());
}

/* Fills on the host and on the device; the bytes must match, and the guard
 * after the device array must be untouched. */
static void test_fills(void) {
  uint32_t *host = malloc(MAX_SIZE * sizeof *host), *back = malloc(MAX_SIZE * sizeof *back);
  for (size_t k = 0; k < COUNT(sizes); ++k) {
    size_t n = sizes[k];
    pp_buffer x = pp_buffer_alloc(n * sizeof *host);
    for (size_t f = 0; f < COUNT(fills); ++f)
      for (size_t j = 0; j < COUNT(seeds); ++j)
        for (uint64_t stream = 1; stream <= 2; ++stream) {
          const distribution *d = &fills[f];
          fill_host(d, host, n, seeds[j], stream);
          fill_device(d, x.device, n, seeds[j], stream);
          pp_buffer_download(&x, back, n * sizeof *back);
          size_t i = 0;
          while (i < n && host[i] == back[i]) ++i;
          EXPECT(i == n, "%s, n %zu, seed %llu, stream %llu: element %zu is 0x%08x on the device, "
                 "0x%08x on the host", d->name, n, (unsigned long long)seeds[j],
                 (unsigned long long)stream, i, i < n ? back[i] : 0u, i < n ? host[i] : 0u);
          EXPECT(pp_buffer_guard_intact(&x), "%s, n %zu: the device fill wrote past the end",
                 d->name, n);
        }
    pp_buffer_free(&x);
  }
  free(host);
  free(back);
}

/* The exact sum on the host: terms added with carry into 128 bits. */
static pp_int128 add(pp_int128 x, int64_t term) {
  uint64_t lo = x.lo + (uint64_t)term, carry = lo < x.lo;
  uint64_t hi = (uint64_t)x.hi + (term < 0 ? UINT64_MAX : 0) + carry;
  pp_int128 sum = {lo, (int64_t)hi};
  return sum;
}

static int same(pp_int128 x, pp_int128 y) {
  return x.lo == y.lo && x.hi == y.hi;
}

/* The terms' exact sum and sum of magnitudes, on the host. */
typedef struct exact_host {
  pp_int128 sum, abs;
} exact_host;

static void accumulate(exact_host *e, int64_t units) {
  e->sum = add(e->sum, units);
  e->abs = add(e->abs, units < 0 ? -units : units);
}

/* Units of 2^-frac_bits; the test data lies on the grid (the GPU would refuse it otherwise). */
static int64_t units(double value, int frac_bits) {
  return (int64_t)ldexp(value, frac_bits);
}

/* Both sides agree: the exact sums bit for bit, and the CPU reference's
 * rounded sum with the exact one rounded. The CPU's compensated sum is the
 * exact sum correctly rounded here: every term is a multiple of 2^-48, each
 * step's rounding error is captured exactly (Fast2Sum), and their sum, below
 * n 2^-53 max|partial sum| < 2^-8 for these sizes and data, is exact in double. */
static void expect_agree(const char *what, const char *data, size_t n, uint64_t seed, pp_exact gpu,
                         exact_host host, double cpu) {
  pp_sum rounded = pp_exact_rounded(gpu);
  EXPECT(same(gpu.sum, host.sum) && same(gpu.abs, host.abs),
         "%s of %s, n %zu, seed %llu: GPU sum %.17g (abs %.17g), host %.17g (abs %.17g)", what, data,
         n, (unsigned long long)seed, rounded.value, rounded.abs,
         pp_int128_to_double(host.sum, gpu.frac_bits), pp_int128_to_double(host.abs, gpu.frac_bits));
  EXPECT(rounded.value == cpu, "%s of %s, n %zu, seed %llu: GPU %.17g, CPU reference %.17g", what,
         data, n, (unsigned long long)seed, rounded.value, cpu);
}

static void test_references(void) {
  float *a = malloc(MAX_SIZE * sizeof *a), *b = malloc(MAX_SIZE * sizeof *b);
  int32_t *k32 = malloc(MAX_SIZE * sizeof *k32);
  const distribution *float_data[] = {&fills[0], &fills[1], &fills[5]};
  const distribution *int_data[] = {&fills[7], &fills[9], &fills[10]};
  for (size_t k = 0; k < COUNT(sizes); ++k) {
    size_t n = sizes[k];
    pp_buffer da = pp_buffer_alloc(n * sizeof *a), db = pp_buffer_alloc(n * sizeof *b);
    for (size_t j = 0; j < COUNT(seeds); ++j) {
      uint64_t seed = seeds[j];
      for (size_t f = 0; f < COUNT(float_data); ++f) {
        /* a from this distribution, b uniform in [0.5, 1.5): products on the 2^-48 grid. */
        const distribution *d = float_data[f];
        fill_host(d, a, n, seed, 1);
        fill_host(&fills[0], b, n, seed, 2);
        fill_device(d, da.device, n, seed, 1);
        fill_device(&fills[0], db.device, n, seed, 2);

        exact_host sum = {{0, 0}, {0, 0}}, dot = {{0, 0}, {0, 0}};
        for (size_t i = 0; i < n; ++i) {
          accumulate(&sum, units(a[i], 24));
          accumulate(&dot, units((double)a[i] * (double)b[i], 48));
        }
        expect_agree("sum", d->name, n, seed, pp_exact_sum_f32_device(da.device, n, 24), sum,
                     pp_reference_sum_f32(a, n).value);
        expect_agree("dot product", d->name, n, seed,
                     pp_exact_dot_f32_device(da.device, db.device, n, 48), dot,
                     pp_reference_dot_f32(a, b, n).value);
        if (n > 1) { /* from an odd element on, as the grader's missing-tail search does */
          exact_host tail = {{0, 0}, {0, 0}};
          for (size_t i = 1; i < n; ++i) accumulate(&tail, units(a[i], 24));
          expect_agree("sum from element 1", d->name, n, seed,
                       pp_exact_sum_f32_device((const float *)da.device + 1, n - 1, 24), tail,
                       pp_reference_sum_f32(a + 1, n - 1).value);
        }
      }
      for (size_t f = 0; f < COUNT(int_data); ++f) {
        const distribution *d = int_data[f];
        fill_host(d, k32, n, seed, 1);
        fill_device(d, da.device, n, seed, 1);
        exact_host sum = {{0, 0}, {0, 0}};
        for (size_t i = 0; i < n; ++i) accumulate(&sum, k32[i]);
        expect_agree("sum", d->name, n, seed, pp_exact_sum_i32_device(da.device, n), sum,
                     (double)pp_reference_sum_i32(k32, n));
      }
    }
    pp_buffer_free(&da);
    pp_buffer_free(&db);
  }
  free(a);
  free(b);
  free(k32);
}

/* Exit code of a refusal group whose reference answered instead of refusing. */
#define ANSWERED 3

/* A value the reference cannot take exactly: it must refuse (exit 1), not round. */
static int test_refusal(float value) {
  float x[3] = {1.0f, value, 2.0f};
  pp_buffer dx = pp_buffer_alloc(sizeof x);
  pp_buffer_upload(&dx, x);
  pp_exact e = pp_exact_sum_f32_device(dx.device, 3, 24);
  fprintf(stderr, "the reference took %.9g on a grid of 2^-24 and answered %.17g: it should refuse\n",
          value, pp_exact_rounded(e).value);
  return ANSWERED;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s fills|references|off-grid|nan\n", argv[0]);
    return PP_EXIT_USAGE;
  }
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    return PP_EXIT_SKIP;
  }
  const char *group = argv[1];
  if (!strcmp(group, "fills")) test_fills();
  else if (!strcmp(group, "references")) test_references();
  else if (!strcmp(group, "off-grid")) return test_refusal(0x1p-30f);
  else if (!strcmp(group, "nan")) return test_refusal(NAN);
  else {
    fprintf(stderr, "unknown group %s\n", group);
    return PP_EXIT_USAGE;
  }
  if (failures) fprintf(stderr, "%d of %d check(s) failed\n", failures, cases);
  else printf("%s: all %d checks passed\n", group, cases);
  return failures ? PP_EXIT_FAIL : PP_EXIT_PASS;
}
