#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/cli.h"
#include "pp/device.h"
#include "pp/lab.h"
#include "pp/random.h"
#include "pp/remote.h"
#include "pp/report.h"
#include "pp/timer.h"
#include "share.h"
#include "shared_watch.h"

/* Sizes past this many elements along one dimension fit in no GPU; refusing
 * them early also keeps every byte count far from overflow. */
#define MAX_EXTENT ((uint64_t)1 << 40)
/* Cases that need more device memory than this are graded with one seed. */
#define ONE_SEED_BYTES ((size_t)1 << 30)
/* A variant wrong this many times is settled: its later cases are not run (a
 * wrong loop can take quadratic time at the large sizes), and once every
 * selected variant is settled the remaining sizes are not even allocated. */
#define FAILURES_SHOWN 3
/* A runner timed faster than this multiple of the copy bandwidth (or of the
 * FP32 peak) is not believed: no kernel moves its bytes that fast. */
#define PLAUSIBLE_MARGIN 1.5
/* Failure notes kept for the verdict file. */
#define VERDICT_NOTES 5
/* Empty requests timed for the path's overhead (each well under 0.1 ms), after a few untimed. */
#define NULL_REQUESTS 200
#define NULL_WARMUP 10
/* The path is measured again where its empty requests spread more than this
 * (measure_path()), PATH_TRIES times in all at most. */
#define PATH_QUIET_MS 0.05
#define PATH_TRIES 3
/* Requests that hold the GPU, for the path's cost with work in flight
 * (measure_work_cost()), and the least they hold it. */
#define HOLD_REQUESTS 20
#define HOLD_MIN_MS 0.1
/* What a timed request does beyond an empty one, in the runner, before and
 * after the work its events enclose: two event records and a launch, a few
 * microseconds each on the host. Added to the tamper margin (time_variant()). */
#define TIMED_EXTRA_MS 0.025
/* And a share of the run itself: the GPU's switches between the checker's
 * context and the runner's vary from run to run. A runner that claims up to
 * this much less than it took gains nothing: the checker's time is the one
 * that counts. */
#define TAMPER_SLACK 0.05
/* A timed window's runs (warm-ups and repetitions) take about this long at
 * most (time_window()), and at least MIN_REPS repetitions are timed. */
#define WINDOW_MS 1000.0
#define MIN_REPS 3
/* Sizes --grade draws from the seed (pp_problem::random_max), and the stream
 * of pp_random_bits() they come from, apart from the fills' small streams. */
#define DRAWN_SIZES 16
#define SIZE_STREAM 0x53495a45u

/* A size a sweep checks, and whether it fitted the device memory that was
 * free before the submission's process started (still_fits() says what
 * happens when it no longer does). */
typedef struct planned {
  pp_size size;
  int seeds; /* the most seeds it gets (one above ONE_SEED_BYTES) */
  int dataset; /* the one dataset it is checked on, or ALL_DATASETS */
  int fits;
} planned;
#define ALL_DATASETS (-1)

/* One run of the driver: the lab, its options, its runner when it is the
 * checker (remote.h), and what the verdict file will say. */
typedef struct session {
  const pp_problem *p;
  const pp_options *o;
  pp_runner *runner;
  pp_runner *server; /* the checker itself, --serve: times the library peer (bench()) */
  pp_path path;      /* the checker's measurement of the request path (bench()) */
  double kernel_excess_ms; /* how far the peer's clock ran past its events beyond the overhead:
                            * a real kernel's request costs more than the holding kernel's
                            * (measure_work_cost()); the tamper margin allows it */
  int bench_dataset; /* the dataset the table times */
  int only_dataset;  /* the one dataset --grade checks, or -1 for all */
  planned *plan;     /* the sizes of a sweep, in order */
  int plan_count, plan_capacity;
  int cases;
  double vs_peer, vs_first;
  const char *best;
  char notes[VERDICT_NOTES][512];
  int note_count;
} session;

/* Prints a line after @p word ("FAIL", "skip") and keeps the first few lines,
 * without it, for the verdict file's notes. */
static void report(session *s, const char *word, const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  printf("%s %s\n", word, line);
  if (s->note_count < VERDICT_NOTES)
    snprintf(s->notes[s->note_count++], sizeof *s->notes, "%s", line);
}

int pp_size_parse_1d(const char *text, pp_size *size) {
  uint64_t n;
  if (pp_parse_count(text, &n)) return -1;
  size->dim[0] = n;
  size->dim[1] = size->dim[2] = 1;
  size->rank = 1;
  return 0;
}

void pp_size_format_1d(const pp_size *size, char *out, size_t len) {
  pp_format_count(size->dim[0], out, len);
}

