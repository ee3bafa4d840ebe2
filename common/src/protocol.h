/* The checker/runner protocol (pp/remote.h): the messages on the socket and
 * the framing both ends use. The checker's end is checker/remote.c, the
 * runner's runner/serve.c; neither includes the other. */
#ifndef PP_PROTOCOL_H
#define PP_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "pp/lab.h"

/* The runner's end of the socket. */
#define PP_SERVE_FD 3
/* Variant names cross the socket in records of this size. */
#define PP_NAME_BYTES 64

/* Requests and replies alternate. After an OP_SHARE request come `count`
 * pp_shared_buffer records (share.h); after the OP_HELLO reply, `count` names.
 * The early-reply sample (tests/submissions/) copies these messages byte for
 * byte, as an attacker would: a change here is a change there too, or its
 * proxy misreads every request and its grading hangs at the first start. */
enum pp_op { OP_HELLO, OP_SHARE, OP_UNSHARE, OP_LAUNCH, OP_TIME, OP_STRESS, OP_NULL, OP_HOLD, OP_QUIT };

typedef struct pp_request {
  int32_t op, variant, dataset, count; /* count: buffers that follow OP_SHARE */
  int32_t shared_cap; /* OP_HELLO: the checker's cap on pp_shared_memory_per_block(), or 0 */
  int32_t poison;     /* OP_HELLO: the checker's pp_shared_poison() */
  int32_t watch;      /* OP_HELLO: the checker's pp_launch_watched() */
  uint64_t seed;      /* OP_STRESS: the run's seed, which shapes the interference */
  double hold_ms;     /* OP_HOLD: how long its kernel keeps the GPU */
  pp_size size;
} pp_request;

typedef struct pp_reply {
  int32_t status;  /* 0 done; 1 failed, see note */
  int32_t count;   /* OP_HELLO: variant names that follow */
  double event_ms; /* OP_TIME: its own CUDA events' time of the launch, shown, never believed */
  int64_t kept;    /* OP_LAUNCH, OP_STRESS: device memory the launch allocated and kept */
  char note[256];
} pp_reply;

/* CLOCK_MONOTONIC in seconds. */
double pp_now_s(void);

/* Sends all of @p bytes; 0, or -1 when the other end is gone. */
int pp_send_all(int fd, const void *data, size_t bytes);

/* Reads exactly @p bytes, waiting without sleeping until @p spin_until, then
 * sleeping in poll() until @p deadline (0: for ever). A timed request is
 * waited for this way at both ends: a thread that sleeps through the wait can
 * wake late (the scheduler, the processor's idle states), and the checker's
 * clock would count that as the work's. Returns 0, -1 at end of stream or
 * error, -2 when the deadline passed. */
int pp_recv_all(int fd, void *data, size_t bytes, double deadline, double spin_until);

#endif
