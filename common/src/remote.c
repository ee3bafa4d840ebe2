#define _POSIX_C_SOURCE 200809L
#include "pp/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pp/check.h"
#include "pp/timer.h"
#include "l2_flush.h"
#include "share.h"
#include "shared_watch.h"

/* The runner's end of the socket. */
#define SERVE_FD 3
/* Variant names cross the socket in records of this size. */
#define NAME_BYTES 64
/* Seconds a runner may take to start and answer (its process, the sandbox,
 * the CUDA context): apart from --timeout, which bounds one launch and may be
 * short (the stress check's). A start slower than START_NOTED_S is printed,
 * so that a GPU that keeps new contexts waiting shows in the logs. */
#define START_LIMIT_S 30.0
#define START_NOTED_S 2.0
/* After answering a request on the checker's clock, the runner waits for the
 * next one awake this long (wait_readable()): between the timed requests of a
 * window the checker fills and checks (tens of milliseconds at the timed
 * sizes), and a runner asleep when the next one comes wakes on its clock. */
#define SERVE_SPIN_S 1.0
/* Output of the runner shown at most (the rest is counted, not shown). */
#define OUTPUT_LINES 200
enum op { OP_HELLO, OP_SHARE, OP_UNSHARE, OP_LAUNCH, OP_TIME, OP_STRESS, OP_NULL, OP_HOLD, OP_QUIT };

typedef struct request {
  int32_t op, variant, dataset, count; /* count: buffers that follow OP_SHARE */
  int32_t shared_cap; /* OP_HELLO: the checker's cap on pp_shared_memory_per_block(), or 0 */
  int32_t poison;     /* OP_HELLO: the checker's pp_shared_poison() */
  uint64_t seed;      /* OP_STRESS: the run's seed, which shapes the interference */
  double hold_ms;     /* OP_HOLD: how long its kernel keeps the GPU */
  pp_size size;
} request;

typedef struct reply {
  int32_t status; /* 0 done; 1 failed, see note */
  int32_t count;  /* OP_HELLO: variant names that follow */
  double event_ms; /* OP_TIME: its own CUDA events' time of the launch, a cross-check only */
  char note[256];
} reply;

