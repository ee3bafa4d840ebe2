/* Reads what grading left in the results folder: tests.tsv (test, status,
 * seconds), submission.txt, <test>.verdict and <test>.log. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "score.h"

/* What a test shows of notes and logs is bounded: student code can print gigabytes. */
enum { EXCERPT_BYTES = 4096, TAIL_LINES = 40, ERROR_LINES = 20 };

const char *const state_names[STATES] = {"pass",    "fail",    "skip",     "error",
                                         "timeout", "missing", "not-built"};

/* Reads the next "key value" line of f (none if f is NULL); *value points into *line. */
static int next_pair(FILE *f, char **line, size_t *cap, char **value) {
  while (f && getline(line, cap, f) >= 0) {
    (*line)[strcspn(*line, "\r\n")] = '\0';
    if ((*value = strchr(*line, ' '))) {
      *(*value)++ = '\0';
      return 1;
    }
  }
  return 0;
}

/* Writes one line, cut to what is left of a budget of bytes. */
static void put_line(FILE *o, size_t *budget, const char *s, size_t n) {
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) --n;
  if (!*budget) return;
  n = n < *budget ? n : *budget;
  fwrite(s, 1, n, o);
  fputc('\n', o);
  *budget -= n;
}

int has_test(const Results *results, const char *name) {
  for (int i = 0; i < results->tests; ++i)
    if (!strcmp(results->test[i].name, name)) return 1;
  return 0;
}

static Test *new_test(Results *out, const char *name, State state, double seconds, int lab) {
  if (out->tests == MAX_TESTS) die("tests.tsv", 0, "more than %d tests", MAX_TESTS);
  Test *t = &out->test[out->tests++];
  *t = (Test){.name = checked(strdup(name)), .state = state, .seconds = seconds, .lab = lab};
  return t;
}

static void set_rule(Test *t, const Rule *rule) {
  t->rule = rule;
  t->visibility = rule->visibility;
  t->max = rule->kind == GATE ? 0 : rule->points;
}

void add_missing(Results *out, const Rubric *r, const char *name, int lab) {
  set_rule(new_test(out, name, MISSING, 0, lab), rule_for(r, name));
}

void read_tests(Results *out, const Rubric *r, const char *dir) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/tests.tsv", dir) >= (int)sizeof path) die(dir, 0, "path too long");
  out->dir = dir;
  FILE *f = fopen(path, "r");
  if (!f) die(path, 0, "%s", strerror(errno));
  char *line = NULL;
  size_t cap = 0;
  for (int at = 1; getline(&line, &cap, f) >= 0; ++at) {
    line[strcspn(line, "\r\n")] = '\0';
    if (!*line) continue;
    char *status = strchr(line, '\t'), *seconds = status ? strchr(status + 1, '\t') : NULL;
    double time;
    if (!seconds || !number(seconds + 1, &time))
      die(path, at, "expected <test> TAB <status> TAB <seconds>");
    *status++ = *seconds = '\0';
    int state = 0;
    while (state < STATES && strcmp(status, state_names[state])) ++state;
    if (state == STATES) die(path, at, "unknown status '%s'", status);
    if (!*line || strchr(line, '/')) die(path, at, "bad test name '%s'", line);
    if (has_test(out, line)) die(path, at, "%s appears twice", line);
    int lab = lab_of(r, line);
    if (lab < 0) {
      fprintf(stderr, "pp-score: warning: %s is in no lab of the rubric: ignored\n", line);
      continue;
    }
    /* A graded test that no line scores would be worth nothing unnoticed. */
    const Rule *rule = rule_for(r, line);
    if (!rule)
      die(r->path, 0, "no line matches %s (%s:%d): every test of a lab needs one; give it points, or 0",
          line, path, at);
    set_rule(new_test(out, line, (State)state, time, lab), rule);
  }
  free(line);
  fclose(f);
}

