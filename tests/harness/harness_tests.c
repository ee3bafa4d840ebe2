/* Unit tests of the harness. They run on the host only.
 *   harness-tests GROUP RESULTS_DIR
 * GROUP picks the tests to run; RESULTS_DIR receives harness-report.json. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/buffer.h"
#include "pp/cli.h"
#include "pp/exact.h"
#include "pp/json.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/reference.h"
#include "pp/report.h"
#include "pp/timer.h"
#include "pp/verify.h"

static int failures;

#define EXPECT(condition)                                                        \
  do {                                                                           \
    if (!(condition)) {                                                          \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #condition);   \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

static float poison_f32(void) {
  float x;
  memset(&x, PP_POISON_BYTE, sizeof x);
  return x;
}

static void test_tolerance(void) {
  const double u = PP_FLOAT_UNIT_ROUNDOFF;
  EXPECT(pp_gamma(0) == 0.0);
  EXPECT(fabs(pp_gamma(1) - u / (1 - u)) < 1e-22);
  EXPECT(pp_gamma(1000) > 1000 * u); /* gamma_k exceeds k u */
  EXPECT(isinf(pp_gamma(16777216.0))); /* k u = 1: no bound */
  EXPECT(pp_sum_error_bound(1e9, 0.0) == 0.0);
  EXPECT(fabs(pp_sum_error_bound(10, 100.0) - 100.0 * pp_gamma(10)) < 1e-18);

  /* The statistical bound holds for a float sum of random terms in the order
   * it describes (256 threads' serial loops of 4096 terms, then a serial sum
   * of their 256 results), is far tighter than the worst case, and is too
   * tight for three quarters of the terms scaled by 4/3. */
  enum { THREADS = 256, LOOP = 4096 };
  float *terms = malloc((size_t)THREADS * LOOP * sizeof *terms);
  pp_fill_uniform_f32(terms, (size_t)THREADS * LOOP, 0.5f, 1.5f, 11, 1);
  double exact = 0.0, sampled = 0.0; /* exact in double: multiples of 2^-24 below 2^21 */
  float total = 0.0f;
  for (int t = 0; t < THREADS; ++t) {
    float partial = 0.0f;
    for (int i = 0; i < LOOP; ++i) {
      float x = terms[(size_t)t * LOOP + i];
      partial += x;
      exact += x;
      if (i < LOOP / 4 * 3) sampled += x;
    }
    total += partial;
  }
  double likely = pp_sum_likely_bound(LOOP, THREADS, 1.5, exact);
  EXPECT(fabs((double)total - exact) <= likely);
  EXPECT(likely < pp_sum_error_bound(LOOP + THREADS, exact) / 10.0);
  EXPECT(fabs(sampled * 4.0 / 3.0 - exact) > likely);
  free(terms);

  EXPECT(pp_within(1.0, 1.0, 0.0));
  EXPECT(pp_within(1.5, 1.0, 0.5));           /* on the bound passes */
  EXPECT(!pp_within(1.5000001, 1.0, 0.5));    /* past it fails */
  EXPECT(!pp_within(NAN, 1.0, INFINITY));     /* NaN never passes */
  EXPECT(!pp_within(NAN, NAN, INFINITY));
  EXPECT(!pp_within(INFINITY, INFINITY, 1.0)); /* nor infinity */
  EXPECT(!pp_within(-INFINITY, 0.0, INFINITY));
}