static double gib(size_t bytes) {
  return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/* The index of the dataset called `name`, or -1 (with a message) if none is. */
static int find_dataset(const pp_problem *p, const char *name) {
  for (int d = 0; p->datasets[d]; ++d)
    if (!strcmp(name, p->datasets[d])) return d;
  fprintf(stderr, "error: no dataset '%s' in %s; it has:", name, p->lab);
  for (int d = 0; p->datasets[d]; ++d) fprintf(stderr, " %s", p->datasets[d]);
  fprintf(stderr, "\n");
  return -1;
}

/* Marks the variants named in a comma-separated list; NULL selects all. Every
 * item must name one: an empty one ("", ",", "v1,,v2") would select nothing. */
static int select_variants(const pp_problem *p, const char *list, int *selected) {
  int count = p->variant_count();
  for (int i = 0; i < count; ++i) selected[i] = list == NULL;
  if (!list) return 0;
  char *copy = strdup(list);
  if (!copy) {
    fprintf(stderr, "error: out of memory\n");
    return PP_EXIT_USAGE;
  }
  int status = 0;
  for (char *item = copy, *next; item && !status; item = next) {
    next = strchr(item, ',');
    if (next) *next++ = '\0';
    int found = -1;
    uint64_t number;
    if (!pp_parse_count(item, &number) && number < (uint64_t)count) found = (int)number;
    for (int i = 0; i < count && found < 0; ++i)
      if (!strcmp(item, p->variant(i).name)) found = i;
    if (found >= 0)
      selected[found] = 1;
    else if (*item == '\0')
      fprintf(stderr, "error: --variant '%s' has an empty name: give names or numbers separated by "
                      "commas (see --list)\n", list);
    else
      fprintf(stderr, "error: no variant '%s' in %s (see --list)\n", item, p->lab);
    status = found >= 0 ? 0 : PP_EXIT_USAGE;
  }
  free(copy);
  return status;
}

/* Takes the device's verdict on a launch, as pp_launch_error() or
 * pp_stress_launch() gave it (the error's description already in the
 * verdict's note). Returns 0 if there was no error, 1 if there was. A sticky
 * error leaves the CUDA context unusable, so the run stops there. */
static int error_settled(int error, const char *who, pp_verdict *v) {
  if (!error) return 0;
  v->correct = 0;
  if (error == 2) {
    printf("FAIL %s: %s\nthe CUDA context is lost after this error: stopping\n", who, v->note);
    exit(PP_EXIT_FAIL);
  }
  return 1;
}

/* Reads the device's verdict on the launch just made: error_settled(). */
static int launch_failed(const char *who, pp_verdict *v) {
  return error_settled(pp_launch_error(v->note, sizeof v->note), who, v);
}

/* How a launch went: checked, failed (see the verdict), or stopped at the time limit. */
enum launch_outcome { RAN, FAILED, TIMED_OUT };

/* Runs one variant once here, or in the runner when this is the checker. */
static int launch(session *s, void *state, int variant, int dataset, const char *who, pp_verdict *v) {
  if (!s->runner || variant == PP_PEER) {
    pp_before_variant();
    s->p->launch(state, variant, dataset);
    return launch_failed(who, v) ? FAILED : RAN;
  }
  PP_CHECK(cudaDeviceSynchronize()); /* the poison lands before the runner reads */
  int got = pp_runner_launch(s->runner, variant, dataset, v->note, sizeof v->note);
  return got == -2 ? TIMED_OUT : got ? FAILED : RAN;
}

/* Poisons the outputs, runs one variant once, and judges it. */
static int run_once(session *s, void *state, int variant, int dataset, const char *who, pp_verdict *v) {
  memset(v, 0, sizeof *v);
  s->p->prepare(state);
  int outcome = launch(s, state, variant, dataset, who, v);
  if (outcome == RAN) s->p->check(state, variant, v);
  return outcome;
}

/* Creates the state for @p size; the checker shares its buffers with the runner. */
static void *create_state(session *s, const pp_size *size) {
  if (s->runner) pp_runner_record();
  void *state = s->p->create(size);
  if (s->runner) pp_runner_share(s->runner, size);
  return state;
}

static void destroy_state(session *s, void *state) {
  if (s->runner) pp_runner_unshare(s->runner);
  s->p->destroy(state);
}

/* 1 once every selected variant has failed FAILURES_SHOWN times. */
static int all_settled(const int *selected, const int *failed, int count) {
  for (int v = 0; v < count; ++v)
    if (selected[v] && failed[v] < FAILURES_SHOWN) return 0;
  return 1;
}

/* Parses one of the grader's own sizes; a size it cannot parse is the grader's bug. */
static void parse_lab_size(const pp_problem *p, const char *text, pp_size *size) {
  if (p->parse_size(text, size)) {
    fprintf(stderr, "grader error: size '%s' of %s does not parse\n", text, p->lab);
    exit(PP_EXIT_FAIL);
  }
}

static int same_size(const pp_size *a, const pp_size *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; ++i)
    if (a->dim[i] != b->dim[i]) return 0;
  return 1;
}

/* Adds a size to the sweep's plan; one already there keeps its place and
 * gets the more seeds of the two, and every dataset if the two differ. */
static void plan_add(session *s, const pp_size *size, int seeds, int dataset) {
  for (int k = 0; k < s->plan_count; ++k) {
    if (!same_size(&s->plan[k].size, size)) continue;
    if (seeds > s->plan[k].seeds) s->plan[k].seeds = seeds;
    if (dataset != s->plan[k].dataset) s->plan[k].dataset = ALL_DATASETS;
    return;
  }
  if (s->plan_count == s->plan_capacity) {
    s->plan_capacity = s->plan_capacity ? 2 * s->plan_capacity : 64;
    s->plan = realloc(s->plan, (size_t)s->plan_capacity * sizeof *s->plan);
    if (!s->plan) {
      fprintf(stderr, "error: out of memory\n");
      exit(PP_EXIT_FAIL);
    }
  }
  s->plan[s->plan_count++] = (planned){.size = *size, .seeds = seeds, .dataset = dataset};
}

static void plan_texts(session *s, const char *const *texts, int seeds) {
  for (size_t k = 0; texts && texts[k]; ++k) {
    pp_size size;
    parse_lab_size(s->p, texts[k], &size);
    plan_add(s, &size, seeds, ALL_DATASETS);
  }
}

/* Whether every extent of @p size is within the lab's random_max (a size
 * past it may not be one of the lab's: lab 03's section is at most 2048). */
static int within_random_max(const pp_problem *p, const pp_size *size) {
  pp_size max;
  parse_lab_size(p, p->random_max, &max);
  for (int i = 0; i < size->rank; ++i)
    if (size->dim[i] > max.dim[i]) return 0;
  return 1;
}

/* The number of the lab's datasets. */
static int dataset_count(const pp_problem *p) {
  int n = 0;
  while (p->datasets[n]) ++n;
  return n;
}

/* Each boundary size, and each with one extent moved by 1 to boundary_reach
 * either way (never below 1: every lab lists its empty sizes), one seed and
 * one dataset each, the datasets in turn: a bound off by a few elements is
 * wrong on any data, and the fixed list's sizes check every dataset. */
static void plan_boundaries(session *s) {
  const pp_problem *p = s->p;
  int reach = p->boundary_reach > 0 ? p->boundary_reach : 1, datasets = dataset_count(p), turn = 0;
  for (size_t k = 0; p->boundary_sizes && p->boundary_sizes[k]; ++k) {
    pp_size at;
    parse_lab_size(p, p->boundary_sizes[k], &at);
    plan_add(s, &at, 1, turn++ % datasets);
    for (int i = 0; i < at.rank; ++i)
      for (int d = -reach; d <= reach; ++d) {
        if (d == 0 || (d < 0 && at.dim[i] <= (uint64_t)-d)) continue;
        pp_size near = at;
        near.dim[i] += (uint64_t)(int64_t)d;
        if (within_random_max(p, &near)) plan_add(s, &near, 1, turn++ % datasets);
      }
  }
}

/* DRAWN_SIZES sizes from the seed, one seed and one dataset (drawn too) each: every extent log-uniform in
 * [1, random_max's], drawn again while their product passes random_volume_max,
 * so that thin, tall, deep and odd shapes all come up. The same --seed draws
 * the same sizes, and a failure names its size. */
static void plan_drawn(session *s) {
  const pp_problem *p = s->p;
  pp_size max;
  parse_lab_size(p, p->random_max, &max);
  uint64_t index = 0;
  for (int k = 0; k < DRAWN_SIZES; ++k) {
    pp_size size = max;
    double volume;
    do {
      volume = 1.0;
      for (int i = 0; i < max.rank; ++i) {
        double u = (double)(pp_random_bits(s->o->seed, SIZE_STREAM, index++) >> 11) * 0x1p-53;
        size.dim[i] = (uint64_t)floor(pow((double)max.dim[i] + 1.0, u));
        volume *= (double)size.dim[i];
      }
    } while (p->random_volume_max > 0 && volume > p->random_volume_max);
    int dataset = (int)(pp_random_bits(s->o->seed, SIZE_STREAM, index++) % (uint64_t)dataset_count(p));
    plan_add(s, &size, 1, dataset);
  }
}

