/* Internal to the harness: each kernel launch of the process checked on the
 * launch itself, through CUPTI's callbacks on the runtime's and the driver's
 * launch calls (launch_watch.c):
 *   - the stream: the contract names the default stream, and a launch on the
 *     calling thread's own default stream (cudaStreamPerThread) or on a stream
 *     of its own is refused, since no result shows it;
 *   - --max-shared-kib: launchers are told the cap
 *     (pp_shared_memory_per_block()), but the GPU still grants what it has: a
 *     launch past the cap would fail on a GPU that has only the cap. */
#ifndef PP_LAUNCH_WATCH_H
#define PP_LAUNCH_WATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From now on, notes every kernel launched in this process on a stream other
 * than the default one, or whose static plus dynamic shared memory passes
 * @p cap_bytes (0: no cap). Without CUPTI's callbacks the run cannot be
 * judged: if the subscription fails, or the watch does not see its own probe
 * launch as it was made, the process ends with an error. A second call only
 * changes the cap. */
void pp_launch_watch(int cap_bytes);

/* If a kernel launched since the last call (or pp_launch_forget()) broke a
 * rule of the watch, describes the first in @p note and returns 1; otherwise 0
 * (also when the watch is off). */
int pp_launch_misfit(char *note, size_t len);

/* Forgets the launches so far: the grader's own kernels, before a variant's. */
void pp_launch_forget(void);

/* For pp_launch_watch() alone (shared_probe.cu): launches with <<<>>>, as the
 * labs do, a kernel of 256 bytes of static and @p dynamic bytes of dynamic
 * shared memory, waits for it, and returns its static shared memory as the
 * runtime tells it. */
long long pp_shared_probe(int dynamic);

#ifdef __cplusplus
}
#endif

#endif
