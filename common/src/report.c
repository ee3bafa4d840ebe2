#include "pp/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pp/json.h"

static double ratio(const pp_result *numerator, const pp_result *r) {
  return numerator && numerator->ran && r->ran ? numerator->time.median_ms / r->time.median_ms : NAN;
}

/* The lab's peak in operations per second; NaN for a memory-bound lab. */
static double peak(const pp_report *report) {
  return report->flops > 0 ? pp_device_peak(report->device, report->peak) : NAN;
}

pp_metrics pp_report_metrics(const pp_report *report, const pp_result *r) {
  pp_metrics m;
  double seconds = r->time.median_ms * 1e-3;
  m.gbps = r->ran && report->bytes > 0 ? report->bytes / seconds / 1e9 : NAN;
  m.gflops = r->ran && report->flops > 0 ? report->flops / seconds / 1e9 : NAN;
  m.percent_of_copy = 100.0 * m.gbps / report->copy_gbps;
  m.percent_of_peak = 100.0 * m.gflops * 1e9 / peak(report);
  const pp_result *previous = NULL, *baseline = NULL;
  for (int i = 0; i < report->count; ++i) {
    const pp_result *v = &report->variants[i];
    if (v->index == 0 && v->ran) baseline = v;
    if (v == r) break;
    if (v->ran) previous = v;
  }
  int in_ladder = r->index >= 0;
  m.vs_previous = in_ladder ? ratio(previous, r) : NAN;
  m.vs_baseline = ratio(baseline, r);
  m.vs_cpu = r == &report->cpu ? NAN : ratio(&report->cpu, r);
  m.vs_peer = r == &report->peer ? NAN : ratio(&report->peer, r);
  return m;
}

/* Prints x with the given format, or a dash where it does not apply. */
static void cell(FILE *out, int width, const char *format, double x) {
  if (isfinite(x))
    fprintf(out, format, width, x);
  else
    fprintf(out, "%*s", width, "-");
}

static void print_row(FILE *out, const pp_report *report, const pp_result *r, const char *label,
                      int name_width) {
  pp_metrics m = pp_report_metrics(report, r);
  fprintf(out, "%2s %-*s", label, name_width, r->name);
  if (!r->ran) {
    fprintf(out, "  %s\n", r->correct ? "not run" : "WRONG (not timed)");
    return;
  }
  cell(out, 10, "%*.3f", r->time.median_ms);
  cell(out, 7, "%*.1f%%", 100.0 * (r->time.max_ms - r->time.min_ms) / r->time.median_ms);
  if (report->flops > 0)
    cell(out, 9, "%*.0f", m.gflops);
  else
    cell(out, 9, "%*.1f", m.gbps);
  cell(out, 7, "%*.1f", report->flops > 0 ? m.percent_of_peak : m.percent_of_copy);
  cell(out, 7, "%*.2f", m.vs_previous);
  cell(out, 7, "%*.2f", m.vs_baseline);
  cell(out, 8, "%*.1f", m.vs_cpu);
  cell(out, 8, "%*.2f", m.vs_peer);
  cell(out, 10, "%*.1e", r->rel_error);
  fprintf(out, "  %s\n", r->correct ? "ok" : "WRONG");
}

