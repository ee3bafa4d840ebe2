/* Internal to the harness: one run of the driver (pp_main()), shared by the
 * pieces it is made of. In the order they depend on each other, none on a
 * later one: steps.c (one checked run, the verdict file), plan.c (the sizes
 * of a sweep), sweep.c (--grade, --stress), checker/clock.c (why the checker
 * believes a time), bench.c (the table), driver.c (the command line). */
#ifndef PP_SESSION_H
#define PP_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "pp/cli.h"
#include "pp/device.h"
#include "pp/lab.h"
#include "pp/remote.h"
#include "pp/report.h"

/* Failure notes kept for the verdict file. */
#define VERDICT_NOTES 5
/* The most variants whose times a verdict lists (every lab has fewer). */
#define TIMED_VARIANTS 16
/* A variant wrong this many times is settled: its later cases are not run (a
 * wrong loop can take quadratic time at the large sizes), and once every
 * selected variant is settled the remaining sizes are not even allocated. */
#define FAILURES_SHOWN 3

/* A size a sweep checks, and whether it fitted the device memory that was
 * free before the submission's process started (sweep.c's still_fits() says
 * what happens when it no longer does). */
typedef struct planned {
  pp_size size;
  int seeds;   /* the most seeds it gets (one where a case needs much memory) */
  int dataset; /* the one dataset it is checked on, or ALL_DATASETS */
  int fits;
} planned;
#define ALL_DATASETS (-1)

typedef struct pp_seal pp_seal;

/* One run of the driver: the lab, its options, its runner when it is the
 * checker (remote.h), and what the verdict file will say. */
typedef struct session {
  const pp_problem *p;
  const pp_options *o;
  pp_runner *runner;
  pp_runner *server; /* the checker itself, --serve: times the library peer (bench.c) */
  pp_seal *seal;     /* the timed state's inputs and outputs, in the checker (checker/seal.h) */
  pp_path path;      /* the checker's measurement of the request path (checker/clock.c) */
  int bench_dataset; /* the dataset the table times */
  int only_dataset;  /* the one dataset --grade checks, or -1 for all */
  planned *plan;     /* the sizes of a sweep, in order */
  int plan_count, plan_capacity;
  int cases;
  double vs_peer, vs_first;
  const char *best;
  /* The table's variants that ran right, with their medians (bench.c), for
   * the verdict's "time" lines: grading/faster reads them. */
  const char *timed_names[TIMED_VARIANTS];
  double timed_ms[TIMED_VARIANTS];
  int timed_count;
  int contended; /* a failure that sharing the GPU can cause: the verdict says so */
  long long kept; /* device memory the last launch allocated and kept (share.h) */
  char notes[VERDICT_NOTES][512];
  int note_count;
} session;

/* How a launch went: checked, failed (see the verdict), or stopped at the time limit. */
enum launch_outcome { RAN, FAILED, TIMED_OUT };

/* ---- steps.c ---- */

/* Prints a line after @p word ("FAIL", "skip") and keeps the first few lines,
 * without it, for the verdict file's notes. */
void pp_session_say(session *s, const char *word, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Takes the device's verdict on a launch, as pp_launch_error() or
 * pp_stress_launch() gave it (the error's description already in the
 * verdict's note). Returns 0 if there was no error, 1 if there was. A sticky
 * error leaves the CUDA context unusable, so the run stops there. */
int pp_error_settled(int error, const char *who, pp_verdict *v);

/* Reads the device's verdict on the launch just made: pp_error_settled(). */
int pp_launch_failed(const char *who, pp_verdict *v);

/* Notes the outcome of a request to the runner (remote.h's -2, -1 or 0): one
 * that ran out of time may be the GPU's sharing's doing (s->contended). */
int pp_outcome(session *s, int got);

/* Poisons the outputs, runs one variant once (here, or in the runner when
 * this is the checker), and judges it; returns an enum launch_outcome. */
int pp_run_once(session *s, void *state, int variant, int dataset, const char *who, pp_verdict *v);

/* Creates the state for @p size; the checker shares its buffers with the runner. */
void *pp_state_create(session *s, const pp_size *size);
void pp_state_destroy(session *s, void *state);

/* Writes the verdict for grading/grade: "key value" lines, renamed into
 * place whole so that a half-written file is never read. */
void pp_write_verdict(const session *s, int status);

double pp_gib(size_t bytes);

/* ---- plan.c ---- */

/* Calls @p each with every item of --size's comma-separated list and the
 * size it parses to (NULL if it is no size of the lab); stops at the first
 * call that returns nonzero, and returns that. */
int pp_for_each_size(const pp_problem *p, const char *list,
                     int (*each)(void *, const char *, const pp_size *), void *ctx);

/* The sizes of a sweep, in order, into s->plan. */
void pp_plan_sweep(session *s);

/* Decides, before the submission's process starts, which planned sizes fit
 * the device memory free now, and says which do not. */
void pp_plan_fit(session *s);

/* The number of the lab's datasets that a sweep checks unless told. */
int pp_dataset_count(const pp_problem *p);

/* ---- sweep.c ---- */

int pp_grade(session *s, const int *selected);
int pp_stress(session *s, const int *selected);

/* ---- checker/clock.c ---- */

/* Checks a variant once on the table's inputs, then times it on new inputs,
 * checking every repetition. */
void pp_measure(session *s, void *state, int variant, pp_result *r);

/* The checker's library peer, timed by its own server, and the path's
 * overhead; returns 0, or -1 with a message (the grading's failure). */
int pp_measure_peer(session *s, void *state, const pp_size *size, pp_result *r);

/* Once the runner has ended: the peer timed again by a new server, and its
 * time the faster window's; returns as pp_measure_peer(). */
int pp_measure_peer_again(session *s, void *state, const pp_size *size, pp_result *r);

/* The empty requests to the submission's runner, for the report only. */
void pp_measure_runner_path(session *s);

/* Refuses a time under what the hardware allows (r->correct = 0, a note). */
void pp_check_floor(const pp_report *report, const pp_device *dev, pp_result *r);

/* ---- bench.c ---- */

int pp_bench(session *s, const int *selected, const pp_device *dev, const pp_size *size);

#endif
