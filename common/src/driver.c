/* The harness's driver (pp_main()): the command line, the device, and the
 * mode it runs (session.h lists the pieces). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/buffer.h"
#include "pp/check.h"
#include "pp/cli.h"
#include "pp/device.h"
#include "pp/lab.h"
#include "pp/remote.h"
#include "session.h"
#include "share.h"
#include "launch_watch.h"

/* Sizes past this many elements along one dimension fit in no GPU; refusing
 * them early also keeps every byte count far from overflow. */
#define MAX_EXTENT ((uint64_t)1 << 40)

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

int pp_size_parse_mnk(const char *text, pp_size *size) {
  char part[64];
  const char *p = text;
  for (int d = 0; d < 3; ++d) {
    const char *end = d < 2 ? strchr(p, 'x') : p + strlen(p);
    if (!end || end == p || (size_t)(end - p) >= sizeof part) return -1;
    memcpy(part, p, (size_t)(end - p));
    part[end - p] = '\0';
    if (pp_parse_count(part, &size->dim[d]) || size->dim[d] > PP_MNK_MAX_EXTENT) return -1;
    p = end + 1;
  }
  size->rank = 3;
  return 0;
}

void pp_size_format_mnk(const pp_size *size, char *out, size_t len) {
  snprintf(out, len, "%llux%llux%llu", (unsigned long long)size->dim[0],
           (unsigned long long)size->dim[1], (unsigned long long)size->dim[2]);
}

/* The index of the dataset called `name`, or -1 (with a message) if none is. */
static int find_dataset(const pp_problem *p, const char *name) {
  for (int d = 0; p->datasets[d]; ++d)
    if (!strcmp(name, p->datasets[d])) return d;
  fprintf(stderr, "error: no dataset '%s' in %s; it has:", name, p->lab);
  for (int d = 0; p->datasets[d]; ++d) fprintf(stderr, " %s", p->datasets[d]);
  fprintf(stderr, "\n");
  return -1;
}

/* Marks the variants named in a comma-separated list; NULL selects all. Every
 * item must name one: an empty one ("", ",", "v1,,v2") would select nothing. */
static int select_variants(const pp_problem *p, const char *list, int *selected) {
  int count = p->variant_count();
  for (int i = 0; i < count; ++i) selected[i] = list == NULL;
  if (!list) return 0;
  char *copy = strdup(list);
  if (!copy) {
    fprintf(stderr, "error: out of memory\n");
    return PP_EXIT_USAGE;
  }
  int status = 0;
  for (char *item = copy, *next; item && !status; item = next) {
    next = strchr(item, ',');
    if (next) *next++ = '\0';
    int found = -1;
    uint64_t number;
    if (!pp_parse_count(item, &number) && number < (uint64_t)count) found = (int)number;
    for (int i = 0; i < count && found < 0; ++i)
      if (!strcmp(item, p->variant(i).name)) found = i;
    if (found >= 0)
      selected[found] = 1;
    else if (*item == '\0')
      fprintf(stderr, "error: --variant '%s' has an empty name: give names or numbers separated by "
                      "commas (see --list)\n", list);
    else
      fprintf(stderr, "error: no variant '%s' in %s (see --list)\n", item, p->lab);
    status = found >= 0 ? 0 : PP_EXIT_USAGE;
  }
  free(copy);
  return status;
}

/* Refuses a --size item that is no size of the lab, or that no GPU can hold. */
static int check_given(void *ctx, const char *text, const pp_size *size) {
  const pp_problem *p = ctx;
  if (!size) {
    fprintf(stderr, "error: '%s' is not a size for %s (for example: %s)\n", text, p->lab,
            p->bench_size);
    return PP_EXIT_USAGE;
  }
  for (int i = 0; i < size->rank; ++i) {
    if (size->dim[i] > MAX_EXTENT) {
      fprintf(stderr, "error: size '%s' is larger than any GPU can hold\n", text);
      return PP_EXIT_USAGE;
    }
  }
  return 0;
}

/* The lab's own size of @p what, or a grader's bug: exit ::PP_EXIT_FAIL. */
static void check_lab_size(const pp_problem *p, const char *what, const char *text) {
  pp_size size;
  if (!text || p->parse_size(text, &size)) {
    fprintf(stderr, "grader error: %s's %s '%s' is no size of the lab\n", p->lab, what, text ? text : "(none)");
    exit(PP_EXIT_FAIL);
  }
}

/* --list: the variants and the datasets, then the lab's facts that the tools
 * read (tools/sweep.sh, tools/counters.sh), one "key: value" line each, so
 * that they live in the grader alone:
 *   sweep sizes: SIZE...      the sizes sweep.sh times
 *   sweep variants: I,J,...   the variants it times unless told (their numbers)
 *   profile size: SIZE        the size counters.sh profiles unless told */
static int list(const pp_problem *p) {
  int count = p->variant_count();
  for (int i = 0; i < count; ++i) printf("%d  %-18s %s\n", i, p->variant(i).name, p->variant(i).what);
  printf("datasets:");
  for (int d = 0; p->datasets[d]; ++d)
    printf(" %s%s", p->datasets[d],
           d == p->bench_dataset ? " (timed)" : d >= pp_dataset_count(p) ? " (--dataset only)" : "");
  printf("\nsweep sizes:");
  for (size_t k = 0; p->sweep_sizes && p->sweep_sizes[k]; ++k) {
    check_lab_size(p, "sweep size", p->sweep_sizes[k]);
    printf(" %s", p->sweep_sizes[k]);
  }
  printf("\nsweep variants:");
  int first = p->sweep_variants == PP_SWEEP_LAST ? count - 1 : 1;
  if (first < 0) first = 0;
  for (int i = first; i < count; ++i) printf("%s%d", i > first ? "," : " ", i);
  check_lab_size(p, "profile size", p->profile_size);
  printf("\nprofile size: %s\n", p->profile_size);
  return PP_EXIT_PASS;
}

