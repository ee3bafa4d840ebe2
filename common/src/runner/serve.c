/* The runner's end of the checker/runner protocol (pp/remote.h): the only
 * part of it that runs beside the student's code, in the sandbox. It launches
 * what it is asked to and says what happened; nothing it says decides a time
 * or a verdict (checker/clock.c, checker/remote.c). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pp/check.h"
#include "pp/remote.h"
#include "pp/timer.h"
#include "l2_flush.h"
#include "protocol.h"
#include "share.h"
#include "launch_watch.h"

/* After answering a request on the checker's clock, the runner waits for the
 * next one awake this long: between the timed requests of a window the
 * checker fills and checks (tens of milliseconds at the timed sizes), and a
 * runner asleep when the next one comes wakes on its clock. */
#define SERVE_SPIN_S 1.0

static void hold_work(void *ms) {
  pp_hold_launch(*(const double *)ms);
}

/* OP_HELLO: takes the checker's settings, and answers with the variant table. */
static int hello(const pp_problem *p, const pp_request *q) {
  pp_cap_shared_memory(q->shared_cap);
  if (q->watch) pp_launch_watch(q->shared_cap);
  pp_set_shared_poison(q->poison);
  pp_reply a;
  memset(&a, 0, sizeof a);
  int count = p->variant_count();
  a.count = count;
  if (pp_send_all(PP_SERVE_FD, &a, sizeof a)) return -1;
  for (int i = 0; i < count; ++i) {
    char name[PP_NAME_BYTES] = {0};
    snprintf(name, sizeof name, "%s", p->variant(i).name);
    if (pp_send_all(PP_SERVE_FD, name, sizeof name)) return -1;
  }
  return 0;
}

int pp_serve(const pp_problem *p) {
  struct stat st;
  if (fstat(PP_SERVE_FD, &st) || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr, "error: --serve is how a checker drives this runner; it needs a socket on "
                    "descriptor %d\n",
            PP_SERVE_FD);
    return PP_EXIT_USAGE;
  }
  void *state = NULL;
  double spin_until = 0.0;
  for (;;) {
    pp_request q;
    pp_reply a;
    memset(&a, 0, sizeof a);
    if (pp_recv_all(PP_SERVE_FD, &q, sizeof q, 0.0, spin_until))
      return PP_EXIT_FAIL; /* the checker is gone */
    int error = 0; /* 2: the context is lost, the runner ends after replying */
    switch (q.op) {
    case OP_HELLO:
      if (hello(p, &q)) return PP_EXIT_FAIL;
      continue;
    case OP_SHARE: {
      pp_shared_buffer *list = malloc((size_t)(q.count > 0 ? q.count : 1) * sizeof *list);
      if (q.count < 0 ||
          pp_recv_all(PP_SERVE_FD, list, (size_t)q.count * sizeof *list, 0.0, 0.0))
        return PP_EXIT_FAIL;
      if (state) p->destroy(state);
      pp_share_import(list, q.count);
      free(list);
      state = p->create(&q.size);
      if (pp_share_unused()) {
        a.status = 1;
        snprintf(a.note, sizeof a.note, "the runner's state does not match the checker's");
      }
      break;
    }
    case OP_UNSHARE:
      if (state) p->destroy(state);
      state = NULL;
      break;
    case OP_LAUNCH:
    case OP_TIME:
    case OP_STRESS:
      if (!state || q.variant < PP_PEER || q.variant >= p->variant_count()) {
        a.status = 1;
        snprintf(a.note, sizeof a.note, "request for variant %d out of order", q.variant);
        break;
      }
      if (q.op == OP_STRESS) {
        long long kept = 0;
        error = pp_stress_launch(p, state, q.variant, q.dataset, q.seed, &kept, a.note, sizeof a.note);
        a.kept = kept;
      } else {
        if (q.op == OP_LAUNCH) {
          pp_before_variant();
          a.kept = pp_launch_keeping(p, state, q.variant, q.dataset);
        } else { /* the checker flushed L2 and holds the clock that counts */
          a.event_ms = pp_time_launch(p, state, q.variant, q.dataset, 0);
        }
        error = pp_launch_error(a.note, sizeof a.note);
      }
      a.status = error != 0;
      break;
    case OP_NULL:
      /* What every timed request costs besides the variant's work: the GPU's
       * switch from the checker's context (it has just copied the inputs in
       * and flushed L2) to this one, a launch, the wait for the device, the
       * reply. Without a kernel the switch is left out, and it is a few
       * hundred microseconds. */
      pp_empty_launch();
      error = pp_launch_error(a.note, sizeof a.note);
      a.status = error != 0;
      break;
    case OP_HOLD:
      /* What a request costs beyond an empty one while a kernel runs: the
       * checker's server times one that holds the GPU as long as the peer. */
      a.event_ms = pp_time_events(hold_work, &q.hold_ms);
      error = pp_launch_error(a.note, sizeof a.note);
      a.status = error != 0;
      break;
    case OP_QUIT:
      if (state) p->destroy(state);
      return PP_EXIT_PASS;
    default:
      return PP_EXIT_FAIL;
    }
    if (pp_send_all(PP_SERVE_FD, &a, sizeof a) || error == 2) return PP_EXIT_FAIL;
    if (q.op == OP_TIME || q.op == OP_NULL || q.op == OP_HOLD) spin_until = pp_now_s() + SERVE_SPIN_S;
  }
}
