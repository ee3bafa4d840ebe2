/* The sweeps: --grade (the grader's sizes, seeds and datasets) and --stress
 * (many short runs beside an interfering kernel), every case checked. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "protocol.h"
#include "session.h"
#include "share.h"

/* Cases that need more device memory than this are graded with one seed. */
#define ONE_SEED_BYTES ((size_t)1 << 30)
/* A variant's launches at the size a sweep is at: how many ran, and the
 * device memory those after the first kept (s->kept). */
typedef struct kept_here {
  int runs;
  long long bytes;
} kept_here;

/* Whether the launch just made, with those before it at this size, kept
 * device memory that a launch may not: its first at a size may allocate and
 * keep a workspace (made once, or grown for a larger size), but the later
 * ones at the same size need nothing more. Memory allocated on every call
 * and never freed fails here, once, with @p v saying so. */
static int kept_too_much(const session *s, kept_here *k, pp_verdict *v) {
  if (k->runs++ == 0) return 0;
  long long before = k->bytes;
  k->bytes += s->kept;
  if (before > 0 || k->bytes <= 0) return 0;
  v->correct = 0;
  snprintf(v->note, sizeof v->note,
           "call %d at this size kept %lld more bytes of device memory than the one before: "
           "memory allocated on every call and never freed (free it in the call, or allocate it "
           "once and keep it)",
           k->runs, k->bytes);
  return 1;
}

/* 1 once every selected variant has failed FAILURES_SHOWN times. */
static int all_settled(const int *selected, const int *failed, int count) {
  for (int v = 0; v < count; ++v)
    if (selected[v] && failed[v] < FAILURES_SHOWN) return 0;
  return 1;
}

/* Whether a planned size that fitted at the start still fits: 1 if so. If
 * not, with a runner that is a failure, -1: only the submission has run in
 * this test since (other tests may share the GPU). Without one, other work
 * sharing the GPU took the memory: the size is skipped, 0. */
