/* pp-gauntlet: runs a lab binary through the gauntlet, the checks that a lab's
 * file must pass, in order, and says which check rejects it.
 *
 *   pp-gauntlet [--mutant] [--sanitizer PATH] [--checker PROGRAM [--sandbox SCRIPT]]
 *               -- RUNNER CHECK...
 *   CHECK:  --check NAME [--runner PATH] [--lock FILE] [--tool TOOL [--tool-arg ARG]...] ARGUMENT...
 *           --check NAME --command PROGRAM ARGUMENT...
 *
 * A check with --command runs PROGRAM ARGUMENT... on the host, before the GPU
 * is asked for: the symbol check of the student's object, as grading runs it,
 * so that a planted bug that grading refuses for its symbols counts as
 * rejected, on any machine. The others run on the GPU, in order, after it.
 * Such a check runs RUNNER ARGUMENT..., or PATH ARGUMENT... where it names its own
 * runner (the same file built otherwise, cmake/Labs.cmake: the stress check's
 * with its blocks' indices reversed, the warps check's with its warp
 * collectives checked); one with --tool runs it under
 * compute-sanitizer: PATH --tool TOOL --error-exitcode 3 ARG... RUNNER ARGUMENT....
 * One with --lock holds FILE's lock (flock) while it runs, waiting for it if
 * another process holds it: the large check, which needs most of the GPU's
 * memory, so that under `ctest -j` two never make each other skip for want of
 * memory (a mutant's large check, inside its test, has no CTest resource lock).
 * With --checker (one check: a graded submission) it runs PROGRAM ARGUMENT...
 * -- [the sanitizer] RUNNER instead: the checker judges, RUNNER only runs the
 * variants (common/include/pp/remote.h); with --sandbox, the runner part runs
 * in grading/sandbox: sh SCRIPT run --ro RUNNER -- [the sanitizer] RUNNER, so
 * compute-sanitizer, which runs the student's code, is inside the sandbox too.
 * cmake/Labs.cmake (pp_gauntlet) lists
 * the checks for the lab tests, the mutant tests and grading alike.
 *
 * A check's outcome, from its exit code: 0 passed; 1 rejected by the grader;
 * 3 rejected by compute-sanitizer (it found errors); 77 skipped (a size that
 * does not fit this GPU); anything else, a signal included, is no verdict.
 * Before the first check that needs it, compute-sanitizer must run
 * PROGRAM --probe, or RUNNER --probe, cleanly (no code under test runs
 * there); and a run under it counts only if it printed its summary line
 * ("========= ERROR SUMMARY: ...", racecheck's "========= RACECHECK SUMMARY:
 * ..."), which it does once it has finished. So "the sanitizer found an
 * error" (3) and "the sanitizer could not run" (no verdict) never mix.
 *
 * Exit codes, for a lab or a graded test (without --mutant): 0 every check
 * passed or skipped; 1 a check rejected the file; 2 a check gave no verdict
 * (a compute-sanitizer that cannot run here is the machine's fault, not the
 * file's); 77 no CUDA device, or compute-sanitizer not found (--sanitizer
 * missing) for a check that needs it.
 * With --mutant (the file holds a planted bug): 0 when a check rejects it
 * ("caught by: NAME"); 1 when it survives every check ("survived every
 * check"), or when a check gives no verdict (a crash is not a rejection: the
 * grader must say no; a check without a tool whose process dies of a signal
 * runs again with the file in a runner process, RUNNER ARGUMENT... -- RUNNER,
 * as grading runs it, and the checker's verdict on that counts); 77 when it
 * survives the checks that ran while some
 * could not run here (compute-sanitizer not found, a size too large for this
 * GPU). That is a skip, not a pass: a survivor is never reported as caught,
 * and CTest counts the test as skipped, naming what did not run, rather than
 * failing the build for what this machine lacks; the lab's own sanitizer
 * tests skip there for the same reason.
 */
#define _DEFAULT_SOURCE /* flock() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PASS = 0, FAIL = 1, USAGE = 2, SANITIZER_ERRORS = 3, SKIP = 77 };

/* What one run of a check ended with. */
typedef enum outcome { PASSED, REJECTED, SKIPPED, NOT_RUN, NO_VERDICT } outcome;

#define MAX_CHECKS 32
#define MAX_TOOL_ARGS 8
/* compute-sanitizer's last line: "========= ERROR SUMMARY: 0 errors", or
 * racecheck's "========= RACECHECK SUMMARY: 0 hazards displayed (...)". */
