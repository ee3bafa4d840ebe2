/* pp-skeleton: makes a lab's student file from its reference solution, at one
 * of two levels: guided (TODOs that say how, step by step) or challenge
 * (TODOs that state the goal, the contract and the constraints only).
 *
 *   pp-skeleton SOLUTION [--level guided|challenge]                 print it
 *   pp-skeleton SOLUTION [--level guided|challenge] --write FILE    write it to FILE
 *   pp-skeleton SOLUTION [--level guided|challenge] --check FILE    exit 1 if FILE differs
 *
 * The level is guided unless --level says otherwise. In the solution:
 * - a line "// BEGIN SOLUTION" starts a region that no level keeps, up to a
 *   line "// END SOLUTION"; inside it, a line whose text starts with "//> "
 *   goes into every level without that prefix: a stub the student replaces;
 * - the lines between "// BEGIN GUIDED" and "// END GUIDED" go into the guided
 *   level only, those between "// BEGIN CHALLENGE" and "// END CHALLENGE"
 *   into the challenge level only;
 * - everything else goes into every level as it is.
 * Markers may be indented; no region may open inside another. A level's
 * region holds comments only, so that both levels are the same code. Both
 * levels must name the same TODOs in the same order (a line whose text starts
 * with "// TODO <label>:" names <label>), so that they match one handout.
 * Exit codes: 0 done (or FILE is the same), 1 FILE differs, 2 bad usage or a
 * malformed solution (then nothing is printed or written).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SAME = 0, DIFFERENT = 1, USAGE = 2 };

/* Where a line is: shared by every level, in one level's region, or in the solution. */
enum region { SHARED, GUIDED, CHALLENGE, SOLUTION };
static const char *const region_names[] = {"", "GUIDED", "CHALLENGE", "SOLUTION"};
enum { LEVELS = 2 }; /* GUIDED and CHALLENGE */

#define MAX_TODOS 256
#define MAX_LABEL 48

/* The TODO labels of one level, in order, with their lines. */
typedef struct todo_list {
  int count;
  char label[MAX_TODOS][MAX_LABEL];
  int line[MAX_TODOS];
} todo_list;

static const char *text_of(const char *line) {
  while (*line == ' ' || *line == '\t') ++line;
  return line;
}

static int is_marker(const char *line, const char *marker) {
  const char *t = text_of(line);
  size_t len = strlen(marker);
  return !strncmp(t, marker, len) && (t[len] == '\n' || t[len] == '\r' || t[len] == '\0');
}

/* The region a "// BEGIN X" (begin = 1) or "// END X" (begin = 0) line
 * opens or closes, or SHARED when the line is no marker. */
static enum region marker_region(const char *line, int begin) {
  char marker[32];
  for (int r = GUIDED; r <= SOLUTION; ++r) {
    snprintf(marker, sizeof marker, "// %s %s", begin ? "BEGIN" : "END", region_names[r]);
    if (is_marker(line, marker)) return (enum region)r;
  }
  return SHARED;
}

/* Records the label of a "// TODO <label>:" line; returns 0 when the list is full. */
static int note_todo(todo_list *todos, const char *line, int number) {
  const char *t = text_of(line);
  if (strncmp(t, "// TODO ", 8)) return 1;
  const char *colon = strchr(t + 8, ':');
  if (!colon) return 1;
  if (todos->count == MAX_TODOS) return 0;
  size_t len = (size_t)(colon - (t + 8));
  if (len >= MAX_LABEL) len = MAX_LABEL - 1;
  memcpy(todos->label[todos->count], t + 8, len);
  todos->label[todos->count][len] = '\0';
  todos->line[todos->count++] = number;
  return 1;
}

/* Checks that both levels name the same TODOs in the same order. */
static int same_todos(const todo_list *guided, const todo_list *challenge, const char *name) {
  for (int i = 0; i < guided->count || i < challenge->count; ++i) {
    const char *g = i < guided->count ? guided->label[i] : NULL;
    const char *c = i < challenge->count ? challenge->label[i] : NULL;
    if (g && c && !strcmp(g, c)) continue;
    if (g && c)
      fprintf(stderr,
              "%s:%d: TODO %s of the guided level meets TODO %s of the challenge level (line %d)\n",
              name, guided->line[i], g, c, challenge->line[i]);
    else if (g)
      fprintf(stderr, "%s:%d: TODO %s of the guided level has no TODO in the challenge level\n", name,
              guided->line[i], g);
    else
      fprintf(stderr, "%s:%d: TODO %s of the challenge level has no TODO in the guided level\n", name,
              challenge->line[i], c);
    fprintf(stderr, "%s: both levels must name the same TODOs in the same order\n", name);
    return 0;
  }
  return 1;
}

/* Writes the file of `level` (GUIDED or CHALLENGE) made from `in` to `out`;
 * returns SAME, or USAGE for a malformed solution. */
