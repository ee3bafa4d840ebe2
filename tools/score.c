/* pp-score: scores one graded submission and writes its reports.
 *
 *   pp-score --rubric RUBRIC --results DIR --student ID --out DIR
 *   pp-score --rubric RUBRIC --csv-header
 *
 * Reads what grading left in the results folder (tests.tsv: test, status,
 * seconds; <test>.verdict and <test>.log; submission.txt), scores it with the
 * rubric (format: grading/rubric.txt and docs/grading-rubric.md) and writes
 * results.json (Gradescope), junit.xml, row.csv (one gradebook line) and
 * summary.txt (readable, with hints) into the --out folder. --csv-header prints
 * the header of row.csv: its columns come from the rubric, so every student of
 * a class has the same ones. An "ungraded <why>" line in submission.txt (no
 * GPU could run the tests) makes every report say so and carry no score.
 * Exits 0 once the reports are written, 2 on bad input (the message names the
 * file and line).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { BAD_INPUT = 2, MAX_LABS = 32, MAX_RULES = 256, MAX_TIERS = 8, MAX_TESTS = 1024 };
/* What a test shows of notes and logs is bounded: student code can print gigabytes. */
enum { EXCERPT_BYTES = 4096, TAIL_LINES = 40, ERROR_LINES = 20 };

/* The statuses of tests.tsv, and the hint each shows (%g: the test's seconds). */
typedef enum { PASS, FAIL, SKIP, ERROR, TIMEOUT, MISSING, NOT_BUILT, STATES } State;
static const char *const state_names[STATES] = {"pass",    "fail",    "skip",     "error",
                                                "timeout", "missing", "not-built"};
static const char *const hints[STATES] = {
    "", "failed\n", "skipped: the grading machine could not run it (no GPU or no compute-sanitizer)\n",
    "the grading itself failed here, not your code: ask for a regrade\n",
    "did not finish within %g s: an endless loop or a deadlock?\n", "missing: this test never ran\n",
    "not run: the lab did not compile\n"};

typedef enum { POINTS, GATE, TIERS } Kind;
typedef struct {
  char *pattern;
  Kind kind;
  double points; /* tiers: the top tier's */
  struct { double ratio, points; } tier[MAX_TIERS];
  int tiers, line;
  const char *visibility;
} Rule;
typedef struct {
  char *name, *output; /* output: the hint, notes and log excerpt it shows */
  size_t output_len;
  State state;
  double seconds, score, max;
  int lab;
  const Rule *rule;
  const char *visibility;
} Test;
typedef struct {
  char *name, *file;
  double points, score, vs_peer;
  int line, tests;
  const Test *gate; /* the gate test that did not pass */
  Test entry;       /* what a gated lab shows in place of its tests */
} Lab;

static const char *rubric_path, *student;
static Rule rules[MAX_RULES];
static Lab lab_list[MAX_LABS];
static Test tests[MAX_TESTS];
static int nrules, nlabs, ntests;
static double total, max_total;
static struct { char *seed, *tree, *date, *extra, *duplicate, *ungraded; } sub; /* submission.txt */

_Noreturn static void die(const char *file, int line, const char *format, ...) {
  va_list args;
  va_start(args, format);
  fprintf(stderr, line > 0 ? "%s:%d: " : "%s: ", file, line);
  vfprintf(stderr, format, args);
  va_end(args);
  fputc('\n', stderr);
  exit(BAD_INPUT);
}

static void *checked(void *p) {
  if (!p) die("pp-score", 0, "out of memory");
  return p;
}

static FILE *memory(char **text, size_t *len) { return checked(open_memstream(text, len)); }

static FILE *open_in(const char *dir, const char *name, const char *suffix, const char *mode) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix) >= (int)sizeof path)
    die(dir, 0, "path too long");
  FILE *f = fopen(path, mode);
  if (!f && *mode == 'w') die(path, 0, "cannot write: %s", strerror(errno));
  return f;
}

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

/* Length of the valid UTF-8 character at s (n bytes left), 0 if it is none.
 * Overlong forms, surrogates and U+FFFE/U+FFFF (not allowed in XML) are none. */