#define SANITIZER_PREFIX "========= "
#define SANITIZER_SUMMARY "SUMMARY:"

typedef struct check {
  const char *name;
  const char *runner; /* its own runner, or NULL: the gauntlet's */
  const char *lock;   /* a file locked while it runs, or NULL */
  const char *tool; /* compute-sanitizer's tool, or NULL */
  char *tool_args[MAX_TOOL_ARGS]; /* compute-sanitizer's options for it */
  int tool_arg_count;
  int host;         /* --command: args is a whole command line, run without the GPU */
  char **args;      /* the runner's (or the checker's) arguments, or the command */
  int arg_count;
} check;

typedef struct gauntlet {
  int mutant;
  const char *sanitizer; /* or NULL: not found */
  const char *checker;   /* or NULL: the checks run RUNNER itself */
  const char *sandbox;   /* with a checker: grading/sandbox, or NULL */
  const char *runner;
  check checks[MAX_CHECKS];
  int count;
  int sanitizer_ready[MAX_CHECKS]; /* per check: its tool passed the preflight */
} gauntlet;

static volatile pid_t child = 0;

/* Stopped from outside (CTest's timeout, Ctrl-C): take the child's group along. */
static void forward_signal(int sig) {
  if (child > 0) kill(-child, SIGKILL);
  signal(sig, SIG_DFL);
  raise(sig);
}