static void test_compare(void) {
  EXPECT(pp_is_poison_f32(poison_f32()));
  EXPECT(!pp_is_poison_f32(NAN));
  EXPECT(!pp_is_poison_f32(0.0f));

  const float got[5] = {1.0f, 2.0f, poison_f32(), 4.5f, NAN};
  const double want[5] = {1.0, 2.0, 3.0, 4.0, 5.0};
  const double bounds[5] = {0.0, 0.0, 1.0, 0.25, INFINITY};
  pp_mismatch m;
  EXPECT(pp_compare_f32(got, want, bounds, 5, &m) == 3);
  EXPECT(m.wrong == 3 && m.unwritten == 1);
  EXPECT(m.index == 2 && m.want == 3.0 && m.bound == 1.0 && isnan(m.got));
  EXPECT(pp_compare_f32(got, want, bounds, 2, &m) == 0 && m.wrong == 0);

  const double loose[2] = {1.0, 1.0};
  const float close[2] = {1.5f, 2.0f};
  EXPECT(pp_compare_f32(close, want, loose, 2, &m) == 0 && m.worst_ratio == 0.5);
  EXPECT(m.worst_rel == 0.5); /* |1.5 - 1| / 1 */

  const int32_t a[4] = {1, -1, 3, 4}, b[4] = {1, 2, 3, 5};
  EXPECT(pp_compare_i32(a, b, 4, &m) == 2);
  EXPECT(m.index == 1 && m.got == -1.0 && m.want == 2.0 && m.unwritten == 1);
}

static void test_reference(void) {
  /* Catastrophic cancellation that naive double summation gets wrong. */
  const float x[4] = {1e16f, 1.0f, -1e16f, 1.0f};
  pp_sum s = pp_reference_sum_f32(x, 4);
  EXPECT(s.value == 2.0);
  EXPECT(s.abs == 2.0 * (double)1e16f + 2.0);

  const float a[3] = {1.5f, -2.0f, 4.0f}, b[3] = {2.0f, 3.0f, 0.25f};
  pp_sum d = pp_reference_dot_f32(a, b, 3);
  EXPECT(d.value == 3.0 - 6.0 + 1.0 && d.abs == 10.0);
  EXPECT(pp_reference_dot_f32(a, b, 0).value == 0.0);

  /* Products of floats are exact in double: (1 + 2^-23)^2 keeps its 2^-46 term. */
  const float c = 1.0f + 0x1p-23f;
  EXPECT(pp_reference_dot_f32(&c, &c, 1).value == 1.0 + 0x1p-22 + 0x1p-46);

  const int32_t big[3] = {2147483647, 2147483647, 2};
  EXPECT(pp_reference_sum_i32(big, 3) == 4294967296LL);
}

static double to_double(int64_t hi, uint64_t lo, int frac_bits) {
  pp_int128 x = {lo, hi};
  return pp_int128_to_double(x, frac_bits);
}

static void test_exact(void) {
  EXPECT(to_double(0, 0, 0) == 0.0);
  EXPECT(to_double(0, 5, 0) == 5.0);
  EXPECT(to_double(-1, (uint64_t)-5, 0) == -5.0); /* two's complement across both halves */
  EXPECT(to_double(0, 3, 1) == 1.5);
  EXPECT(to_double(-1, (uint64_t)-3, 48) == -3 * 0x1p-48);
  EXPECT(to_double(1, 0, 0) == 0x1p64);
  EXPECT(to_double(-1, 0, 0) == -0x1p64);
  EXPECT(to_double(INT64_MIN, 0, 0) == -0x1p127);
  EXPECT(to_double(INT64_MAX, UINT64_MAX, 0) == 0x1p127);
  /* One rounding, to nearest, ties to even: 2^53 + 1 is a tie, 2^53 + 3 one too (up). */
  EXPECT(to_double(0, (1ull << 53) + 1, 0) == 0x1p53);
  EXPECT(to_double(0, (1ull << 53) + 3, 0) == 0x1p53 + 4.0);
  /* 2^117 + 2^64 is a tie (to even: down); one unit more, among the bits shifted
   * out of the high half, tips it up. Two roundings would lose that unit. */
  EXPECT(to_double((1ll << 53) + 1, 0, 0) == 0x1p117);
  EXPECT(to_double((1ll << 53) + 1, 1, 0) == 0x1p117 + 0x1p65);
  EXPECT(to_double(-((1ll << 53) + 2), UINT64_MAX, 0) == -(0x1p117 + 0x1p65)); /* -(2^117 + 2^64 + 1) */
  EXPECT(to_double((1ll << 53) + 1, 1, 100) == 0x1p17 + 0x1p-35);

  pp_exact e = {{3, 0}, {5, 0}, 1};
  pp_sum rounded = pp_exact_rounded(e);
  EXPECT(rounded.value == 1.5 && rounded.abs == 2.5);
}

