#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "pp/cli.h"
#include "pp/device.h"
#include "pp/lab.h"
#include "pp/report.h"
#include "pp/timer.h"

/* Sizes past this many elements along one dimension fit in no GPU; refusing
 * them early also keeps every byte count far from overflow. */
#define MAX_EXTENT ((uint64_t)1 << 40)
/* Cases that need more device memory than this are graded with one seed. */
#define ONE_SEED_BYTES ((size_t)1 << 30)
/* A variant wrong this many times is settled: its later cases are not run (a
 * wrong loop can take quadratic time at the large sizes), and once every
 * selected variant is settled the remaining sizes are not even allocated. */
#define FAILURES_SHOWN 3

int pp_size_parse_1d(const char *text, pp_size *size) {
  uint64_t n;
  if (pp_parse_count(text, &n)) return -1;
  size->dim[0] = n;
  size->dim[1] = size->dim[2] = 1;
  size->rank = 1;
  return 0;
}

void pp_size_format_1d(const pp_size *size, char *out, size_t len) {
  pp_format_count(size->dim[0], out, len);
}

static double gib(size_t bytes) {
  return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

/* Marks the variants named in a comma-separated list; NULL selects all. */
static int select_variants(const pp_problem *p, const char *list, int *selected) {
  int count = p->variant_count();
  for (int i = 0; i < count; ++i) selected[i] = list == NULL;
  if (!list) return 0;
  char *copy = strdup(list), *save = NULL;
  int status = 0;
  for (char *token = strtok_r(copy, ",", &save); token; token = strtok_r(NULL, ",", &save)) {
    int found = -1;
    uint64_t number;
    if (!pp_parse_count(token, &number) && number < (uint64_t)count) found = (int)number;
    for (int i = 0; i < count && found < 0; ++i)
      if (!strcmp(token, p->variant(i).name)) found = i;
    if (found < 0) {
      fprintf(stderr, "error: no variant '%s' in %s (see --list)\n", token, p->lab);
      status = PP_EXIT_USAGE;
      break;
    }
    selected[found] = 1;
  }
  free(copy);
  return status;
}

/* Reads the device's verdict on the launch just made. Returns 0 if none;
 * otherwise describes the error in the verdict. A sticky error leaves the
 * CUDA context unusable, so the run stops there. */
static int launch_failed(const char *who, pp_verdict *v) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return 0;
  v->correct = 0;
  snprintf(v->note, sizeof v->note, "CUDA error %s (%s) while running it", cudaGetErrorName(err),
           cudaGetErrorString(err));
  cudaGetLastError();
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("FAIL %s: %s\nthe CUDA context is lost after this error: stopping\n", who, v->note);
    exit(PP_EXIT_FAIL);
  }
  return 1;
}

/* Poisons the outputs, runs one variant once, and judges it. */
static void run_once(const pp_problem *p, void *state, int variant, const char *who, pp_verdict *v) {
  memset(v, 0, sizeof *v);
  p->prepare(state);
  p->launch(state, variant);
  if (!launch_failed(who, v)) p->check(state, variant, v);
}

/* 1 once every selected variant has failed FAILURES_SHOWN times. */
static int all_settled(const int *selected, const int *failed, int count) {
  for (int v = 0; v < count; ++v)
    if (selected[v] && failed[v] < FAILURES_SHOWN) return 0;
  return 1;
}

