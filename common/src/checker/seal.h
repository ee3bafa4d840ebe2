/* Internal to the harness: the checker's hold on a state's inputs and
 * outputs around its timed requests (pp_buffer_mark(); docs/grading-trust.md,
 * "Where the time is measured"). */
#ifndef PP_SEAL_H
#define PP_SEAL_H

#include <stdint.h>

#include "pp/lab.h"
#include "pp/remote.h"

/* The marked buffers of one state and the checker's own copies of them:
 * for each input, where fill() writes it (the runner cannot map it); for each
 * output, the snapshot check() judges. */
typedef struct pp_seal pp_seal;

/* Takes the buffers marked since pp_buffer_marks_reset() (the state just
 * created) and allocates the copies; a grader that marked no input or no
 * output is refused (exit 1), memory that does not fit is a size too large
 * (exit 2). */
pp_seal *pp_seal_new(const pp_problem *problem);

void pp_seal_free(pp_seal *seal);

/* fill() with every input pointing at the checker's copy: the runner sees
 * nothing of these inputs before the clock starts. */
void pp_seal_fill(pp_seal *seal, void *state, uint64_t seed, int dataset);

/* check() with every input pointing at the checker's copy and every output
 * at its snapshot. */
void pp_seal_check(pp_seal *seal, void *state, int variant, pp_verdict *verdict);

/* The steps on the checker's clock (pp_clock_steps): stage copies the inputs
 * in, evicts L2 and waits; settle probes outputs at positions drawn afresh
 * each time until none holds the poison (with @p wait; else once, its answer
 * unused: the path's measurement, whose outputs were never written), then
 * snapshots them and waits. */
pp_clock_steps pp_seal_steps(pp_seal *seal, int wait);

#endif