static int all_equal(const float *x, const float *y, size_t n) {
  return memcmp(x, y, n * sizeof *x) == 0;
}

static void test_random(void) {
  enum { N = 100000 };
  float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);

  /* Pinned values: the same seed gives the same data on every machine. */
  EXPECT(pp_random_bits(1, 0, 0) == pp_random_bits(1, 0, 0));
  EXPECT(pp_random_bits(1, 0, 0) != pp_random_bits(2, 0, 0));
  EXPECT(pp_random_bits(1, 0, 0) != pp_random_bits(1, 1, 0));
  EXPECT(pp_random_bits(1, 0, 0) != pp_random_bits(1, 0, 1));
  EXPECT(pp_random_bits(PP_DEFAULT_SEED, 1, 0) == 0xcfb0cbeafe491827ull);

  pp_fill_uniform_f32(x, N, 0.5f, 1.5f, 7, 1);
  pp_fill_uniform_f32(y, N, 0.5f, 1.5f, 7, 1);
  EXPECT(all_equal(x, y, N));
  pp_fill_uniform_f32(y, N, 0.5f, 1.5f, 8, 1);
  EXPECT(!all_equal(x, y, N));
  double sum = 0.0, lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < N; ++i) {
    sum += x[i];
    lo = fmin(lo, x[i]);
    hi = fmax(hi, x[i]);
  }
  EXPECT(lo >= 0.5 && hi < 1.5 && lo < 0.51 && hi > 1.49);
  EXPECT(fabs(sum / N - 1.0) < 0.01);

  pp_fill_nonzero_ints_f32(x, N, 4, 7, 2);
  int count[9] = {0};
  for (int i = 0; i < N; ++i) {
    EXPECT(x[i] == (int)x[i] && x[i] != 0.0f && fabsf(x[i]) <= 4.0f);
    count[(int)x[i] + 4]++;
  }
  for (int v = -4; v <= 4; ++v) EXPECT(v == 0 ? count[4] == 0 : count[v + 4] > N / 10);

  /* The quarters: the same integers divided by 4, so that none is an integer. */
  pp_fill_nonzero_quarters_f32(y, N, 4, 7, 2);
  int whole = 0;
  for (int i = 0; i < N; ++i) {
    EXPECT(y[i] == 0.25f * x[i]);
    whole += y[i] == (int)y[i];
  }
  EXPECT(whole < N / 3); /* only -1 and 1, a quarter of them */

  int32_t *k = malloc(N * sizeof *k);
  pp_fill_ints_i32(k, N, -3, 3, 7, 3);
  int seen[7] = {0};
  for (int i = 0; i < N; ++i) {
    EXPECT(k[i] >= -3 && k[i] <= 3);
    seen[k[i] + 3] = 1;
  }
  for (int v = 0; v < 7; ++v) EXPECT(seen[v]);

  /* Telescoping ints: large, even, alternating in sign, every prefix sum
   * within int32 and even, every pair of one index parity past it. */
  pp_fill_telescoping_i32(k, N, 7, 4);
  int64_t prefix = 0;
  for (int i = 0; i < N; ++i) {
    int64_t x = k[i], magnitude = x < 0 ? -x : x;
    EXPECT(magnitude >= (1ll << 30) && magnitude <= (1ll << 31) - 4 && x % 2 == 0);
    EXPECT((x < 0) == (i % 2 == 0));
    prefix += x;
    EXPECT(prefix >= INT32_MIN && prefix <= INT32_MAX && prefix % 2 == 0);
    if (i >= 2) {
      int64_t pair = x + k[i - 2];
      EXPECT(pair <= INT32_MIN || pair > INT32_MAX);
    }
  }
  EXPECT(pp_reference_sum_i32(k, N) == prefix);
  free(k);
  free(x);
  free(y);
}