/* Decides, before the submission's process starts, which planned sizes fit
 * the device memory free now, and says which do not. */
static void plan_fit(session *s) {
  size_t free_bytes = pp_device_free_bytes();
  for (int k = 0; k < s->plan_count; ++k) {
    planned *pl = &s->plan[k];
    size_t need = s->p->device_bytes(&pl->size);
    pl->fits = need <= free_bytes / 10 * 9;
    if (pl->fits) continue;
    char label[96];
    s->p->format_size(&pl->size, label, sizeof label);
    report(s, "skip", "size %s: GPU too small: needs %.1f GiB of device memory, %.1f GiB free", label,
           gib(need), gib(free_bytes));
  }
}

/* Whether a planned size that fitted at the start still fits: 1 if so. If
 * not, with a runner that is the submission's doing (it alone has run since),
 * and a failure: -1. Without one, other work sharing the GPU took the
 * memory: the size is skipped, 0. */
static int still_fits(session *s, const char *label, size_t need) {
  size_t free_bytes = pp_device_free_bytes();
  if (need <= free_bytes / 10 * 9) return 1;
  if (!s->runner) {
    printf("skip size %s: needs %.1f GiB of device memory, %.1f GiB free now\n", label, gib(need),
           gib(free_bytes));
    return 0;
  }
  report(s, "FAIL", "size %s fitted before the submission's process started (needs %.1f GiB of "
                    "device memory), but only %.1f GiB are free now: memory the submission took "
                    "and kept?", label, gib(need), gib(free_bytes));
  return -1;
}

/* Marks a failed case of every selected variant that is not yet settled. */
static void fail_all(session *s, const int *selected, int *cases, int *failed) {
  for (int v = 0; v < s->p->variant_count(); ++v) {
    if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
    cases[v]++;
    failed[v]++;
    s->cases++;
  }
}

/* Whether a sweep runs planned size k: 1 if so; 0 if it is skipped (counted
 * in *skipped); -1 if it failed every selected variant (still_fits()). */
static int plan_runs(session *s, int k, const int *selected, int *cases, int *failed, int *skipped) {
  char label[96];
  s->p->format_size(&s->plan[k].size, label, sizeof label);
  int fits = s->plan[k].fits ? still_fits(s, label, s->p->device_bytes(&s->plan[k].size)) : 0;
  if (fits == 0) ++*skipped;
  if (fits < 0) fail_all(s, selected, cases, failed);
  return fits;
}

/* The end of a sweep (grade, stress): a line per selected variant, its cases
 * counted in cases[] and failed[] (`how` says how they ran, or is ""), and
 * the status. Checking nothing is no pass. */
static int sweep_end(session *s, const int *selected, const int *cases, const int *failed,
                     int sizes_skipped, const char *how) {
  const pp_problem *p = s->p;
  int status = PP_EXIT_PASS;
  if (s->cases == 0 && sizes_skipped && s->o->or_skip) {
    printf("no size fits in this GPU's memory: skipped\n");
    return PP_EXIT_SKIP;
  }
  if (s->cases == 0) {
    report(s, "FAIL", "no case was checked%s",
                   sizes_skipped ? ": every size was too large for this GPU's memory" : "");
    return PP_EXIT_FAIL;
  }
  for (int v = 0; v < p->variant_count(); ++v) {
    if (!selected[v]) continue;
    const char *name = p->variant(v).name;
    if (failed[v]) {
      printf("FAIL %s: %d of %d cases%s wrong%s\n", name, failed[v], cases[v], how,
             failed[v] >= FAILURES_SHOWN ? "; stopped there" : "");
      status = PP_EXIT_FAIL;
    } else {
      printf("PASS %s: %d cases%s right\n", name, cases[v], how);
    }
  }
  return status;
}

static int grade(session *s, const int *selected) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  int count = p->variant_count(), sizes_skipped = 0;
  int *cases = calloc((size_t)count, sizeof *cases), *failed = calloc((size_t)count, sizeof *failed);
  for (int k = 0; k < s->plan_count && !all_settled(selected, failed, count); ++k) {
    const pp_size size = s->plan[k].size;
    char label[96];
    p->format_size(&size, label, sizeof label);
    size_t need = p->device_bytes(&size);
    if (plan_runs(s, k, selected, cases, failed, &sizes_skipped) <= 0) continue;
    int seeds = need > ONE_SEED_BYTES ? 1 : s->plan[k].seeds;
    void *state = create_state(s, &size);
    for (int j = 0; j < seeds; ++j) {
      uint64_t seed = o->seed + (uint64_t)j;
      for (int d = 0; p->datasets[d]; ++d) {
        if (s->only_dataset >= 0 ? d != s->only_dataset
                                 : s->plan[k].dataset != ALL_DATASETS && d != s->plan[k].dataset)
          continue;
        p->fill(state, seed, d);
        for (int v = 0; v < count; ++v) {
          if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
          const char *name = p->variant(v).name;
          pp_verdict verdict;
          int outcome = run_once(s, state, v, d, name, &verdict);
          cases[v]++;
          s->cases++;
          if (verdict.correct) continue;
          /* A variant that ran out of time would only do so again: settled at once. */
          failed[v] = outcome == TIMED_OUT ? FAILURES_SHOWN : failed[v] + 1;
          report(s, "FAIL", "%s at size %s, seed %llu, data %s: %s", name, label,
                         (unsigned long long)seed, p->datasets[d], verdict.note);
        }
      }
    }
    destroy_state(s, state);
    printf("checked size %s (%d seed%s from %llu)\n", label, seeds, seeds > 1 ? "s" : "",
           (unsigned long long)o->seed);
  }
  int status = sweep_end(s, selected, cases, failed, sizes_skipped, "");
  free(cases);
  free(failed);
  return status;
}

/* --stress (docs/grading.md, "Stress"): without --size, the lab's quick sizes
 * that are not empty (a block or a few), and the STRESS_LARGE largest of its
 * grade sizes that need at most STRESS_EXTRA_BYTES of device memory more than
 * its smallest (a grader counts a fixed allowance in every size): many
 * blocks, several waves of them on any GPU, yet runs short enough for
 * hundreds in a few seconds. */
