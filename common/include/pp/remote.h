/**
 * @file remote.h
 * @brief The checker/runner split: verdicts decided in a process that holds no student code.
 *
 * When a submission is graded (grading/grade), each lab has two programs. The
 * runner, `bin/NN-lab`, is the grader linked with the student's file. The checker,
 * `bin/NN-lab-checker`, is the same grader and harness without the student's
 * code. The checker starts the runner with `--serve` on a socket (descriptor
 * 3), then does everything that decides a verdict itself: it allocates and
 * poisons every device buffer, draws the inputs, computes the reference and
 * judges the outputs. It shares the buffers with the runner through CUDA IPC;
 * the runner only launches the student's variant on them, and the checker's
 * own clock times it (pp_runner_time()): from before the inputs are copied in
 * (until then the runner cannot read them) to after the checker has found the
 * output complete and snapshot it (the reply is only a cue to look).
 * The library peer is timed the same way, by the checker itself started again
 * as a runner (`--serve`), which holds no student code. So the
 * checker's options decide for both: its `--no-guards` shapes the buffers the
 * runner opens, and its `--max-shared-kib` is sent to the runner, whose
 * launchers ask pp_shared_memory_per_block().
 *
 * A runner that crashes, loses its CUDA context or does not answer in time is
 * stopped (its whole process group) and started again for the next request,
 * so a bad variant fails its own cases only. Everything the runner prints is
 * captured and shown afterwards, each line marked `submission| `: a printed
 * "PASS" is just text.
 */
#ifndef PP_REMOTE_H
#define PP_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pp/lab.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The checker's handle on a runner process. */
typedef struct pp_runner pp_runner;

/**
 * Prepares to run @p command (the runner, perhaps behind a wrapper such as
 * compute-sanitizer) with `--serve` appended. The process starts on the first
 * request, and again after it dies.
 * @param problem    the lab, for its variant table
 * @param command    program and arguments, NULL-terminated; kept, not copied
 * @param timeout_s  seconds a launch may take before the runner is stopped
 * @param label      marks each line of its output (`submission`); kept, not copied
 * @return the handle, to release with pp_runner_stop()
 */
pp_runner *pp_runner_new(const pp_problem *problem, char *const *command, double timeout_s,
                         const char *label);

/**
 * Starts recording the device buffers the checker allocates, for
 * pp_runner_share(). Call it just before pp_problem::create.
 */
void pp_runner_record(void);

/**
 * Gives the runner the buffers allocated since pp_runner_record(), so that it
 * builds the same state on them.
 * @param runner  the runner
 * @param size    the size the state was created for
 */
void pp_runner_share(pp_runner *runner, const pp_size *size);

/**
 * Makes the runner let go of the shared buffers; call it before
 * pp_problem::destroy frees them.
 * @param runner  the runner
 */
void pp_runner_unshare(pp_runner *runner);

/**
 * Has the runner launch @p variant once and wait for it.
 * @param runner   the runner
 * @param variant  the variant's index
 * @param dataset  the dataset the inputs were filled with
 * @param kept     receives the device memory the launch allocated and kept, as
 *                 the runner counts it (a bug check: a runner that lies hides
 *                 only its own leak)
 * @param note     receives what went wrong
 * @param len      size of @p note
 * @return 0; -2 if it ran out of time (the runner was stopped); -1 for anything else (CUDA
 *         error, crash, a variant table that differs); @p note says why
 */
int pp_runner_launch(pp_runner *runner, int variant, int dataset, long long *kept, char *note,
                     size_t len);

/**
 * What the checker does on its own clock around a timed request besides
 * sending it and awaiting the reply (checker/clock.c): @p stage runs once the
 * clock has started, before the request (it copies the inputs in, which the
 * runner could not read until then, and evicts L2); @p settle once the reply
 * has come (it waits until the outputs are complete and snapshots them into
 * memory the runner cannot map), and returns 0, or -2 if they were not
 * complete by @p deadline (CLOCK_MONOTONIC seconds). The clock stops after it.
 */
typedef struct pp_clock_steps {
  void (*stage)(void *ctx);                 /**< inputs in, L2 evicted, waited for */
  int (*settle)(void *ctx, double deadline); /**< outputs complete and snapshot */
  void *ctx;                                 /**< passed to both */
} pp_clock_steps;

