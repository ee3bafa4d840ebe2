/* Running one variant, once, timed or under stress: what the driver and the
 * runner side of remote.c both do, so that neither depends on the other. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "pp/timer.h"
#include "poison_shared.h"
#include "share.h"
#include "launch_watch.h"
#include "stress.h"

int pp_launch_error(char *note, size_t len) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return pp_launch_misfit(note, len);
  snprintf(note, len, "CUDA error %s (%s) while running it", cudaGetErrorName(err),
           cudaGetErrorString(err));
  cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess ? 1 : 2;
}

/* Off for --quick, the sanitizers' sweep: under racecheck or memcheck, the
 * poison kernel's millions of shared-memory stores would cost more than the
 * variants, and the grade sweep checks the same sizes with it. */
static int poison = 1;

void pp_set_shared_poison(int on) {
  poison = on;
}

int pp_shared_poison(void) {
  return poison;
}

static int watched;

void pp_set_launch_watched(int on) {
  watched = on;
}

int pp_launch_watched(void) {
  return watched;
}

void pp_before_variant(void) {
  if (poison) pp_poison_shared();
  pp_launch_forget();
}

typedef struct launch_job {
  const pp_problem *problem;
  void *state;
  int variant, dataset;
} launch_job;

static void launch_job_run(void *ctx) {
  launch_job *job = ctx;
  job->problem->launch(job->state, job->variant, job->dataset);
}

long long pp_launch_keeping(const pp_problem *problem, void *state, int variant, int dataset) {
  size_t held = pp_device_bytes_held();
  problem->launch(state, variant, dataset);
  return (long long)pp_device_bytes_held() - (long long)held;
}

double pp_time_launch(const pp_problem *problem, void *state, int variant, int dataset, int flush) {
  launch_job job = {problem, state, variant, dataset};
  return flush ? pp_time_once(launch_job_run, &job) : pp_time_events(launch_job_run, &job);
}

int pp_stress_launch(const pp_problem *problem, void *state, int variant, int dataset, uint64_t seed,
                     long long *kept, char *note, size_t len) {
  pp_before_variant();
  pp_interference_start(seed);
  *kept = pp_launch_keeping(problem, state, variant, dataset);
  /* The variant alone: the interference's stream does not block the default one. */
  cudaError_t waited = cudaStreamSynchronize(cudaStreamLegacy);
  pp_interference_stop();
  int error = pp_launch_error(note, len); /* also waits for the interference to end */
  if (!error && waited != cudaSuccess) {
    snprintf(note, len, "CUDA error %s (%s) while waiting for it", cudaGetErrorName(waited),
             cudaGetErrorString(waited));
    error = 1;
  }
  return error;
}
