/* Scores a submission: each test from its status and verdict, then each lab. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "score.h"

/* The hint each status shows (%g: the test's seconds). */
static const char *const hints[STATES] = {
    [PASS] = "",
    [FAIL] = "failed\n",
    [SKIP] = "skipped: the grading machine could not run it "
             "(no GPU, no compute-sanitizer, or too little GPU memory)\n",
    [ERROR] = "the grading itself failed here, not your code: ask for a regrade\n",
    [TIMEOUT] = "did not finish within %g s: an endless loop or a deadlock?\n",
    [MISSING] = "missing: this test never ran\n",
    [NOT_BUILT] = "not run: the lab did not compile\n"};

/* The points of a passing test. A perf test's come from its vs_peer alone: the
 * library peer's time over the best variant's, both timed in the same run on
 * the grading GPU, so that no GPU's absolute speed enters a score. */
static double points(const Test *t, const Verdict *v, FILE *o) {
  const Rule *r = t->rule;
  if (r->kind != TIERS) return t->max;
  int reached = -1;
  for (int i = 0; i < r->tiers; ++i)
    if (v->has_peer && v->vs_peer >= r->tier[i].ratio) reached = i;
  if (!v->has_peer) fprintf(o, "no vs_peer in its verdict: 0 points\n");
  else if (reached < 0) fprintf(o, "below the first tier (%gx): 0 points\n", r->tier[0].ratio);
  else fprintf(o, "tier >= %gx: %g of %g points\n", r->tier[reached].ratio, r->tier[reached].points,
               t->max);
  return reached < 0 ? 0 : r->tier[reached].points;
}

/* Scores one test from its status and verdict, and writes what it shows: a hint
 * for its status, the verdict's notes, its speed, and its log if it did not pass. */
static void score_test(Grading *g, Test *t) {
  const char *dir = g->results->dir, *lab = g->rubric->lab[t->lab].name;
  const Submission *sub = &g->results->submission;
  int build = !strcmp(t->name + strlen(lab), ".build"); /* the one test with no verdict */
  Verdict v;
  read_verdict(&v, dir, t->name);
  FILE *o = checked(open_memstream(&t->output, &t->output_len));
  if (t->state == PASS && !build && strcmp(v.status, "pass")) {
    t->state = FAIL; /* only the checker's verdict passes a test */
    fprintf(o, "counted as failed: it exited 0, but its verdict %s%s\n",
            v.found ? "says " : "is missing", v.status);
  } else if (build && t->state == FAIL) {
    fprintf(o, "did not compile\n");
  } else if (build && t->state == MISSING) {
    fprintf(o, "missing: no usable %s in the submission\n", g->rubric->lab[t->lab].file);
  } else if (t->state == FAIL && !v.found) {
    fprintf(o, "failed: it crashed or was stopped\n");
  } else {
    fprintf(o, hints[t->state], t->seconds);
  }
  if (build && t->state == MISSING && sub->duplicate)
    fprintf(o, "files submitted more than once: %s\n", sub->duplicate);
  if (t->state == SKIP || t->state == ERROR)
    fprintf(stderr, "pp-score: warning: %s: %s", t->name, hints[t->state]);
  fwrite(v.notes, 1, v.notes_len, o);
  if (v.has_peer) {
    fprintf(o, "speed: %gx the library peer%s%s", v.vs_peer, *v.best ? ", with " : "", v.best);
    if (v.has_first) fprintf(o, " (%gx variant 0)", v.vs_first);
    fprintf(o, "; both timed in this run, on the grading GPU\n");
  }
  LabScore *lab_score = &g->lab[t->lab];
  if (t->state == PASS && v.has_peer && !lab_score->vs_peer) lab_score->vs_peer = v.vs_peer;
  if (t->state == PASS) t->score = points(t, &v, o);
  if (t->state == PASS && t->rule->with_rung) {
    /* <lab>.<check>.<variant> counts with its rung, <lab>.<variant>, alone:
     * the technique of a rung that is not right earns nothing. */
    const char *check = t->name + strlen(lab), *variant = strchr(check + 1, '.');
    char rung[512] = "";
    if (variant) snprintf(rung, sizeof rung, "%s%s", lab, variant);
    State state = MISSING;
    for (int i = 0; i < g->results->tests; ++i)
      if (!strcmp(g->results->test[i].name, rung)) state = g->results->test[i].state;
    if (state != PASS) {
      t->score = 0;
      fprintf(o, "0 points: it counts only with %s, which %s\n", *rung ? rung : "its rung",
              state == MISSING ? "did not run" : "did not pass");
    }
  }
  if (t->state != PASS) (build ? put_log_errors : put_log_tail)(o, dir, t->name);
  fclose(o);
  free_verdict(&v);
}