#define STRESS_EXTRA_BYTES ((size_t)256 << 20)
#define STRESS_LARGE 2

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The sizes --stress runs without --size, into the plan. */
static void plan_stress(session *s) {
  const pp_problem *p = s->p;
  for (size_t k = 0; p->quick_sizes[k]; ++k) {
    pp_size size;
    parse_lab_size(p, p->quick_sizes[k], &size);
    int empty = 0;
    for (int i = 0; i < size.rank; ++i) empty |= size.dim[i] == 0;
    if (!empty) plan_add(s, &size, 1, ALL_DATASETS);
  }
  size_t least = (size_t)-1;
  for (size_t k = 0; p->grade_sizes[k]; ++k) {
    pp_size size;
    parse_lab_size(p, p->grade_sizes[k], &size);
    size_t bytes = p->device_bytes(&size);
    if (bytes < least) least = bytes;
  }
  size_t below = (size_t)-1; /* each pick is the largest still smaller than the last */
  for (int pick = 0; pick < STRESS_LARGE; ++pick) {
    pp_size best;
    size_t best_bytes = 0;
    int found = 0;
    for (size_t k = 0; p->grade_sizes[k]; ++k) {
      pp_size size;
      parse_lab_size(p, p->grade_sizes[k], &size);
      size_t bytes = p->device_bytes(&size);
      if (bytes - least > STRESS_EXTRA_BYTES || bytes >= below || (found && bytes <= best_bytes))
        continue;
      int known = 0;
      for (int j = 0; j < s->plan_count && !known; ++j) known = same_size(&size, &s->plan[j].size);
      if (!known) {
        best = size;
        best_bytes = bytes;
        found = 1;
      }
    }
    if (!found) break;
    plan_add(s, &best, 1, ALL_DATASETS);
    below = best_bytes;
  }
}

/* Runs one variant once beside the interference (stress.h), here or in the
 * runner, and judges it. */
static int stress_once(session *s, void *state, int variant, int dataset, uint64_t seed,
                       const char *who, pp_verdict *v) {
  memset(v, 0, sizeof *v);
  s->p->prepare(state);
  int outcome;
  if (s->runner) {
    PP_CHECK(cudaDeviceSynchronize()); /* the inputs and the poison land before the runner reads */
    int got = pp_runner_stress(s->runner, variant, dataset, seed, v->note, sizeof v->note);
    outcome = got == -2 ? TIMED_OUT : got ? FAILED : RAN;
  } else {
    int error = pp_stress_launch(s->p, state, variant, dataset, seed, v->note, sizeof v->note);
    outcome = error_settled(error, who, v) ? FAILED : RAN;
  }
  if (outcome == RAN) s->p->check(state, variant, v);
  return outcome;
}

/* Many short runs of each variant, each beside the interference and checked:
 * run r goes to size r mod (the number of sizes), with seed --seed + r and
 * the datasets in turn, so that the runs, their inputs and their
 * interference are the same on every GPU; the time limit (--stress-seconds,
 * shared evenly between the sizes) only ends them sooner. */
static int stress(session *s, const int *selected) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  int size_count = s->plan_count;
  int count = p->variant_count(), datasets = 0, sizes_skipped = 0;
  while (p->datasets[datasets]) ++datasets;
  int *runs = calloc((size_t)count, sizeof *runs), *failed = calloc((size_t)count, sizeof *failed);
  int *before = calloc((size_t)count, sizeof *before);
  double share = size_count ? o->stress_seconds / size_count : 0.0;
  printf("stress: %d size%s; at most %d runs and %g s per variant, each run beside a kernel that "
         "keeps the GPU busy\n",
         size_count, size_count > 1 ? "s" : "", o->stress_runs, o->stress_seconds);
  for (int k = 0; k < size_count && !all_settled(selected, failed, count); ++k) {
    const pp_size size = s->plan[k].size;
    char label[96];
    p->format_size(&size, label, sizeof label);
    if (plan_runs(s, k, selected, runs, failed, &sizes_skipped) <= 0) continue;
    void *state = create_state(s, &size);
    memcpy(before, runs, (size_t)count * sizeof *runs);
    for (int v = 0; v < count; ++v) {
      if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
      const char *name = p->variant(v).name;
      double start = seconds_now();
      for (int r = k; r < o->stress_runs && failed[v] < FAILURES_SHOWN; r += size_count) {
        if (runs[v] > before[v] && seconds_now() - start >= share) break;
        uint64_t seed = o->seed + (uint64_t)r;
        int d = s->only_dataset >= 0 ? s->only_dataset : r / size_count % datasets;
        p->fill(state, seed, d);
        pp_verdict verdict;
        int outcome = stress_once(s, state, v, d, seed, name, &verdict);
        runs[v]++;
        s->cases++;
        if (verdict.correct) continue;
        /* A variant that ran out of time would only do so again: settled at once. */
        failed[v] = outcome == TIMED_OUT ? FAILURES_SHOWN : failed[v] + 1;
        report(s, "FAIL", "%s under stress, run %d at size %s, seed %llu, data %s: %s", name, r,
                       label, (unsigned long long)seed, p->datasets[d], verdict.note);
      }
    }
    destroy_state(s, state);
    printf("stressed size %s:", label);
    for (int v = 0; v < count; ++v)
      if (runs[v] > before[v]) printf(" %s %d run%s", p->variant(v).name, runs[v] - before[v],
                                      runs[v] - before[v] > 1 ? "s" : "");
    printf("\n");
  }
  int status = sweep_end(s, selected, runs, failed, sizes_skipped, " under stress");
  free(runs);
  free(failed);
  free(before);
  return status;
}

typedef struct cpu_job {
  const pp_problem *problem;
  void *state;
} cpu_job;

static void cpu_run(void *ctx) {
  cpu_job *job = ctx;
  job->problem->cpu_reference(job->state);
}

/* A fresh 64-bit seed from the operating system: nothing the runner has seen
 * (earlier seeds, earlier inputs) tells what it will be. */
static uint64_t os_seed(void) {
  uint64_t seed;
  if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
    perror("error: cannot draw a seed from the operating system");
    exit(PP_EXIT_USAGE);
  }
  return seed;
}

/* Times one launch. In the student's own run, with CUDA events here. In the
 * checker, with its own clock around the request to the process that runs it
 * (the runner, or the server for the library peer; remote.h), less the
 * path's overhead: *event gets the runner's own event time, a cross-check. */
static int time_once(session *s, void *state, int variant, double *ms, double *event, pp_verdict *v) {
  if (!s->runner) {
    *ms = *event = pp_time_launch(s->p, state, variant, s->bench_dataset, 1);
    return launch_failed("timing", v) ? FAILED : RAN;
  }
  pp_runner *path = variant == PP_PEER ? s->server : s->runner;
  double wall = 0.0;
  int got = pp_runner_time(path, variant, s->bench_dataset, &wall, event, v->note, sizeof v->note);
  *ms = wall - s->path.overhead_ms;
  return got == -2 ? TIMED_OUT : got ? FAILED : RAN;
}

