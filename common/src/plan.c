/* The sizes of a sweep (--grade, --stress) and which of them fit the GPU,
 * all decided before any variant runs. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "pp/random.h"
#include "session.h"

/* Sizes --grade draws from the seed (pp_problem::random_max), and the stream
 * of pp_random_bits() they come from, apart from the fills' small streams. */
#define DRAWN_SIZES 16
#define SIZE_STREAM 0x53495a45u
/* The stream a sweep's order of sizes comes from (plan_order()), and how
 * many of the smallest sizes that are not empty --grade's first is drawn
 * among. */
#define ORDER_STREAM 0x4f524452u
#define SMALL_FIRST 4

/* Parses one of the grader's own sizes; a size it cannot parse is the grader's bug. */
static void parse_lab_size(const pp_problem *p, const char *text, pp_size *size) {
  if (p->parse_size(text, size)) {
    fprintf(stderr, "grader error: size '%s' of %s does not parse\n", text, p->lab);
    exit(PP_EXIT_FAIL);
  }
}

static int same_size(const pp_size *a, const pp_size *b) {
  if (a->rank != b->rank) return 0;
  for (int i = 0; i < a->rank; ++i)
    if (a->dim[i] != b->dim[i]) return 0;
  return 1;
}

/* Appends @p item to the sweep's plan. */
static void plan_push(session *s, planned item) {
  if (s->plan_count == s->plan_capacity) {
    s->plan_capacity = s->plan_capacity ? 2 * s->plan_capacity : 64;
    s->plan = realloc(s->plan, (size_t)s->plan_capacity * sizeof *s->plan);
    if (!s->plan) {
      fprintf(stderr, "error: out of memory\n");
      exit(PP_EXIT_FAIL);
    }
  }
  s->plan[s->plan_count++] = item;
}

/* Adds a size to the sweep's plan; one already there keeps its place and
 * gets the more seeds of the two, and every dataset if the two differ. */
static void plan_add(session *s, const pp_size *size, int seeds, int dataset) {
  for (int k = 0; k < s->plan_count; ++k) {
    if (!same_size(&s->plan[k].size, size)) continue;
    if (seeds > s->plan[k].seeds) s->plan[k].seeds = seeds;
    if (dataset != s->plan[k].dataset) s->plan[k].dataset = ALL_DATASETS;
    return;
  }
  plan_push(s, (planned){.size = *size, .seeds = seeds, .dataset = dataset});
}

static void plan_texts(session *s, const char *const *texts, int seeds) {
  for (size_t k = 0; texts && texts[k]; ++k) {
    pp_size size;
    parse_lab_size(s->p, texts[k], &size);
    plan_add(s, &size, seeds, ALL_DATASETS);
  }
}

/* Whether every extent of @p size is within the lab's random_max (a size
 * past it may not be one of the lab's: lab 03's section is at most 2048). */
static int within_random_max(const pp_problem *p, const pp_size *size) {
  pp_size max;
  parse_lab_size(p, p->random_max, &max);
  for (int i = 0; i < size->rank; ++i)
    if (size->dim[i] > max.dim[i]) return 0;
  return 1;
}

/* The number of the lab's datasets that a sweep checks unless told (rotated_datasets). */
int pp_dataset_count(const pp_problem *p) {
  int n = 0;
  while (p->datasets[n]) ++n;
  return p->rotated_datasets > 0 && p->rotated_datasets < n ? p->rotated_datasets : n;
}

/* Each boundary size, and each with one extent moved by 1 to boundary_reach
 * either way (never below 1: every lab lists its empty sizes), one seed and
 * one dataset each, the datasets in turn: a bound off by a few elements is
 * wrong on any data, and the fixed list's sizes check every dataset. */
static void plan_boundaries(session *s) {
  const pp_problem *p = s->p;
  int reach = p->boundary_reach > 0 ? p->boundary_reach : 1, datasets = pp_dataset_count(p), turn = 0;
  for (size_t k = 0; p->boundary_sizes && p->boundary_sizes[k]; ++k) {
    pp_size at;
    parse_lab_size(p, p->boundary_sizes[k], &at);
    plan_add(s, &at, 1, turn++ % datasets);
    for (int i = 0; i < at.rank; ++i)
      for (int d = -reach; d <= reach; ++d) {
        if (d == 0 || (d < 0 && at.dim[i] <= (uint64_t)-d)) continue;
        pp_size near = at;
        near.dim[i] += (uint64_t)(int64_t)d;
        if (within_random_max(p, &near)) plan_add(s, &near, 1, turn++ % datasets);
      }
  }
}