static void test_count(void) {
  uint64_t n = 0;
  EXPECT(pp_parse_count("0", &n) == 0 && n == 0);
  EXPECT(pp_parse_count("1000", &n) == 0 && n == 1000);
  EXPECT(pp_parse_count("2^28", &n) == 0 && n == 268435456u);
  EXPECT(pp_parse_count("2^24+1", &n) == 0 && n == 16777217u);
  EXPECT(pp_parse_count("2^20-1", &n) == 0 && n == 1048575u);
  EXPECT(pp_parse_count("1e6", &n) == 0 && n == 1000000u);
  EXPECT(pp_parse_count("3e2+7", &n) == 0 && n == 307u);
  EXPECT(pp_parse_count("-5", &n) == -1);
  EXPECT(pp_parse_count("", &n) == -1);
  EXPECT(pp_parse_count("lots", &n) == -1);
  EXPECT(pp_parse_count("12abc", &n) == -1);
  EXPECT(pp_parse_count("2^", &n) == -1);
  EXPECT(pp_parse_count("2^64", &n) == -1);
  EXPECT(pp_parse_count("1e20", &n) == -1);
  EXPECT(pp_parse_count("99999999999999999999", &n) == -1);
  EXPECT(pp_parse_count("0-1", &n) == -1);
  EXPECT(pp_parse_count(" 5", &n) == -1);

  char text[64];
  pp_format_count(268435456u, text, sizeof text);
  EXPECT(!strcmp(text, "268435456 (2^28)"));
  pp_format_count(16777217u, text, sizeof text);
  EXPECT(!strcmp(text, "16777217 (2^24+1)"));
  pp_format_count(999983u, text, sizeof text);
  EXPECT(!strcmp(text, "999983"));
}

static int parse(pp_options *o, FILE *sink, int argc, const char **argv) {
  return pp_parse_options(argc, (char **)argv, o, sink);
}

