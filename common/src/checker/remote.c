/* The checker's end of the checker/runner protocol (pp/remote.h): it starts
 * the runner, shares the buffers, sends requests, stops a runner that does not
 * answer in time and starts it again, and holds the clock of a timed request
 * (what happens on that clock besides the request is checker/clock.c's). The
 * runner's end is runner/serve.c. */
#define _POSIX_C_SOURCE 200809L
#include "pp/remote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pp/check.h"
#include "protocol.h"
#include "share.h"

/* Seconds a runner may take to start and answer (its process, the sandbox,
 * the CUDA context): apart from --timeout, which bounds one launch and may be
 * short (the stress check's). A start slower than START_NOTED_S is printed,
 * so that a GPU that keeps new contexts waiting shows in the logs. */
#define START_LIMIT_S 30.0
#define START_NOTED_S 2.0
/* Output of the runner shown at most (the rest is counted, not shown). */
#define OUTPUT_LINES 200

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
  int ended;            /* pp_runner_end() has stopped it for good */
  int ended_clean;      /* and it quit cleanly */
};

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
  double deadline = pp_now_s() + seconds;
  for (;;) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return 1;
    if (done < 0 || pp_now_s() >= deadline) return 0;
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
static int ask(pp_runner *r, const pp_request *q, const void *extra, size_t extra_bytes, pp_reply *a,
               double timeout_s, const char *doing, char *note, size_t len) {
  int got = pp_send_all(r->socket, q, sizeof *q);
  if (!got && extra_bytes) got = pp_send_all(r->socket, extra, extra_bytes);
  double deadline = pp_now_s() + timeout_s;
  if (!got) got = pp_recv_all(r->socket, a, sizeof *a, deadline, r->clocked ? deadline : 0.0);
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
    dup2(pair[1], PP_SERVE_FD);
    for (int fd = PP_SERVE_FD + 1; fd < 1024; ++fd) close(fd);
    execvp(r->argv[0], r->argv);
    fprintf(stderr, "cannot run %s: %s\n", r->argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(pair[1]);
  r->pid = pid;
  r->socket = pair[0];

  /* The runner must export the variant table the checker was built with; it
   * takes the checker's --max-shared-kib, since its launchers are what ask,
   * and watches its launches if the checker would. */
  pp_request q = {.op = OP_HELLO,
                  .shared_cap = pp_shared_memory_cap(),
                  .poison = pp_shared_poison(),
                  .watch = pp_launch_watched()};
  pp_reply a;
  double began = pp_now_s(), limit = r->timeout_s > START_LIMIT_S ? r->timeout_s : START_LIMIT_S;
  int asked = ask(r, &q, NULL, 0, &a, limit, "while starting", note, len);
  if (asked) return asked;
  int count = r->problem->variant_count();
  char (*names)[PP_NAME_BYTES] = calloc((size_t)(a.count > 0 ? a.count : 1), PP_NAME_BYTES);
  int got = a.count >= 0 && a.count < 1000
                ? pp_recv_all(r->socket, names, (size_t)a.count * PP_NAME_BYTES, began + limit, 0.0)
                : -1;
  if (got) {
    free(names);
    describe_end(r, got, limit, "while starting", note, len);
    return got == -2 ? -2 : -1;
  }
  if (pp_now_s() - began > START_NOTED_S)
    printf("note: the %s's process took %.1f s to start\n", r->label, pp_now_s() - began);
  r->table_differs = a.count != count;
  for (int i = 0; i < count && !r->table_differs; ++i)
    r->table_differs = strncmp(names[i], r->problem->variant(i).name, PP_NAME_BYTES - 1) != 0;
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
  if (r->ended) {
    snprintf(note, len, "the checker had ended the %s's process", r->label);
    return -1;
  }
  int got = r->pid ? 0 : start(r, note, len);
  if (got && !r->started) {
    r->first_start = got;
    snprintf(r->first_note, sizeof r->first_note, "%s", note);
  }
  r->started = 1;
  if (got || r->shared || !r->buffers) return got;
  pp_request q = {.op = OP_SHARE, .count = r->buffer_count, .size = r->size};
  pp_reply a;
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
    pp_request q = {.op = OP_UNSHARE};
    pp_reply a;
    char note[256];
    ask(r, &q, NULL, 0, &a, r->timeout_s, "while closing the buffers", note, sizeof note);
  }
  free(r->buffers);
  r->buffers = NULL;
  r->buffer_count = 0;
  r->shared = 0;
}

