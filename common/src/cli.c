#define _POSIX_C_SOURCE 200809L
#include "pp/cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pp/check.h"
#include "pp/random.h"

/* --stress's defaults: hundreds of short runs, a few seconds of them, per variant. */
#define STRESS_RUNS 1000
#define STRESS_SECONDS 3.0
/* The most --stress-seconds takes: a run of a class's tests must stay bounded. */
#define STRESS_SECONDS_MAX 600.0

void pp_print_usage(FILE *out, const char *program, const char *size_default, const char *size_help) {
  fprintf(out,
          "usage: %s [options]\n"
          "  (no mode)          run, check and time every variant at one size; print the table\n"
          "  --grade            check the variants over the grader's sizes and seeds\n"
          "  --stress           run each variant many times, each run checked, beside a kernel that\n"
          "                     keeps the GPU busy and thrashes its L2 cache: shakes out bugs of\n"
          "                     memory order between blocks (docs/grading-trust.md, \"Stress\")\n"
          "  --stress-runs N    with --stress: at most N runs of each variant (default %d)\n"
          "  --stress-seconds S with --stress: at most S seconds of runs of each variant (default %g)\n"
          "  --quick            with --grade: small sizes and one seed (for compute-sanitizer)\n"
          "  --accuracy         with --grade: judge by the bound of compensated summation, where the\n"
          "                     dataset has one (lab 01's absorbed: Kahan's is met, plain summation's\n"
          "                     error is 10^4 times more)\n"
          "  --list             list the variants, the datasets, and the sizes and variants that\n"
          "                     tools/sweep.sh times and tools/counters.sh profiles\n"
          "  --probe            exit 0 if a CUDA device is usable, 77 if not\n"
          "  --size S           problem size (default %s):\n"
          "                     %s\n"
          "  --seed N           first random seed (default %u); printed with every result\n"
          "  --seeds K          seeds per size when grading (default 3)\n"
          "  --variant LIST     comma-separated variant names or numbers (default: all)\n"
          "  --dataset NAME     time this input distribution instead of the lab's default; with\n"
          "                     --grade, check only this one (--list names them)\n"
          "  --reps N           timed repetitions (default 20)\n"
          "  --warmup N         untimed repetitions first (default 3; 0 for none)\n"
          "  --json PATH        also write the results as JSON to PATH (its folder must exist)\n"
          "  --min-speedup X    fail unless the last variant is X times faster than the first\n"
          "  --or-skip          a --size too large for this GPU's memory is skipped (77), not refused (2)\n"
          "  --verdict PATH     also write the verdict as 'key value' lines to PATH (for grading/grade)\n"
          "  --no-guards        no guard zones after the buffers: each ends where its allocation ends,\n"
          "                     so that compute-sanitizer memcheck sees a read one element past the end\n"
          "  --max-shared-kib K launchers see at most K KiB of shared memory per block, and choose their\n"
          "                     smaller configuration where the full one needs more (64: a 7.5 GPU's);\n"
          "                     a kernel launched with more static plus dynamic shared memory fails\n"
          "  -- RUNNER...       be the checker: run the variants in RUNNER (another lab binary, perhaps\n"
          "                     behind compute-sanitizer), judge them here (docs/grading-trust.md)\n"
          "  --timeout S        with a RUNNER: seconds one launch may take before it is stopped (10)\n"
          "  --help             this text\n"
          "exit codes: 0 right, 1 wrong or failed, 2 bad usage or size, 77 no CUDA device\n",
          program, STRESS_RUNS, STRESS_SECONDS, size_default, size_help, PP_DEFAULT_SEED);
}

static int parse_u64(const char **p, uint64_t *out) {
  const char *s = *p;
  if (!isdigit((unsigned char)*s)) return -1;
  uint64_t v = 0;
  for (; isdigit((unsigned char)*s); ++s) {
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10) return -1;
    v = v * 10 + d;
  }
  *p = s;
  *out = v;
  return 0;
}

static int power(uint64_t base, uint64_t exponent, uint64_t *out) {
  uint64_t v = 1;
  for (uint64_t i = 0; i < exponent; ++i) {
    if (base != 0 && v > UINT64_MAX / base) return -1;
    v *= base;
  }
  *out = v;
  return 0;
}

