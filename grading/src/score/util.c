/* pp-score's shared helpers (score.h): refusing bad input, checked
 * allocation, opening a results file, reading a number. Every other piece
 * calls them; they call none of the pieces. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "score.h"

_Noreturn void die(const char *file, int line, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, line > 0 ? "%s:%d: " : "%s: ", file, line);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  exit(BAD_INPUT);
}

void *checked(void *p) {
  if (!p) die("pp-score", 0, "out of memory");
  return p;
}

FILE *open_in(const char *dir, const char *name, const char *suffix, const char *mode) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix) >= (int)sizeof path)
    die(dir, 0, "path too long");
  FILE *f = fopen(path, mode);
  if (!f && *mode == 'w') die(path, 0, "cannot write: %s", strerror(errno));
  return f;
}

int number(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && !*end && isfinite(*out) && *out >= 0;
}