static int still_fits(session *s, const char *label, size_t need) {
  size_t free_bytes = pp_device_free_bytes();
  if (need <= free_bytes / 10 * 9) return 1;
  if (!s->runner) {
    printf("skip size %s: needs %.1f GiB of device memory, %.1f GiB free now\n", label, pp_gib(need),
           pp_gib(free_bytes));
    return 0;
  }
  /* Other tests beside this one may hold it too: the verdict says so, and a
   * grading runs this test again alone. */
  s->contended = 1;
  pp_session_say(s, "FAIL",
                 "size %s fitted before the submission's process started (needs %.1f GiB of "
                 "device memory), but only %.1f GiB are free now: memory the submission took "
                 "and kept, or other work on the GPU?",
                 label, pp_gib(need), pp_gib(free_bytes));
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
    pp_session_say(s, "FAIL", "no case was checked%s",
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

int pp_grade(session *s, const int *selected) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  int count = p->variant_count(), sizes_skipped = 0, rotated = pp_dataset_count(p);
  int *cases = calloc((size_t)count, sizeof *cases), *failed = calloc((size_t)count, sizeof *failed);
  kept_here *kept = calloc((size_t)count, sizeof *kept);
  double *took = calloc((size_t)count, sizeof *took); /* each variant's seconds at this size */
  for (int k = 0; k < s->plan_count && !all_settled(selected, failed, count); ++k) {
    const pp_size size = s->plan[k].size;
    char label[96];
    p->format_size(&size, label, sizeof label);
    size_t need = p->device_bytes(&size);
    if (plan_runs(s, k, selected, cases, failed, &sizes_skipped) <= 0) continue;
    memset(kept, 0, (size_t)count * sizeof *kept);
    memset(took, 0, (size_t)count * sizeof *took);
    double began = pp_now_s();
    int seeds = need > ONE_SEED_BYTES ? 1 : s->plan[k].seeds;
    void *state = pp_state_create(s, &size);
    for (int j = 0; j < seeds; ++j) {
      uint64_t seed = o->seed + (uint64_t)j;
      for (int d = 0; p->datasets[d]; ++d) {
        int planned = s->plan[k].dataset == ALL_DATASETS ? d < rotated : d == s->plan[k].dataset;
        if (s->only_dataset >= 0 ? d != s->only_dataset : !planned)
          continue;
        p->fill(state, seed, d);
        for (int v = 0; v < count; ++v) {
          if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
          const char *name = p->variant(v).name;
          pp_verdict verdict;
          double start = pp_now_s();
          int outcome = pp_run_once(s, state, v, d, name, &verdict);
          took[v] += pp_now_s() - start;
          cases[v]++;
          s->cases++;
          if (outcome == RAN && verdict.correct) kept_too_much(s, &kept[v], &verdict);
          if (verdict.correct) continue;
          /* A variant that ran out of time would only do so again: settled at once. */
          failed[v] = outcome == TIMED_OUT ? FAILURES_SHOWN : failed[v] + 1;
          pp_session_say(s, "FAIL", "%s at size %s, seed %llu, data %s: %s", name, label,
                         (unsigned long long)seed, p->datasets[d], verdict.note);
        }
      }
    }
    pp_state_destroy(s, state);
    /* Where a test's time goes: a size's wall time and its slowest variant
     * (its launches and checks, waits for the inputs included). */
    int slowest = 0;
    for (int v = 1; v < count; ++v)
      if (took[v] > took[slowest]) slowest = v;
    printf("checked size %s (%d seed%s from %llu) in %.2f s, the slowest variant %s %.2f s\n", label,
           seeds, seeds > 1 ? "s" : "", (unsigned long long)o->seed, pp_now_s() - began,
           p->variant(slowest).name, took[slowest]);
  }
  int status = sweep_end(s, selected, cases, failed, sizes_skipped, "");
  free(cases);
  free(failed);
  free(kept);
  free(took);
  return status;
}

/* Runs one variant once beside the interference (stress.h), here or in the
 * runner, and judges it. */
static int stress_once(session *s, void *state, int variant, int dataset, uint64_t seed,
                       const char *who, pp_verdict *v) {
  s->kept = 0;
  memset(v, 0, sizeof *v);
  s->p->prepare(state);
  int outcome;
  if (s->runner) {
    PP_CHECK(cudaDeviceSynchronize()); /* the inputs and the poison land before the runner reads */
    int got = pp_runner_stress(s->runner, variant, dataset, seed, &s->kept, v->note, sizeof v->note);
    outcome = pp_outcome(s, got);
  } else {
    int error = pp_stress_launch(s->p, state, variant, dataset, seed, &s->kept, v->note, sizeof v->note);
    outcome = pp_error_settled(error, who, v) ? FAILED : RAN;
  }
  if (outcome == RAN) s->p->check(state, variant, v);
  return outcome;
}

/* Many short runs of each variant, each beside the interference and checked:
 * run r goes to size r mod (the number of sizes), with seed --seed + r and
 * the datasets in turn, so that the runs, their inputs and their
 * interference are the same on every GPU; the time limit (--stress-seconds,
 * shared evenly between the sizes) only ends them sooner. */
int pp_stress(session *s, const int *selected) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  int size_count = s->plan_count;
  int count = p->variant_count(), datasets = pp_dataset_count(p), sizes_skipped = 0;
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
    void *state = pp_state_create(s, &size);
    memcpy(before, runs, (size_t)count * sizeof *runs);
    for (int v = 0; v < count; ++v) {
      if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
      const char *name = p->variant(v).name;
      double start = pp_now_s();
      kept_here kept = {0, 0};
      for (int r = k; r < o->stress_runs && failed[v] < FAILURES_SHOWN; r += size_count) {
        if (runs[v] > before[v] && pp_now_s() - start >= share) break;
        uint64_t seed = o->seed + (uint64_t)r;
        int d = s->only_dataset >= 0 ? s->only_dataset : r / size_count % datasets;
        p->fill(state, seed, d);
        pp_verdict verdict;
        int outcome = stress_once(s, state, v, d, seed, name, &verdict);
        runs[v]++;
        s->cases++;
        if (outcome == RAN && verdict.correct) kept_too_much(s, &kept, &verdict);
        if (verdict.correct) continue;
        /* A variant that ran out of time would only do so again: settled at once. */
        failed[v] = outcome == TIMED_OUT ? FAILURES_SHOWN : failed[v] + 1;
        pp_session_say(s, "FAIL", "%s under stress, run %d at size %s, seed %llu, data %s: %s", name, r,
                       label, (unsigned long long)seed, p->datasets[d], verdict.note);
      }
    }
    pp_state_destroy(s, state);
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
