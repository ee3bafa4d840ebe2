/* Writes the reports: results.json (Gradescope), junit.xml, row.csv (one
 * gradebook line) and summary.txt (readable, with hints). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pp/json.h"
#include "score.h"

typedef enum { PLAIN, INDENTED, CSV, JSON, XML } Format;

/* Writes n bytes free of color sequences and carriage returns for a format:
 * JSON through pp_json_escape(); elsewhere bytes that are not UTF-8 and
 * control characters but line breaks and tabs become U+FFFD (XML 1.0 cannot
 * carry control characters at all), and CSV and XML get their quoting. */
static void put_clean(FILE *o, const char *s, size_t n, Format f) {
  static const char replacement[] = "\xEF\xBF\xBD";
  if (f == JSON) {
    pp_json_escape(o, s, n);
    return;
  }
  for (size_t i = 0, len; i < n; i += len ? len : 1) {
    unsigned char c = (unsigned char)s[i];
    len = pp_utf8_length(s + i, n - i);
    if (c == '\n') fputs(f == INDENTED ? "\n      " : "\n", o);
    else if (c == '\t') fputc('\t', o);
    else if (!len || c < 0x20 || c == 0x7F) fputs(replacement, o);
    else if (f == CSV && c == '"') fputs("\"\"", o);
    else if (f == XML && strchr("&<>\"", c))
      fputs(c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : "&quot;", o);
    else fwrite(s + i, 1, len, o);
  }
}

/* Writes text that may come from student code, made safe for a format: color
 * sequences (ESC [ ... final byte) and carriage returns are dropped, the rest
 * goes through put_clean(). */
static void put_text(FILE *o, const char *text, size_t n, Format f) {
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    int color = text[i] == 0x1B && i + 1 < n && text[i + 1] == '[';
    if (!color && text[i] != '\r') continue;
    put_clean(o, text + start, i - start, f);
    if (color) /* on to its final byte, '@' to '~' */
      for (i += 2; i < n && (text[i] < 0x40 || text[i] > 0x7E);) ++i;
    start = i + 1;
  }
  if (start < n) put_clean(o, text + start, n - start, f);
}

static void put_safe(FILE *o, const char *s, Format f) { put_text(o, s, strlen(s), f); }

/* The submission in a few lines: the total, each lab, where its inputs came from. */
static void overview(FILE *o, const Grading *g, Format f) {
  const Submission *sub = &g->results->submission;
  char *text = NULL;
  size_t len;
  FILE *t = checked(open_memstream(&text, &len));
  if (sub->ungraded) fprintf(t, "%s: UNGRADED, no score: %s\n", g->student, sub->ungraded);
  else fprintf(t, "%s: %g of %g points\n", g->student, g->total, g->max_total);
  for (int l = 0; l < g->rubric->labs; ++l) {
    const LabScore *lab = &g->lab[l];
    const char *name = g->rubric->lab[l].name;
    if (sub->ungraded) fprintf(t, "%s%s ungraded", l ? ", " : "", name);
    else fprintf(t, "%s%s %g/%g", l ? ", " : "", name, lab->score, g->rubric->lab[l].points);
    if (lab->gate) fprintf(t, " (%s: %s)", lab->gate->name, state_names[lab->gate->state]);
    else if (!lab->tests) fprintf(t, " (no results)");
  }
  fprintf(t, "\nseed %s, tree %s, graded %s\n", sub->seed ? sub->seed : "unknown",
          sub->tree ? sub->tree : "unknown", sub->date ? sub->date : "unknown");
  if (sub->extra) fprintf(t, "ignored (not a lab file): %s\n", sub->extra);
  fclose(t);
  put_text(o, text, len, f);
  free(text);
}

/* Gradescope's results. Ungraded, no score at all: Gradescope's specification
 * wants one at the top or on every test, so the file cannot pass for a grade. */