/* Everything after the command line is parsed and the device is open. */
static int run(session *s, const int *selected, const pp_device *dev, const pp_size *size) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  if (o->mode != PP_MODE_BENCH) {
    pp_plan_sweep(s);
    pp_plan_fit(s);
    for (int k = 0; k < s->plan_count && o->size && !o->or_skip; ++k)
      if (!s->plan[k].fits) {
        fprintf(stderr, "error: a --size is too large for %s's memory; choose a smaller one, or "
                        "add --or-skip\n", dev->name);
        return PP_EXIT_USAGE;
      }
  } else {
    size_t need = p->device_bytes(size), free_bytes = pp_device_free_bytes();
    if (need > free_bytes) {
      char label[96];
      p->format_size(size, label, sizeof label);
      if (o->or_skip) {
        printf("size %s needs %.2f GiB of device memory, %.2f GiB free: skipped\n", label,
               pp_gib(need), pp_gib(free_bytes));
        return PP_EXIT_SKIP;
      }
      fprintf(stderr, "error: size %s needs %.2f GiB of device memory; %s has %.2f GiB free\n",
              label, pp_gib(need), dev->name, pp_gib(free_bytes));
      fprintf(stderr, "       choose a smaller one with --size\n");
      return PP_EXIT_USAGE;
    }
  }
  printf("%s on %s; seed %llu (--seed to change)%s\n", p->lab, dev->name,
         (unsigned long long)o->seed, o->runner ? "; variants run by the submission's process" : "");
  if (o->runner) s->runner = pp_runner_new(p, o->runner, o->timeout_s, "submission");
  int status = o->mode == PP_MODE_GRADE    ? pp_grade(s, selected)
               : o->mode == PP_MODE_STRESS ? pp_stress(s, selected)
                                           : pp_bench(s, selected, dev, size);
  if (pp_runner_stop(s->runner, stdout)) {
    status = PP_EXIT_FAIL;
    pp_session_say(s, "FAIL", "the submission's process did not end cleanly (see its output above)");
  }
  return status;
}

/* The hardware work queues of this process's CUDA context, set before its
 * first CUDA call. A sweep or a probe uses one stream at a time, and gets one
 * queue rather than CUDA's 8: side by side in a grading, the driver creates
 * and ends the tests' contexts one at a time, and with one queue each costs
 * about a third as much (docs/results/grading.md). A stress run needs two
 * streams at once (the interference beside the variant), and a timed run
 * keeps the setting its tables were measured with: both get CUDA's default.
 * A runner inherits its checker's choice (grading/sandbox passes it on). */
static void choose_work_queues(pp_mode mode) {
  if (mode == PP_MODE_GRADE || mode == PP_MODE_PROBE)
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 1);
  else if (mode != PP_MODE_SERVE)
    unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
}

int pp_main(const pp_problem *p, int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  pp_options o;
  int status = pp_parse_options(argc, argv, &o, stderr);
  if (status) return status;
  if (o.mode == PP_MODE_HELP) {
    pp_print_usage(stdout, argv[0], p->bench_size, p->size_help);
    return PP_EXIT_PASS;
  }
  choose_work_queues(o.mode);
  if (o.no_guards) pp_buffer_guards(0);
  if (o.max_shared_kib) pp_cap_shared_memory(o.max_shared_kib * 1024);
  pp_set_shared_poison(!o.quick);
  /* The grade sweep's launches are held to the contract's stream (and to
   * --max-shared-kib); not under the sanitizers' quick sweep, whose tools
   * hold the process's CUPTI subscription. */
  pp_set_launch_watched(o.max_shared_kib || (o.mode == PP_MODE_GRADE && !o.quick));
  int count = p->variant_count();
  int *selected = calloc((size_t)(count > 0 ? count : 1), sizeof *selected);
  if (select_variants(p, o.variants, selected)) return PP_EXIT_USAGE;
  int only_dataset = o.dataset ? find_dataset(p, o.dataset) : -1;
  if (o.dataset && only_dataset < 0) return PP_EXIT_USAGE;
  if (o.mode == PP_MODE_LIST) return list(p);
  /* The size the table times; --grade and --stress take a list. */
  pp_size size = {.rank = 0};
  const char *size_text = o.size ? o.size : p->bench_size;
  int sweep = o.mode == PP_MODE_GRADE || o.mode == PP_MODE_STRESS;
  if (!sweep && strchr(size_text, ',')) {
    fprintf(stderr, "error: --size '%s': the table times one size; a list is for --grade and "
                    "--stress\n", size_text);
    return PP_EXIT_USAGE;
  }
  status = pp_for_each_size(p, size_text, check_given, (void *)p);
  if (status) return status;
  if (!sweep) p->parse_size(size_text, &size);
  session s = {.p = p,
               .o = &o,
               .bench_dataset = only_dataset >= 0 ? only_dataset : p->bench_dataset,
               .only_dataset = only_dataset};
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    status = PP_EXIT_SKIP;
  } else if (o.mode != PP_MODE_PROBE) {
    pp_device dev;
    pp_device_open(&dev);
    /* The process that runs the variants checks their launches (a runner: on the checker's word). */
    if (pp_launch_watched() && !o.runner) pp_launch_watch(o.max_shared_kib * 1024);
    status = o.mode == PP_MODE_SERVE ? pp_serve(p) : run(&s, selected, &dev, &size);
  }
  pp_write_verdict(&s, status);
  free(s.plan);
  free(selected);
  return status;
}