void pp_report_print(FILE *out, const pp_report *report) {
  const pp_device *d = report->device;
  fprintf(out, "\n%s: %s\n", report->lab, report->title);
  fprintf(out, "size %s, seed %llu, data %s; median of %d runs after %d warm-up, L2 flushed before each\n",
          report->size, (unsigned long long)report->seed, report->dataset, report->reps, report->warmup);
  fprintf(out, "GPU  %s, %d SMs, %.1f MiB L2, sm_%d%d, driver %d.%d, runtime %d.%d\n", d->name,
          d->sm_count, d->l2_bytes / 1048576.0, d->cc_major, d->cc_minor, d->driver_version / 1000,
          d->driver_version % 1000 / 10, d->runtime_version / 1000, d->runtime_version % 1000 / 10);
  fprintf(out, "copy %.0f GB/s measured device-to-device (read + write); %.0f GB/s theoretical\n",
          report->copy_gbps, d->theoretical_gbps);
  if (report->flops > 0)
    fprintf(out, "peak %.0f GFLOP/s %s at the %.0f MHz peak SM clock (%%peak: of this)\n", peak(report) / 1e9,
            pp_peak_name(report->peak), d->clock_khz / 1e3);
  if (report->path.requests) {
    char work[96] = "no kernel in flight measured (the peer did not run)";
    if (isfinite(report->path.work_ms))
      snprintf(work, sizeof work, "with a kernel of %.3f ms in flight %+.4f ms more", report->path.hold_ms,
               report->path.work_ms);
    fprintf(out, "timed by the checker's clock, each run on inputs from a fresh seed, from copying\n"
                 "them in to holding the whole output (a variant whose window would pass 1 s:\n"
                 "one warm-up, 3 runs or more);\n"
                 "path overhead %.4f ms taken off (median of %d empty requests %.4f ms, spread %.4f ms;\n"
                 "%s; the runner's empty requests %.4f ms)\n",
            report->path.overhead_ms, report->path.requests, report->path.empty_ms, report->path.spread_ms,
            work, report->path.runner_empty_ms);
  }
  fputc('\n', out);

  int name_width = 16;
  for (int i = 0; i < report->count; ++i) {
    int len = (int)strlen(report->variants[i].name);
    if (len > name_width) name_width = len;
  }
  fprintf(out, "%2s %-*s%10s%8s%9s%7s%7s%7s%8s%8s%10s  %s\n", "#", name_width, "variant", "ms",
          "spread", report->flops > 0 ? "GFLOP/s" : "GB/s", report->flops > 0 ? "%peak" : "%copy", "xprev",
          "xbase", "xCPU",
          "xpeer", "rel.err", "check");
  for (int i = 0; i < report->count; ++i) {
    char label[16];
    snprintf(label, sizeof label, "%d", report->variants[i].index);
    print_row(out, report, &report->variants[i], label, name_width);
  }
  print_row(out, report, &report->peer, "-", name_width);
  print_row(out, report, &report->cpu, "-", name_width);
  if (!report->peer.correct) fprintf(out, "WRONG %s: %s\n", report->peer.name, report->peer.note);
  fprintf(out, "\nxprev, xbase, xCPU, xpeer: speedup over the previous variant, variant 0, the CPU\n"
               "reference and the library peer (%s), all measured in this run.\n",
          report->peer.name);
  for (int i = 0; i < report->count; ++i) {
    const pp_result *r = &report->variants[i];
    if (!r->correct) fprintf(out, "WRONG %s: %s\n", r->name, r->note);
  }
}

static void json_number(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.9g", x);
  else
    fputs("null", f);
}

static void json_key(FILE *f, const char *key, int first) {
  fputs(first ? "" : ", ", f);
  pp_json_string(f, key);
  fputs(": ", f);
}

/* One "key": value pair each; every pair but the first of an object is preceded by a comma. */
static void text_field(FILE *f, const char *key, const char *value) {
  json_key(f, key, 0);
  pp_json_string(f, value);
}

static void number_field(FILE *f, const char *key, double value) {
  json_key(f, key, 0);
  json_number(f, value);
}

static void integer_field(FILE *f, const char *key, unsigned long long value) {
  json_key(f, key, 0);
  fprintf(f, "%llu", value);
}

static void boolean_field(FILE *f, const char *key, int value) {
  json_key(f, key, 0);
  fputs(value ? "true" : "false", f);
}