static size_t utf8_length(const unsigned char *s, size_t n) {
  static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
  size_t len = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
  if (!len || len > n || s[0] > 0xF4) return 0;
  unsigned long c = s[0] & (0x7Fu >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    c = c << 6 | (s[k] & 0x3F);
  }
  int bad = c < least[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF;
  return bad ? 0 : len;
}

typedef enum { PLAIN, INDENTED, CSV, JSON, XML } Format;

/* Writes text that may come from student code, made safe for a format: bytes
 * that are not UTF-8 become U+FFFD, color sequences (ESC [ ... letter) and
 * carriage returns are dropped, other control characters become \u escapes in
 * JSON and U+FFFD elsewhere (XML 1.0 cannot carry them at all). */
static void put_escaped(FILE *o, const char *text, size_t n, Format f) {
  static const char replacement[] = "\xEF\xBF\xBD";
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = s[i];
    size_t len = c >= 0x80 ? utf8_length(s + i, n - i) : 1;
    if (c == 0x1B && i + 1 < n && s[i + 1] == '[') {
      for (i += 2; i < n && (s[i] < 0x40 || s[i] > 0x7E);) ++i;
    } else if (c >= 0x80) {
      fwrite(len ? text + i : replacement, 1, len ? len : 3, o);
      i += len ? len - 1 : 0;
    } else if (c == '\n') {
      fputs(f == JSON ? "\\n" : f == INDENTED ? "\n      " : "\n", o);
    } else if (c == '\t') {
      fputs(f == JSON ? "\\t" : "\t", o);
    } else if (c < 0x20 || c == 0x7F) {
      if (c != '\r' && f == JSON) fprintf(o, "\\u%04x", c);
      else if (c != '\r') fputs(replacement, o);
    } else if (f == JSON && (c == '"' || c == '\\')) {
      fprintf(o, "\\%c", c);
    } else if (f == CSV && c == '"') {
      fputs("\"\"", o);
    } else if (f == XML && strchr("&<>\"", c)) {
      fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;", o);
    } else {
      fputc(c, o);
    }
  }
}

static void put_safe(FILE *o, const char *s, Format f) { put_escaped(o, s, strlen(s), f); }

/* The index of s among n names, or n. */
static int index_of(const char *s, const char *const *names, int n) {
  int i = 0;
  while (i < n && strcmp(s, names[i])) ++i;
  return i;
}

static int number(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && !*end && isfinite(*out) && *out >= 0;
}

static int glob(const char *p, const char *s) {
  if (*p == '*') return glob(p + 1, s) || (*s && glob(p, s + 1));
  return *p == *s && (!*p || glob(p + 1, s + 1));
}

/* The lab of a test (or of an exact pattern): the part of its name before the first '.'. */
static int lab_of(const char *test) {
  size_t n = strcspn(test, ".");
  for (int i = 0; i < nlabs; ++i)
    if (strlen(lab_list[i].name) == n && !strncmp(lab_list[i].name, test, n)) return i;
  return -1;
}

static void add_lab(char **field, int fields, int line) {
  if (fields != 4) die(rubric_path, line, "a lab line is: lab <lab> <points> <file>");
  if (strpbrk(field[1], ".*")) die(rubric_path, line, "a lab name has no '.' or '*': %s", field[1]);
  if (lab_of(field[1]) >= 0) die(rubric_path, line, "lab %s is declared twice", field[1]);
  if (nlabs == MAX_LABS) die(rubric_path, line, "more than %d labs", MAX_LABS);
  Lab *lab = &lab_list[nlabs++];
  if (!number(field[2], &lab->points)) die(rubric_path, line, "'%s' is not points", field[2]);
  lab->name = checked(strdup(field[1]));
  lab->file = checked(strdup(field[3]));
  lab->line = line;
}