static void test_options(void) {
  FILE *sink = tmpfile();
  pp_options o;
  const char *defaults[] = {"lab"};
  EXPECT(parse(&o, sink, 1, defaults) == 0);
  EXPECT(o.mode == PP_MODE_BENCH && o.seed == PP_DEFAULT_SEED && o.reps == 20 && !o.size);

  EXPECT(!o.dataset && !o.no_guards && o.max_shared_kib == 0);

  const char *full[] = {"lab",     "--grade", "--size",  "2^20", "--seed",        "9",
                        "--seeds", "2",       "--variant", "1,v3", "--json",      "out.json",
                        "--reps",  "5",       "--warmup", "1",    "--min-speedup", "2.5", "--quick",
                        "--dataset", "uniform"};
  EXPECT(parse(&o, sink, 21, full) == 0);
  EXPECT(o.mode == PP_MODE_GRADE && !strcmp(o.size, "2^20") && o.seed == 9 && o.seeds == 2);
  EXPECT(!strcmp(o.variants, "1,v3") && !strcmp(o.json, "out.json") && o.reps == 5);
  EXPECT(!strcmp(o.dataset, "uniform"));
  EXPECT(o.warmup == 1 && o.min_speedup == 2.5 && o.quick);

  EXPECT(o.stress_runs == 1000 && o.stress_seconds == 3.0); /* left as they were by default */
  const char *stress[] = {"lab", "--stress-runs", "5", "--stress-seconds", "0.5", "--stress"};
  EXPECT(parse(&o, sink, 6, stress) == 0);
  EXPECT(o.mode == PP_MODE_STRESS && o.stress_runs == 5 && o.stress_seconds == 0.5);

  const char *gauntlet[] = {"lab", "--grade", "--no-guards", "--max-shared-kib", "64"};
  EXPECT(parse(&o, sink, 5, gauntlet) == 0);
  EXPECT(o.no_guards && o.max_shared_kib == 64);

  const char *bad[][3] = {
      {"lab", "--bogus", NULL},     {"lab", "--size", NULL},       {"lab", "--reps", "0"},
      {"lab", "--reps", "many"},    {"lab", "--seed", "-1"},       {"lab", "--seeds", "0"},
      {"lab", "--min-speedup", "-2"}, {"lab", "--min-speedup", "x"}, {"lab", "--warmup", "1.5"},
      {"lab", "--max-shared-kib", "0"}, {"lab", "--max-shared-kib", "-64"},
      {"lab", "--max-shared-kib", "64k"}, {"lab", "--max-shared-kib", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    int argc = bad[i][2] ? 3 : 2;
    EXPECT(parse(&o, sink, argc, bad[i]) == 2);
  }
  /* --stress's limits: a positive count, a positive number of seconds up to 600, and only
   * with --stress, which they would otherwise silently not limit. */
  const char *bad_stress[][4] = {
      {"lab", "--stress", "--stress-runs", "0"},       {"lab", "--stress", "--stress-runs", "-1"},
      {"lab", "--stress", "--stress-runs", "many"},    {"lab", "--stress", "--stress-runs", "1.5"},
      {"lab", "--stress", "--stress-seconds", "0"},    {"lab", "--stress", "--stress-seconds", "-2"},
      {"lab", "--stress", "--stress-seconds", "soon"}, {"lab", "--stress", "--stress-seconds", "nan"},
      {"lab", "--stress", "--stress-seconds", "601"},  {"lab", "--stress", "--stress-seconds", NULL},
      {"lab", "--grade", "--stress-runs", "5"},        {"lab", "--stress-seconds", "2", "--grade"},
  };
  for (size_t i = 0; i < sizeof bad_stress / sizeof *bad_stress; ++i) {
    int argc = bad_stress[i][3] ? 4 : 3;
    EXPECT(parse(&o, sink, argc, bad_stress[i]) == 2);
  }
  const char *longest[] = {"lab", "--stress", "--stress-seconds", "600"};
  EXPECT(parse(&o, sink, 4, longest) == 0 && o.stress_seconds == 600.0);

  const char *help[] = {"lab", "--size", "5", "--help"};
  EXPECT(parse(&o, sink, 4, help) == 0 && o.mode == PP_MODE_HELP);

  /* No untimed repetition is a legitimate choice; no timed one is not. */
  const char *no_warmup[] = {"lab", "--warmup", "0"};
  EXPECT(parse(&o, sink, 3, no_warmup) == 0 && o.warmup == 0);
  const char *negative_warmup[] = {"lab", "--warmup", "-1"};
  EXPECT(parse(&o, sink, 3, negative_warmup) == 2);
  fclose(sink);
}

/* 1 if @p path exists. */
static int exists(const char *path) {
  FILE *f = fopen(path, "r");
  if (f) fclose(f);
  return f != NULL;
}

/* Output paths are refused before any work unless their folder exists and is
 * writable and they do not name a folder; checking creates nothing. */
static void test_output_paths(const char *results_dir) {
  FILE *sink = tmpfile();
  pp_options o;
  char missing_folder[4096], trailing_slash[4096], fresh[4096], under_file[sizeof fresh + 16];
  snprintf(missing_folder, sizeof missing_folder, "%s/no-such-folder/out.json", results_dir);
  snprintf(trailing_slash, sizeof trailing_slash, "%s/", results_dir);
  snprintf(fresh, sizeof fresh, "%s/options-never-written.json", results_dir);
  snprintf(under_file, sizeof under_file, "%s/out.json", fresh);
  remove(fresh);
  FILE *file = fopen(fresh, "w"); /* a file where a folder should be */
  EXPECT(file && fclose(file) == 0);
  const char *bad[] = {"", results_dir, trailing_slash, missing_folder, under_file};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    const char *json[] = {"lab", "--json", bad[i]}, *verdict[] = {"lab", "--grade", "--verdict", bad[i]};
    EXPECT(parse(&o, sink, 3, json) == 2);
    EXPECT(parse(&o, sink, 4, verdict) == 2);
  }
  EXPECT(remove(fresh) == 0);

  const char *good[] = {"lab", "--json", fresh, "--verdict", fresh};
  EXPECT(parse(&o, sink, 5, good) == 0 && !strcmp(o.json, fresh) && !strcmp(o.verdict, fresh));
  EXPECT(!exists(fresh)); /* checking did not create it */
  fclose(sink);
}