/* DRAWN_SIZES sizes from the seed, one seed and one dataset (drawn too) each: every extent log-uniform in
 * [1, random_max's], drawn again while their product passes random_volume_max,
 * so that thin, tall, deep and odd shapes all come up. The same --seed draws
 * the same sizes, and a failure names its size. */
static void plan_drawn(session *s) {
  const pp_problem *p = s->p;
  pp_size max;
  parse_lab_size(p, p->random_max, &max);
  uint64_t index = 0;
  for (int k = 0; k < DRAWN_SIZES; ++k) {
    pp_size size = max;
    double volume;
    do {
      volume = 1.0;
      for (int i = 0; i < max.rank; ++i) {
        double u = (double)(pp_random_bits(s->o->seed, SIZE_STREAM, index++) >> 11) * 0x1p-53;
        size.dim[i] = (uint64_t)floor(pow((double)max.dim[i] + 1.0, u));
        volume *= (double)size.dim[i];
      }
    } while (p->random_volume_max > 0 && volume > p->random_volume_max);
    int dataset = (int)(pp_random_bits(s->o->seed, SIZE_STREAM, index++) % (uint64_t)pp_dataset_count(p));
    plan_add(s, &size, 1, dataset);
  }
}

/* A size and its number of elements or operations (the product of its extents). */
typedef struct sized {
  double volume;
  int index;
} sized;

static int by_volume(const void *x, const void *y) {
  const sized *a = x, *b = y;
  return a->volume < b->volume ? -1 : a->volume > b->volume ? 1 : a->index - b->index;
}

/* A sweep's order, drawn from the seed, so that a launcher that keeps
 * something from its first call (a grid, a block size, a scratch buffer
 * sized for it) meets the sizes in another order in every grading, and in
 * every process of one: the sizes are shuffled, the first is moved to a
 * size that is not empty (drawn among the @p first_among smallest: --grade
 * starts small, the sanitizers' quick sweeps anywhere), and that size is
 * checked once more at the end, after the others. What is kept from a small
 * call fails a larger one; what is kept from a large call fails the small
 * one again. */
static void plan_order(session *s, int first_among) {
  int count = s->plan_count;
  if (count < 2) return;
  uint64_t index = 0;
  for (int k = count - 1; k > 0; --k) { /* Fisher-Yates */
    int j = (int)(pp_random_bits(s->o->seed, ORDER_STREAM, index++) % (uint64_t)(k + 1));
    planned swap = s->plan[k];
    s->plan[k] = s->plan[j];
    s->plan[j] = swap;
  }
  sized *nonempty = malloc((size_t)count * sizeof *nonempty);
  int found = 0;
  for (int k = 0; k < count; ++k) {
    double volume = 1.0;
    for (int i = 0; i < s->plan[k].size.rank; ++i) volume *= (double)s->plan[k].size.dim[i];
    if (volume > 0.0) nonempty[found++] = (sized){volume, k};
  }
  qsort(nonempty, (size_t)found, sizeof *nonempty, by_volume);
  int among = found < first_among ? found : first_among;
  int first = among ? nonempty[pp_random_bits(s->o->seed, ORDER_STREAM, index) % (uint64_t)among].index : -1;
  free(nonempty);
  if (first < 0) return;
  planned swap = s->plan[0];
  s->plan[0] = s->plan[first];
  s->plan[first] = swap;
  planned again = s->plan[0];
  again.seeds = 1;
  plan_push(s, again);
}

/* Decides, before the submission's process starts, which planned sizes fit
 * the device memory free now, and says which do not. */
void pp_plan_fit(session *s) {
  size_t free_bytes = pp_device_free_bytes();
  for (int k = 0; k < s->plan_count; ++k) {
    planned *pl = &s->plan[k];
    size_t need = s->p->device_bytes(&pl->size);
    pl->fits = need <= free_bytes / 10 * 9;
    if (pl->fits) continue;
    char label[96];
    s->p->format_size(&pl->size, label, sizeof label);
    pp_session_say(s, "skip", "size %s: GPU too small: needs %.1f GiB of device memory, %.1f GiB free", label,
           pp_gib(need), pp_gib(free_bytes));
  }
}

