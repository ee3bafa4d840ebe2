#define _POSIX_C_SOURCE 199309L
#include "pp/timer.h"

#include <stdlib.h>
#include <time.h>

#include "pp/check.h"
#include "l2_flush.h"

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double pp_median(double *values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

pp_timing pp_timing_summary(double *ms, int reps) {
  pp_timing t;
  t.reps = reps;
  t.median_ms = pp_median(ms, reps); /* sorted now */
  t.min_ms = ms[0];
  t.max_ms = ms[reps - 1];
  return t;
}

void pp_flush_l2(void) {
  static float *buffer;
  static size_t count;
  if (!buffer) {
    int l2 = 0;
    PP_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    count = 2 * (size_t)l2 / sizeof(float) + 1024 * 1024;
    PP_CHECK(cudaMalloc((void **)&buffer, count * sizeof(float)));
    PP_CHECK(cudaMemset(buffer, 0, count * sizeof(float)));
  }
  pp_l2_flush_launch(buffer, count);
}

double pp_time_events(pp_work work, void *ctx) {
  static cudaEvent_t start, stop;
  if (!start) {
    PP_CHECK(cudaEventCreate(&start));
    PP_CHECK(cudaEventCreate(&stop));
  }
  PP_CHECK(cudaEventRecord(start, 0));
  work(ctx);
  PP_CHECK(cudaEventRecord(stop, 0));
  PP_CHECK(cudaEventSynchronize(stop));
  float elapsed = 0.0f;
  PP_CHECK(cudaEventElapsedTime(&elapsed, start, stop));
  return elapsed;
}

double pp_time_once(pp_work work, void *ctx) {
  pp_flush_l2();
  return pp_time_events(work, ctx);
}

pp_timing pp_time_device(pp_work prepare, pp_work work, void *ctx, int warmup, int reps) {
  double *ms = malloc((size_t)reps * sizeof *ms);
  for (int r = -warmup; r < reps; ++r) {
    if (prepare) prepare(ctx);
    double elapsed = pp_time_once(work, ctx);
    if (r >= 0) ms[r] = elapsed;
  }
  pp_timing t = pp_timing_summary(ms, reps);
  free(ms);
  return t;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

pp_timing pp_time_host(pp_work work, void *ctx, int reps) {
  double *ms = malloc((size_t)reps * sizeof *ms);
  for (int r = 0; r < reps; ++r) {
    double t0 = now_ms();
    work(ctx);
    ms[r] = now_ms() - t0;
  }
  pp_timing t = pp_timing_summary(ms, reps);
  free(ms);
  return t;
}