int pp_parse_count(const char *text, uint64_t *out) {
  const char *p = text;
  uint64_t v, e, offset;
  if (!p || parse_u64(&p, &v)) return -1;
  if (*p == '^' || *p == 'e' || *p == 'E') {
    uint64_t base = *p == '^' ? v : 10, factor = *p == '^' ? 1 : v;
    ++p;
    if (parse_u64(&p, &e) || power(base, e, &v)) return -1;
    if (factor && v > UINT64_MAX / factor) return -1;
    v *= factor;
  }
  if (*p == '+' || *p == '-') {
    char sign = *p++;
    if (parse_u64(&p, &offset)) return -1;
    if (sign == '+' ? v > UINT64_MAX - offset : offset > v) return -1;
    v = sign == '+' ? v + offset : v - offset;
  }
  if (*p != '\0') return -1;
  *out = v;
  return 0;
}

void pp_format_count(uint64_t n, char *out, size_t len) {
  for (int k = 10; k < 64; ++k) {
    uint64_t p = (uint64_t)1 << k;
    int64_t delta = (int64_t)(n - p);
    if (delta >= -16 && delta <= 16) {
      if (delta == 0)
        snprintf(out, len, "%llu (2^%d)", (unsigned long long)n, k);
      else
        snprintf(out, len, "%llu (2^%d%+lld)", (unsigned long long)n, k, (long long)delta);
      return;
    }
  }
  snprintf(out, len, "%llu", (unsigned long long)n);
}

static int parse_int(const char *flag, const char *text, int least, int *out, FILE *err) {
  uint64_t v;
  if (pp_parse_count(text, &v) || v < (uint64_t)least || v > 1000000) {
    fprintf(err, "error: %s needs a whole number from %d to 1000000, got '%s'\n", flag, least, text);
    return PP_EXIT_USAGE;
  }
  *out = (int)v;
  return 0;
}

/* The writers of the JSON report and the verdict add a suffix to the path in a
 * 4096-byte buffer. */
#define OUTPUT_PATH_MAX 4000

/* An output file is written whole next to @p path and renamed into place, so
 * it can be written if its folder exists and is writable and @p path is not a
 * folder. Checked before any work, so that a run is not lost at its end;
 * checking creates nothing. */
static int check_output_path(const char *flag, const char *path, FILE *err) {
  size_t len = strlen(path);
  if (len == 0 || len > OUTPUT_PATH_MAX) {
    fprintf(err, "error: %s needs a file name of 1 to %d characters\n", flag, OUTPUT_PATH_MAX);
    return PP_EXIT_USAGE;
  }
  const char *slash = strrchr(path, '/');
  char *folder = strdup(slash == NULL ? "." : path);
  if (!folder) {
    fprintf(err, "error: out of memory\n");
    return PP_EXIT_USAGE;
  }
  if (slash) folder[slash == path ? 1 : slash - path] = '\0';
  struct stat info;
  int status = PP_EXIT_USAGE;
  if (stat(folder, &info))
    fprintf(err, "error: %s %s: cannot use the folder %s: %s\n", flag, path, folder, strerror(errno));
  else if (!S_ISDIR(info.st_mode))
    fprintf(err, "error: %s %s: %s is not a folder\n", flag, path, folder);
  else if (access(folder, W_OK | X_OK))
    fprintf(err, "error: %s %s: cannot write in the folder %s: %s\n", flag, path, folder, strerror(errno));
  else if (slash == path + len - 1 || (!stat(path, &info) && S_ISDIR(info.st_mode)))
    fprintf(err, "error: %s %s is a folder; give the path of a file\n", flag, path);
  else
    status = 0;
  free(folder);
  return status;
}

static int parse_positive_double(const char *flag, const char *text, double *out, FILE *err) {
  char *end = NULL;
  errno = 0;
  *out = strtod(text, &end);
  if (errno || end == text || *end != '\0' || !(*out > 0.0)) {
    fprintf(err, "error: %s needs a positive number, got '%s'\n", flag, text);
    return PP_EXIT_USAGE;
  }
  return 0;
}

