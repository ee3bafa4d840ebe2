/* pp-score's pieces, one file per job: rubric.c reads the rubric, results.c
 * the results folder, score.c scores, reports.c writes the reports, main.c
 * runs them in that order, and util.c holds the few helpers they share.
 * Every refusal of bad input goes through die(): exit code 2. */
#ifndef PP_SCORE_H
#define PP_SCORE_H

#include <stddef.h>
#include <stdio.h>

enum { BAD_INPUT = 2, MAX_LABS = 32, MAX_RULES = 256, MAX_TIERS = 8, MAX_TESTS = 1024 };

/* The statuses of tests.tsv. */
typedef enum { PASS, FAIL, SKIP, ERROR, TIMEOUT, MISSING, NOT_BUILT, STATES } State;
extern const char *const state_names[STATES];

/* ---- the rubric (rubric.c) ---- */

typedef enum { POINTS, GATE, TIERS } Kind;
typedef struct {
  char *pattern; /* a test name, or an fnmatch() pattern (is_pattern()) */
  Kind kind;
  double points; /* tiers: the top tier's */
  struct { double ratio, points; } tier[MAX_TIERS];
  int tiers, line;
  int with_rung; /* "with-rung": <lab>.<check>.<variant> scores only where <lab>.<variant> passed */
  const char *visibility;
} Rule;

typedef struct {
  char *name, *file;
  double points;
  int line;
} LabLine;

typedef struct {
  const char *path;
  Rule rule[MAX_RULES];
  LabLine lab[MAX_LABS];
  int rules, labs;
} Rubric;

/* Reads the rubric at path into *r; dies on any bad line. */
void read_rubric(Rubric *r, const char *path);
/* Whether a rubric name holds fnmatch()'s special characters. */
int is_pattern(const char *name);
/* The index of the lab of a test (the part of its name before the first '.'), or -1. */
int lab_of(const Rubric *r, const char *test);
/* The first rule that matches a test, or NULL. */
const Rule *rule_for(const Rubric *r, const char *test);

/* ---- the results folder (results.c) ---- */

/* One graded test: a line of tests.tsv (or a missing test), then its score. */
typedef struct {
  char *name;
  State state;
  double seconds;
  int lab;
  const Rule *rule; /* NULL only for a lab's gated entry */
  double score, max;
  char *output; /* what it shows: its hint, notes, speed and log excerpt */
  size_t output_len;
  const char *visibility;
} Test;

/* What submission.txt says. */
typedef struct {
  char *seed, *tree, *date, *extra, *duplicate, *ungraded;
} Submission;

/* What the checker's <test>.verdict says. */
typedef struct {
  int found, has_peer, has_first;
  char status[16], best[64];
  double vs_peer, vs_first;
  char *notes; /* its note lines, one a line, bounded */
  size_t notes_len;
} Verdict;

typedef struct {
  const char *dir;
  Test test[MAX_TESTS];
  int tests;
  Submission submission;
} Results;

/* Reads dir/tests.tsv into *out: every test of a lab of the rubric must
 * match a rule of it (dies naming the test otherwise); tests of other labs
 * are left out, with a warning. */
void read_tests(Results *out, const Rubric *r, const char *dir);
/* Adds a test that did not run, as missing. */
void add_missing(Results *out, const Rubric *r, const char *name, int lab);
int has_test(const Results *results, const char *name);
/* Reads dir/submission.txt, if there is one. */
void read_submission(Submission *s, const char *dir);
/* Reads dir/<test>.verdict; v->found says whether there was one. Free with free_verdict(). */
void read_verdict(Verdict *v, const char *dir, const char *test);
void free_verdict(Verdict *v);
/* Writes the end of dir/<test>.log, or for a build log its first compiler errors. */
void put_log_tail(FILE *o, const char *dir, const char *test);
void put_log_errors(FILE *o, const char *dir, const char *test);

/* ---- the score (score.c) ---- */

typedef struct {
  double score, vs_peer;
  int tests;
  const Test *gate; /* the gate test that did not pass */
  Test entry;       /* what a gated lab shows in place of its tests */
} LabScore;

typedef struct {
  const Rubric *rubric;
  Results *results;
  const char *student;
  LabScore lab[MAX_LABS];
  double total, max_total;
} Grading;

/* Scores every test and lab of g->results with g->rubric. */
void score_all(Grading *g);
/* Whether a lab shows one gated entry in place of its tests. */
int gated(const Grading *g, int lab);
/* The entries a lab shows, in order, into out (MAX_TESTS at most); returns their count. */
int shown(const Grading *g, int lab, const Test **out);

/* ---- the reports (reports.c) ---- */

/* Writes results.json, junit.xml, row.csv and summary.txt into the folder out. */
void write_reports(const Grading *g, const char *out);
/* Writes the header line of row.csv, whose columns come from the rubric. */
void write_csv_header(FILE *o, const Rubric *r);

/* ---- what every piece needs (main.c) ---- */

/* Prints "file:line: message" (no line if line <= 0) and exits with BAD_INPUT. */
_Noreturn void die(const char *file, int line, const char *format, ...);
/* p, or dies "out of memory" if it is NULL. */
void *checked(void *p);
/* Opens dir/<name><suffix>; dies if it cannot be written, returns NULL if it cannot be read. */
FILE *open_in(const char *dir, const char *name, const char *suffix, const char *mode);
/* Reads all of s as a finite number, 0 or more (points, seconds, ratios); returns 0 if it is none. */
int number(const char *s, double *out);

#endif