static char *joined(char *list, const char *value) {
  size_t n = list ? strlen(list) : 0;
  list = checked(realloc(list, n + strlen(value) + 3));
  sprintf(list + n, "%s%s", n ? ", " : "", value);
  return list;
}

void read_submission(Submission *s, const char *dir) {
  FILE *f = open_in(dir, "submission", ".txt", "r");
  if (!f) fprintf(stderr, "pp-score: warning: no submission.txt: seed and tree unknown\n");
  char *line = NULL, *value;
  size_t cap = 0;
  while (next_pair(f, &line, &cap, &value)) {
    if (!strcmp(line, "seed")) s->seed = checked(strdup(value));
    if (!strcmp(line, "tree")) s->tree = checked(strdup(value));
    if (!strcmp(line, "date")) s->date = checked(strdup(value));
    if (!strcmp(line, "extra")) s->extra = joined(s->extra, value);
    if (!strcmp(line, "duplicate")) s->duplicate = joined(s->duplicate, value);
    if (!strcmp(line, "ungraded")) s->ungraded = joined(s->ungraded, value);
  }
  free(line);
  if (f) fclose(f);
}

void read_verdict(Verdict *v, const char *dir, const char *test) {
  *v = (Verdict){0};
  FILE *f = open_in(dir, test, ".verdict", "r");
  FILE *notes = checked(open_memstream(&v->notes, &v->notes_len));
  char *line = NULL, *value;
  size_t cap = 0, budget = EXCERPT_BYTES;
  v->found = f != NULL;
  while (next_pair(f, &line, &cap, &value)) {
    if (!strcmp(line, "status")) snprintf(v->status, sizeof v->status, "%s", value);
    if (!strcmp(line, "best")) snprintf(v->best, sizeof v->best, "%s", value);
    if (!strcmp(line, "vs_peer")) v->has_peer = number(value, &v->vs_peer);
    if (!strcmp(line, "vs_first")) v->has_first = number(value, &v->vs_first);
    if (!strcmp(line, "note")) put_line(notes, &budget, value, strlen(value));
  }
  free(line);
  fclose(notes);
  if (f) fclose(f);
}

void free_verdict(Verdict *v) { free(v->notes); }

void put_log_tail(FILE *o, const char *dir, const char *test) {
  FILE *f = open_in(dir, test, ".log", "rb");
  if (!f) return;
  char buffer[EXCERPT_BYTES];
  long start = 0;
  if (!fseek(f, 0, SEEK_END) && ftell(f) > EXCERPT_BYTES) start = ftell(f) - EXCERPT_BYTES;
  fseek(f, start, SEEK_SET);
  size_t n = fread(buffer, 1, sizeof buffer, f), from;
  fclose(f);
  while (n && buffer[n - 1] == '\n') --n;
  int lines = 0;
  for (from = n; from > 0 && !(buffer[from - 1] == '\n' && ++lines == TAIL_LINES);) --from;
  char *first = from == 0 && start > 0 ? memchr(buffer, '\n', n) : NULL;
  if (first) from = (size_t)(first - buffer) + 1; /* drop the line cut in half */
  if (from >= n) return;
  fprintf(o, "--- the last lines of %s.log ---\n", test);
  fwrite(buffer + from, 1, n - from, o);
  fputc('\n', o);
}

void put_log_errors(FILE *o, const char *dir, const char *test) {
  FILE *f = open_in(dir, test, ".log", "rb");
  char *line = NULL;
  size_t cap = 0, budget = EXCERPT_BYTES;
  ssize_t n;
  int found = 0;
  while (f && found < ERROR_LINES && (n = getline(&line, &cap, f)) > 0) {
    if (!strstr(line, "error")) continue;
    if (!found++) fprintf(o, "--- the first errors in %s.log ---\n", test);
    put_line(o, &budget, line, (size_t)n);
  }
  free(line);
  if (f) fclose(f);
  if (!found) put_log_tail(o, dir, test);
}
