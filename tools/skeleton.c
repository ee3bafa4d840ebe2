/* pp-skeleton: makes a lab's student skeleton from its reference solution.
 *
 *   pp-skeleton SOLUTION                 print the skeleton
 *   pp-skeleton SOLUTION --write FILE    write it to FILE
 *   pp-skeleton SOLUTION --check FILE    exit 1 if FILE differs from it
 *
 * In the solution, a line "// BEGIN SOLUTION" starts a region that the
 * skeleton leaves out, up to a line "// END SOLUTION" (indentation is free).
 * Inside a region, a line whose text starts with "//> " goes into the skeleton
 * without that prefix: a stub the student replaces. Everything else is
 * copied as it is, TODO comments included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SAME = 0, DIFFERENT = 1, USAGE = 2 };

static const char *text_of(const char *line) {
  while (*line == ' ' || *line == '\t') ++line;
  return line;
}

static int is_marker(const char *line, const char *marker) {
  const char *t = text_of(line);
  size_t len = strlen(marker);
  return !strncmp(t, marker, len) && (t[len] == '\n' || t[len] == '\r' || t[len] == '\0');
}

/* Writes the skeleton of `in` to `out`; returns 0 or USAGE on unbalanced markers. */
static int make_skeleton(FILE *in, const char *name, FILE *out) {
  char line[4096];
  int in_solution = 0, number = 0, opened_at = 0;
  while (fgets(line, sizeof line, in)) {
    ++number;
    if (is_marker(line, "// BEGIN SOLUTION")) {
      if (in_solution) {
        fprintf(stderr, "%s:%d: BEGIN SOLUTION inside the region opened at line %d\n", name,
                number, opened_at);
        return USAGE;
      }
      in_solution = 1;
      opened_at = number;
    } else if (is_marker(line, "// END SOLUTION")) {
      if (!in_solution) {
        fprintf(stderr, "%s:%d: END SOLUTION without BEGIN SOLUTION\n", name, number);
        return USAGE;
      }
      in_solution = 0;
    } else if (!in_solution) {
      fputs(line, out);
    } else if (!strncmp(text_of(line), "//> ", 4)) {
      fwrite(line, 1, (size_t)(text_of(line) - line), out);
      fputs(text_of(line) + 4, out);
    }
  }
  if (in_solution) {
    fprintf(stderr, "%s:%d: BEGIN SOLUTION is never closed\n", name, opened_at);
    return USAGE;
  }
  return SAME;
}

/* Compares two streams line by line; reports the first difference. */
static int compare(FILE *expected, FILE *actual, const char *actual_name) {
  char a[4096], b[4096];
  for (int number = 1;; ++number) {
    char *x = fgets(a, sizeof a, expected), *y = fgets(b, sizeof b, actual);
    if (!x && !y) return SAME;
    if (!x || !y || strcmp(a, b)) {
      fprintf(stderr, "%s:%d: differs from the skeleton generated from the solution\n",
              actual_name, number);
      fprintf(stderr, "  generated: %s", x ? a : "(end of file)\n");
      fprintf(stderr, "  in file:   %s", y ? b : "(end of file)\n");
      return DIFFERENT;
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 2 && !(argc == 4 && (!strcmp(argv[2], "--write") || !strcmp(argv[2], "--check")))) {
    fprintf(stderr, "usage: %s SOLUTION [--write FILE | --check FILE]\n", argv[0]);
    return USAGE;
  }
  FILE *solution = fopen(argv[1], "r");
  if (!solution) {
    perror(argv[1]);
    return USAGE;
  }
  FILE *out = argc == 2 ? stdout : tmpfile();
  int status = make_skeleton(solution, argv[1], out);
  fclose(solution);
  if (status || argc == 2) return status;
  rewind(out);
  if (!strcmp(argv[2], "--check")) {
    FILE *skeleton = fopen(argv[3], "r");
    if (!skeleton) {
      perror(argv[3]);
      return DIFFERENT;
    }
    status = compare(out, skeleton, argv[3]);
    fclose(skeleton);
    if (status) fprintf(stderr, "regenerate with: cmake --build <build dir> --target skeletons\n");
    return status;
  }
  FILE *target = fopen(argv[3], "w");
  if (!target) {
    perror(argv[3]);
    return USAGE;
  }
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, out)) > 0) fwrite(buffer, 1, got, target);
  return fclose(target) ? USAGE : SAME;
}
