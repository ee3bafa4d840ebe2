/* Internal to the harness: --max-shared-kib checked on the launches
 * themselves (shared_watch.c). Launchers are told the cap
 * (pp_shared_memory_per_block()), but the GPU still grants what it has: a
 * launch past the cap would fail on a GPU that has only the cap. */
#ifndef PP_SHARED_WATCH_H
#define PP_SHARED_WATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From now on, notes every kernel launched in this process whose static plus
 * dynamic shared memory passes @p cap_bytes (through CUPTI's callbacks on the
 * runtime's and the driver's launch calls). Without CUPTI's callbacks the run
 * cannot be judged: if the subscription fails, or the watch does not see its
 * own probe launch as it was made, the process ends with an error. */
void pp_shared_watch(int cap_bytes);

/* If a kernel launched since the last call (or pp_shared_forget()) passed the
 * cap, describes the first in @p note and returns 1; otherwise 0. */
int pp_shared_overrun(char *note, size_t len);

/* Forgets the launches so far: the grader's own kernels, before a variant's. */
void pp_shared_forget(void);

/* For pp_shared_watch() alone (shared_probe.cu): launches with <<<>>>, as the
 * labs do, a kernel of 256 bytes of static and @p dynamic bytes of dynamic
 * shared memory, waits for it, and returns its static shared memory as the
 * runtime tells it. */
long long pp_shared_probe(int dynamic);

#ifdef __cplusplus
}
#endif

#endif