static void test_timer(void) {
  double odd[3] = {3.0, 1.0, 2.0}, even[4] = {4.0, 1.0, 3.0, 2.0}, one[1] = {7.0};
  EXPECT(pp_median(odd, 3) == 2.0);
  EXPECT(pp_median(even, 4) == 2.5);
  EXPECT(pp_median(one, 1) == 7.0);
}

/* What pp_json_escape() writes for @p n bytes of @p text equals @p want. */
static int escapes_to(const char *text, size_t n, const char *want) {
  char got[256];
  FILE *f = tmpfile();
  pp_json_escape(f, text, n);
  rewind(f);
  size_t len = fread(got, 1, sizeof got - 1, f);
  got[len] = '\0';
  fclose(f);
  if (len == strlen(want) && !memcmp(got, want, len)) return 1;
  fprintf(stderr, "pp_json_escape wrote \"%s\", expected \"%s\"\n", got, want);
  return 0;
}
#define ESCAPES_TO(text, want) EXPECT(escapes_to(text, sizeof text - 1, want))
#define U_FFFD "\xEF\xBF\xBD"

static void test_json(void) {
  /* Quotes, backslashes and every control character are escaped. */
  ESCAPES_TO("say \"hi\" \\ bye", "say \\\"hi\\\" \\\\ bye");
  ESCAPES_TO("a\nb\tc\rd\be\ff", "a\\nb\\tc\\rd\\be\\ff");
  ESCAPES_TO("\x01\x1b[31m\x1f\x7f", "\\u0001\\u001b[31m\\u001f\\u007f");
  ESCAPES_TO("nul\0inside", "nul\\u0000inside");
  ESCAPES_TO(" ~/", " ~/");
  /* Valid UTF-8 of 2, 3 and 4 bytes passes unchanged. */
  ESCAPES_TO("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF",
             "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF");
  /* Each byte that starts no valid character becomes U+FFFD. */
  ESCAPES_TO("\xFF", U_FFFD);
  ESCAPES_TO("a\x80" "b", "a" U_FFFD "b");                 /* a lone continuation byte */
  ESCAPES_TO("\xC0\xAF", U_FFFD U_FFFD);                     /* overlong '/' */
  ESCAPES_TO("\xE0\x80\xAF", U_FFFD U_FFFD U_FFFD);          /* overlong, 3 bytes */
  ESCAPES_TO("\xF0\x8F\xBF\xBF", U_FFFD U_FFFD U_FFFD U_FFFD); /* overlong, 4 bytes */
  ESCAPES_TO("\xED\xA0\x80", U_FFFD U_FFFD U_FFFD);          /* a surrogate */
  ESCAPES_TO("\xF4\x90\x80\x80", U_FFFD U_FFFD U_FFFD U_FFFD); /* past U+10FFFF */
  ESCAPES_TO("\xF5\x80\x80\x80", U_FFFD U_FFFD U_FFFD U_FFFD); /* no such lead byte */
  ESCAPES_TO("\xF0\x9F\x98", U_FFFD U_FFFD U_FFFD);          /* 4 bytes cut to 3 */
  ESCAPES_TO("\xE2\x82\\", U_FFFD U_FFFD "\\\\");          /* cut by an ASCII byte */
  ESCAPES_TO("\xEF\xBF\xBF", U_FFFD U_FFFD U_FFFD);          /* U+FFFF */
  EXPECT(pp_utf8_length("\xF0\x9F\x98\x80", 4) == 4 && pp_utf8_length("\xF0\x9F\x98\x80", 3) == 0);
  EXPECT(pp_utf8_length("\xE2\x82\xAC", 3) == 3 && pp_utf8_length("\xC3\xA9", 2) == 2);
  EXPECT(pp_utf8_length("A", 1) == 1 && pp_utf8_length("\x80", 1) == 0);

  /* pp_json_string() quotes, and writes NULL as the empty string. */
  char got[64];
  FILE *f = tmpfile();
  pp_json_string(f, "a\"\xFF");
  pp_json_string(f, NULL);
  rewind(f);
  size_t len = fread(got, 1, sizeof got - 1, f);
  got[len] = '\0';
  fclose(f);
  EXPECT(!strcmp(got, "\"a\\\"" U_FFFD "\"\"\""));
}