struct pp_runner {
  const pp_problem *problem;
  char **argv; /* command + "--serve" */
  const char *label; /* marks its output's lines */
  double timeout_s;
  pid_t pid;   /* 0 when not running */
  int socket;
  int output;  /* a temporary file that collects everything the runner prints */
  int table_differs;
  char table_note[256];
  int shared;  /* the state below has been sent to the running process */
  int clocked; /* a request on the checker's clock is in flight: its reply is awaited awake */
  pp_size size;
  pp_shared_buffer *buffers;
  int buffer_count;
  int started;          /* it has been started at least once */
  int first_start;      /* how its first start failed (-1 or -2, ask()), or 0 */
  char first_note[256]; /* and the note that said so */
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int send_all(int fd, const void *data, size_t bytes) {
  const char *p = data;
  while (bytes) {
    ssize_t n = send(fd, p, bytes, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    bytes -= (size_t)n;
  }
  return 0;
}

/* Waits until @p fd is readable: polling without sleeping until @p spin_until,
 * then sleeping in poll() until @p deadline (0: for ever). A timed request is
 * waited for this way at both ends: a thread that sleeps through the wait can
 * wake late (the scheduler, the processor's idle states), and the checker's
 * clock would count that as the work's.
 * Returns 0 when readable (or when poll() fails: the read then says why), -2
 * when the deadline passed. */
static int wait_readable(int fd, double deadline, double spin_until) {
  for (;;) {
    double now = now_s();
    if (deadline > 0 && now >= deadline) return -2;
    int spinning = now < spin_until;
    int wait_ms = spinning ? 0 : deadline > 0 ? (int)((deadline - now) * 1000) + 1 : -1;
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, wait_ms);
    if (ready > 0 || (ready < 0 && errno != EINTR)) return 0;
    if (ready == 0 && !spinning) return -2;
  }
}

/* Reads exactly @p bytes, waiting as wait_readable() does. Returns 0, -1 at
 * end of stream or error, -2 when the deadline passed. */
static int recv_all(int fd, void *data, size_t bytes, double deadline, double spin_until) {
  char *p = data;
  while (bytes) {
    int waited = wait_readable(fd, deadline, spin_until);
    if (waited) return waited;
    ssize_t n = recv(fd, p, bytes, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    bytes -= (size_t)n;
  }
  return 0;
}

/* ---- the checker's side ---- */

pp_runner *pp_runner_new(const pp_problem *problem, char *const *command, double timeout_s,
                         const char *label) {
  pp_runner *r = calloc(1, sizeof *r);
  int argc = 0;
  while (command[argc]) ++argc;
  r->argv = calloc((size_t)argc + 2, sizeof *r->argv);
  memcpy(r->argv, command, (size_t)argc * sizeof *r->argv);
  r->argv[argc] = "--serve";
  r->problem = problem;
  r->label = label;
  r->timeout_s = timeout_s;
  r->socket = -1;
  char path[] = "/tmp/pp-runner-output-XXXXXX";
  r->output = mkstemp(path);
  if (r->output < 0) {
    perror("error: cannot create a file for the runner's output");
    exit(PP_EXIT_USAGE);
  }
  unlink(path);
  return r;
}

/* Waits up to @p seconds for the runner to end; returns 1 with its status if it did. */
static int wait_for(pid_t pid, double seconds, int *status) {
  double deadline = now_s() + seconds;
  for (;;) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return 1;
    if (done < 0 || now_s() >= deadline) return 0;
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
}

/* Stops the process group at once; the runner is started again on the next request. */
static void kill_runner(pp_runner *r) {
  if (r->pid > 0) {
    kill(-r->pid, SIGKILL);
    waitpid(r->pid, NULL, 0);
  }
  if (r->socket >= 0) close(r->socket);
  r->pid = 0;
  r->socket = -1;
  r->shared = 0;
}

/* Describes how a runner that stopped answering ended. */
static void describe_end(pp_runner *r, int got, double limit_s, const char *doing, char *note,
                         size_t len) {
  if (got == -2) {
    snprintf(note, len, "ran past the %.0f s limit %s (an endless loop or a deadlock?): stopped",
             limit_s, doing);
    kill_runner(r);
    return;
  }
  int status = 0;
  if (r->pid > 0 && wait_for(r->pid, r->timeout_s, &status)) {
    r->pid = 0;
    if (WIFSIGNALED(status))
      snprintf(note, len, "the submission's process died of signal %d %s", WTERMSIG(status), doing);
    else
      snprintf(note, len, "the submission's process exited (status %d) %s", WEXITSTATUS(status),
               doing);
  } else {
    snprintf(note, len, "the submission's process stopped answering %s", doing);
  }
  kill_runner(r);
}

/* One request and its reply; with a note, -1 if the runner ended, -2 if it ran out of time. */
static int ask(pp_runner *r, const request *q, const void *extra, size_t extra_bytes, reply *a,
               double timeout_s, const char *doing, char *note, size_t len) {
  int got = send_all(r->socket, q, sizeof *q);
  if (!got && extra_bytes) got = send_all(r->socket, extra, extra_bytes);
  double deadline = now_s() + timeout_s;
  if (!got) got = recv_all(r->socket, a, sizeof *a, deadline, r->clocked ? deadline : 0.0);
  if (got) describe_end(r, got, timeout_s, doing, note, len);
  return got;
}

static int start(pp_runner *r, char *note, size_t len) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair)) {
    snprintf(note, len, "cannot create a socket: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(note, len, "cannot start the runner: %s", strerror(errno));
    close(pair[0]);
    close(pair[1]);
    return -1;
  }
  if (pid == 0) {
    /* Its own process group, so that a time limit stops a wrapper and its child together. */
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(r->output, 1);
    dup2(r->output, 2);
    dup2(pair[1], SERVE_FD);
    for (int fd = SERVE_FD + 1; fd < 1024; ++fd) close(fd);
    execvp(r->argv[0], r->argv);
    fprintf(stderr, "cannot run %s: %s\n", r->argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(pair[1]);
  r->pid = pid;
  r->socket = pair[0];

  /* The runner must export the variant table the checker was built with; it
   * takes the checker's --max-shared-kib, since its launchers are what ask. */
  request q = {.op = OP_HELLO, .shared_cap = pp_shared_memory_cap(), .poison = pp_shared_poison()};
  reply a;
  double began = now_s(), limit = r->timeout_s > START_LIMIT_S ? r->timeout_s : START_LIMIT_S;
  int asked = ask(r, &q, NULL, 0, &a, limit, "while starting", note, len);
  if (asked) return asked;
  int count = r->problem->variant_count();
  char (*names)[NAME_BYTES] = calloc((size_t)(a.count > 0 ? a.count : 1), NAME_BYTES);
  int got = a.count >= 0 && a.count < 1000
                ? recv_all(r->socket, names, (size_t)a.count * NAME_BYTES, began + limit, 0.0)
                : -1;
  if (got) {
    free(names);
    describe_end(r, got, limit, "while starting", note, len);
    return got == -2 ? -2 : -1;
  }
  if (now_s() - began > START_NOTED_S)
    printf("note: the %s's process took %.1f s to start\n", r->label, now_s() - began);
  r->table_differs = a.count != count;
  for (int i = 0; i < count && !r->table_differs; ++i)
    r->table_differs = strncmp(names[i], r->problem->variant(i).name, NAME_BYTES - 1) != 0;
  if (r->table_differs)
    snprintf(r->table_note, sizeof r->table_note,
             "the submission's variant table is not the handout's (%d variants, first '%.40s'): "
             "rename nothing and keep every entry",
             a.count, a.count > 0 ? names[0] : "");
  free(names);
  return 0;
}

/* Starts the runner if needed and gives it the current state. */
static int ready(pp_runner *r, char *note, size_t len) {
  /* A runner whose first start failed is not started again: nothing a variant
   * did can have caused it (a constructor that stops, bombs or exhausts its
   * sandbox, a wrapper that is stopped), and each new try could wait out
   * START_LIMIT_S again, once for every variant. */
  if (r->first_start) {
    snprintf(note, len, "%s (at its first start; not started again)", r->first_note);
    return r->first_start;
  }
  int got = r->pid ? 0 : start(r, note, len);
  if (got && !r->started) {
    r->first_start = got;
    snprintf(r->first_note, sizeof r->first_note, "%s", note);
  }
  r->started = 1;
  if (got || r->shared || !r->buffers) return got;
  request q = {.op = OP_SHARE, .count = r->buffer_count, .size = r->size};
  reply a;
  got = ask(r, &q, r->buffers, (size_t)r->buffer_count * sizeof *r->buffers, &a, r->timeout_s,
            "while opening the buffers", note, len);
  if (got) return got;
  if (a.status) {
    snprintf(note, len, "%s", a.note);
    return -1;
  }
  r->shared = 1;
  return 0;
}

void pp_runner_record(void) {
  pp_share_record();
}

void pp_runner_share(pp_runner *r, const pp_size *size) {
  const pp_shared_buffer *list;
  r->buffer_count = pp_share_recorded(&list);
  r->buffers = realloc(r->buffers, (size_t)(r->buffer_count ? r->buffer_count : 1) * sizeof *list);
  memcpy(r->buffers, list, (size_t)r->buffer_count * sizeof *list);
  r->size = *size;
  r->shared = 0; /* sent with the next request */
}

void pp_runner_unshare(pp_runner *r) {
  if (r->pid && r->shared) {
    request q = {.op = OP_UNSHARE};
    reply a;
    char note[256];
    ask(r, &q, NULL, 0, &a, r->timeout_s, "while closing the buffers", note, sizeof note);
  }
  free(r->buffers);
  r->buffers = NULL;
  r->buffer_count = 0;
  r->shared = 0;
}

static int run_request(pp_runner *r, request *q, reply *a, double timeout_s, const char *doing,
                       char *note, size_t len) {
  int got = ready(r, note, len);
  if (got) return got;
  if (r->table_differs) {
    snprintf(note, len, "%s", r->table_note);
    return -1;
  }
  got = ask(r, q, NULL, 0, a, timeout_s, doing, note, len);
  if (got) return got;
  if (a->status) {
    snprintf(note, len, "%s", a->note);
    return -1;
  }
  return 0;
}

int pp_runner_launch(pp_runner *r, int variant, int dataset, char *note, size_t len) {
  request q = {.op = OP_LAUNCH, .variant = variant, .dataset = dataset};
  reply a;
  return run_request(r, &q, &a, r->timeout_s, "while running it", note, len);
}

/* The checker's clock around one request and its reply: started once the
 * runner is ready and the L2 cache is flushed (in this process, waited for),
 * so that it holds the request, the runner's work and the reply only; @p event_ms,
 * where given, gets the runner's own event time of the work. */
static int clocked_request(pp_runner *r, request *q, const char *doing, double *wall_ms,
                           double *event_ms, char *note, size_t len) {
  int got = ready(r, note, len);
  if (got) return got;
  pp_flush_l2();
  PP_CHECK(cudaDeviceSynchronize());
  reply a;
  r->clocked = 1;
  double start = now_s();
  got = run_request(r, q, &a, r->timeout_s, doing, note, len);
  *wall_ms = (now_s() - start) * 1e3;
  r->clocked = 0;
  if (!got && event_ms) *event_ms = a.event_ms;
  return got;
}

int pp_runner_time(pp_runner *r, int variant, int dataset, double *wall_ms, double *event_ms,
                   char *note, size_t len) {
  request q = {.op = OP_TIME, .variant = variant, .dataset = dataset};
  return clocked_request(r, &q, "while timing it", wall_ms, event_ms, note, len);
}

int pp_runner_null(pp_runner *r, double *wall_ms, char *note, size_t len) {
  request q = {.op = OP_NULL};
  return clocked_request(r, &q, "while answering an empty request", wall_ms, NULL, note, len);
}

int pp_runner_hold(pp_runner *r, double hold_ms, double *wall_ms, double *event_ms, char *note,
                   size_t len) {
  request q = {.op = OP_HOLD, .hold_ms = hold_ms};
  return clocked_request(r, &q, "while holding the GPU", wall_ms, event_ms, note, len);
}

int pp_runner_stress(pp_runner *r, int variant, int dataset, uint64_t seed, char *note, size_t len) {
  request q = {.op = OP_STRESS, .variant = variant, .dataset = dataset, .seed = seed};
  reply a;
  return run_request(r, &q, &a, r->timeout_s, "while running it under stress", note, len);
}

/* Copies the runner's output to @p out, each line marked with @p label. */
static void show_output(int fd, const char *label, FILE *out) {
  FILE *in = fdopen(dup(fd), "r");
  if (!in) return;
  rewind(in);
  char line[1024];
  int lines = 0, at_line_start = 1;
  while (fgets(line, sizeof line, in)) {
    if (at_line_start && ++lines > OUTPUT_LINES) continue;
    fprintf(out, "%s%s", at_line_start ? label : "", line);
    at_line_start = strchr(line, '\n') != NULL;
  }
  if (!at_line_start && lines <= OUTPUT_LINES) fputc('\n', out);
  if (lines > OUTPUT_LINES) fprintf(out, "%s... %d more lines\n", label, lines - OUTPUT_LINES);
  fclose(in);
}

int pp_runner_stop(pp_runner *r, FILE *out) {
  if (!r) return 0;
  int clean = 0;
  if (r->pid) {
    request q = {.op = OP_QUIT};
    send_all(r->socket, &q, sizeof q);
    /* Give it the time limit to finish (compute-sanitizer writes its report now). */
    int status = 0;
    if (wait_for(r->pid, r->timeout_s, &status)) {
      r->pid = 0;
      clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      if (!clean)
        fprintf(out, "FAIL the submission's process ended with %s %d after its last request\n",
                WIFEXITED(status) ? "status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    } else {
      fprintf(out, "FAIL the submission's process did not quit within %.0f s\n", r->timeout_s);
    }
    kill_runner(r);
  } else {
    clean = 1;
  }
  char label[64];
  snprintf(label, sizeof label, "%s| ", r->label);
  show_output(r->output, label, out);
  close(r->output);
  free(r->buffers);
  free(r->argv);
  free(r);
  return clean ? 0 : -1;
}

/* ---- the runner's side ---- */

static void hold_work(void *ms) {
  pp_hold_launch(*(const double *)ms);
}

int pp_serve(const pp_problem *p) {
  struct stat st;
  if (fstat(SERVE_FD, &st) || !S_ISSOCK(st.st_mode)) {
    fprintf(stderr, "error: --serve is how a checker drives this runner; it needs a socket on "
                    "descriptor %d\n",
            SERVE_FD);
    return PP_EXIT_USAGE;
  }
  void *state = NULL;
  double spin_until = 0.0;
  for (;;) {
    request q;
    reply a;
    memset(&a, 0, sizeof a);
    if (recv_all(SERVE_FD, &q, sizeof q, 0.0, spin_until))
      return PP_EXIT_FAIL; /* the checker is gone */
    int error = 0; /* 2: the context is lost, the runner ends after replying */
    switch (q.op) {
    case OP_HELLO: {
      pp_cap_shared_memory(q.shared_cap);
      if (q.shared_cap > 0) pp_shared_watch(q.shared_cap);
      pp_set_shared_poison(q.poison);
      int count = p->variant_count();
      a.count = count;
      if (send_all(SERVE_FD, &a, sizeof a)) return PP_EXIT_FAIL;
      for (int i = 0; i < count; ++i) {
        char name[NAME_BYTES] = {0};
        snprintf(name, sizeof name, "%s", p->variant(i).name);
        if (send_all(SERVE_FD, name, sizeof name)) return PP_EXIT_FAIL;
      }
      continue;
    }
    case OP_SHARE: {
      pp_shared_buffer *list = malloc((size_t)(q.count > 0 ? q.count : 1) * sizeof *list);
      if (q.count < 0 || recv_all(SERVE_FD, list, (size_t)q.count * sizeof *list, 0.0, 0.0))
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
        error = pp_stress_launch(p, state, q.variant, q.dataset, q.seed, a.note, sizeof a.note);
      } else {
        if (q.op == OP_LAUNCH) {
          pp_before_variant();
          p->launch(state, q.variant, q.dataset);
        } else { /* the checker flushed L2 and holds the clock that counts */
          a.event_ms = pp_time_launch(p, state, q.variant, q.dataset, 0);
        }
        error = pp_launch_error(a.note, sizeof a.note);
      }
      a.status = error != 0;
      break;
    case OP_NULL:
      /* What every timed request costs besides the variant's work: the GPU's
       * switch from the checker's context (it has just flushed L2) to this
       * one, a launch, the wait for the device, the reply. Without a kernel
       * the switch is left out, and it is a few hundred microseconds. */
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
    if (send_all(SERVE_FD, &a, sizeof a) || error == 2) return PP_EXIT_FAIL;
    if (q.op == OP_TIME || q.op == OP_NULL || q.op == OP_HOLD) spin_until = now_s() + SERVE_SPIN_S;
  }
}