/* Runs --warmup and --reps repetitions of a variant, each on new inputs
 * (filled, untimed, before it) and each checked after it: a wrong answer at
 * any repetition fails the variant. In the checker each repetition's seed is
 * drawn from the operating system after the previous reply, so no input can
 * be foreseen; a failure names its seed (--seed reproduces it). There a
 * variant whose first warm-up took longer than WINDOW_MS over the window's
 * runs is warm after it and timed *reps times, fewer (MIN_REPS at least): lab
 * 05's v0 spent 3.6 s of its timed test's 10 on 12 runs of 275 ms. ms[r] gets
 * each timed repetition's time, gap[r] that time less the runner's own event
 * time. Returns 0, or 1 with the verdict saying why. */
static int time_window(session *s, void *state, int variant, double *ms, double *gap, int *reps,
                       pp_verdict *v) {
  const pp_options *o = s->o;
  int status = 0;
  for (int r = -o->warmup; r < *reps && !status; ++r) {
    /* A new input every time: a variant that keeps an earlier answer and
     * replays it when the input looks unchanged is wrong, not fast. */
    uint64_t seed = s->runner ? os_seed() : o->seed + 1 + (uint64_t)(r + o->warmup);
    s->p->fill(state, seed, s->bench_dataset);
    s->p->prepare(state);
    memset(v, 0, sizeof *v);
    double elapsed = 0.0, event = 0.0;
    status = time_once(s, state, variant, &elapsed, &event, v) != RAN;
    if (!status) {
      s->p->check(state, variant, v);
      status = !v->correct;
    }
    if (status) {
      char why[160]; /* the check's note, cut to leave room for where it happened */
      snprintf(why, sizeof why, "%.159s", v->note);
      snprintf(v->note, sizeof v->note, "%s repetition %d (seed %llu, data %s): %s",
               r < 0 ? "warm-up" : "timed", r < 0 ? r + o->warmup + 1 : r + 1,
               (unsigned long long)seed, s->p->datasets[s->bench_dataset], why);
      v->correct = 0;
    } else if (r >= 0) {
      ms[r] = elapsed;
      gap[r] = elapsed - event;
    } else if (s->runner && r == -o->warmup && elapsed * (o->warmup + *reps) > WINDOW_MS) {
      int fit = (int)(WINDOW_MS / elapsed);
      *reps = fit < MIN_REPS ? MIN_REPS : fit < *reps ? fit : *reps;
      r = -1; /* warm: the timed repetitions next */
    }
  }
  return status;
}

/* How far the runner's events may fall short of the checker's clock in a run
 * of median_ms: beyond the path's overhead (already taken off) only
 * TIMED_EXTRA_MS, what a real kernel's request costs more than the holding
 * kernel's (the trusted peer's), the path's jitter and TAMPER_SLACK separate
 * them. */
static double gap_allowed(const session *s, double median_ms) {
  return TIMED_EXTRA_MS + s->kernel_excess_ms + 3.0 * s->path.spread_ms + TAMPER_SLACK * median_ms;
}

/* Times a variant (time_window()); in the checker, *gap_ms gets the median of
 * its times less the runner's own event times. Returns 0, or 1 with the
 * verdict saying why. */
static int time_variant(session *s, void *state, int variant, pp_timing *t, double *gap_ms,
                        pp_verdict *v) {
  const pp_options *o = s->o;
  /* Room for two windows: the second is used where the first was disturbed. */
  double *ms = malloc(2 * (size_t)o->reps * sizeof *ms);
  double *gap = malloc(2 * (size_t)o->reps * sizeof *gap);
  int reps = o->reps;
  int status = time_window(s, state, variant, ms, gap, &reps, v);
  /* A window whose median repetition ran past its events by more than is
   * allowed was slowed outside the kernel, on the path (on an H100, all ten
   * repetitions of one honest variant ran 0.12 to 0.5 ms past their events,
   * and no other variant's did), or its events lie. Either way it is timed
   * once more, on new inputs, and the window with the smaller median gap
   * counts: a disturbance passes, a lie shows in both (below). */
  if (!status && s->runner && variant != PP_PEER) {
    /* pp_median() sorts: only each window's values count, not their order. */
    double first_gap = pp_median(gap, reps);
    double allowed = gap_allowed(s, pp_median(ms, reps));
    if (first_gap > allowed) {
      double *ms2 = ms + o->reps, *gap2 = gap + o->reps;
      int reps2 = reps;
      printf("%s: timed again: its repetitions ran a median %.4f ms past its own events, more "
             "than the %.4f ms allowed\n",
             s->p->variant(variant).name, first_gap, allowed);
      status = time_window(s, state, variant, ms2, gap2, &reps2, v);
      if (!status && pp_median(gap2, reps2) < first_gap) {
        reps = reps2;
        memcpy(ms, ms2, (size_t)reps * sizeof *ms);
        memcpy(gap, gap2, (size_t)reps * sizeof *gap);
      }
    }
  }
  if (!status) *t = pp_timing_summary(ms, reps);
  double least_gap = 0.0;
  if (!status && s->runner) {
    *gap_ms = pp_median(gap, reps); /* sorts */
    least_gap = gap[0];
  }
  /* The runner's events enclose less than the checker's clock, never more. A
   * clock the submission's process changed (its events, or its clock) falls
   * short in every repetition; a disturbance in some only (on an H100, half
   * the repetitions of two honest variants ran 0.4 to 0.6 ms past their
   * events, the peer's times spread as widely; docs/grading.md). So the
   * least gap judges. */
  double margin = 0.0;
  if (!status) margin = gap_allowed(s, t->median_ms);
  if (!status && s->runner && variant != PP_PEER && least_gap > margin) {
    snprintf(v->note, sizeof v->note,
             "timing tampered with: the submission's process timed every run at least %.4f ms "
             "shorter than the checker measured, path overhead of %.4f ms taken off; more than "
             "the %.4f ms allowed",
             least_gap, s->path.overhead_ms, margin);
    v->correct = 0;
    status = 1;
  }
  free(ms);
  free(gap);
  return status;
}

/* Checks a variant once on the table's inputs, then times it on new inputs,
 * checking every repetition. */
static void measure(session *s, void *state, int variant, pp_result *r) {
  pp_verdict v;
  s->p->fill(state, s->o->seed, s->bench_dataset);
  run_once(s, state, variant, s->bench_dataset, r->name, &v);
  int checked = v.correct;
  r->event_gap_ms = NAN; /* set where the checker timed it */
  if (checked) r->ran = !time_variant(s, state, variant, &r->time, &r->event_gap_ms, &v);
  r->correct = v.correct;
  r->rel_error = v.rel_error;
  r->bound_ratio = v.bound_ratio;
  if (snprintf(r->note, sizeof r->note, "%s%s", checked && !v.correct ? "while timing, " : "",
               v.note) >= (int)sizeof r->note)
    r->note[sizeof r->note - 2] = '~'; /* mark the cut */
}