static pp_result fake(const char *name, int index, double ms, int correct) {
  pp_result r;
  memset(&r, 0, sizeof r);
  r.name = name;
  r.what = "a \"quoted\" summary\twith a tab";
  r.index = index;
  r.ran = correct;
  r.correct = correct;
  r.time.median_ms = r.time.min_ms = r.time.max_ms = ms;
  r.time.reps = 3;
  if (!correct) snprintf(r.note, sizeof r.note, "result never written");
  return r;
}

static void test_report(const char *results_dir) {
  pp_device dev;
  memset(&dev, 0, sizeof dev);
  snprintf(dev.name, sizeof dev.name, "Imaginary GPU");
  dev.sm_count = 4;
  dev.theoretical_gbps = 1000.0;
  pp_result variants[3] = {fake("v0-base", 0, 4.0, 1), fake("v1-broken", 1, 0.0, 0),
                           fake("v2-fast", 2, 1.0, 1)};
  pp_report report;
  memset(&report, 0, sizeof report);
  report.lab = "00-test";
  report.title = "a report";
  snprintf(report.size, sizeof report.size, "1000");
  report.dataset = "uniform";
  report.device = &dev;
  report.copy_gbps = 800.0;
  report.bytes = 8e9; /* 8000 GB/s at 1 ms */
  report.cpu = fake("CPU reference", -1, 40.0, 1);
  report.peer = fake("library", -1, 2.0, 1);
  report.variants = variants;
  report.count = 3;

  pp_metrics m = pp_report_metrics(&report, &variants[2]);
  EXPECT(fabs(m.gbps - 8000.0) < 1e-9 && fabs(m.percent_of_copy - 1000.0) < 1e-9);
  EXPECT(m.vs_previous == 4.0); /* the broken variant did not run: v0 is previous */
  EXPECT(m.vs_baseline == 4.0 && m.vs_cpu == 40.0 && m.vs_peer == 2.0);
  EXPECT(isnan(pp_report_metrics(&report, &variants[1]).gbps));
  EXPECT(isnan(pp_report_metrics(&report, &variants[0]).vs_previous));

  FILE *table = tmpfile();
  pp_report_print(table, &report);
  rewind(table);
  char text[8192];
  size_t len = fread(text, 1, sizeof text - 1, table);
  text[len] = '\0';
  fclose(table);
  EXPECT(strstr(text, "v2-fast") && strstr(text, "WRONG v1-broken: result never written"));

  char path[4096];
  /* A note can hold what a student's program printed: any bytes. */
  snprintf(variants[1].note, sizeof variants[1].note, "result never written \xFF\x01");
  snprintf(path, sizeof path, "%s/harness-report.json", results_dir);
  EXPECT(pp_report_write_json(&report, path) == 0);
  FILE *json = fopen(path, "rb");
  len = json ? fread(text, 1, sizeof text - 1, json) : 0;
  text[len] = '\0';
  if (json) fclose(json);
  EXPECT(strstr(text, "result never written " U_FFFD "\\u0001") && !strchr(text, '\xFF'));
  snprintf(path, sizeof path, "%s/no-such-dir/report.json", results_dir);
  EXPECT(pp_report_write_json(&report, path) == -1);
}