static void json(FILE *o, const Grading *g) {
  const Test *list[MAX_TESTS];
  int ungraded = g->results->submission.ungraded != NULL;
  fprintf(o, "{\n");
  if (ungraded) fprintf(o, "  \"extra_data\": {\"status\": \"ungraded\"},\n");
  else fprintf(o, "  \"score\": %g,\n", g->total);
  fprintf(o, "  \"output\": \"");
  overview(o, g, JSON);
  fprintf(o, "\",\n  \"tests\": [");
  const char *separator = "\n";
  for (int l = 0; l < g->rubric->labs; ++l)
    for (int i = 0, n = shown(g, l, list); i < n; ++i, separator = ",\n") {
      const Test *t = list[i];
      fprintf(o, "%s    {\"name\": \"", separator);
      put_safe(o, t->name, JSON);
      fprintf(o, "\", ");
      if (!ungraded) fprintf(o, "\"score\": %g, ", t->score);
      fprintf(o, "\"max_score\": %g, \"status\": \"%s\", \"output\": \"", t->max,
              t->state == PASS ? "passed" : "failed");
      put_text(o, t->output, t->output_len, JSON);
      fprintf(o, "\", \"visibility\": \"%s\"}", t->visibility);
    }
  fprintf(o, "\n  ]");
  if (!ungraded) fprintf(o, ",\n  \"leaderboard\": [");
  for (int l = 0; l < g->rubric->labs && !ungraded; ++l) {
    fprintf(o, "%s\n    {\"name\": \"", l ? "," : "");
    put_safe(o, g->rubric->lab[l].name, JSON);
    fprintf(o, " vs peer\", \"value\": %g, \"order\": \"desc\"}%s", g->lab[l].vs_peer,
            l + 1 == g->rubric->labs ? "\n  ]" : "");
  }
  fprintf(o, "\n}\n");
}

static void points(FILE *o, const Grading *g, const char *indent, double score, double max) {
  fprintf(o, "%s<properties>", indent);
  if (g->results->submission.ungraded) fprintf(o, "<property name=\"status\" value=\"ungraded\"/>");
  else fprintf(o, "<property name=\"score\" value=\"%g\"/>", score);
  fprintf(o, "<property name=\"max_score\" value=\"%g\"/></properties>\n", max);
}

static void junit(FILE *o, const Grading *g) {
  static const char *const elements[STATES] = {"system-out", "failure", "skipped", "error",
                                                "failure",    "failure", "failure"};
  const Test *list[MAX_TESTS];
  fprintf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"");
  put_safe(o, g->student, XML);
  fprintf(o, "\">\n");
  for (int l = 0; l < g->rubric->labs; ++l) {
    const char *lab = g->rubric->lab[l].name;
    int n = shown(g, l, list), count[STATES] = {0};
    for (int i = 0; i < n; ++i) ++count[list[i]->state];
    fprintf(o, "  <testsuite name=\"");
    put_safe(o, lab, XML);
    fprintf(o, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n", n,
            n - count[PASS] - count[SKIP] - count[ERROR], count[ERROR], count[SKIP]);
    points(o, g, "    ", g->lab[l].score, g->rubric->lab[l].points);
    for (int i = 0; i < n; ++i) {
      const Test *t = list[i];
      const char *element = elements[t->state];
      fprintf(o, "    <testcase classname=\"");
      put_safe(o, lab, XML);
      fprintf(o, "\" name=\"");
      put_safe(o, t->name, XML);
      fprintf(o, "\" time=\"%g\">\n", t->seconds);
      points(o, g, "      ", t->score, t->max);
      if (t->output_len || t->state != PASS) {
        fprintf(o, "      <%s", element);
        if (t->state != PASS) fprintf(o, " message=\"%s\"", state_names[t->state]);
        fputc('>', o);
        put_text(o, t->output, t->output_len, XML);
        fprintf(o, "</%s>\n", element);
      }
      fprintf(o, "    </testcase>\n");
    }
    fprintf(o, "  </testsuite>\n");
  }
  fprintf(o, "</testsuites>\n");
}

/* A CSV field, quoted when it holds a comma, a quote or a line break. One
 * that begins like a formula (=, +, -, @, a tab or a carriage return: a
 * student id "=HYPERLINK(...)") gets a leading apostrophe, inside quotes, so
 * that a spreadsheet reads it as text. */
static void csv_field(FILE *o, const char *s) {
  int formula = *s && strchr("=+-@\t\r", *s) != NULL;
  int quote = formula || strpbrk(s, ",\"\n\r") != NULL;
  if (quote) fputc('"', o);
  if (formula) fputc('\'', o);
  put_safe(o, s, CSV);
  if (quote) fputc('"', o);
}

void write_csv_header(FILE *o, const Rubric *r) {
  fprintf(o, "student,score,max_score");
  for (int l = 0; l < r->labs; ++l) {
    fputc(',', o);
    csv_field(o, r->lab[l].name);
  }
  fprintf(o, ",seed,status\n");
}

/* One gradebook line, in the columns of write_csv_header(); ungraded, the
 * score and the labs' columns are left empty. */
static void csv_row(FILE *o, const Grading *g) {
  const Submission *sub = &g->results->submission;
  csv_field(o, g->student);
  if (sub->ungraded) fprintf(o, ",,%g", g->max_total);
  else fprintf(o, ",%g,%g", g->total, g->max_total);
  for (int l = 0; l < g->rubric->labs; ++l) {
    fputc(',', o);
    if (!sub->ungraded) fprintf(o, "%g", g->lab[l].score);
  }
  fputc(',', o);
  csv_field(o, sub->seed ? sub->seed : "");
  fprintf(o, ",%s\n", sub->ungraded ? "ungraded" : "graded");
}