static void add_rule(char **field, int fields, int line) {
  static const char *const visibilities[] = {"visible", "hidden", "after_due_date", "after_published"};
  if (nrules == MAX_RULES) die(rubric_path, line, "more than %d test lines", MAX_RULES);
  if (fields < 2) die(rubric_path, line, "'%s' needs points, 'gate' or 'tiers' after it", field[0]);
  Rule *r = &rules[nrules];
  *r = (Rule){.pattern = checked(strdup(field[0])), .line = line, .visibility = visibilities[0]};
  int next = 2;
  if (!strcmp(field[1], "gate")) {
    r->kind = GATE;
  } else if (!strcmp(field[1], "tiers")) {
    r->kind = TIERS;
    for (; next < fields && strchr(field[next], ':'); ++next, ++r->tiers) {
      if (r->tiers == MAX_TIERS) die(rubric_path, line, "more than %d tiers", MAX_TIERS);
      char *end;
      double ratio = strtod(field[next], &end), points;
      end += *end == 'x';
      if (end == field[next] || *end != ':' || !(ratio >= 0) || !number(end + 1, &points))
        die(rubric_path, line, "a tier is <ratio>:<points>, like 0.90x:4 (got '%s')", field[next]);
      if (r->tiers && (ratio <= r->tier[r->tiers - 1].ratio || points < r->points))
        die(rubric_path, line, "tiers must rise from left to right: '%s'", field[next]);
      r->tier[r->tiers].ratio = ratio;
      r->tier[r->tiers].points = r->points = points;
    }
    if (!r->tiers) die(rubric_path, line, "'tiers' needs at least one <ratio>:<points>");
  } else if (!number(field[1], &r->points)) {
    die(rubric_path, line, "'%s' is not points, 'gate' or 'tiers'", field[1]);
  }
  if (next < fields && index_of(field[next], visibilities, 4) == 4)
    die(rubric_path, line, "'%s' is not a visibility (visible, hidden, after_due_date, after_published)",
        field[next]);
  if (next < fields) r->visibility = visibilities[index_of(field[next++], visibilities, 4)];
  if (next < fields) die(rubric_path, line, "unexpected '%s' at the end", field[next]);
  /* First match wins: an exact name that an earlier pattern matches would never count. */
  for (int i = 0; i < nrules && !strchr(r->pattern, '*'); ++i)
    if (glob(rules[i].pattern, r->pattern))
      die(rubric_path, line, "never used: line %d (%s) matches %s first", rules[i].line,
          rules[i].pattern, r->pattern);
  ++nrules;
}

static void read_rubric(void) {
  FILE *f = fopen(rubric_path, "r");
  if (!f) die(rubric_path, 0, "%s", strerror(errno));
  char *line = NULL, *field[4 + MAX_TIERS];
  size_t cap = 0;
  for (int at = 1; getline(&line, &cap, f) >= 0; ++at) {
    line[strcspn(line, "#")] = '\0';
    int fields = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
      if (fields == 4 + MAX_TIERS) die(rubric_path, at, "too many fields");
      field[fields++] = t;
    }
    if (fields) (!strcmp(field[0], "lab") ? add_lab : add_rule)(field, fields, at);
  }
  free(line);
  fclose(f);
  if (!nlabs) die(rubric_path, 0, "no lab line: nothing to score");
  for (int i = 0; i < nrules; ++i) {
    const char *p = rules[i].pattern;
    if (!memchr(p, '*', strcspn(p, ".")) && lab_of(p) < 0)
      die(rubric_path, rules[i].line, "%s is in no lab declared here", p);
  }
}

static int has_test(const char *name) {
  for (int i = 0; i < ntests; ++i)
    if (!strcmp(tests[i].name, name)) return 1;
  return 0;
}

static void add_test(const char *name, State state, double seconds, int lab) {
  if (ntests == MAX_TESTS) die("tests.tsv", 0, "more than %d tests", MAX_TESTS);
  Test *t = &tests[ntests++];
  *t = (Test){.name = checked(strdup(name)), .state = state, .seconds = seconds, .lab = lab};
  for (int i = 0; i < nrules && !t->rule; ++i)
    if (glob(rules[i].pattern, name)) t->rule = &rules[i];
  t->visibility = t->rule ? t->rule->visibility : "visible";
  t->max = t->rule && t->rule->kind != GATE ? t->rule->points : 0;
  if (!t->rule) fprintf(stderr, "pp-score: warning: %s has no rubric line: 0 points\n", name);
}

