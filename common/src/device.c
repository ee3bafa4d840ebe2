#include "pp/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "pp/lab.h"
#include "pp/timer.h"
#include "share.h"

int pp_device_available(const char **why) {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err == cudaSuccess && count > 0) return 1;
  if (why) *why = err == cudaSuccess ? "no device listed" : cudaGetErrorString(err);
  cudaGetLastError(); /* clear it: later calls must not see it */
  return 0;
}

void pp_device_open(pp_device *dev) {
  const char *why = NULL;
  if (!pp_device_available(&why)) {
    printf("no CUDA device (%s): skipped\n", why);
    exit(PP_EXIT_SKIP);
  }
  memset(dev, 0, sizeof *dev);
  PP_CHECK(cudaSetDevice(0));
  struct cudaDeviceProp prop;
  PP_CHECK(cudaGetDeviceProperties(&prop, 0));
  snprintf(dev->name, sizeof dev->name, "%s", prop.name);
  int mem_clock_khz = 0, bus_bits = 0, l2 = 0;
  PP_CHECK(cudaDeviceGetAttribute(&dev->cc_major, cudaDevAttrComputeCapabilityMajor, 0));
  PP_CHECK(cudaDeviceGetAttribute(&dev->cc_minor, cudaDevAttrComputeCapabilityMinor, 0));
  PP_CHECK(cudaDeviceGetAttribute(&dev->sm_count, cudaDevAttrMultiProcessorCount, 0));
  PP_CHECK(cudaDeviceGetAttribute(&dev->clock_khz, cudaDevAttrClockRate, 0));
  PP_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  /* CUDA 13 dropped cudaDeviceProp.memoryClockRate; the attribute remains. */
  PP_CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0));
  PP_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  PP_CHECK(cudaDriverGetVersion(&dev->driver_version));
  PP_CHECK(cudaRuntimeGetVersion(&dev->runtime_version));
  dev->l2_bytes = (size_t)l2;
  dev->global_bytes = prop.totalGlobalMem;
  /* Double data rate: two transfers per clock. */
  dev->theoretical_gbps = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

double pp_device_fp32_peak(const pp_device *dev) {
  int half = dev->cc_major == 7 || (dev->cc_major == 6 && dev->cc_minor == 0) ||
             (dev->cc_major == 8 && dev->cc_minor == 0);
  double lanes = half ? 64.0 : 128.0;
  return 2.0 * lanes * dev->sm_count * dev->clock_khz * 1e3;
}

double pp_device_bf16_tensor_peak(const pp_device *dev) {
  double per_clock; /* operations per clock per multiprocessor (device.h says whence) */
  switch (dev->cc_major) {
    case 7: per_clock = 1024.0; break;
    case 8: per_clock = dev->cc_minor == 0 ? 2048.0 : 1024.0; break;
    case 9: per_clock = 4096.0; break;
    case 12: per_clock = 1024.0; break;
    default: per_clock = 8192.0; break; /* 10.x, 11.x and any newer: Blackwell's */
  }
  return per_clock * dev->sm_count * dev->clock_khz * 1e3;
}

double pp_device_peak(const pp_device *dev, int peak) {
  return peak == PP_PEAK_BF16_TENSOR ? pp_device_bf16_tensor_peak(dev) : pp_device_fp32_peak(dev);
}

const char *pp_peak_name(int peak) {
  return peak == PP_PEAK_BF16_TENSOR ? "BF16 tensor" : "FP32";
}

/* --max-shared-kib, in bytes; 0: no cap. */
static int shared_memory_cap;

void pp_cap_shared_memory(int bytes) {
  shared_memory_cap = bytes > 0 ? bytes : 0;
}

int pp_shared_memory_cap(void) {
  return shared_memory_cap;
}

int pp_shared_memory_per_block(void) {
  int device = 0, limit = 0;
  PP_CHECK(cudaGetDevice(&device));
  PP_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return shared_memory_cap > 0 && shared_memory_cap < limit ? shared_memory_cap : limit;
}

size_t pp_device_free_bytes(void) {
  size_t free_bytes = 0, total = 0;
  PP_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

typedef struct copy_job {
  void *dst;
  const void *src;
  size_t bytes;
} copy_job;

static void run_copy(void *ctx) {
  copy_job *job = ctx;
  PP_CHECK(cudaMemcpyAsync(job->dst, job->src, job->bytes, cudaMemcpyDeviceToDevice, 0));
}

double pp_device_copy_gbps(size_t bytes) {
  copy_job job = {NULL, NULL, bytes};
  void *src = NULL;
  PP_CHECK(cudaMalloc(&src, bytes));
  PP_CHECK(cudaMalloc(&job.dst, bytes));
  PP_CHECK(cudaMemset(src, 0x5A, bytes));
  job.src = src;
  pp_timing t = pp_time_device(NULL, run_copy, &job, 2, 10);
  PP_CHECK(cudaFree(src));
  PP_CHECK(cudaFree(job.dst));
  return 2.0 * (double)bytes / (t.median_ms * 1e-3) / 1e9;
}