/* Why a gated lab scores 0, in one line, from its entry's text: its first
 * line less "scores 0: " (unless it only names the gate that did not pass),
 * and where that says only "failed" (the gate's name then said with it) or
 * "did not compile", the first line after it that is not an excerpt's
 * "--- ..." header: the checker's note, or the compiler's first error. */
static void put_reason(FILE *o, const LabScore *lab) {
  const char *line = lab->entry.output, *end = line + lab->entry.output_len, *next;
  for (int picked = 0; line < end && picked < 2; line = next) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    next = eol ? eol + 1 : end;
    size_t n = (size_t)((eol ? eol : end) - line);
    if (!strncmp(line, "scores 0: ", 10)) {
      if (n >= 13 && !strncmp(line + n - 13, " did not pass", 13)) continue;
      line += 10, n -= 10;
    }
    if (!n || !strncmp(line, "--- ", 4)) continue;
    int terse = (n == 6 && !strncmp(line, "failed", 6)) || (n == 15 && !strncmp(line, "did not compile", 15));
    if (picked++) fputs(": ", o);
    if (terse && lab->gate && n == 6) {
      put_safe(o, lab->gate->name, PLAIN);
      fputc(' ', o);
    }
    put_text(o, line, n, PLAIN);
    if (!terse) break;
  }
}

/* An ungraded submission's lab in one line: one that scores 0 on any GPU
 * (its file missing, not compiled, a forbidden symbol) and why; else what
 * passed, and what was skipped for want of a GPU. */
static void ungraded_lab(FILE *o, const Grading *g, int l) {
  const Test *list[MAX_TESTS];
  fprintf(o, "%s: ", g->rubric->lab[l].name);
  if (gated(g, l)) {
    fprintf(o, "0 of %g on any GPU: ", g->rubric->lab[l].points);
    put_reason(o, &g->lab[l]);
    fputc('\n', o);
    return;
  }
  int n = shown(g, l, list), count[STATES] = {0};
  for (int i = 0; i < n; ++i) ++count[list[i]->state];
  fprintf(o, "ungraded: %d of %d tests passed, %d skipped (no usable GPU)", count[PASS], n, count[SKIP]);
  if (n - count[PASS] - count[SKIP]) fprintf(o, ", %d failed", n - count[PASS] - count[SKIP]);
  fputc('\n', o);
}

static void summary(FILE *o, const Grading *g) {
  const Test *list[MAX_TESTS];
  const char *ungraded = g->results->submission.ungraded;
  overview(o, g, PLAIN);
  if (ungraded) {
    fputc('\n', o);
    for (int l = 0; l < g->rubric->labs; ++l) ungraded_lab(o, g, l);
    fprintf(o, "\ntotal: ungraded, no score (%s)\n", ungraded);
    return;
  }
  for (int l = 0; l < g->rubric->labs; ++l) {
    const LabLine *lab = &g->rubric->lab[l];
    fprintf(o, "\n%s: %g of %g\n", lab->name, g->lab[l].score, lab->points);
    for (int i = 0, n = shown(g, l, list); i < n; ++i) {
      State s = list[i]->state;
      char score[64];
      snprintf(score, sizeof score, "%g/%g", list[i]->score, list[i]->max);
      fprintf(o, "  %s %-7s ", s == PASS ? "PASS" : s == SKIP ? "SKIP" : "FAIL", score);
      put_safe(o, list[i]->name, PLAIN);
      if (s != PASS && s != FAIL && s != SKIP) fprintf(o, " (%s)", state_names[s]);
      if (list[i]->output_len) { /* the hint, notes, speed and log, indented; it ends in '\n' */
        fputs("\n      ", o);
        put_text(o, list[i]->output, list[i]->output_len - 1, INDENTED);
      }
      fputc('\n', o);
    }
  }
  fprintf(o, "\ntotal: %g of %g\n", g->total, g->max_total);
}

void write_reports(const Grading *g, const char *out) {
  static const char *const names[] = {"results.json", "junit.xml", "row.csv", "summary.txt"};
  static void (*const writers[])(FILE *, const Grading *) = {json, junit, csv_row, summary};
  if (mkdir(out, 0777) && errno != EEXIST) die(out, 0, "cannot create: %s", strerror(errno));
  for (int w = 0; w < 4; ++w) {
    FILE *f = open_in(out, names[w], "", "wb");
    writers[w](f, g);
    if (ferror(f) | fclose(f)) die(out, 0, "cannot write %s", names[w]);
  }
}