static void json_result(FILE *f, const pp_report *report, const pp_result *r) {
  pp_metrics m = pp_report_metrics(report, r);
  int ran = r->ran;
  fprintf(f, "{\"index\": %d", r->index);
  text_field(f, "name", r->name);
  text_field(f, "what", r->what);
  boolean_field(f, "ran", ran);
  boolean_field(f, "correct", ran && r->correct);
  number_field(f, "median_ms", ran ? r->time.median_ms : NAN);
  number_field(f, "min_ms", ran ? r->time.min_ms : NAN);
  number_field(f, "max_ms", ran ? r->time.max_ms : NAN);
  integer_field(f, "reps", ran ? (unsigned long long)r->time.reps : 0);
  number_field(f, "gbps", m.gbps);
  number_field(f, "gflops", m.gflops);
  number_field(f, "percent_of_copy", m.percent_of_copy);
  number_field(f, "percent_of_peak", m.percent_of_peak);
  number_field(f, "speedup_vs_previous", m.vs_previous);
  number_field(f, "speedup_vs_baseline", m.vs_baseline);
  number_field(f, "speedup_vs_cpu", m.vs_cpu);
  number_field(f, "speedup_vs_peer", m.vs_peer);
  number_field(f, "relative_error", ran ? r->rel_error : NAN);
  number_field(f, "error_over_bound", ran ? r->bound_ratio : NAN);
  number_field(f, "event_gap_ms", r->event_gap_ms);
  text_field(f, "note", r->note);
  fputc('}', f);
}

static void json_report(FILE *f, const pp_report *report) {
  const pp_device *d = report->device;
  char capability[16];
  snprintf(capability, sizeof capability, "%d.%d", d->cc_major, d->cc_minor);
  fputs("{\"lab\": ", f);
  pp_json_string(f, report->lab);
  text_field(f, "title", report->title);
  text_field(f, "size", report->size);
  integer_field(f, "seed", report->seed);
  text_field(f, "dataset", report->dataset);
  integer_field(f, "reps", (unsigned long long)report->reps);
  integer_field(f, "warmup", (unsigned long long)report->warmup);
  fputs(", \"device\": {\"name\": ", f);
  pp_json_string(f, d->name);
  text_field(f, "compute_capability", capability);
  integer_field(f, "sm_count", (unsigned long long)d->sm_count);
  integer_field(f, "l2_bytes", d->l2_bytes);
  integer_field(f, "global_bytes", d->global_bytes);
  number_field(f, "theoretical_gbps", d->theoretical_gbps);
  integer_field(f, "driver_version", (unsigned long long)d->driver_version);
  integer_field(f, "runtime_version", (unsigned long long)d->runtime_version);
  fputc('}', f);
  number_field(f, "copy_gbps", report->copy_gbps);
  number_field(f, "bytes_per_run", report->bytes);
  number_field(f, "flops_per_run", report->flops);
  text_field(f, "peak", report->flops > 0 ? pp_peak_name(report->peak) : "");
  number_field(f, "peak_gflops", peak(report) / 1e9);
  number_field(f, "path_overhead_ms", report->path.requests ? report->path.overhead_ms : NAN);
  number_field(f, "path_overhead_spread_ms", report->path.requests ? report->path.spread_ms : NAN);
  number_field(f, "path_empty_ms", report->path.requests ? report->path.empty_ms : NAN);
  number_field(f, "path_work_ms", report->path.requests ? report->path.work_ms : NAN);
  number_field(f, "path_hold_ms", report->path.requests ? report->path.hold_ms : NAN);
  number_field(f, "runner_empty_ms", report->path.requests ? report->path.runner_empty_ms : NAN);
  json_key(f, "cpu", 0);
  json_result(f, report, &report->cpu);
  json_key(f, "peer", 0);
  json_result(f, report, &report->peer);
  json_key(f, "variants", 0);
  fputc('[', f);
  for (int i = 0; i < report->count; ++i) {
    fputs(i ? ",\n  " : "\n  ", f);
    json_result(f, report, &report->variants[i]);
  }
  fputs("]}\n", f);
}

int pp_report_write_json(const pp_report *report, const char *path) {
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.partial", path);
  FILE *f = fopen(temporary, "w");
  if (!f) {
    perror(path);
    return -1;
  }
  json_report(f, report);
  int failed = ferror(f);
  failed |= fclose(f) != 0;
  if (failed || rename(temporary, path) != 0) {
    perror(path);
    remove(temporary);
    return -1;
  }
  return 0;
}