/* The median of NULL_REQUESTS empty requests to @p path (pp_runner_null()),
 * timed as every timed request is; *spread_ms gets their 90th percentile less
 * their 10th. Returns 0, or -1 with @p note saying why. */
static int time_empty_requests(pp_runner *path, double *median_ms, double *spread_ms, char *note,
                               size_t len) {
  double samples[NULL_REQUESTS];
  for (int i = -NULL_WARMUP; i < NULL_REQUESTS; ++i) {
    double wall = 0.0;
    if (pp_runner_null(path, &wall, note, len)) return -1;
    if (i >= 0) samples[i] = wall;
  }
  pp_timing t = pp_timing_summary(samples, NULL_REQUESTS); /* sorts */
  *median_ms = t.median_ms;
  *spread_ms = samples[NULL_REQUESTS * 9 / 10] - samples[NULL_REQUESTS / 10];
  return 0;
}

/* The checker's request path: empty requests to the server. Their median is
 * taken off every time, the peer's and the variants': a constant of the path,
 * not of the work, which would otherwise pull every ratio toward 1 and hide
 * the bytes-per-second the plausibility floor judges. It is measured on the
 * trusted server, never the submission's runner, so a runner that made its
 * own empty requests slow could not make its kernels look faster. Returns 0,
 * or -1 with a message (the grading's failure, not the submission's). */
static int measure_path(session *s) {
  char note[256];
  /* A spread past PATH_QUIET_MS means the machine was busy while the path was
   * measured (on an H100, 0.26 ms in one grading against 0.007-0.03 ms in the
   * others): its median is less sure, and the cross-check allows three
   * spreads. So it is measured again, PATH_TRIES times at most, and the
   * quietest counts. */
  for (int tries = 0; tries < PATH_TRIES; ++tries) {
    double median = 0.0, spread = 0.0;
    if (time_empty_requests(s->server, &median, &spread, note, sizeof note)) {
      printf("error: the checker's own server (its library peer's timer) failed: %s\n", note);
      return -1;
    }
    if (tries == 0 || spread < s->path.spread_ms) {
      s->path.empty_ms = median;
      s->path.spread_ms = spread;
    }
    if (s->path.spread_ms <= PATH_QUIET_MS) break;
    printf("path: its empty requests spread %.4f ms, more than %.4f ms: %s\n", spread, PATH_QUIET_MS,
           tries + 1 < PATH_TRIES ? "timed again" : "the quietest of the tries counts");
  }
  s->path.overhead_ms = s->path.empty_ms;
  s->path.work_ms = s->path.hold_ms = NAN; /* until measure_work_cost(): the peer may not run */
  s->path.requests = NULL_REQUESTS;
  return 0;
}

/* The same empty requests to the submission's runner, for the report only:
 * where the runner's path costs other than the server's, the ratios carry the
 * difference (its sandbox, its process). A runner that fails them fails its
 * first timed request too, which says why; here it only leaves the figure
 * out. */
static void measure_runner_path(session *s) {
  double spread = 0.0;
  char note[256];
  if (time_empty_requests(s->runner, &s->path.runner_empty_ms, &spread, note, sizeof note))
    s->path.runner_empty_ms = NAN;
}

/* A request with work in flight costs the path more than an empty one, for
 * the peer and the variants alike; left in, it pulls every ratio toward 1. The
 * checker's server measures it: HOLD_REQUESTS requests whose kernel, the
 * harness's own, holds the GPU as long as the peer's events did, each timed as
 * a variant is. The median of their clock less the empty requests' and their
 * events joins the overhead taken off every time, the peer's too, which was
 * timed before it was known. Not the peer's own clock less its events: on one
 * H100 that moved from 0.03 to 0.44 ms between gradings (cuBLAS sdot), while
 * the variants' stayed within 0.02 to 0.06 ms. Returns 0, or -1 with a
 * message. */
static int measure_work_cost(session *s, pp_result *peer) {
  double hold_ms = peer->time.median_ms - peer->event_gap_ms; /* about its events' median */
  if (!(hold_ms > HOLD_MIN_MS)) hold_ms = HOLD_MIN_MS;
  double extra[HOLD_REQUESTS];
  char note[256];
  for (int i = -NULL_WARMUP; i < HOLD_REQUESTS; ++i) {
    double wall = 0.0, event = 0.0;
    if (pp_runner_hold(s->server, hold_ms, &wall, &event, note, sizeof note)) {
      printf("error: the checker's own server failed to hold the GPU: %s\n", note);
      return -1;
    }
    if (i >= 0) extra[i] = wall - s->path.empty_ms - event;
  }
  double work = pp_median(extra, HOLD_REQUESTS); /* sorts */
  s->path.hold_ms = hold_ms;
  s->path.work_ms = work;
  s->path.overhead_ms += work;
  peer->time.median_ms -= work;
  peer->time.min_ms -= work;
  peer->time.max_ms -= work;
  peer->event_gap_ms -= work;
  s->kernel_excess_ms = peer->event_gap_ms > 0.0 ? peer->event_gap_ms : 0.0;
  return 0;
}

/* The checker's library peer: the checker itself, started again as a server
 * (/proc/self/exe --serve: the instructor's code, no student's), shares the
 * state's buffers and times the peer through the same path as the runner
 * times the variants, with the path's overhead measured first. It runs
 * before the runner has started (the runner starts with its first request),
 * so no student code is on the GPU while the peer is timed; it quits after. */
static int measure_peer(session *s, void *state, const pp_size *size, pp_result *r) {
  static char *const self[] = {"/proc/self/exe", NULL};
  s->server = pp_runner_new(s->p, self, s->o->timeout_s, "checker's server");
  pp_runner_share(s->server, size);
  int status = measure_path(s);
  if (!status) measure(s, state, PP_PEER, r);
  if (!status && r->ran && isfinite(r->event_gap_ms)) status = measure_work_cost(s, r);
  pp_runner_unshare(s->server);
  if (pp_runner_stop(s->server, stdout) && !status) {
    printf("error: the checker's own server did not end cleanly\n");
    status = -1;
  }
  s->server = NULL;
  return status;
}

/* The checker does not believe a runner that reports a time no kernel could
 * reach: the bytes at PLAUSIBLE_MARGIN times the copy bandwidth, or the
 * flops at that margin over an FP32 peak counted generously (128 lanes per SM). */
static void check_plausible(const pp_report *report, const pp_device *dev, pp_result *r) {
  double floor_ms = report->bytes / (PLAUSIBLE_MARGIN * report->copy_gbps * 1e9) * 1e3;
  if (report->flops > 0) {
    double peak = 2.0 * 128.0 * dev->sm_count * dev->clock_khz * 1e3;
    double flops_floor_ms = report->flops / (PLAUSIBLE_MARGIN * peak) * 1e3;
    floor_ms = flops_floor_ms < floor_ms ? floor_ms : flops_floor_ms;
  }
  if (!r->ran || r->time.median_ms >= floor_ms) return;
  r->correct = 0;
  snprintf(r->note, sizeof r->note, "reported %.4f ms, faster than this GPU can do the work (%.4f ms): not believed",
           r->time.median_ms, floor_ms);
}