static int run_request(pp_runner *r, pp_request *q, pp_reply *a, double timeout_s, const char *doing,
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

int pp_runner_launch(pp_runner *r, int variant, int dataset, long long *kept, char *note, size_t len) {
  pp_request q = {.op = OP_LAUNCH, .variant = variant, .dataset = dataset};
  pp_reply a;
  memset(&a, 0, sizeof a);
  int got = run_request(r, &q, &a, r->timeout_s, "while running it", note, len);
  *kept = a.kept;
  return got;
}

/* The checker's clock around one request and its reply. It starts once the
 * runner is ready and the checker's own work (fill, poison) has landed, and
 * holds the steps' staging (the inputs copied in, L2 evicted), the request,
 * the runner's work, the reply and the steps' settling (the outputs found
 * complete and snapshot): a reply is only a cue to look. @p event_ms, where
 * given, gets the runner's own event time of the work, for display. */
static int clocked_request(pp_runner *r, pp_request *q, const pp_clock_steps *steps,
                           const char *doing, double *wall_ms, double *event_ms, char *note,
                           size_t len) {
  int got = ready(r, note, len);
  if (got) return got;
  PP_CHECK(cudaDeviceSynchronize());
  pp_reply a;
  r->clocked = 1;
  double start = pp_now_s();
  steps->stage(steps->ctx);
  got = run_request(r, q, &a, r->timeout_s, doing, note, len);
  if (!got && steps->settle(steps->ctx, start + r->timeout_s)) {
    snprintf(note, len, "replied %s, but its output was not complete within the %.0f s limit: "
                        "stopped", doing, r->timeout_s);
    kill_runner(r);
    got = -2;
  }
  *wall_ms = (pp_now_s() - start) * 1e3;
  r->clocked = 0;
  if (!got && event_ms) *event_ms = a.event_ms;
  return got;
}

int pp_runner_time(pp_runner *r, int variant, int dataset, const pp_clock_steps *steps,
                   double *wall_ms, double *event_ms, char *note, size_t len) {
  pp_request q = {.op = OP_TIME, .variant = variant, .dataset = dataset};
  return clocked_request(r, &q, steps, "while timing it", wall_ms, event_ms, note, len);
}

int pp_runner_null(pp_runner *r, const pp_clock_steps *steps, double *wall_ms, char *note,
                   size_t len) {
  pp_request q = {.op = OP_NULL};
  return clocked_request(r, &q, steps, "to an empty request", wall_ms, NULL, note, len);
}

int pp_runner_hold(pp_runner *r, double hold_ms, const pp_clock_steps *steps, double *wall_ms,
                   double *event_ms, char *note, size_t len) {
  pp_request q = {.op = OP_HOLD, .hold_ms = hold_ms};
  return clocked_request(r, &q, steps, "while holding the GPU", wall_ms, event_ms, note, len);
}

int pp_runner_stress(pp_runner *r, int variant, int dataset, uint64_t seed, long long *kept, char *note,
                     size_t len) {
  pp_request q = {.op = OP_STRESS, .variant = variant, .dataset = dataset, .seed = seed};
  pp_reply a;
  memset(&a, 0, sizeof a);
  int got = run_request(r, &q, &a, r->timeout_s, "while running it under stress", note, len);
  *kept = a.kept;
  return got;
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

int pp_runner_end(pp_runner *r, FILE *out) {
  if (!r) return 0;
  if (r->ended) return r->ended_clean ? 0 : -1;
  int clean = 0;
  if (r->pid) {
    pp_request q = {.op = OP_QUIT};
    pp_send_all(r->socket, &q, sizeof q);
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
  r->ended = 1;
  r->ended_clean = clean;
  return clean ? 0 : -1;
}

int pp_runner_stop(pp_runner *r, FILE *out) {
  if (!r) return 0;
  int status = pp_runner_end(r, out);
  close(r->output);
  free(r->buffers);
  free(r->argv);
  free(r);
  return status;
}