int pp_parse_options(int argc, char **argv, pp_options *opt, FILE *err) {
  memset(opt, 0, sizeof *opt);
  opt->mode = PP_MODE_BENCH;
  opt->seed = PP_DEFAULT_SEED;
  opt->seeds = 3;
  opt->reps = 20;
  opt->warmup = 3;
  opt->timeout_s = 10.0;
  opt->stress_runs = STRESS_RUNS;
  opt->stress_seconds = STRESS_SECONDS;
  const char *stress_option = NULL; /* the last --stress-* given, which needs --stress */
  for (int i = 1; i < argc; ++i) {
    const char *flag = argv[i];
    if (!strcmp(flag, "--")) {
      if (i + 1 >= argc) {
        fprintf(err, "error: -- needs the runner's command after it\n");
        return PP_EXIT_USAGE;
      }
      opt->runner = argv + i + 1;
      break;
    }
    if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) { opt->mode = PP_MODE_HELP; return 0; }
    if (!strcmp(flag, "--grade")) { opt->mode = PP_MODE_GRADE; continue; }
    if (!strcmp(flag, "--stress")) { opt->mode = PP_MODE_STRESS; continue; }
    if (!strcmp(flag, "--list")) { opt->mode = PP_MODE_LIST; continue; }
    if (!strcmp(flag, "--probe")) { opt->mode = PP_MODE_PROBE; continue; }
    if (!strcmp(flag, "--quick")) { opt->quick = 1; continue; }
    if (!strcmp(flag, "--accuracy")) { opt->accuracy = 1; continue; }
    if (!strcmp(flag, "--or-skip")) { opt->or_skip = 1; continue; }
    if (!strcmp(flag, "--no-guards")) { opt->no_guards = 1; continue; }
    if (!strcmp(flag, "--serve")) { opt->mode = PP_MODE_SERVE; continue; }
    static const char *const with_value[] = {"--size",    "--seed",   "--seeds", "--variant",
                                             "--dataset", "--reps",   "--warmup", "--json",
                                             "--min-speedup", "--verdict", "--timeout",
                                             "--max-shared-kib", "--stress-runs", "--stress-seconds"};
    int known = 0;
    for (size_t k = 0; k < sizeof with_value / sizeof *with_value; ++k) known |= !strcmp(flag, with_value[k]);
    if (!known) {
      fprintf(err, "error: unknown option '%s' (try --help)\n", flag);
      return PP_EXIT_USAGE;
    }
    if (i + 1 >= argc) {
      fprintf(err, "error: %s needs a value\n", flag);
      return PP_EXIT_USAGE;
    }
    const char *value = argv[++i];
    int status = 0;
    if (!strcmp(flag, "--size")) {
      opt->size = value;
    } else if (!strcmp(flag, "--seed")) {
      if (pp_parse_count(value, &opt->seed)) {
        fprintf(err, "error: --seed needs a non-negative whole number, got '%s'\n", value);
        status = PP_EXIT_USAGE;
      }
    } else if (!strcmp(flag, "--seeds")) {
      status = parse_int(flag, value, 1, &opt->seeds, err);
    } else if (!strcmp(flag, "--reps")) {
      status = parse_int(flag, value, 1, &opt->reps, err);
    } else if (!strcmp(flag, "--warmup")) {
      status = parse_int(flag, value, 0, &opt->warmup, err);
    } else if (!strcmp(flag, "--max-shared-kib")) {
      status = parse_int(flag, value, 1, &opt->max_shared_kib, err);
    } else if (!strcmp(flag, "--stress-runs")) {
      status = parse_int(flag, value, 1, &opt->stress_runs, err);
      stress_option = flag;
    } else if (!strcmp(flag, "--stress-seconds")) {
      status = parse_positive_double(flag, value, &opt->stress_seconds, err);
      if (!status && opt->stress_seconds > STRESS_SECONDS_MAX) {
        fprintf(err, "error: --stress-seconds needs a number of seconds up to %g, got '%s'\n",
                STRESS_SECONDS_MAX, value);
        status = PP_EXIT_USAGE;
      }
      stress_option = flag;
    } else if (!strcmp(flag, "--variant")) {
      opt->variants = value;
    } else if (!strcmp(flag, "--dataset")) {
      opt->dataset = value;
    } else if (!strcmp(flag, "--json")) {
      status = check_output_path(flag, value, err);
      opt->json = value;
    } else if (!strcmp(flag, "--verdict")) {
      status = check_output_path(flag, value, err);
      opt->verdict = value;
    } else {
      status = parse_positive_double(flag, value,
                                     !strcmp(flag, "--timeout") ? &opt->timeout_s : &opt->min_speedup, err);
    }
    if (status) return status;
  }
  if (opt->accuracy && opt->mode != PP_MODE_GRADE) {
    fprintf(err, "error: --accuracy goes with --grade\n");
    return PP_EXIT_USAGE;
  }
  if (stress_option && opt->mode != PP_MODE_STRESS) {
    fprintf(err, "error: %s goes with --stress\n", stress_option);
    return PP_EXIT_USAGE;
  }
  return 0;
}
