/* Why the checker believes a time (docs/grading-trust.md, "Where the time is
 * measured"). In a student's own run a variant is timed with CUDA events in
 * its own process. In the checker every timed repetition is timed by the
 * checker's clock, through checker/remote.c: from before the inputs exist
 * where the runner can read them (checker/seal.c copies them in) to after the
 * checker has found the output complete and snapshot it; less the path's
 * cost, measured the same way on the checker's own server; and judged against
 * a floor from the hardware. Nothing the runner reports decides a time: its
 * event times are shown, never believed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "pp/check.h"
#include "pp/timer.h"
#include "checker/seal.h"
#include "session.h"
#include "share.h"

/* Empty requests timed for the path's overhead, after a few untimed. */
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
/* A timed window's runs (warm-ups and repetitions) take about this long at
 * most (time_window()), and at least MIN_REPS repetitions are timed. */
#define WINDOW_MS 1000.0
#define MIN_REPS 3
/* A window whose times spread (90th percentile less 10th) more than this
 * share of their median, and three spreads of the path, is timed again
 * (time_variant()). */
#define RETAKE_SPREAD 0.10
/* How far under the hardware's floor a time may come before it is refused
 * (pp_check_floor()): the clocks and the path's cost, taken off, vary. */
#define FLOOR_MARGIN 0.05

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
 * checker, with its own clock (pp_runner_time(), the seal's steps) through
 * the process that runs it (the runner, or the server for the library peer),
 * less the path's overhead: *event gets the runner's own event time, shown
 * and never believed. */
static int time_once(session *s, void *state, int variant, double *ms, double *event, pp_verdict *v) {
  if (!s->runner) {
    *ms = *event = pp_time_launch(s->p, state, variant, s->bench_dataset, 1);
    return pp_launch_failed("timing", v) ? FAILED : RAN;
  }
  pp_runner *path = variant == PP_PEER ? s->server : s->runner;
  pp_clock_steps steps = pp_seal_steps(s->seal, 1);
  double wall = 0.0;
  int got = pp_runner_time(path, variant, s->bench_dataset, &steps, &wall, event, v->note,
                           sizeof v->note);
  *ms = wall - s->path.overhead_ms;
  return pp_outcome(s, got);
}

/* Runs --warmup and --reps repetitions of a variant, each on new inputs
 * (filled, untimed, before it) and each checked after it: a wrong answer at
 * any repetition fails the variant. In the checker each repetition's seed is
 * drawn from the operating system after the previous one was judged, the
 * inputs go into the checker's own copies (the runner reads them only once
 * the clock runs), and the check judges the snapshot the clock stopped at; a
 * failure names its seed (--seed reproduces it). There a variant whose first
 * warm-up took longer than WINDOW_MS over the window's runs is warm after it
 * and timed *reps times, fewer (MIN_REPS at least): lab 05's v0 spent 3.6 s of
 * its timed test's 10 on 12 runs of 275 ms. ms[r] gets each timed
 * repetition's time, gap[r] that time less the runner's own event time.
 * Returns 0, or 1 with the verdict saying why. */
static int time_window(session *s, void *state, int variant, double *ms, double *gap, int *reps,
                       pp_verdict *v) {
  const pp_options *o = s->o;
  int status = 0;
  for (int r = -o->warmup; r < *reps && !status; ++r) {
    /* A new input every time: a variant that keeps an earlier answer and
     * replays it when the input looks unchanged is wrong, not fast. */
    uint64_t seed = s->runner ? os_seed() : o->seed + 1 + (uint64_t)(r + o->warmup);
    if (s->runner)
      pp_seal_fill(s->seal, state, seed, s->bench_dataset);
    else
      s->p->fill(state, seed, s->bench_dataset);
    s->p->prepare(state);
    memset(v, 0, sizeof *v);
    double elapsed = 0.0, event = 0.0;
    status = time_once(s, state, variant, &elapsed, &event, v) != RAN;
    if (!status) {
      if (s->runner)
        pp_seal_check(s->seal, state, variant, v);
      else
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

/* The 90th percentile of @p ms less its 10th; *median gets their median. */
static double spread_of(const double *ms, int reps, double *median) {
  double *sorted = malloc((size_t)reps * sizeof *sorted);
  memcpy(sorted, ms, (size_t)reps * sizeof *sorted);
  *median = pp_median(sorted, reps); /* sorts */
  double spread = sorted[reps * 9 / 10] - sorted[reps / 10];
  free(sorted);
  return spread;
}

/* Times a variant (time_window()); in the checker, *gap_ms gets the median of
 * its times less the runner's own event times, for display. Returns 0, or 1
 * with the verdict saying why. */
static int time_variant(session *s, void *state, int variant, pp_timing *t, double *gap_ms,
                        pp_verdict *v) {
  const pp_options *o = s->o;
  /* Room for two windows: the second is used where the first was disturbed. */
  double *ms = malloc(2 * (size_t)o->reps * sizeof *ms);
  double *gap = malloc(2 * (size_t)o->reps * sizeof *gap);
  int reps = o->reps;
  int status = time_window(s, state, variant, ms, gap, &reps, v);
  /* A window whose times spread widely was disturbed: something else held the
   * GPU or the processor in some of its repetitions (on an H100, one honest
   * variant's ten repetitions took 0.12 to 0.5 ms more than its kernel, the
   * peer's as widely). It is timed once more, on new inputs, and the window
   * with the smaller median counts. Both are the checker's own times, so a
   * runner that disturbs its own window gains nothing: it can only be timed
   * again at its real speed. The peer is timed the same way. */
  if (!status && s->runner) {
    double median = 0.0, spread = spread_of(ms, reps, &median);
    double allowed = RETAKE_SPREAD * median + 3.0 * s->path.spread_ms;
    if (spread > allowed) {
      double *ms2 = ms + o->reps, *gap2 = gap + o->reps, median2 = 0.0;
      int reps2 = reps;
      printf("%s: timed again: its repetitions spread %.4f ms (90th percentile less 10th), more "
             "than the %.4f ms allowed\n",
             variant == PP_PEER ? s->p->peer_name : s->p->variant(variant).name, spread, allowed);
      status = time_window(s, state, variant, ms2, gap2, &reps2, v);
      if (!status) spread_of(ms2, reps2, &median2);
      if (!status && median2 < median) {
        reps = reps2;
        memcpy(ms, ms2, (size_t)reps * sizeof *ms);
        memcpy(gap, gap2, (size_t)reps * sizeof *gap);
      }
    }
  }
  if (!status) *t = pp_timing_summary(ms, reps);
  if (!status && s->runner) *gap_ms = pp_median(gap, reps);
  free(ms);
  free(gap);
  return status;
}

void pp_measure(session *s, void *state, int variant, pp_result *r) {
  pp_verdict v;
  s->p->fill(state, s->o->seed, s->bench_dataset);
  pp_run_once(s, state, variant, s->bench_dataset, r->name, &v);
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
 * timed as every timed request is, the seal's steps included (their settle
 * probes once: nothing writes the outputs); *spread_ms gets their 90th
 * percentile less their 10th. Returns 0, or -1 with @p note saying why. */
static int time_empty_requests(session *s, pp_runner *path, double *median_ms, double *spread_ms,
                               char *note, size_t len) {
  double samples[NULL_REQUESTS];
  pp_clock_steps steps = pp_seal_steps(s->seal, 0);
  for (int i = -NULL_WARMUP; i < NULL_REQUESTS; ++i) {
    double wall = 0.0;
    if (pp_runner_null(path, &steps, &wall, note, len)) return -1;
    if (i >= 0) samples[i] = wall;
  }
  *spread_ms = spread_of(samples, NULL_REQUESTS, median_ms);
  return 0;
}

/* The checker's request path: empty requests to the server, each with the
 * inputs copied in, L2 evicted, a probe and the snapshot, as every timed
 * request has. Their median is taken off every time, the peer's and the
 * variants': a constant of the path, not of the work, which would otherwise
 * pull every ratio toward 1 and hide the bytes-per-second the floor judges.
 * It is measured on the trusted server, never the submission's runner, so a
 * runner that made its own empty requests slow could not make its kernels
 * look faster. Returns 0, or -1 with a message (the grading's failure, not the
 * submission's). */
static int measure_path(session *s) {
  char note[256];
  /* A spread past PATH_QUIET_MS means the machine was busy while the path was
   * measured (on an H100, 0.26 ms in one grading against 0.007-0.03 ms in the
   * others): its median is less sure. So it is measured again, PATH_TRIES
   * times at most, and the quietest counts. */
  for (int tries = 0; tries < PATH_TRIES; ++tries) {
    double median = 0.0, spread = 0.0;
    if (time_empty_requests(s, s->server, &median, &spread, note, sizeof note)) {
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

void pp_measure_runner_path(session *s) {
  /* Where the runner's path costs other than the server's, the ratios carry
   * the difference (its sandbox, its process). A runner that fails them fails
   * its first timed request too, which says why; here it only leaves the
   * figure out. */
  double spread = 0.0;
  char note[256];
  if (time_empty_requests(s, s->runner, &s->path.runner_empty_ms, &spread, note, sizeof note))
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
  pp_clock_steps steps = pp_seal_steps(s->seal, 0);
  for (int i = -NULL_WARMUP; i < HOLD_REQUESTS; ++i) {
    double wall = 0.0, event = 0.0;
    if (pp_runner_hold(s->server, hold_ms, &steps, &wall, &event, note, sizeof note)) {
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
  return 0;
}

/* The checker itself, started again as a server (/proc/self/exe --serve: the
 * instructor's code, no student's), sharing the state's buffers: it times the
 * peer through the same path as the runner times the variants. */
static void start_server(session *s, const pp_size *size) {
  static char *const self[] = {"/proc/self/exe", NULL};
  s->server = pp_runner_new(s->p, self, s->o->timeout_s, "checker's server");
  pp_runner_share(s->server, size);
}

/* Quits the server; returns @p status, or -1 where it did not end cleanly. */
static int stop_server(session *s, int status) {
  pp_runner_unshare(s->server);
  if (pp_runner_stop(s->server, stdout) && !status) {
    printf("error: the checker's own server did not end cleanly\n");
    status = -1;
  }
  s->server = NULL;
  return status;
}

int pp_measure_peer(session *s, void *state, const pp_size *size, pp_result *r) {
  /* With the path's overhead measured first. It runs before the runner has
   * started (the runner starts with its first request), so no student code is
   * on the GPU while the peer is timed. */
  start_server(s, size);
  int status = measure_path(s);
  if (!status) pp_measure(s, state, PP_PEER, r);
  if (!status && r->ran && isfinite(r->event_gap_ms)) status = measure_work_cost(s, r);
  return stop_server(s, status);
}

int pp_measure_peer_again(session *s, void *state, const pp_size *size, pp_result *r) {
  /* The GPU's speed drifts over a grading (its clocks, its temperature): timed
   * only before the variants, the peer's time and theirs come from different
   * minutes. So, the runner ended (no student code on the GPU), the peer is
   * timed a second time, through the path as measured (its overhead and work
   * cost taken off as from every time since), and the faster window counts,
   * as in a retake: both are the checker's own code on a GPU that no student
   * process holds, so a slower one was disturbed, and the peer never runs
   * faster than it can. Averaged, a disturbed window raised every ratio: in one
   * grading of the solutions on an H200, lab 06's cuBLAS windows took 0.252 and
   * 0.194 ms, and the mean gave v6 1.13x against 0.98x with the faster. */
  if (!r->ran || !r->correct) return 0;
  pp_result again = {.name = r->name, .what = r->what, .index = r->index};
  start_server(s, size);
  pp_measure(s, state, PP_PEER, &again);
  int status = stop_server(s, 0);
  if (status) return status;
  if (!again.ran || !again.correct) {
    *r = again;
    return 0;
  }
  int after = again.time.median_ms < r->time.median_ms;
  printf("%s: timed again after the variants, %.4f ms (before them %.4f ms): the %s window counts\n",
         r->name, again.time.median_ms, r->time.median_ms, after ? "second" : "first");
  if (after) {
    r->time = again.time;
    r->event_gap_ms = again.event_gap_ms;
  }
  return 0;
}

void pp_check_floor(const pp_report *report, const pp_device *dev, pp_result *r) {
  /* No kernel moves the fewest bytes the work needs faster than the DRAM's
   * theoretical bandwidth, nor does its operations faster than the peak of
   * the lab's unit (FP32, or the BF16 tensor cores: pp_problem::peak) at the
   * boost clock; the longer of the two, less FLOOR_MARGIN, is the floor. */
  double bytes_ms = dev->theoretical_gbps > 0 ? report->bytes / (dev->theoretical_gbps * 1e9) * 1e3 : 0;
  double flops_ms = report->flops > 0 ? report->flops / pp_device_peak(dev, report->peak) * 1e3 : 0.0;
  double floor_ms = (bytes_ms > flops_ms ? bytes_ms : flops_ms) / (1.0 + FLOOR_MARGIN);
  if (!r->ran || r->time.median_ms >= floor_ms) return;
  r->correct = 0;
  char bound[64] = "its fewest bytes at the DRAM's theoretical bandwidth";
  if (flops_ms > bytes_ms) snprintf(bound, sizeof bound, "its operations at the %s peak", pp_peak_name(report->peak));
  snprintf(r->note, sizeof r->note, "timed at %.4f ms, under the %.4f ms this GPU allows (%s, less %.0f%%): not believed",
           r->time.median_ms, floor_ms, bound, 100.0 * FLOOR_MARGIN);
}
