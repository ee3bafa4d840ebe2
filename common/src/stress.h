/* Internal to the harness: the interference kernel behind --stress
 * (stress.cu), which pp_stress_launch() (run.c) starts beside a variant. */
#ifndef PP_STRESS_H
#define PP_STRESS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Starts the interference on a stream of its own, one that does not wait for
 * the default stream nor makes it wait: a grid of one or two blocks per SM,
 * some holding shared memory, most streaming through a buffer twice the size
 * of L2 and hitting a few words with atomics, half of them leaving within
 * 100 us and the others staying until pp_interference_stop() (at most 20 ms).
 * Its shape comes from @p seed alone. The first call allocates what it needs;
 * a CUDA failure here ends the process with PP_CHECK()'s message. */
void pp_interference_start(uint64_t seed);

/* Tells the interference started last to stop (a store to host memory that it
 * polls: no CUDA call); it ends within microseconds. */
void pp_interference_stop(void);

#ifdef __cplusplus
}
#endif

#endif
