/* The pieces pp-technique and pp-symcheck share (listing.h): checked
 * allocation, splitting a line, and a listing tool run with its output read
 * line by line. */
#define _POSIX_C_SOURCE 200809L
#include "listing.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Running out of memory ends the check with exit code 2 and no verdict file:
 * never a pass. */
void *pp_checked(void *p) {
  if (!p) {
    fprintf(stderr, "error: out of memory\n");
    exit(2);
  }
  return p;
}

char *pp_copy_of(const char *text, size_t n) {
  char *s = pp_checked(malloc(n + 1));
  memcpy(s, text, n);
  s[n] = '\0';
  return s;
}

void *pp_grow(void *array, size_t *count, size_t *capacity, size_t size) {
  if (*count == *capacity) {
    *capacity = *capacity ? 2 * *capacity : 16;
    array = pp_checked(realloc(array, *capacity * size));
  }
  memset((char *)array + (*count)++ * size, 0, size);
  return array;
}

size_t pp_split(char *text, const char *separators, char **fields, size_t most) {
  size_t n = 0;
  for (char *save = NULL, *f = strtok_r(text, separators, &save); f; f = strtok_r(NULL, separators, &save)) {
    if (n == most) return most + 1;
    fields[n++] = f;
  }
  return n;
}

int pp_read_listing(FILE *in, size_t most, int (*parse)(char *line), char **unparsed) {
  char *line = NULL;
  size_t capacity = 0, total = 0;
  ssize_t len;
  int status = 0;
  *unparsed = NULL;
  while ((len = getline(&line, &capacity, in)) >= 0) {
    total += (size_t)len;
    if (total > most) {
      status = -1;
      break;
    }
    if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
    if (*unparsed) continue;
    char *text = pp_copy_of(line, (size_t)len);
    if (strlen(line) != (size_t)len || parse(line))
      *unparsed = text;
    else
      free(text);
  }
  free(line);
  return status;
}

int pp_run_listing(char *const *command, size_t most, int (*parse)(char *line), pp_listing *run) {
  memset(run, 0, sizeof *run);
  FILE *complaints = tmpfile();
  int out[2];
  if (!complaints || pipe(out)) {
    fprintf(stderr, "error: cannot run %s: %s\n", command[0], strerror(errno));
    if (complaints) fclose(complaints);
    return -1;
  }
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    setenv("LC_ALL", "C", 1); /* the listings' words, untranslated */
    dup2(out[1], STDOUT_FILENO);
    dup2(fileno(complaints), STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    execvp(command[0], command);
    _exit(127);
  }
  close(out[1]);
  if (child < 0) {
    fprintf(stderr, "error: cannot run %s: %s\n", command[0], strerror(errno));
    close(out[0]);
    fclose(complaints);
    return -1;
  }
  FILE *listing = pp_checked(fdopen(out[0], "r"));
  run->too_long = pp_read_listing(listing, most, parse, &run->unparsed) != 0;
  fclose(listing); /* a tool still writing past the limit gets SIGPIPE */
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
  run->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  rewind(complaints);
  char *line = NULL;
  size_t capacity = 0;
  if (getline(&line, &capacity, complaints) >= 0) {
    line[strcspn(line, "\n")] = '\0';
    run->complaint = line;
  } else {
    free(line);
  }
  fclose(complaints);
  return 0;
}