static int grade(const pp_problem *p, const pp_options *o, const int *selected) {
  const char *const *sizes = o->quick ? p->quick_sizes : p->grade_sizes;
  const char *given[2] = {o->size, NULL};
  if (o->size) sizes = given;
  int count = p->variant_count();
  int *cases = calloc((size_t)count, sizeof *cases), *failed = calloc((size_t)count, sizeof *failed);
  for (size_t s = 0; sizes[s] && !all_settled(selected, failed, count); ++s) {
    pp_size size;
    char label[96];
    if (p->parse_size(sizes[s], &size)) {
      fprintf(stderr, "grader error: size '%s' of %s does not parse\n", sizes[s], p->lab);
      exit(PP_EXIT_FAIL);
    }
    p->format_size(&size, label, sizeof label);
    /* Free memory now, not at the start: other tests may share the GPU. */
    size_t need = p->device_bytes(&size), free_bytes = pp_device_free_bytes();
    if (need > free_bytes / 10 * 9) {
      printf("skip size %s: needs %.1f GiB of device memory, %.1f GiB free\n", label, gib(need),
             gib(free_bytes));
      continue;
    }
    int seeds = o->quick || need > ONE_SEED_BYTES ? 1 : o->seeds;
    void *state = p->create(&size);
    for (int k = 0; k < seeds; ++k) {
      uint64_t seed = o->seed + (uint64_t)k;
      for (int d = 0; p->datasets[d]; ++d) {
        p->fill(state, seed, d);
        for (int v = 0; v < count; ++v) {
          if (!selected[v] || failed[v] >= FAILURES_SHOWN) continue;
          const char *name = p->variant(v).name;
          pp_verdict verdict;
          run_once(p, state, v, name, &verdict);
          cases[v]++;
          if (verdict.correct) continue;
          failed[v]++;
          printf("FAIL %s at size %s, seed %llu, data %s: %s\n", name, label,
                 (unsigned long long)seed, p->datasets[d], verdict.note);
        }
      }
    }
    p->destroy(state);
    printf("checked size %s (%d seed%s from %llu)\n", label, seeds, seeds > 1 ? "s" : "",
           (unsigned long long)o->seed);
  }
  int status = PP_EXIT_PASS;
  for (int v = 0; v < count; ++v) {
    if (!selected[v]) continue;
    const char *name = p->variant(v).name;
    if (failed[v]) {
      printf("FAIL %s: %d of %d cases wrong%s\n", name, failed[v], cases[v],
             failed[v] >= FAILURES_SHOWN ? "; stopped there" : "");
      status = PP_EXIT_FAIL;
    } else {
      printf("PASS %s: %d cases right\n", name, cases[v]);
    }
  }
  free(cases);
  free(failed);
  return status;
}

typedef struct timed_run {
  const pp_problem *problem;
  void *state;
  int variant;
} timed_run;

static void prepare_run(void *ctx) {
  timed_run *t = ctx;
  t->problem->prepare(t->state);
}

static void launch_run(void *ctx) {
  timed_run *t = ctx;
  t->problem->launch(t->state, t->variant);
}

static void cpu_run(void *ctx) {
  timed_run *t = ctx;
  t->problem->cpu_reference(t->state);
}

/* Checks a variant once, times it if it was right, and checks it again. */
static void measure(const pp_problem *p, void *state, int variant, const pp_options *o, pp_result *r) {
  pp_verdict v;
  run_once(p, state, variant, r->name, &v);
  int timed = v.correct;
  if (timed) {
    timed_run t = {p, state, variant};
    r->time = pp_time_device(prepare_run, launch_run, &t, o->warmup, o->reps);
    r->ran = 1;
    memset(&v, 0, sizeof v);
    if (!launch_failed(r->name, &v)) p->check(state, variant, &v);
  }
  r->correct = v.correct;
  r->rel_error = v.rel_error;
  r->bound_ratio = v.bound_ratio;
  if (snprintf(r->note, sizeof r->note, "%s%s", timed && !v.correct ? "after timing: " : "",
               v.note) >= (int)sizeof r->note)
    r->note[sizeof r->note - 2] = '~'; /* mark the cut */
}

