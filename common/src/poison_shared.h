/* Internal to the harness: shared memory poisoned before a variant's run
 * (poison_shared.cu), so that a read of shared memory that the kernel never
 * wrote shows in its output rather than reading an earlier kernel's values. */
#ifndef PP_POISON_SHARED_H
#define PP_POISON_SHARED_H

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues, on the default stream, a kernel that fills all the shared memory
 * of every SM with all-ones words (NaN as a float, -1 as an int). */
void pp_poison_shared(void);

#ifdef __cplusplus
}
#endif

#endif