int gated(const Grading *g, int lab) { return g->lab[lab].gate || !g->lab[lab].tests; }

/* A lab scores 0 when a gate test of it did not pass or it has no results at
 * all; it then shows one entry, with the reason, in place of its tests. */
static void score_lab(Grading *g, int index) {
  const LabLine *line = &g->rubric->lab[index];
  LabScore *lab = &g->lab[index];
  const Results *results = g->results;
  double max = 0;
  for (int i = 0; i < results->tests; ++i) {
    const Test *t = &results->test[i];
    if (t->lab != index) continue;
    if (!lab->gate && t->rule->kind == GATE && t->state != PASS) lab->gate = t;
    lab->score += t->score;
    max += t->max;
  }
  Test *e = &lab->entry;
  *e = (Test){.name = line->name, .state = lab->gate ? lab->gate->state : MISSING, .lab = index,
              .max = line->points, .visibility = "visible"};
  FILE *o = checked(open_memstream(&e->output, &e->output_len));
  if (lab->gate) {
    fprintf(o, "scores 0: %s did not pass\n", lab->gate->name);
    fwrite(lab->gate->output, 1, lab->gate->output_len, o);
  } else if (!lab->tests) {
    fprintf(o, "scores 0: missing: no results for this lab (its file is %s)\n", line->file);
  }
  fclose(o);
  if (gated(g, index)) {
    lab->score = lab->vs_peer = 0;
  } else if (fabs(max - line->points) > 1e-9) {
    die(g->rubric->path, line->line, "%s is worth %g points, but its tests in %s/tests.tsv add up to %g",
        line->name, line->points, results->dir, max);
  }
}

void score_all(Grading *g) {
  const Rubric *r = g->rubric;
  Results *results = g->results;
  for (int i = 0; i < results->tests; ++i) ++g->lab[results->test[i].lab].tests;
  /* An exact rubric line whose test did not run in a lab that did: that test is missing. */
  for (int i = 0; i < r->rules; ++i) {
    const char *name = r->rule[i].pattern;
    int lab = lab_of(r, name);
    if (!is_pattern(name) && g->lab[lab].tests && !has_test(results, name))
      add_missing(results, r, name, lab);
  }
  /* Those that count with their rung after the rungs, whose verdicts may fail them. */
  for (int i = 0; i < results->tests; ++i)
    if (!results->test[i].rule->with_rung) score_test(g, &results->test[i]);
  for (int i = 0; i < results->tests; ++i)
    if (results->test[i].rule->with_rung) score_test(g, &results->test[i]);
  for (int l = 0; l < r->labs; ++l) {
    score_lab(g, l);
    g->total += g->lab[l].score;
    g->max_total += r->lab[l].points;
  }
}

int shown(const Grading *g, int lab, const Test **out) {
  int n = 0;
  if (gated(g, lab)) {
    out[n++] = &g->lab[lab].entry;
    return n;
  }
  for (int i = 0; i < g->results->tests; ++i)
    if (g->results->test[i].lab == lab) out[n++] = &g->results->test[i];
  return n;
}
