/**
 * @file stress.h
 * @brief Interference for the stress sweep: other work on the GPU while a variant runs.
 *
 * Bugs of memory order and of cross-block dependence (a last-block combine
 * without a fence, a spin on a flag read with a plain load, a block waiting on
 * a later block) hide when every run is scheduled alike. The stress sweep
 * (`--grade --stress`) runs each variant many times on new inputs while an
 * interference kernel, on a stream of its own, occupies a share of the
 * multiprocessors for a random while and keeps the L2 busy with atomics, so
 * that blocks start, stall and finish in orders that an idle GPU rarely shows.
 * It makes such bugs more likely to show, never certain: docs/grading.md says
 * which kinds no output check can catch.
 */
#ifndef PP_STRESS_H
#define PP_STRESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Enqueues one round of interference on the harness's own non-blocking
 * stream and returns at once: it overlaps the next launches on the default
 * stream. Its length and its share of the multiprocessors follow from @p seed.
 * @param seed  picks the round's shape, so that a stress run is reproducible in what it asks
 */
void pp_interference_launch(uint64_t seed);

/** Waits for the interference enqueued so far; the stress sweep calls it before it ends. */
void pp_interference_wait(void);

#ifdef __cplusplus
}
#endif

#endif