static int bench(const pp_problem *p, const pp_options *o, const int *selected, const pp_device *dev,
                 const pp_size *size) {
  int count = p->variant_count();
  pp_report report;
  memset(&report, 0, sizeof report);
  report.lab = p->lab;
  report.title = p->title;
  p->format_size(size, report.size, sizeof report.size);
  report.seed = o->seed;
  report.dataset = p->datasets[p->bench_dataset];
  report.reps = o->reps;
  report.warmup = o->warmup;
  report.device = dev;
  report.bytes = p->bytes_moved(size);
  report.flops = p->flops ? p->flops(size) : 0.0;

  size_t copy_bytes = pp_device_free_bytes() / 4;
  if (copy_bytes > ((size_t)1 << 29)) copy_bytes = (size_t)1 << 29;
  report.copy_gbps = pp_device_copy_gbps(copy_bytes);

  void *state = p->create(size);
  p->fill(state, o->seed, p->bench_dataset);

  timed_run cpu = {p, state, 0};
  report.cpu = (pp_result){.name = "CPU reference", .what = "the grader's reference on one core",
                           .index = -1, .ran = 1, .correct = 1};
  report.cpu.time = pp_time_host(cpu_run, &cpu, 3);

  report.peer = (pp_result){.name = p->peer_name, .what = "the library peer", .index = -1};
  measure(p, state, PP_PEER, o, &report.peer);

  report.variants = calloc((size_t)count, sizeof *report.variants);
  for (int v = 0; v < count; ++v) {
    if (!selected[v]) continue;
    pp_result *r = &report.variants[report.count++];
    pp_variant_info info = p->variant(v);
    r->name = info.name;
    r->what = info.what;
    r->index = v;
    measure(p, state, v, o, r);
  }
  p->destroy(state);

  pp_report_print(stdout, &report);
  int status = report.peer.correct ? PP_EXIT_PASS : PP_EXIT_FAIL;
  for (int i = 0; i < report.count; ++i)
    if (!report.variants[i].correct) status = PP_EXIT_FAIL;
  if (o->min_speedup > 0 && report.count > 0) {
    const pp_result *first = &report.variants[0], *last = &report.variants[report.count - 1];
    double speedup = first->ran && last->ran ? first->time.median_ms / last->time.median_ms : 0.0;
    printf("%s %s is %.2fx %s; the grader asks for at least %.2fx\n",
           speedup >= o->min_speedup ? "PASS" : "FAIL", last->name, speedup, first->name,
           o->min_speedup);
    if (speedup < o->min_speedup) status = PP_EXIT_FAIL;
  }
  if (o->json && pp_report_write_json(&report, o->json)) status = PP_EXIT_FAIL;
  free(report.variants);
  return status;
}

int pp_main(const pp_problem *p, int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pp_options o;
  int status = pp_parse_options(argc, argv, &o, stderr);
  if (status) return status;
  if (o.mode == PP_MODE_HELP) {
    pp_print_usage(stdout, argv[0]);
    return PP_EXIT_PASS;
  }
  int count = p->variant_count();
  int *selected = calloc((size_t)(count > 0 ? count : 1), sizeof *selected);
  if (select_variants(p, o.variants, selected)) return PP_EXIT_USAGE;
  if (o.mode == PP_MODE_LIST) {
    for (int i = 0; i < count; ++i) printf("%d  %-18s %s\n", i, p->variant(i).name, p->variant(i).what);
    return PP_EXIT_PASS;
  }
  pp_size size;
  const char *size_text = o.size ? o.size : p->bench_size;
  if (p->parse_size(size_text, &size)) {
    fprintf(stderr, "error: '%s' is not a size for %s (for example: %s)\n", size_text, p->lab,
            p->bench_size);
    return PP_EXIT_USAGE;
  }
  for (int i = 0; i < size.rank; ++i) {
    if (size.dim[i] > MAX_EXTENT) {
      fprintf(stderr, "error: size '%s' is larger than any GPU can hold\n", size_text);
      return PP_EXIT_USAGE;
    }
  }
  if (o.mode == PP_MODE_PROBE) {
    const char *why = NULL;
    if (pp_device_available(&why)) return PP_EXIT_PASS;
    printf("no CUDA device (%s): skipped\n", why);
    return PP_EXIT_SKIP;
  }

  pp_device dev;
  pp_device_open(&dev);
  if (o.mode == PP_MODE_BENCH || o.size) {
    size_t need = p->device_bytes(&size), free_bytes = pp_device_free_bytes();
    if (need > free_bytes) {
      char label[96];
      p->format_size(&size, label, sizeof label);
      if (o.or_skip) {
        printf("size %s needs %.2f GiB of device memory, %.2f GiB free: skipped\n", label,
               gib(need), gib(free_bytes));
        return PP_EXIT_SKIP;
      }
      fprintf(stderr, "error: size %s needs %.2f GiB of device memory; %s has %.2f GiB free\n",
              label, gib(need), dev.name, gib(free_bytes));
      fprintf(stderr, "       choose a smaller one with --size\n");
      return PP_EXIT_USAGE;
    }
  }
  printf("%s on %s; seed %llu (--seed to change)\n", p->lab, dev.name, (unsigned long long)o.seed);
  status = o.mode == PP_MODE_GRADE ? grade(p, &o, selected) : bench(p, &o, selected, &dev, &size);
  free(selected);
  return status;
}