static void read_tests(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests.tsv", dir);
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
    State state = (State)index_of(status, state_names, STATES);
    if (state == STATES) die(path, at, "unknown status '%s'", status);
    if (!*line || strchr(line, '/')) die(path, at, "bad test name '%s'", line);
    if (has_test(line)) die(path, at, "%s appears twice", line);
    int lab = lab_of(line);
    if (lab < 0) {
      fprintf(stderr, "pp-score: warning: %s is in no lab of the rubric: ignored\n", line);
      continue;
    }
    add_test(line, state, time, lab);
    ++lab_list[lab].tests;
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

static void read_submission(const char *dir) {
  FILE *f = open_in(dir, "submission", ".txt", "r");
  if (!f) fprintf(stderr, "pp-score: warning: no submission.txt: seed and tree unknown\n");
  char *line = NULL, *value;
  size_t cap = 0;
  while (next_pair(f, &line, &cap, &value)) {
    if (!strcmp(line, "seed")) sub.seed = checked(strdup(value));
    if (!strcmp(line, "tree")) sub.tree = checked(strdup(value));
    if (!strcmp(line, "date")) sub.date = checked(strdup(value));
    if (!strcmp(line, "extra")) sub.extra = joined(sub.extra, value);
    if (!strcmp(line, "duplicate")) sub.duplicate = joined(sub.duplicate, value);
    if (!strcmp(line, "ungraded")) sub.ungraded = joined(sub.ungraded, value);
  }
  free(line);
  if (f) fclose(f);
}

/* The end of a log: its last TAIL_LINES lines within its last EXCERPT_BYTES. */
static void put_tail(FILE *o, const char *dir, const char *test) {
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

/* A build log's first lines that say "error" (the compiler's), or its tail if none does. */
static void put_errors(FILE *o, const char *dir, const char *test) {
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
  if (!found) put_tail(o, dir, test);
}

/* Scores one test from its status and verdict, and writes what it shows: a hint
 * for its status, the verdict's notes, its speed, and its log if it did not pass. */
static void score_test(Test *t, const char *dir) {
  Lab *lab = &lab_list[t->lab];
  int build = !strcmp(t->name + strlen(lab->name), ".build"); /* the one test with no verdict */
  int has_peer = 0, has_first = 0;
  char *line = NULL, *value, status[16] = "", best[64] = "", *notes = NULL;
  size_t cap = 0, budget = EXCERPT_BYTES, notes_len;
  double vs_peer = 0, vs_first = 0;
  FILE *f = open_in(dir, t->name, ".verdict", "r"), *o = memory(&notes, &notes_len);
  while (next_pair(f, &line, &cap, &value)) {
    if (!strcmp(line, "status")) snprintf(status, sizeof status, "%s", value);
    if (!strcmp(line, "best")) snprintf(best, sizeof best, "%s", value);
    if (!strcmp(line, "vs_peer")) has_peer = number(value, &vs_peer);
    if (!strcmp(line, "vs_first")) has_first = number(value, &vs_first);
    if (!strcmp(line, "note")) put_line(o, &budget, value, strlen(value));
  }
  free(line);
  fclose(o);
  o = memory(&t->output, &t->output_len);
  if (t->state == PASS && !build && strcmp(status, "pass")) {
    t->state = FAIL; /* only the checker's verdict passes a test */
    fprintf(o, "counted as failed: it exited 0, but its verdict %s%s\n", f ? "says " : "is missing",
            status);
  } else if (build && t->state == FAIL) {
    fprintf(o, "did not compile\n");
  } else if (build && t->state == MISSING) {
    fprintf(o, "missing: no usable %s in the submission\n", lab->file);
  } else if (t->state == FAIL && !f) {
    fprintf(o, "failed: it crashed or was stopped\n");
  } else {
    fprintf(o, hints[t->state], t->seconds);
  }
  if (build && t->state == MISSING && sub.duplicate)
    fprintf(o, "files submitted more than once: %s\n", sub.duplicate);
  if (t->state == SKIP || t->state == ERROR)
    fprintf(stderr, "pp-score: warning: %s: %s", t->name, hints[t->state]);
  fwrite(notes, 1, notes_len, o);
  if (has_peer) fprintf(o, "speed: %gx the library peer%s%s", vs_peer, *best ? ", with " : "", best);
  if (has_peer && has_first) fprintf(o, " (%gx variant 0)", vs_first);
  if (has_peer) fputc('\n', o);
  const Rule *r = t->rule;
  if (t->state == PASS && has_peer && !lab->vs_peer) lab->vs_peer = vs_peer;
  if (t->state == PASS && r && r->kind == POINTS) t->score = t->max;
  if (t->state == PASS && r && r->kind == TIERS) {
    int reached = -1;
    for (int i = 0; i < r->tiers; ++i)
      if (has_peer && vs_peer >= r->tier[i].ratio) reached = i;
    if (reached >= 0) t->score = r->tier[reached].points;
    if (!has_peer) fprintf(o, "no vs_peer in its verdict: 0 points\n");
    else if (reached < 0) fprintf(o, "below the first tier (%gx): 0 points\n", r->tier[0].ratio);
    else fprintf(o, "tier >= %gx: %g of %g points\n", r->tier[reached].ratio, t->score, t->max);
  }
  if (t->state != PASS) (build ? put_errors : put_tail)(o, dir, t->name);
  fclose(o);
  if (f) fclose(f);
  free(notes);
}

static int gated(const Lab *lab) { return lab->gate || !lab->tests; }

/* A lab scores 0 when a gate test of it did not pass or it has no results at
 * all; it then shows one entry, with the reason, in place of its tests. */
static void score_lab(Lab *lab, const char *dir) {
  int index = (int)(lab - lab_list);
  double max = 0;
  for (int i = 0; i < ntests; ++i) {
    const Test *t = &tests[i];
    if (t->lab != index) continue;
    if (!lab->gate && t->rule && t->rule->kind == GATE && t->state != PASS) lab->gate = t;
    lab->score += t->score;
    max += t->max;
  }
  Test *e = &lab->entry;
  *e = (Test){.name = lab->name, .state = lab->gate ? lab->gate->state : MISSING, .max = lab->points,
              .visibility = "visible"};
  FILE *o = memory(&e->output, &e->output_len);
  if (lab->gate) {
    fprintf(o, "scores 0: %s did not pass\n", lab->gate->name);
    fwrite(lab->gate->output, 1, lab->gate->output_len, o);
  } else if (!lab->tests) {
    fprintf(o, "scores 0: missing: no results for this lab (its file is %s)\n", lab->file);
  }
  fclose(o);
  if (gated(lab)) {
    lab->score = lab->vs_peer = 0;
  } else if (fabs(max - lab->points) > 1e-9) {
    die(rubric_path, lab->line, "%s is worth %g points, but its tests in %s/tests.tsv add up to %g",
        lab->name, lab->points, dir, max);
  }
}

/* The entries shown for a lab, in order: its tests, or its one gated entry. */
static int shown(const Lab *lab, const Test **out) {
  int n = 0;
  for (int i = 0; i < ntests && !gated(lab); ++i)
    if (&lab_list[tests[i].lab] == lab) out[n++] = &tests[i];
  if (gated(lab)) out[n++] = &lab->entry;
  return n;
}

/* The submission in a few lines: the total, each lab, where its inputs came from. */
static void overview(FILE *o, Format f) {
  char *text = NULL;
  size_t len;
  FILE *t = memory(&text, &len);
  if (sub.ungraded) fprintf(t, "%s: UNGRADED, no score: %s\n", student, sub.ungraded);
  else fprintf(t, "%s: %g of %g points\n", student, total, max_total);
  for (int l = 0; l < nlabs; ++l) {
    const Lab *lab = &lab_list[l];
    if (sub.ungraded) fprintf(t, "%s%s ungraded", l ? ", " : "", lab->name);
    else fprintf(t, "%s%s %g/%g", l ? ", " : "", lab->name, lab->score, lab->points);
    if (lab->gate) fprintf(t, " (%s: %s)", lab->gate->name, state_names[lab->gate->state]);
    else if (!lab->tests) fprintf(t, " (no results)");
  }
  fprintf(t, "\nseed %s, tree %s, graded %s\n", sub.seed ? sub.seed : "unknown",
          sub.tree ? sub.tree : "unknown", sub.date ? sub.date : "unknown");
  if (sub.extra) fprintf(t, "ignored (not a lab file): %s\n", sub.extra);
  fclose(t);
  put_escaped(o, text, len, f);
  free(text);
}

/* Gradescope's results. Ungraded, no score at all: Gradescope's specification
 * wants one at the top or on every test, so the file cannot pass for a grade. */
static void json(FILE *o) {
  const Test *list[MAX_TESTS];
  fprintf(o, "{\n");
  if (sub.ungraded) fprintf(o, "  \"extra_data\": {\"status\": \"ungraded\"},\n");
  else fprintf(o, "  \"score\": %g,\n", total);
  fprintf(o, "  \"output\": \"");
  overview(o, JSON);
  fprintf(o, "\",\n  \"tests\": [");
  const char *separator = "\n";
  for (int l = 0; l < nlabs; ++l)
    for (int i = 0, n = shown(&lab_list[l], list); i < n; ++i, separator = ",\n") {
      const Test *t = list[i];
      fprintf(o, "%s    {\"name\": \"", separator);
      put_safe(o, t->name, JSON);
      fprintf(o, "\", ");
      if (!sub.ungraded) fprintf(o, "\"score\": %g, ", t->score);
      fprintf(o, "\"max_score\": %g, \"status\": \"%s\", \"output\": \"", t->max,
              t->state == PASS ? "passed" : "failed");
      put_escaped(o, t->output, t->output_len, JSON);
      fprintf(o, "\", \"visibility\": \"%s\"}", t->visibility);
    }
  fprintf(o, "\n  ]");
  if (!sub.ungraded) fprintf(o, ",\n  \"leaderboard\": [");
  for (int l = 0; l < nlabs && !sub.ungraded; ++l) {
    fprintf(o, "%s\n    {\"name\": \"", l ? "," : "");
    put_safe(o, lab_list[l].name, JSON);
    fprintf(o, " vs peer\", \"value\": %g, \"order\": \"desc\"}%s", lab_list[l].vs_peer,
            l + 1 == nlabs ? "\n  ]" : "");
  }
  fprintf(o, "\n}\n");
}

static void points(FILE *o, const char *indent, double score, double max) {
  fprintf(o, "%s<properties>", indent);
  if (sub.ungraded) fprintf(o, "<property name=\"status\" value=\"ungraded\"/>");
  else fprintf(o, "<property name=\"score\" value=\"%g\"/>", score);
  fprintf(o, "<property name=\"max_score\" value=\"%g\"/></properties>\n", max);
}

static void junit(FILE *o) {
  static const char *const elements[STATES] = {"system-out", "failure", "skipped", "error",
                                                "failure",    "failure", "failure"};
  const Test *list[MAX_TESTS];
  fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
  put_safe(o, student, XML);
  fprintf(o, "\">\n");
  for (int l = 0; l < nlabs; ++l) {
    int n = shown(&lab_list[l], list), count[STATES] = {0};
    for (int i = 0; i < n; ++i) ++count[list[i]->state];
    fprintf(o, "  <testsuite name=\"");
    put_safe(o, lab_list[l].name, XML);
    fprintf(o, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n", n,
            n - count[PASS] - count[SKIP] - count[ERROR], count[ERROR], count[SKIP]);
    points(o, "    ", lab_list[l].score, lab_list[l].points);
    for (int i = 0; i < n; ++i) {
      const Test *t = list[i];
      const char *element = elements[t->state];
      fprintf(o, "    <testcase classname=\"");
      put_safe(o, lab_list[l].name, XML);
      fprintf(o, "\" name=\"");
      put_safe(o, t->name, XML);
      fprintf(o, "\" time=\"%g\">\n", t->seconds);
      points(o, "      ", t->score, t->max);
      if (t->output_len || t->state != PASS) {
        fprintf(o, "      <%s", element);
        if (t->state != PASS) fprintf(o, " message=\"%s\"", state_names[t->state]);
        fputc('>', o);
        put_escaped(o, t->output, t->output_len, XML);
        fprintf(o, "</%s>\n", element);
      }
      fprintf(o, "    </testcase>\n");
    }
    fprintf(o, "  </testsuite>\n");
  }
  fprintf(o, "</testsuites>\n");
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *o, const char *s) {
  int quote = strpbrk(s, ",\"\n\r") != NULL;
  if (quote) fputc('"', o);
  put_safe(o, s, CSV);
  if (quote) fputc('"', o);
}

/* One gradebook line; ungraded, its score and labs' columns are left empty. */
static void csv(FILE *o, int header) {
  csv_field(o, header ? "student" : student);
  if (header) fprintf(o, ",score,max_score");
  else if (sub.ungraded) fprintf(o, ",,%g", max_total);
  else fprintf(o, ",%g,%g", total, max_total);
  for (int l = 0; l < nlabs; ++l) {
    fputc(',', o);
    if (header) csv_field(o, lab_list[l].name);
    else if (!sub.ungraded) fprintf(o, "%g", lab_list[l].score);
  }
  fputc(',', o);
  csv_field(o, header ? "seed" : sub.seed ? sub.seed : "");
  fprintf(o, ",%s\n", header ? "status" : sub.ungraded ? "ungraded" : "graded");
}

static void csv_row(FILE *o) { csv(o, 0); }

static void summary(FILE *o) {
  const Test *list[MAX_TESTS];
  overview(o, PLAIN);
  for (int l = 0; l < nlabs; ++l) {
    if (sub.ungraded) fprintf(o, "\n%s: ungraded\n", lab_list[l].name);
    else fprintf(o, "\n%s: %g of %g\n", lab_list[l].name, lab_list[l].score, lab_list[l].points);
    int n = shown(&lab_list[l], list);
    for (int i = 0; i < n; ++i) {
      State s = list[i]->state;
      char score[64];
      snprintf(score, sizeof score, "%g/%g", list[i]->score, list[i]->max);
      fprintf(o, "  %s %-7s ", s == PASS ? "PASS" : s == SKIP ? "SKIP" : "FAIL", score);
      put_safe(o, list[i]->name, PLAIN);
      if (s != PASS && s != FAIL && s != SKIP) fprintf(o, " (%s)", state_names[s]);
      if (list[i]->output_len) { /* the hint, notes, speed and log, indented; it ends in '\n' */
        fputs("\n      ", o);
        put_escaped(o, list[i]->output, list[i]->output_len - 1, INDENTED);
      }
      fputc('\n', o);
    }
  }
  if (sub.ungraded) fprintf(o, "\ntotal: ungraded, no score (%s)\n", sub.ungraded);
  else fprintf(o, "\ntotal: %g of %g\n", total, max_total);
}

int main(int argc, char **argv) {
  const char *results = NULL, *out = NULL;
  int header = 0, bad = 0;
  for (int i = 1; i < argc && !bad; ++i) {
    const char **value = !strcmp(argv[i], "--rubric")    ? &rubric_path
                         : !strcmp(argv[i], "--results") ? &results
                         : !strcmp(argv[i], "--student") ? &student
                         : !strcmp(argv[i], "--out")     ? &out
                                                         : NULL;
    if (!strcmp(argv[i], "--csv-header")) header = 1;
    else if (!value || ++i == argc) bad = 1;
    else *value = argv[i];
  }
  if (bad || !rubric_path || (header ? results || student || out : !results || !student || !out)) {
    fprintf(stderr, "usage: %s --rubric RUBRIC --results DIR --student ID --out DIR\n"
                    "       %s --rubric RUBRIC --csv-header\n", argv[0], argv[0]);
    return BAD_INPUT;
  }
  read_rubric();
  if (header) {
    csv(stdout, 1);
    return 0;
  }
  read_tests(results);
  read_submission(results);
  /* An exact rubric line whose test did not run in a lab that did: that test is missing. */
  for (int r = 0; r < nrules; ++r) {
    int lab = lab_of(rules[r].pattern);
    if (!strchr(rules[r].pattern, '*') && lab_list[lab].tests && !has_test(rules[r].pattern))
      add_test(rules[r].pattern, MISSING, 0, lab);
  }
  for (int i = 0; i < ntests; ++i) score_test(&tests[i], results);
  for (int l = 0; l < nlabs; ++l) {
    score_lab(&lab_list[l], results);
    total += lab_list[l].score;
    max_total += lab_list[l].points;
  }
  if (mkdir(out, 0777) && errno != EEXIST) die(out, 0, "cannot create: %s", strerror(errno));
  static const char *names[] = {"results.json", "junit.xml", "row.csv", "summary.txt"};
  static void (*const writers[])(FILE *) = {json, junit, csv_row, summary};
  for (int w = 0; w < 4; ++w) {
    FILE *f = open_in(out, names[w], "", "wb");
    writers[w](f);
    if (ferror(f) | fclose(f)) die(out, 0, "cannot write %s", names[w]);
  }
  if (sub.ungraded) printf("%s: ungraded, no score: %s (%s/summary.txt)\n", student, sub.ungraded, out);
  else printf("%s: %g of %g points (%s/summary.txt)\n", student, total, max_total, out);
  return 0;
}