static int make_skeleton(FILE *in, const char *name, enum region level, FILE *out) {
  static todo_list todos[LEVELS];
  char line[4096];
  enum region region = SHARED;
  int number = 0, opened_at = 0;
  todos[0].count = todos[1].count = 0;
  while (fgets(line, sizeof line, in)) {
    ++number;
    enum region begins = marker_region(line, 1), ends = marker_region(line, 0);
    if (begins != SHARED) {
      if (region != SHARED) {
        fprintf(stderr, "%s:%d: BEGIN %s inside the %s region opened at line %d\n", name, number,
                region_names[begins], region_names[region], opened_at);
        return USAGE;
      }
      region = begins;
      opened_at = number;
    } else if (ends != SHARED) {
      if (region == SHARED) {
        fprintf(stderr, "%s:%d: END %s without BEGIN %s\n", name, number, region_names[ends],
                region_names[ends]);
        return USAGE;
      }
      if (ends != region) {
        fprintf(stderr, "%s:%d: END %s inside the %s region opened at line %d\n", name, number,
                region_names[ends], region_names[region], opened_at);
        return USAGE;
      }
      region = SHARED;
    } else if (region == SOLUTION) {
      if (!strncmp(text_of(line), "//> ", 4)) {
        fwrite(line, 1, (size_t)(text_of(line) - line), out);
        fputs(text_of(line) + 4, out);
      }
    } else {
      const char *text = text_of(line);
      if (region != SHARED && strncmp(text, "//", 2) && strspn(text, "\r\n") != strlen(text)) {
        fprintf(stderr, "%s:%d: the %s region opened at line %d holds code: a level's text is "
                "comments only\n", name, number, region_names[region], opened_at);
        return USAGE;
      }
      if (region == SHARED || region == level) fputs(line, out);
      if (region != SHARED && !note_todo(&todos[region - GUIDED], line, number)) {
        fprintf(stderr, "%s:%d: more than %d TODOs\n", name, number, MAX_TODOS);
        return USAGE;
      }
    }
  }
  if (region != SHARED) {
    fprintf(stderr, "%s:%d: BEGIN %s is never closed\n", name, opened_at, region_names[region]);
    return USAGE;
  }
  return same_todos(&todos[0], &todos[1], name) ? SAME : USAGE;
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

/* Copies `from` to `to`; returns 0 on a read or write error. */
static int copy_stream(FILE *from, FILE *to) {
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, from)) > 0)
    if (fwrite(buffer, 1, got, to) != got) return 0;
  return !ferror(from);
}

/* Writes `content` to `path` through a temporary file beside it, renamed
 * into place once complete: `path` is never left half-written. */
static int write_file(FILE *content, const char *path) {
  char temporary[4096];
  if (snprintf(temporary, sizeof temporary, "%s.tmp", path) >= (int)sizeof temporary) {
    fprintf(stderr, "%s: path too long\n", path);
    return USAGE;
  }
  FILE *target = fopen(temporary, "w");
  if (!target) {
    perror(temporary);
    return USAGE;
  }
  int copied = copy_stream(content, target);
  if (fclose(target) || !copied || rename(temporary, path)) {
    perror(path);
    remove(temporary);
    return USAGE;
  }
  return SAME;
}

static int usage(const char *program) {
  fprintf(stderr, "usage: %s SOLUTION [--level guided|challenge] [--write FILE | --check FILE]\n",
          program);
  return USAGE;
}

int main(int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') return usage(argv[0]);
  const char *level_name = NULL, *write = NULL, *check = NULL;
  for (int i = 2; i < argc; i += 2) {
    const char **option = !strcmp(argv[i], "--level") ? &level_name
                          : !strcmp(argv[i], "--write") ? &write
                          : !strcmp(argv[i], "--check") ? &check
                                                        : NULL;
    if (!option || *option || i + 1 == argc) return usage(argv[0]);
    *option = argv[i + 1];
  }
  if (write && check) return usage(argv[0]);
  enum region level = GUIDED;
  if (level_name && !strcmp(level_name, "challenge")) {
    level = CHALLENGE;
  } else if (level_name && strcmp(level_name, "guided")) {
    fprintf(stderr, "%s: unknown level '%s': guided or challenge\n", argv[0], level_name);
    return USAGE;
  }

  FILE *solution = fopen(argv[1], "r");
  if (!solution) {
    perror(argv[1]);
    return USAGE;
  }
  FILE *out = tmpfile();
  if (!out) {
    perror("tmpfile");
    fclose(solution);
    return USAGE;
  }
  int status = make_skeleton(solution, argv[1], level, out);
  fclose(solution);
  rewind(out);
  if (status) {
    /* malformed: nothing printed, nothing written */
  } else if (check) {
    FILE *skeleton = fopen(check, "r");
    if (!skeleton) {
      perror(check);
      status = DIFFERENT;
    } else {
      status = compare(out, skeleton, check);
      fclose(skeleton);
    }
    if (status) fprintf(stderr, "regenerate with: cmake --build <build dir> --target skeletons\n");
  } else if (write) {
    status = write_file(out, write);
  } else if (!copy_stream(out, stdout) || fflush(stdout)) {
    perror("stdout");
    status = USAGE;
  }
  fclose(out);
  return status;
}
