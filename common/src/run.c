/* Running one variant, once or timed: what the driver and the runner side of
 * remote.c both do, so that neither depends on the other. */
#include <stdio.h>

#include <cuda_runtime_api.h>

#include "pp/timer.h"
#include "share.h"

int pp_launch_error(char *note, size_t len) {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return 0;
  snprintf(note, len, "CUDA error %s (%s) while running it", cudaGetErrorName(err),
           cudaGetErrorString(err));
  cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess ? 1 : 2;
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

double pp_time_launch(const pp_problem *problem, void *state, int variant, int dataset) {
  launch_job job = {problem, state, variant, dataset};
  return pp_time_once(launch_job_run, &job);
}
