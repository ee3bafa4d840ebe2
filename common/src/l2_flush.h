/* Internal to the harness: the kernel behind pp_flush_l2(). */
#ifndef PP_L2_FLUSH_H
#define PP_L2_FLUSH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reads count floats of buffer (zeros); writes only if one is not, which never happens. */
void pp_l2_flush_launch(float *buffer, size_t count);

#ifdef __cplusplus
}
#endif

#endif