/* The peaks behind the floor and %peak: NVIDIA's own tables for an H100 SXM5 and an A100 (pp/device.h),
 * and a compute-bound report's %peak of the unit its lab names. */
static void test_peak(void) {
  pp_device h100;
  memset(&h100, 0, sizeof h100);
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.clock_khz = 1830000; /* the clock of the whitepaper's tensor table */
  EXPECT(fabs(pp_device_bf16_tensor_peak(&h100) - 989.4e12) < 0.1e12);
  EXPECT(fabs(pp_device_fp32_peak(&h100) - 61.8e12) < 0.1e12); /* 128 lanes at that clock */
  EXPECT(pp_device_peak(&h100, PP_PEAK_BF16_TENSOR) == pp_device_bf16_tensor_peak(&h100));
  EXPECT(pp_device_peak(&h100, PP_PEAK_FP32) == pp_device_fp32_peak(&h100));
  pp_device a100 = h100;
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.clock_khz = 1410000;
  EXPECT(fabs(pp_device_bf16_tensor_peak(&a100) - 312e12) < 0.5e12);
  EXPECT(!strcmp(pp_peak_name(PP_PEAK_BF16_TENSOR), "BF16 tensor") && !strcmp(pp_peak_name(PP_PEAK_FP32), "FP32"));

  pp_result variants[1] = {fake("v0-tensor", 0, 1.0, 1)};
  pp_report report;
  memset(&report, 0, sizeof report);
  report.lab = "00-test";
  report.title = "a compute-bound report";
  report.dataset = "exact";
  report.device = &h100;
  report.copy_gbps = 3000.0;
  report.bytes = 1e9;
  report.flops = 494.7e9; /* half the peak at 1 ms */
  report.peak = PP_PEAK_BF16_TENSOR;
  report.cpu = fake("CPU reference", -1, 40.0, 1);
  report.peer = fake("library", -1, 0.8, 1);
  report.variants = variants;
  report.count = 1;
  pp_metrics m = pp_report_metrics(&report, &variants[0]);
  EXPECT(fabs(m.percent_of_peak - 50.0) < 0.01);
  FILE *table = tmpfile();
  pp_report_print(table, &report);
  rewind(table);
  char text[8192];
  size_t len = fread(text, 1, sizeof text - 1, table);
  text[len] = '\0';
  fclose(table);
  EXPECT(strstr(text, "%peak") && strstr(text, "BF16 tensor") && strstr(text, "  50.0"));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s GROUP RESULTS_DIR\n", argv[0]);
    return 2;
  }
  const char *group = argv[1];
  if (!strcmp(group, "tolerance")) test_tolerance();
  else if (!strcmp(group, "compare")) test_compare();
  else if (!strcmp(group, "reference")) test_reference();
  else if (!strcmp(group, "exact")) test_exact();
  else if (!strcmp(group, "peak")) test_peak();
  else if (!strcmp(group, "random")) test_random();
  else if (!strcmp(group, "count")) test_count();
  else if (!strcmp(group, "options")) test_options();
  else if (!strcmp(group, "output-paths")) test_output_paths(argv[2]);
  else if (!strcmp(group, "timer")) test_timer();
  else if (!strcmp(group, "report")) test_report(argv[2]);
  else if (!strcmp(group, "json")) test_json();
  else {
    fprintf(stderr, "unknown group %s\n", group);
    return 2;
  }
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("%s: all checks passed\n", group);
  return failures ? 1 : 0;
}