static int usage(const char *program) {
  fprintf(stderr,
          "usage: %s [--mutant] [--sanitizer PATH] [--checker PROGRAM [--sandbox SCRIPT]]\n"
          "       -- RUNNER CHECK...\n"
          "  CHECK: --check NAME [--runner PATH] [--lock FILE] [--tool TOOL [--tool-arg ARG]...]\n"
          "         ARGUMENT..., or --check NAME --command PROGRAM ARGUMENT...\n",
          program);
  return USAGE;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Appends compute-sanitizer's part of a command for check c, if it has a tool:
 * PATH --tool TOOL --error-exitcode 3 OPTION.... Returns the new length. */
static int add_sanitizer(char **argv, int n, const gauntlet *g, const check *c) {
  if (!c->tool) return n;
  argv[n++] = (char *)g->sanitizer;
  argv[n++] = "--tool";
  argv[n++] = (char *)c->tool;
  argv[n++] = "--error-exitcode";
  argv[n++] = "3";
  for (int i = 0; i < c->tool_arg_count; ++i) argv[n++] = c->tool_args[i];
  return n;
}

/* [sanitizer] PROGRAM --probe, PROGRAM being the checker if there is one: the
 * student's code never runs in a probe. NULL-terminated. */
static char **probe_command(const gauntlet *g, const check *c) {
  char **argv = calloc(MAX_TOOL_ARGS + 16, sizeof *argv);
  int n = add_sanitizer(argv, 0, g, c);
  argv[n++] = (char *)(g->checker ? g->checker : g->runner);
  argv[n++] = "--probe";
  return argv;
}

/* [sanitizer] RUNNER ARGUMENT...; with a checker, CHECKER ARGUMENT... --
 * [sh SANDBOX run --ro RUNNER --] [sanitizer] RUNNER. CHECKER is @p checker
 * (g->checker, or the runner itself: its variants then run in a process of
 * their own, as graded). NULL-terminated. */
static char **check_command(const gauntlet *g, const check *c, const char *checker) {
  char **argv = calloc((size_t)c->arg_count + MAX_TOOL_ARGS + 16, sizeof *argv);
  int n = 0;
  if (c->host) {
    for (int i = 0; i < c->arg_count; ++i) argv[n++] = c->args[i];
    return argv;
  }
  char *runner = (char *)(c->runner ? c->runner : g->runner);
  if (checker) {
    argv[n++] = (char *)checker;
    for (int i = 0; i < c->arg_count; ++i) argv[n++] = c->args[i];
    argv[n++] = "--";
    if (g->sandbox) {
      const char *sandbox[] = {"sh", g->sandbox, "run", "--ro", runner, "--"};
      for (size_t i = 0; i < sizeof sandbox / sizeof *sandbox; ++i) argv[n++] = (char *)sandbox[i];
    }
    n = add_sanitizer(argv, n, g, c);
    argv[n++] = runner;
    return argv;
  }
  n = add_sanitizer(argv, n, g, c);
  argv[n++] = runner;
  for (int i = 0; i < c->arg_count; ++i) argv[n++] = c->args[i];
  return argv;
}

static void print_command(const char *label, char **argv) {
  printf("pp-gauntlet: %s:", label);
  for (char **a = argv; *a; ++a) printf(" %s", *a);
  printf("\n");
  fflush(stdout);
}

/* Whether a line of output is compute-sanitizer's summary. */
static int is_summary(const char *line) {
  return !strncmp(line, SANITIZER_PREFIX, strlen(SANITIZER_PREFIX)) && strstr(line, SANITIZER_SUMMARY);
}

/* Runs argv, copying its output to ours; *summary tells whether a line was
 * compute-sanitizer's summary. Returns the wait status, or -1 if it
 * could not be started. */
static int run(char **argv, int *summary) {
  int pipe_fd[2];
  *summary = 0;
  if (pipe(pipe_fd)) {
    perror("pp-gauntlet: pipe");
    return -1;
  }
  fflush(stdout);
  child = fork();
  if (child < 0) {
    perror("pp-gauntlet: fork");
    return -1;
  }
  if (child == 0) {
    setpgid(0, 0);
    dup2(pipe_fd[1], 1);
    dup2(pipe_fd[1], 2);
    close(pipe_fd[0]);
    close(pipe_fd[1]);
    execvp(argv[0], argv);
    fprintf(stderr, "pp-gauntlet: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(child, child);
  close(pipe_fd[1]);
  char buffer[4096], line[512];
  size_t line_length = 0;
  for (;;) {
    ssize_t got = read(pipe_fd[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    fwrite(buffer, 1, (size_t)got, stdout);
    for (ssize_t i = 0; i < got; ++i) {
      if (buffer[i] == '\n' || line_length == sizeof line - 1) {
        line[line_length] = '\0';
        if (is_summary(line)) *summary = 1;
        line_length = 0;
      }
      if (buffer[i] != '\n') line[line_length++] = buffer[i];
    }
  }
  line[line_length] = '\0';
  if (is_summary(line)) *summary = 1;
  fflush(stdout);
  close(pipe_fd[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) continue;
  child = 0;
  return status;
}

/* Describes a wait status that is no verdict. */
static void describe(int status, char *why, size_t len) {
  if (status < 0)
    snprintf(why, len, "could not be started");
  else if (WIFSIGNALED(status))
    snprintf(why, len, "died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
  else if (WEXITSTATUS(status) == 127)
    snprintf(why, len, "could not be run (exit 127)");
  else if (WEXITSTATUS(status) == USAGE)
    snprintf(why, len, "refused its arguments or its size (exit 2)");
  else
    snprintf(why, len, "exited with %d", WEXITSTATUS(status));
}

/* Runs PROGRAM --probe (no sanitizer): PASSED with a device, SKIPPED without. */
static outcome probe_device(const gauntlet *g, char *why, size_t len) {
  check plain = {.name = "probe"};
  char **argv = probe_command(g, &plain);
  int summary;
  int status = run(argv, &summary);
  free(argv);
  if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == PASS) return PASSED;
  if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == SKIP) return SKIPPED;
  describe(status, why, len);
  return NO_VERDICT;
}

/* Whether compute-sanitizer runs here with this check's tool: PROGRAM --probe
 * under it must exit 0 and print its summary. */
static outcome preflight(const gauntlet *g, const check *c, char *why, size_t len) {
  char **argv = probe_command(g, c);
  print_command("can compute-sanitizer run here", argv);
  int summary;
  int status = run(argv, &summary);
  free(argv);
  int clean = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == PASS;
  if (clean && summary) return PASSED;
  char end[128];
  if (clean)
    snprintf(end, sizeof end, "printed no summary");
  else
    describe(status, end, sizeof end);
  snprintf(why, len, "compute-sanitizer could not run here: its probe %s", end);
  return NO_VERDICT;
}

/* Takes check c's lock, waiting while another process holds it. Returns the
 * descriptor that holds it (closed on exec: the check's processes, which may
 * outlive it, never hold it), or -1 with `why` set. */
static int take_lock(const check *c, char *why, size_t len) {
  int fd = open(c->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(why, len, "cannot open its lock %s: %s", c->lock, strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  double start = now_s();
  printf("pp-gauntlet: %s waits for %s (another check holds it)\n", c->name, c->lock);
  int got;
  while ((got = flock(fd, LOCK_EX)) < 0 && errno == EINTR) continue;
  if (got < 0) {
    snprintf(why, len, "cannot lock %s: %s", c->lock, strerror(errno));
    close(fd);
    return -1;
  }
  printf("pp-gauntlet: %s took %s after %.1f s\n", c->name, c->lock, now_s() - start);
  return fd;
}

/* Runs one check; `why` says how it ended when it did not pass. */
static outcome run_check(gauntlet *g, int index, char *why, size_t len) {
  check *c = &g->checks[index];
  if (c->tool && !g->sanitizer) {
    snprintf(why, len, "compute-sanitizer not found");
    return NOT_RUN;
  }
  if (c->tool && !g->sanitizer_ready[index]) {
    outcome ready = preflight(g, c, why, len);
    if (ready != PASSED) return ready;
    for (int i = index; i < g->count; ++i)
      if (g->checks[i].tool && !strcmp(g->checks[i].tool, c->tool)) g->sanitizer_ready[i] = 1;
  }
  char **argv = check_command(g, c, g->checker);
  int lock = -1;
  if (c->lock && (lock = take_lock(c, why, len)) < 0) {
    free(argv);
    return NO_VERDICT;
  }
  print_command(c->name, argv);
  if (g->checker) {
    /* A graded test: the checker's verdict is the test's; grading/grade's time
     * limit must stop the checker itself. */
    fflush(stdout);
    execvp(argv[0], argv);
    snprintf(why, len, "cannot run %s: %s", argv[0], strerror(errno));
    free(argv);
    return NO_VERDICT;
  }
  int summary;
  int status = run(argv, &summary);
  free(argv);
  if (g->mutant && !c->tool && status >= 0 && WIFSIGNALED(status)) {
    /* The file's own code may have killed the process it shares with the
     * grader, which is no verdict. Graded, that code runs in a runner of its
     * own, and the checker judges what it did: the check runs again so. */
    printf("pp-gauntlet: %s died of signal %d; again with the file in a runner, as graded\n",
           c->name, WTERMSIG(status));
    argv = check_command(g, c, c->runner ? c->runner : g->runner);
    print_command(c->name, argv);
    status = run(argv, &summary);
    free(argv);
  }
  if (lock >= 0) close(lock);
  int code = status >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (c->tool && (code == PASS || code == FAIL || code == SANITIZER_ERRORS) && !summary) {
    snprintf(why, len, "compute-sanitizer did not finish (exit %d and no summary)", code);
    return NO_VERDICT;
  }
  switch (code) {
  case PASS:
    return PASSED;
  case FAIL:
    snprintf(why, len, "%s", c->tool ? "the grader's verdict under compute-sanitizer" : "the grader's verdict");
    return REJECTED;
  case SANITIZER_ERRORS:
    if (!c->tool) break;
    snprintf(why, len, "compute-sanitizer reported errors");
    return REJECTED;
  case SKIP:
    snprintf(why, len, "%s", c->host ? "skipped (see its output)" : "skipped by the runner (see its output)");
    return SKIPPED;
  }
  describe(status, why, len);
  return NO_VERDICT;
}

static int parse(int argc, char **argv, gauntlet *g) {
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--"); ++i) {
    if (!strcmp(argv[i], "--mutant")) {
      g->mutant = 1;
    } else if ((!strcmp(argv[i], "--sanitizer") || !strcmp(argv[i], "--checker") ||
                !strcmp(argv[i], "--sandbox")) && i + 1 < argc) {
      *(!strcmp(argv[i], "--sanitizer") ? &g->sanitizer
        : !strcmp(argv[i], "--checker") ? &g->checker
                                        : &g->sandbox) = argv[i + 1];
      ++i;
    } else {
      fprintf(stderr, "pp-gauntlet: unknown option '%s'\n", argv[i]);
      return usage(argv[0]);
    }
  }
  if (i + 1 >= argc) return usage(argv[0]);
  g->runner = argv[++i];
  for (++i; i < argc;) {
    if (strcmp(argv[i], "--check") || i + 1 >= argc || g->count == MAX_CHECKS) {
      fprintf(stderr, "pp-gauntlet: expected '--check NAME' at '%s'\n", argv[i]);
      return usage(argv[0]);
    }
    check *c = &g->checks[g->count++];
    c->name = argv[i + 1];
    i += 2;
    if (i < argc && !strcmp(argv[i], "--command")) {
      c->host = 1;
      ++i;
    }
    if (!c->host && i + 1 < argc && !strcmp(argv[i], "--runner")) {
      c->runner = argv[i + 1];
      i += 2;
    }
    if (!c->host && i + 1 < argc && !strcmp(argv[i], "--lock")) {
      c->lock = argv[i + 1];
      i += 2;
    }
    if (!c->host && i + 1 < argc && !strcmp(argv[i], "--tool")) {
      c->tool = argv[i + 1];
      i += 2;
      for (; i + 1 < argc && !strcmp(argv[i], "--tool-arg"); i += 2) {
        if (c->tool_arg_count == MAX_TOOL_ARGS) {
          fprintf(stderr, "pp-gauntlet: more than %d --tool-arg\n", MAX_TOOL_ARGS);
          return usage(argv[0]);
        }
        c->tool_args[c->tool_arg_count++] = argv[i + 1];
      }
    }
    c->args = argv + i;
    while (i < argc && strcmp(argv[i], "--check")) ++i;
    c->arg_count = (int)(argv + i - c->args);
    if (c->host && c->arg_count == 0) {
      fprintf(stderr, "pp-gauntlet: check '%s': --command needs a program\n", c->name);
      return usage(argv[0]);
    }
  }
  if (g->count == 0) {
    fprintf(stderr, "pp-gauntlet: no checks\n");
    return usage(argv[0]);
  }
  if (g->sandbox && !g->checker) {
    fprintf(stderr, "pp-gauntlet: --sandbox needs --checker\n");
    return usage(argv[0]);
  }
  if (g->checker && (g->count != 1 || g->mutant || g->checks[0].lock || g->checks[0].host)) {
    /* The checker takes the gauntlet's place (exec), which would drop the lock. */
    fprintf(stderr, "pp-gauntlet: --checker takes exactly one check, and no --mutant or --lock\n");
    return usage(argv[0]);
  }
  return PASS;
}

int main(int argc, char **argv) {
  static gauntlet g;
  int status = parse(argc, argv, &g);
  if (status) return status;
  setvbuf(stdout, NULL, _IOLBF, 0);
  signal(SIGTERM, forward_signal);
  signal(SIGINT, forward_signal);
  signal(SIGHUP, forward_signal);

  char why[512], not_run[1024] = "";
  int passed = 0;
  /* The host checks first, then the GPU's, once a device answers. */
  for (int host = 1; host >= 0; --host) {
    if (!host) {
      outcome device = probe_device(&g, why, sizeof why);
      if (device == SKIPPED) {
        printf("pp-gauntlet: no CUDA device: %sskipped\n", passed ? "the host's checks passed, " : "");
        return SKIP;
      }
      if (device == NO_VERDICT) {
        printf("pp-gauntlet: %s --probe %s\n", g.checker ? g.checker : g.runner, why);
        return g.mutant ? FAIL : USAGE;
      }
    }
    for (int i = 0; i < g.count; ++i) {
      if (g.checks[i].host != host) continue;
      const char *name = g.checks[i].name;
      double start = now_s();
      outcome o = run_check(&g, i, why, sizeof why);
      double seconds = now_s() - start;
      switch (o) {
      case PASSED:
        printf("pp-gauntlet: %s passed (%.1f s)\n", name, seconds);
        ++passed;
        continue;
      case SKIPPED:
      case NOT_RUN:
        printf("pp-gauntlet: %s did not run here: %s\n", name, why);
        snprintf(not_run + strlen(not_run), sizeof not_run - strlen(not_run), "%s%s (%s)",
                 *not_run ? ", " : "", name, why);
        continue;
      case REJECTED:
        printf("pp-gauntlet: %s rejected it: %s (%.1f s)\n", name, why, seconds);
        if (g.mutant) printf("caught by: %s\n", name);
        return g.mutant ? PASS : FAIL;
      case NO_VERDICT:
        printf("pp-gauntlet: %s gave no verdict: %s\n", name, why);
        if (g.mutant) printf("not caught: a mutant must be rejected by a check's verdict\n");
        return g.mutant ? FAIL : USAGE;
      }
    }
  }
  if (!g.mutant) {
    if (passed == 0) {
      printf("pp-gauntlet: nothing ran here: %s: skipped\n", not_run);
      return SKIP;
    }
    return PASS;
  }
  if (*not_run) {
    printf("survived the checks that ran; not run here: %s: skipped, not passed\n", not_run);
    return SKIP;
  }
  printf("survived every check\n");
  return FAIL;
}
