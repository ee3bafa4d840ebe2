/* Reads the rubric (format: grading/rubric.txt and docs/grading-rubric.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "score.h"

static const char *const visibilities[] = {"visible", "hidden", "after_due_date", "after_published"};
enum { VISIBILITIES = sizeof visibilities / sizeof *visibilities };

int is_pattern(const char *name) { return strpbrk(name, "*?[\\") != NULL; }

int lab_of(const Rubric *r, const char *test) {
  size_t n = strcspn(test, ".");
  for (int i = 0; i < r->labs; ++i)
    if (strlen(r->lab[i].name) == n && !strncmp(r->lab[i].name, test, n)) return i;
  return -1;
}

const Rule *rule_for(const Rubric *r, const char *test) {
  for (int i = 0; i < r->rules; ++i)
    if (!fnmatch(r->rule[i].pattern, test, 0)) return &r->rule[i];
  return NULL;
}

static int visibility_index(const char *s) {
  int i = 0;
  while (i < VISIBILITIES && strcmp(s, visibilities[i])) ++i;
  return i;
}

static void add_lab(Rubric *r, char **field, int fields, int line) {
  if (fields != 4) die(r->path, line, "a lab line is: lab <lab> <points> <file>");
  if (strpbrk(field[1], ".*?[\\"))
    die(r->path, line, "a lab name has no '.', '*', '?', '[' or '\\': %s", field[1]);
  if (lab_of(r, field[1]) >= 0) die(r->path, line, "lab %s is declared twice", field[1]);
  if (r->labs == MAX_LABS) die(r->path, line, "more than %d labs", MAX_LABS);
  LabLine *lab = &r->lab[r->labs++];
  if (!number(field[2], &lab->points)) die(r->path, line, "'%s' is not points", field[2]);
  lab->name = checked(strdup(field[1]));
  lab->file = checked(strdup(field[3]));
  lab->line = line;
}

/* Reads "tiers <ratio>:<points> ..." from field[next] on; returns the field after them. */
static int add_tiers(Rubric *r, Rule *rule, char **field, int fields, int next, int line) {
  for (; next < fields && strchr(field[next], ':'); ++next, ++rule->tiers) {
    if (rule->tiers == MAX_TIERS) die(r->path, line, "more than %d tiers", MAX_TIERS);
    char *end;
    double ratio = strtod(field[next], &end), points;
    end += *end == 'x';
    if (end == field[next] || *end != ':' || !(ratio >= 0) || !number(end + 1, &points))
      die(r->path, line, "a tier is <ratio>:<points>, like 0.90x:4 (got '%s')", field[next]);
    if (rule->tiers && (ratio <= rule->tier[rule->tiers - 1].ratio || points < rule->points))
      die(r->path, line, "tiers must rise from left to right: '%s'", field[next]);
    rule->tier[rule->tiers].ratio = ratio;
    rule->tier[rule->tiers].points = rule->points = points;
  }
  if (!rule->tiers) die(r->path, line, "'tiers' needs at least one <ratio>:<points>");
  return next;
}

static void add_rule(Rubric *r, char **field, int fields, int line) {
  if (r->rules == MAX_RULES) die(r->path, line, "more than %d test lines", MAX_RULES);
  if (fields < 2) die(r->path, line, "'%s' needs points, 'gate' or 'tiers' after it", field[0]);
  Rule *rule = &r->rule[r->rules];
  *rule = (Rule){.pattern = checked(strdup(field[0])), .line = line, .visibility = visibilities[0]};
  int next = 2;
  if (!strcmp(field[1], "gate")) {
    rule->kind = GATE;
  } else if (!strcmp(field[1], "tiers")) {
    rule->kind = TIERS;
    next = add_tiers(r, rule, field, fields, next, line);
  } else if (!number(field[1], &rule->points)) {
    die(r->path, line, "'%s' is not points, 'gate' or 'tiers'", field[1]);
  }
  if (next < fields && !strcmp(field[next], "with-rung")) {
    if (rule->kind != POINTS) die(r->path, line, "'with-rung' goes with points, not 'gate' or 'tiers'");
    rule->with_rung = 1;
    ++next;
  }
  if (next < fields) {
    int v = visibility_index(field[next]);
    if (v == VISIBILITIES)
      die(r->path, line, "'%s' is not a visibility (visible, hidden, after_due_date, after_published)",
          field[next]);
    rule->visibility = visibilities[v];
    ++next;
  }
  if (next < fields) die(r->path, line, "unexpected '%s' at the end", field[next]);
  /* First match wins: an exact name that an earlier pattern matches would never count. */
  const Rule *first = is_pattern(rule->pattern) ? NULL : rule_for(r, rule->pattern);
  if (first)
    die(r->path, line, "never used: line %d (%s) matches %s first", first->line, first->pattern,
        rule->pattern);
  ++r->rules;
}

void read_rubric(Rubric *r, const char *path) {
  r->path = path;
  FILE *f = fopen(path, "r");
  if (!f) die(path, 0, "%s", strerror(errno));
  char *line = NULL, *field[4 + MAX_TIERS];
  size_t cap = 0;
  for (int at = 1; getline(&line, &cap, f) >= 0; ++at) {
    line[strcspn(line, "#")] = '\0';
    int fields = 0;
    for (char *t = strtok(line, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
      if (fields == 4 + MAX_TIERS) die(path, at, "too many fields");
      field[fields++] = t;
    }
    if (fields) (!strcmp(field[0], "lab") ? add_lab : add_rule)(r, field, fields, at);
  }
  free(line);
  fclose(f);
  if (!r->labs) die(path, 0, "no lab line: nothing to score");
  /* A rule names its lab unless the lab part of its pattern is a pattern itself. */
  for (int i = 0; i < r->rules; ++i) {
    const char *p = r->rule[i].pattern;
    size_t lab_part = strcspn(p, ".");
    if (strcspn(p, "*?[\\") >= lab_part && lab_of(r, p) < 0)
      die(path, r->rule[i].line, "%s is in no lab declared here", p);
  }
}
