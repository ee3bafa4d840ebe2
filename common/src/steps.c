/* The steps every mode of the driver shares: one checked run of a variant,
 * the state it runs on, the lines that say what failed, and the verdict file. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "session.h"
#include "share.h"

void pp_session_say(session *s, const char *word, const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  printf("%s %s\n", word, line);
  if (s->note_count < VERDICT_NOTES)
    snprintf(s->notes[s->note_count++], sizeof *s->notes, "%s", line);
}

double pp_gib(size_t bytes) {
  return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

int pp_error_settled(int error, const char *who, pp_verdict *v) {
  if (!error) return 0;
  v->correct = 0;
  if (error == 2) {
    printf("FAIL %s: %s\nthe CUDA context is lost after this error: stopping\n", who, v->note);
    exit(PP_EXIT_FAIL);
  }
  return 1;
}

int pp_launch_failed(const char *who, pp_verdict *v) {
  return pp_error_settled(pp_launch_error(v->note, sizeof v->note), who, v);
}

int pp_outcome(session *s, int got) {
  if (got == -2) s->contended = 1;
  return got == -2 ? TIMED_OUT : got ? FAILED : RAN;
}

/* Runs one variant once here, or in the runner when this is the checker. */
static int launch(session *s, void *state, int variant, int dataset, const char *who, pp_verdict *v) {
  if (!s->runner || variant == PP_PEER) {
    pp_before_variant();
    s->kept = pp_launch_keeping(s->p, state, variant, dataset);
    return pp_launch_failed(who, v) ? FAILED : RAN;
  }
  PP_CHECK(cudaDeviceSynchronize()); /* the poison lands before the runner reads */
  int got = pp_runner_launch(s->runner, variant, dataset, &s->kept, v->note, sizeof v->note);
  return pp_outcome(s, got);
}

int pp_run_once(session *s, void *state, int variant, int dataset, const char *who, pp_verdict *v) {
  memset(v, 0, sizeof *v);
  v->compensated = s->o->accuracy;
  s->p->prepare(state);
  int outcome = launch(s, state, variant, dataset, who, v);
  if (outcome == RAN) s->p->check(state, variant, v);
  return outcome;
}

void *pp_state_create(session *s, const pp_size *size) {
  pp_buffer_marks_reset();
  if (s->runner) pp_runner_record();
  void *state = s->p->create(size);
  if (s->runner) pp_runner_share(s->runner, size);
  return state;
}

void pp_state_destroy(session *s, void *state) {
  if (s->runner) pp_runner_unshare(s->runner);
  s->p->destroy(state);
}

void pp_write_verdict(const session *s, int status) {
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
  if (s->contended) fputs("contended yes\n", f);
  for (int i = 0; i < s->timed_count; ++i) fprintf(f, "time %s %.6f\n", s->timed_names[i], s->timed_ms[i]);
  for (int i = 0; i < s->note_count; ++i) {
    fputs("note ", f);
    for (const char *c = s->notes[i]; *c; ++c) fputc(*c == '\n' ? ' ' : *c, f);
    fputc('\n', f);
  }
  if (fclose(f) || rename(temporary, s->o->verdict))
    fprintf(stderr, "error: cannot write %s\n", s->o->verdict);
}