/* --stress (docs/grading-trust.md, "Stress"): without --size, the lab's quick sizes
 * that are not empty (a block or a few), and the STRESS_LARGE largest of its
 * grade sizes that need at most STRESS_EXTRA_BYTES of device memory more than
 * its smallest (a grader counts a fixed allowance in every size): many
 * blocks, several waves of them on any GPU, yet runs short enough for
 * hundreds in a few seconds. */
#define STRESS_EXTRA_BYTES ((size_t)256 << 20)
#define STRESS_LARGE 2

/* The sizes --stress runs without --size, into the plan. */
static void plan_stress(session *s) {
  const pp_problem *p = s->p;
  for (size_t k = 0; p->quick_sizes[k]; ++k) {
    pp_size size;
    parse_lab_size(p, p->quick_sizes[k], &size);
    int empty = 0;
    for (int i = 0; i < size.rank; ++i) empty |= size.dim[i] == 0;
    if (!empty) plan_add(s, &size, 1, ALL_DATASETS);
  }
  size_t least = (size_t)-1;
  for (size_t k = 0; p->grade_sizes[k]; ++k) {
    pp_size size;
    parse_lab_size(p, p->grade_sizes[k], &size);
    size_t bytes = p->device_bytes(&size);
    if (bytes < least) least = bytes;
  }
  size_t below = (size_t)-1; /* each pick is the largest still smaller than the last */
  for (int pick = 0; pick < STRESS_LARGE; ++pick) {
    pp_size best;
    size_t best_bytes = 0;
    int found = 0;
    for (size_t k = 0; p->grade_sizes[k]; ++k) {
      pp_size size;
      parse_lab_size(p, p->grade_sizes[k], &size);
      size_t bytes = p->device_bytes(&size);
      if (bytes - least > STRESS_EXTRA_BYTES || bytes >= below || (found && bytes <= best_bytes))
        continue;
      int known = 0;
      for (int j = 0; j < s->plan_count && !known; ++j) known = same_size(&size, &s->plan[j].size);
      if (!known) {
        best = size;
        best_bytes = bytes;
        found = 1;
      }
    }
    if (!found) break;
    plan_add(s, &best, 1, ALL_DATASETS);
    below = best_bytes;
  }
}

/* Calls @p each with every item of --size's comma-separated list and the
 * size it parses to (NULL if it is no size of the lab); stops at the first
 * call that returns nonzero, and returns that. */
int pp_for_each_size(const pp_problem *p, const char *list,
                          int (*each)(void *, const char *, const pp_size *), void *ctx) {
  char item[128];
  for (const char *at = list;; ++at) {
    const char *end = strchr(at, ',');
    size_t len = end ? (size_t)(end - at) : strlen(at);
    snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), at);
    pp_size size;
    int parsed = len < sizeof item && !p->parse_size(item, &size);
    int status = each(ctx, item, parsed ? &size : NULL);
    if (status || !end) return status;
    at = end;
  }
}

static int plan_given(void *ctx, const char *text, const pp_size *size) {
  session *s = ctx;
  (void)text; /* pp_main() checked every item */
  plan_add(s, size, s->o->quick ? 1 : s->o->seeds, ALL_DATASETS);
  return 0;
}

/* The sizes of a sweep, in order: --size's; or for --stress its own; for
 * --quick the lab's quick sizes; else the lab's list, its boundaries and
 * sizes drawn from the seed. */
void pp_plan_sweep(session *s) {
  const pp_problem *p = s->p;
  const pp_options *o = s->o;
  if (o->size) {
    pp_for_each_size(p, o->size, plan_given, s);
  } else if (o->mode == PP_MODE_STRESS) {
    plan_stress(s);
  } else if (o->quick) {
    plan_texts(s, p->quick_sizes, 1);
    plan_order(s, s->plan_count);
  } else {
    plan_texts(s, p->grade_sizes, o->seeds);
    int listed = s->plan_count;
    plan_boundaries(s);
    int boundaries = s->plan_count - listed;
    if (p->random_max) plan_drawn(s);
    int drawn = s->plan_count - listed - boundaries;
    plan_order(s, SMALL_FIRST);
    printf("sizes: %d listed, %d more at the launchers' boundaries, %d drawn from seed %llu, in an "
           "order drawn from it (the first again last)\n",
           listed, boundaries, drawn, (unsigned long long)o->seed);
  }
}
