/* pp-expect: runs a command and passes only if it exits with the expected code.
 *
 *   pp-expect [--timeout SECONDS] CODE -- COMMAND [ARGUMENT...]
 *   pp-expect --skip REASON...
 *
 * Exits 0 when COMMAND exits with CODE; 77 when COMMAND exits with 77 (no
 * GPU: CTest reports a skip, not a pass); 1 when it exits otherwise, dies of
 * a signal, or runs past the timeout (its whole process group is killed).
 * The second form prints REASON and exits 77. Graders use it for tests that
 * must fail in a particular way: a mutant must be rejected (1), a bad flag
 * must be refused (2).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { PASS = 0, FAIL = 1, USAGE = 2, SKIP = 77 };

static int usage(const char *program) {
  fprintf(stderr, "usage: %s [--timeout SECONDS] CODE -- COMMAND [ARGUMENT...]\n"
                  "       %s --skip REASON...\n", program, program);
  return USAGE;
}

int main(int argc, char **argv) {
  if (argc >= 3 && !strcmp(argv[1], "--skip")) {
    for (int i = 2; i < argc; ++i) printf("%s%s", argv[i], i + 1 < argc ? " " : ": skipped\n");
    return SKIP;
  }
  int arg = 1;
  double timeout = 0.0;
  if (arg + 1 < argc && !strcmp(argv[arg], "--timeout")) {
    timeout = atof(argv[arg + 1]);
    arg += 2;
  }
  if (arg + 2 >= argc || strcmp(argv[arg + 1], "--")) return usage(argv[0]);
  char *end = NULL;
  long expected = strtol(argv[arg], &end, 10);
  if (*end != '\0' || expected < 0 || expected > 255) return usage(argv[0]);
  char **command = argv + arg + 2;

  fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    perror("fork");
    return FAIL;
  }
  if (child == 0) {
    setpgid(0, 0);
    execvp(command[0], command);
    perror(command[0]);
    _exit(127);
  }
  int status = 0;
  const struct timespec tick = {0, 20 * 1000 * 1000};
  for (double waited = 0.0;; waited += 0.02) {
    pid_t done = waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0) {
      perror("waitpid");
      return FAIL;
    }
    if (timeout > 0.0 && waited >= timeout) {
      kill(-child, SIGKILL);
      waitpid(child, &status, 0);
      printf("pp-expect: %s ran past %.0f s and was stopped\n", command[0], timeout);
      return FAIL;
    }
    nanosleep(&tick, NULL);
  }
  if (WIFSIGNALED(status)) {
    printf("pp-expect: %s died of signal %d (%s)\n", command[0], WTERMSIG(status),
           strsignal(WTERMSIG(status)));
    return FAIL;
  }
  int code = WEXITSTATUS(status);
  if (code == SKIP) return SKIP;
  if (code == expected) {
    printf("pp-expect: exit code %d, as expected\n", code);
    return PASS;
  }
  printf("pp-expect: %s exited with %d; expected %ld\n", command[0], code, expected);
  return FAIL;
}