/**
 * Times one launch of @p variant (or ::PP_PEER) with the checker's clock: once
 * the runner is ready and the checker's fill and poison have landed, it reads
 * CLOCK_MONOTONIC, runs @p steps' stage, sends the request, awaits the reply,
 * runs @p steps' settle and reads the clock again. The runner only launches,
 * records CUDA events around the launch, waits for the device and replies;
 * its event time comes back for display, never as the time. The checker fills
 * the inputs, poisons the outputs and checks them around every such request.
 * @param runner    the runner
 * @param variant   the variant's index, or ::PP_PEER
 * @param dataset   the dataset the inputs were filled with
 * @param steps     the checker's steps on the clock
 * @param wall_ms   receives the checker's measurement, the path's overhead included
 * @param event_ms  receives the runner's own (event) measurement
 * @param note      receives what went wrong
 * @param len       size of @p note
 * @return as pp_runner_launch(); -2 also when the output was not complete in time
 */
int pp_runner_time(pp_runner *runner, int variant, int dataset, const pp_clock_steps *steps,
                   double *wall_ms, double *event_ms, char *note, size_t len);

/**
 * Times an empty request as pp_runner_time() times a launch, @p steps
 * included: the runner only launches an empty kernel, waits for the device
 * and replies. Its time is the path's overhead.
 * @param runner   the runner
 * @param steps    the checker's steps on the clock (its settle finds nothing to wait for)
 * @param wall_ms  receives the checker's measurement
 * @param note     receives what went wrong
 * @param len      size of @p note
 * @return as pp_runner_launch()
 */
int pp_runner_null(pp_runner *runner, const pp_clock_steps *steps, double *wall_ms, char *note,
                   size_t len);

/**
 * Times a request whose kernel (the harness's own, one thread) holds the GPU
 * for @p hold_ms, as pp_runner_time() times a launch: with its clock less the
 * empty requests' and the kernel's events, what a request with work in flight
 * costs beyond an empty one. For the checker's own server only.
 * @param runner   the runner
 * @param hold_ms  how long the kernel runs
 * @param steps    the checker's steps on the clock
 * @param wall_ms  receives the checker's measurement
 * @param event_ms receives the server's CUDA event time of the kernel
 * @param note     receives what went wrong
 * @param len      size of @p note
 * @return as pp_runner_launch()
 */
int pp_runner_hold(pp_runner *runner, double hold_ms, const pp_clock_steps *steps, double *wall_ms,
                   double *event_ms, char *note, size_t len);

/**
 * Has the runner launch @p variant once beside the interference kernel of
 * `--stress` (pp_stress_launch(): the kernel runs in the runner's process,
 * since kernels of two processes do not run at the same time) and wait for
 * both. The checker fills, poisons and checks around every such request.
 * @param runner   the runner
 * @param variant  the variant's index
 * @param dataset  the dataset the inputs were filled with
 * @param seed     the run's seed, which shapes the interference
 * @param kept     receives the device memory the launch allocated and kept, as
 *                 the runner counts it (a bug check: a runner that lies hides
 *                 only its own leak)
 * @param note     receives what went wrong
 * @param len      size of @p note
 * @return as pp_runner_launch()
 */
int pp_runner_stress(pp_runner *runner, int variant, int dataset, uint64_t seed, long long *kept,
                     char *note, size_t len);

/**
 * Asks the runner to quit (after its device work is done: it waits for the
 * device after every request) and prints what it wrote (each line marked); it
 * is not started again: a later request fails. The handle stays, for
 * pp_runner_stop(), which then returns what this returned.
 * @param runner  the runner, or NULL
 * @param out     where the runner's output goes
 * @return as pp_runner_stop()
 */
int pp_runner_end(pp_runner *runner, FILE *out);

/**
 * Ends the runner as pp_runner_end() does, unless that has, and releases the
 * handle.
 * @param runner  the runner, or NULL
 * @param out     where the runner's output goes
 * @return 0 if the runner quit cleanly with status 0 (or never started);
 *         -1 otherwise, e.g. when compute-sanitizer wrapping it reported errors
 */
int pp_runner_stop(pp_runner *runner, FILE *out);

/**
 * The runner's side (`--serve`): answers the checker's requests on
 * descriptor 3 until told to quit.
 * @param problem  the lab
 * @return an exit code from ::pp_exit_code
 */
int pp_serve(const pp_problem *problem);

#ifdef __cplusplus
}
#endif

#endif