static int bench(session *s, const int *selected, const pp_device *dev, const pp_size *size) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  int count = p->variant_count();
  pp_report report;
  memset(&report, 0, sizeof report);
  report.lab = p->lab;
  report.title = p->title;
  p->format_size(size, report.size, sizeof report.size);
  report.seed = o->seed;
  report.dataset = p->datasets[s->bench_dataset];
  report.reps = o->reps;
  report.warmup = o->warmup;
  report.device = dev;
  report.bytes = p->bytes_moved(size);
  report.flops = p->flops ? p->flops(size) : 0.0;

  size_t copy_bytes = pp_device_free_bytes() / 4;
  if (copy_bytes > ((size_t)1 << 29)) copy_bytes = (size_t)1 << 29;
  report.copy_gbps = pp_device_copy_gbps(copy_bytes);

  void *state = create_state(s, size);
  p->fill(state, o->seed, s->bench_dataset);

  report.cpu = (pp_result){.name = "CPU reference", .what = "the grader's reference on one core",
                           .index = -1, .correct = 1, .event_gap_ms = NAN};
  /* The checker (grading) scores the variants against the library peer and
   * variant 0 only: it skips the CPU's three timed runs (seconds at 2^28),
   * and its row reads "not run". */
  if (!s->runner) {
    if (p->cpu_prepare) p->cpu_prepare(state);
    cpu_job cpu = {p, state};
    report.cpu.ran = 1;
    report.cpu.time = pp_time_host(cpu_run, &cpu, 3);
  }

  report.peer = (pp_result){.name = p->peer_name, .what = "the library peer", .index = -1};
  if (!s->runner) {
    measure(s, state, PP_PEER, &report.peer);
  } else if (measure_peer(s, state, size, &report.peer)) {
    destroy_state(s, state);
    return PP_EXIT_USAGE;
  }
  if (s->runner) measure_runner_path(s);
  report.path = s->path;

  report.variants = calloc((size_t)count, sizeof *report.variants);
  const pp_result *best = NULL;
  for (int v = 0; v < count; ++v) {
    if (!selected[v]) continue;
    pp_result *r = &report.variants[report.count++];
    pp_variant_info info = p->variant(v);
    r->name = info.name;
    r->what = info.what;
    r->index = v;
    measure(s, state, v, r);
    if (s->runner) check_plausible(&report, dev, r);
    if (r->correct && r->ran && (!best || r->time.median_ms < best->time.median_ms)) best = r;
  }
  destroy_state(s, state);

  pp_report_print(stdout, &report);
  int status = report.peer.correct ? PP_EXIT_PASS : PP_EXIT_FAIL;
  for (int i = 0; i < report.count; ++i)
    if (!report.variants[i].correct) {
      status = PP_EXIT_FAIL;
      if (s->note_count < VERDICT_NOTES)
        snprintf(s->notes[s->note_count++], sizeof *s->notes, "%.100s: %.255s", report.variants[i].name,
                 report.variants[i].note);
    }
  const pp_result *first = report.count ? &report.variants[0] : NULL;
  if (best) {
    s->best = best->name;
    if (report.peer.ran) s->vs_peer = report.peer.time.median_ms / best->time.median_ms;
    if (first->ran) s->vs_first = first->time.median_ms / best->time.median_ms;
  }
  if (o->min_speedup > 0 && first) {
    const pp_result *last = &report.variants[report.count - 1];
    double speedup = first->ran && last->ran ? first->time.median_ms / last->time.median_ms : 0.0;
    printf("%s %s is %.2fx %s; the grader asks for at least %.2fx\n",
           speedup >= o->min_speedup ? "PASS" : "FAIL", last->name, speedup, first->name,
           o->min_speedup);
    if (speedup < o->min_speedup) status = PP_EXIT_FAIL;
  }
  if (o->json && pp_report_write_json(&report, o->json)) status = PP_EXIT_FAIL;
  free(report.variants);
  return status;
}

/* Writes the verdict for grading/grade: "key value" lines, renamed into place
 * whole so that a half-written file is never read. */
static void write_verdict(const session *s, int status) {
  if (!s->o->verdict) return;
  const char *word = status == PP_EXIT_PASS   ? "pass"
                     : status == PP_EXIT_FAIL ? "fail"
                     : status == PP_EXIT_SKIP ? "skip"
                                              : "error";
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.part", s->o->verdict);
  FILE *f = fopen(temporary, "w");
  if (!f) {
    fprintf(stderr, "error: cannot write %s\n", temporary);
    return;
  }
  fprintf(f, "status %s\n", word);
  if (status != PP_EXIT_SKIP) fprintf(f, "seed %llu\n", (unsigned long long)s->o->seed);
  if (s->cases) fprintf(f, "cases %d\n", s->cases);
  if (s->best) fprintf(f, "best %s\n", s->best);
  if (s->vs_peer > 0) fprintf(f, "vs_peer %.4f\n", s->vs_peer);
  if (s->vs_first > 0) fprintf(f, "vs_first %.4f\n", s->vs_first);
  if (s->path.requests) fprintf(f, "overhead_ms %.4f\n", s->path.overhead_ms);
  for (int i = 0; i < s->note_count; ++i) {
    fputs("note ", f);
    for (const char *c = s->notes[i]; *c; ++c) fputc(*c == '\n' ? ' ' : *c, f);
    fputc('\n', f);
  }
  if (fclose(f) || rename(temporary, s->o->verdict))
    fprintf(stderr, "error: cannot write %s\n", s->o->verdict);
}

/* Calls @p each with every item of --size's comma-separated list and the
 * size it parses to (NULL if it is no size of the lab); stops at the first
 * call that returns nonzero, and returns that. */
static int for_each_given(const pp_problem *p, const char *list,
                          int (*each)(void *, const char *, const pp_size *), void *ctx) {
  char item[128];
  for (const char *at = list;; ++at) {
    const char *end = strchr(at, ',');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), at);
    pp_size size;
    int parsed = len < sizeof item && !p->parse_size(item, &size);
    int status = each(ctx, item, parsed ? &size : NULL);
    if (status || !end) return status;
    at = end;
  }
}

/* Refuses a --size item that is no size of the lab, or that no GPU can hold. */
static int check_given(void *ctx, const char *text, const pp_size *size) {
  const pp_problem *p = ctx;
  if (!size) {
    fprintf(stderr, "error: '%s' is not a size for %s (for example: %s)\n", text, p->lab,
            p->bench_size);
    return PP_EXIT_USAGE;
  }
  for (int i = 0; i < size->rank; ++i) {
    if (size->dim[i] > MAX_EXTENT) {
      fprintf(stderr, "error: size '%s' is larger than any GPU can hold\n", text);
      return PP_EXIT_USAGE;
    }
  }
  return 0;
}

