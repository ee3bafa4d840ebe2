/* Internal to the harness: the kernels behind the timer: pp_flush_l2()'s, and
 * the empty and the holding one of the checker's path overhead (remote.c). */
#ifndef PP_L2_FLUSH_H
#define PP_L2_FLUSH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads count floats of buffer (zeros); writes only if one is not, which never happens. */
void pp_l2_flush_launch(float *buffer, size_t count);

/* Enqueues a kernel that does nothing. */
void pp_empty_launch(void);

/* Enqueues a kernel of one thread that keeps running for @p ms milliseconds. */
void pp_hold_launch(double ms);

#ifdef __cplusplus
}
#endif

#endif
