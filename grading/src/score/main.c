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
 * file and line), among it a graded test that no line of the rubric matches.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "score.h"

int main(int argc, char **argv) {
  const char *rubric_path = NULL, *results_dir = NULL, *student = NULL, *out = NULL;
  int header = 0, bad = 0;
  for (int i = 1; i < argc && !bad; ++i) {
    const char **value = !strcmp(argv[i], "--rubric")    ? &rubric_path
                         : !strcmp(argv[i], "--results") ? &results_dir
                         : !strcmp(argv[i], "--student") ? &student
                         : !strcmp(argv[i], "--out")     ? &out
                                                         : NULL;
    if (!strcmp(argv[i], "--csv-header")) header = 1;
    else if (!value || ++i == argc) bad = 1;
    else *value = argv[i];
  }
  int needs = header ? !results_dir && !student && !out : results_dir && student && out;
  if (bad || !rubric_path || !needs) {
    fprintf(stderr, "usage: %s --rubric RUBRIC --results DIR --student ID --out DIR\n"
                    "       %s --rubric RUBRIC --csv-header\n", argv[0], argv[0]);
    return BAD_INPUT;
  }
  Rubric *rubric = checked(calloc(1, sizeof *rubric));
  read_rubric(rubric, rubric_path);
  if (header) {
    write_csv_header(stdout, rubric);
    return 0;
  }
  Results *results = checked(calloc(1, sizeof *results));
  read_tests(results, rubric, results_dir);
  read_submission(&results->submission, results_dir);
  Grading *g = checked(calloc(1, sizeof *g));
  *g = (Grading){.rubric = rubric, .results = results, .student = student};
  score_all(g);
  write_reports(g, out);
  const char *ungraded = results->submission.ungraded;
  if (ungraded) printf("%s: ungraded, no score: %s (%s/summary.txt)\n", student, ungraded, out);
  else printf("%s: %g of %g points (%s/summary.txt)\n", student, g->total, g->max_total, out);
  return 0;
}
