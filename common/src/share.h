/* What the checker and the runner (remote.h) share with the rest of the
 * harness. Device buffers: the checker records what pp_buffer_alloc()
 * allocates; the runner, building the same state, opens those allocations
 * instead of making its own. */
#ifndef PP_SHARE_H
#define PP_SHARE_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "pp/buffer.h"
#include "pp/lab.h"
#include "pp/timer.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One allocation as it crosses between processes. */
typedef struct pp_shared_buffer {
  cudaIpcMemHandle_t handle; /* unset when bytes + guard is 0: nothing was allocated */
  uint64_t bytes;            /* usable bytes, as pp_buffer::bytes */
  uint64_t guard;            /* guard bytes after them, as pp_buffer::guard: the checker's choice */
} pp_shared_buffer;

/* The checker: record the allocations from now on (forgetting earlier ones). */
void pp_share_record(void);
/* The checker: the allocations recorded so far. */
int pp_share_recorded(const pp_shared_buffer **list);
/* The runner: the next allocations open these, in order. */
void pp_share_import(const pp_shared_buffer *list, int count);
/* The runner: how many imported buffers were not used (0 when the states match). */
int pp_share_unused(void);

/* The buffers pp_buffer_mark() marked since pp_buffer_marks_reset(), in
 * order: the checker's clock (checker/seal.c) reads them. */
typedef struct pp_mark {
  pp_buffer *buffer;
  pp_buffer_role role;
} pp_mark;
void pp_buffer_marks_reset(void);
int pp_buffer_marks(const pp_mark **list);

/* The cap on pp_shared_memory_per_block() (device.c), in bytes; 0 lifts it.
 * Set from --max-shared-kib; the checker passes its own to the runner, which
 * runs the launchers that ask. */
void pp_cap_shared_memory(int bytes);
int pp_shared_memory_cap(void);

/* run.c, for the driver and the runner alike. */

/* Waits for the launch just made: 0 if it went well; otherwise the CUDA error
 * goes into @p note and the result is 1, or 2 when the error is sticky (the
 * context is lost and the process must end). */
int pp_launch_error(char *note, size_t len);

/* What runs before a variant's checked launch, untimed: every SM's shared
 * memory poisoned (poison_shared.h), and the launch watch
 * (launch_watch.h) told to forget the harness's own launches. */
void pp_before_variant(void);

/* Whether pp_before_variant() poisons shared memory (default 1); the checker
 * passes its setting to the runner with the shared memory cap. */
void pp_set_shared_poison(int on);
int pp_shared_poison(void);

/* Whether the process that runs the variants watches their launches
 * (launch_watch.h; default 0): set by the driver for the grade sweep and
 * --max-shared-kib, passed by the checker to its runner with the cap. */
void pp_set_launch_watched(int on);
int pp_launch_watched(void);

/* Times one launch of @p variant with CUDA events, L2 evicted first if
 * @p flush (pp_time_once()), as found if not (pp_time_events(): the checker
 * flushed it); the caller fills, poisons and checks around it. */
double pp_time_launch(const pp_problem *problem, void *state, int variant, int dataset, int flush);

/* Launches @p variant once beside the interference kernel (stress.h), whose
 * shape comes from @p seed, waits for the variant, stops the interference and
 * waits for it; the caller fills, poisons and checks around it. *kept gets
 * the device memory the launch allocated and did not free (less what it freed
 * of earlier launches'). Returns as pp_launch_error() does. */
int pp_stress_launch(const pp_problem *problem, void *state, int variant, int dataset, uint64_t seed,
                     long long *kept, char *note, size_t len);

/* The device memory this program's cudaMalloc and cudaMallocAsync calls hold
 * now, the lab file's included (device_ledger.c). */
size_t pp_device_bytes_held(void);

/* Enqueues @p variant (problem->launch()) and returns the device memory that
 * launch allocated and kept, less what it freed of earlier ones'. */
long long pp_launch_keeping(const pp_problem *problem, void *state, int variant, int dataset);

#ifdef __cplusplus
}
#endif

#endif
