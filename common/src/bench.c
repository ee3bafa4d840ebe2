/* The table: a lab's library peer, CPU reference and every variant timed at
 * one size, each checked, with their rates and ratios (pp/report.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "pp/timer.h"
#include "checker/seal.h"
#include "session.h"

typedef struct cpu_job {
  const pp_problem *problem;
  void *state;
} cpu_job;

static void cpu_run(void *ctx) {
  cpu_job *job = ctx;
  job->problem->cpu_reference(job->state);
}

int pp_bench(session *s, const int *selected, const pp_device *dev, const pp_size *size) {
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
  report.peak = p->peak;

  size_t copy_bytes = pp_device_free_bytes() / 4;
  if (copy_bytes > ((size_t)1 << 29)) copy_bytes = (size_t)1 << 29;
  report.copy_gbps = pp_device_copy_gbps(copy_bytes);

  void *state = pp_state_create(s, size);
  if (s->runner) s->seal = pp_seal_new(p);
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
    pp_measure(s, state, PP_PEER, &report.peer);
  } else if (pp_measure_peer(s, state, size, &report.peer)) {
    pp_seal_free(s->seal);
    pp_state_destroy(s, state);
    return PP_EXIT_USAGE;
  }
  if (s->runner) pp_measure_runner_path(s);

  report.variants = calloc((size_t)count, sizeof *report.variants);
  const pp_result *best = NULL;
  for (int v = 0; v < count; ++v) {
    if (!selected[v]) continue;
    pp_result *r = &report.variants[report.count++];
    pp_variant_info info = p->variant(v);
    r->name = info.name;
    r->what = info.what;
    r->index = v;
    pp_measure(s, state, v, r);
    if (s->runner) pp_check_floor(&report, dev, r);
    if (r->correct && r->ran && (!best || r->time.median_ms < best->time.median_ms)) best = r;
  }
  if (s->runner) {
    pp_runner_end(s->runner, stdout); /* its status is pp_runner_stop()'s, in the driver */
    if (pp_measure_peer_again(s, state, size, &report.peer)) {
      pp_seal_free(s->seal);
      pp_state_destroy(s, state);
      free(report.variants);
      return PP_EXIT_USAGE;
    }
    /* The peer is the checker's own code, timed on its own server while no
     * student code ran: under what this GPU allows, only another process on
     * the GPU, beside the grading's lock, can have put it there (the path's
     * cost taken off was measured while the GPU was shared). Nothing of the
     * run can be judged: the verdict says contended, not that a variant
     * cheated. */
    int peer_correct = report.peer.correct;
    pp_check_floor(&report, dev, &report.peer);
    if (peer_correct && !report.peer.correct) {
      s->contended = 1;
      snprintf(report.peer.note, sizeof report.peer.note,
               "timed at %.4f ms, under what this GPU allows: the GPU was shared while the checker timed "
               "its own peer; grade again on a GPU that nothing else uses",
               report.peer.time.median_ms);
    }
  }
  report.path = s->path;
  pp_seal_free(s->seal);
  s->seal = NULL;
  pp_state_destroy(s, state);

  pp_report_print(stdout, &report);
  int status = report.peer.correct ? PP_EXIT_PASS : PP_EXIT_FAIL;
  if (!report.peer.correct && s->note_count < VERDICT_NOTES)
    snprintf(s->notes[s->note_count++], sizeof *s->notes, "%.100s: %.255s", report.peer.name, report.peer.note);
  for (int i = 0; i < report.count; ++i)
    if (!report.variants[i].correct) {
      status = PP_EXIT_FAIL;
      if (s->note_count < VERDICT_NOTES)
        snprintf(s->notes[s->note_count++], sizeof *s->notes, "%.100s: %.255s", report.variants[i].name,
                 report.variants[i].note);
    }
  for (int i = 0; i < report.count && s->timed_count < TIMED_VARIANTS; ++i)
    if (report.variants[i].ran && report.variants[i].correct) {
      s->timed_names[s->timed_count] = report.variants[i].name;
      s->timed_ms[s->timed_count++] = report.variants[i].time.median_ms;
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