static int plan_given(void *ctx, const char *text, const pp_size *size) {
  session *s = ctx;
  (void)text; /* pp_main() checked every item */
  plan_add(s, size, s->o->quick ? 1 : s->o->seeds, ALL_DATASETS);
  return 0;
}

/* The sizes of a sweep, in order: --size's; or for --stress its own; for
 * --quick the lab's quick sizes; else the lab's list, its boundaries and
 * sizes drawn from the seed. */
static void plan_sweep(session *s) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  if (o->size) {
    for_each_given(p, o->size, plan_given, s);
  } else if (o->mode == PP_MODE_STRESS) {
    plan_stress(s);
  } else if (o->quick) {
    plan_texts(s, p->quick_sizes, 1);
  } else {
    plan_texts(s, p->grade_sizes, o->seeds);
    int listed = s->plan_count;
    plan_boundaries(s);
    int boundaries = s->plan_count - listed;
    if (p->random_max) plan_drawn(s);
    printf("sizes: %d listed, %d more at the launchers' boundaries, %d drawn from seed %llu\n",
           listed, boundaries, s->plan_count - listed - boundaries, (unsigned long long)o->seed);
  }
}

/* Everything after the command line is parsed and the device is open. */
static int run(session *s, const int *selected, const pp_device *dev, const pp_size *size) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  if (o->mode != PP_MODE_BENCH) {
    plan_sweep(s);
    plan_fit(s);
    for (int k = 0; k < s->plan_count && o->size && !o->or_skip; ++k)
      if (!s->plan[k].fits) {
        fprintf(stderr, "error: a --size is too large for %s's memory; choose a smaller one, or "
                        "add --or-skip\n", dev->name);
        return PP_EXIT_USAGE;
      }
  } else {
    size_t need = p->device_bytes(size), free_bytes = pp_device_free_bytes();
    if (need > free_bytes) {
      char label[96];
      p->format_size(size, label, sizeof label);
      if (o->or_skip) {
        printf("size %s needs %.2f GiB of device memory, %.2f GiB free: skipped\n", label,
               gib(need), gib(free_bytes));
        return PP_EXIT_SKIP;
      }
      fprintf(stderr, "error: size %s needs %.2f GiB of device memory; %s has %.2f GiB free\n",
              label, gib(need), dev->name, gib(free_bytes));
      fprintf(stderr, "       choose a smaller one with --size\n");
      return PP_EXIT_USAGE;
    }
  }
  printf("%s on %s; seed %llu (--seed to change)%s\n", p->lab, dev->name,
         (unsigned long long)o->seed, o->runner ? "; variants run by the submission's process" : "");
  if (o->runner) s->runner = pp_runner_new(p, o->runner, o->timeout_s, "submission");
  int status = o->mode == PP_MODE_GRADE    ? grade(s, selected)
               : o->mode == PP_MODE_STRESS ? stress(s, selected)
                                           : bench(s, selected, dev, size);
  if (pp_runner_stop(s->runner, stdout)) {
    status = PP_EXIT_FAIL;
    report(s, "FAIL", "the submission's process did not end cleanly (see its output above)");
  }
  return status;
}

/* The hardware work queues of this process's CUDA context, set before its
 * first CUDA call. A sweep or a probe uses one stream at a time, and gets one
 * queue rather than CUDA's 8: side by side in a grading, the driver creates
 * and ends the tests' contexts one at a time, and with one queue each costs
 * about a third as much (docs/results/grading.md). A stress run needs two
 * streams at once (the interference beside the variant), and a timed run
 * keeps the setting its tables were measured with: both get CUDA's default.
 * A runner inherits its checker's choice (grading/sandbox passes it on). */
static void choose_work_queues(pp_mode mode) {
  if (mode == PP_MODE_GRADE || mode == PP_MODE_PROBE)
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
  else if (mode != PP_MODE_SERVE)
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

int pp_main(const pp_problem *p, int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pp_options o;
  int status = pp_parse_options(argc, argv, &o, stderr);
  if (status) return status;
  if (o.mode == PP_MODE_HELP) {
    pp_print_usage(stdout, argv[0]);
    return PP_EXIT_PASS;
  }
  choose_work_queues(o.mode);
  if (o.no_guards) pp_buffer_guards(0);
  if (o.max_shared_kib) pp_cap_shared_memory(o.max_shared_kib * 1024);
  pp_set_shared_poison(!o.quick);
  int count = p->variant_count();
  int *selected = calloc((size_t)(count > 0 ? count : 1), sizeof *selected);
  if (select_variants(p, o.variants, selected)) return PP_EXIT_USAGE;
  int only_dataset = o.dataset ? find_dataset(p, o.dataset) : -1;
  if (o.dataset && only_dataset < 0) return PP_EXIT_USAGE;
  if (o.mode == PP_MODE_LIST) {
    for (int i = 0; i < count; ++i) printf("%d  %-18s %s\n", i, p->variant(i).name, p->variant(i).what);
    printf("datasets:");
    for (int d = 0; p->datasets[d]; ++d) printf(" %s%s", p->datasets[d], d == p->bench_dataset ? " (timed)" : "");
    printf("\n");
    return PP_EXIT_PASS;
  }
  /* The size the table times; --grade and --stress take a list. */
  pp_size size = {.rank = 0};
  const char *size_text = o.size ? o.size : p->bench_size;
  int sweep = o.mode == PP_MODE_GRADE || o.mode == PP_MODE_STRESS;
  if (!sweep && strchr(size_text, ',')) {
    fprintf(stderr, "error: --size '%s': the table times one size; a list is for --grade and "
                    "--stress\n", size_text);
    return PP_EXIT_USAGE;
  }
  status = for_each_given(p, size_text, check_given, (void *)p);
  if (status) return status;
  if (!sweep) p->parse_size(size_text, &size);
  session s = {.p = p,
               .o = &o,
               .bench_dataset = only_dataset >= 0 ? only_dataset : p->bench_dataset,
               .only_dataset = only_dataset};
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    status = PP_EXIT_SKIP;
  } else if (o.mode != PP_MODE_PROBE) {
    pp_device dev;
    pp_device_open(&dev);
    /* The process that runs the variants checks their launches (a runner: on the checker's word). */
    if (o.max_shared_kib && !o.runner) pp_shared_watch(o.max_shared_kib * 1024);
    status = o.mode == PP_MODE_SERVE ? pp_serve(p) : run(&s, selected, &dev, &size);
  }
  write_verdict(&s, status);
  free(s.plan);
  free(selected);
  return status;
}
