#include "launch_watch.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
/* and the launch calls' parameters (generated_cuda_runtime_api_meta.h, generated_cuda_meta.h) */
#include <cupti.h>

#include "pp/check.h"

static int cap;
/* The driver's cuFuncGetAttribute() and cuKernelGetFunction(), found through
 * the runtime: linking the driver library would stop the labs from starting
 * (and skipping) where there is no driver. */
static CUresult (*func_attribute)(int *, CUfunction_attribute, CUfunction);
static CUresult (*kernel_function)(CUfunction *, CUkernel);
/* The first launch past the cap, on a stream other than the default one, or
 * that could not be judged, since the last pp_launch_misfit(). */
static int overrun;
static char overrun_note[384];
/* How many launch calls were judged (and passed over as another runtime's),
 * the last one's shared memory, and whether two differed: what
 * pp_launch_watch() checks its probe against (one launch may pass through two
 * of the calls watched). */
static unsigned long long seen, foreign;
static long long seen_fixed, seen_dynamic;
static int seen_differ;

/* The parameters of __cudaLaunchKernel(), which <<<>>> calls from CUDA 13 on
 * (crt/host_runtime.h) and for which the headers give no struct: CUPTI passes
 * a call's parameters in order, as for cudaLaunchKernel (the probe in
 * pp_launch_watch() holds this to the launch it makes). */
typedef struct {
  cudaKernel_t kernel;
  dim3 gridDim;
  dim3 blockDim;
  void **args;
  size_t sharedMem;
  cudaStream_t stream;
} pp_cudaLaunchKernel_v13000_params;

/* A launch: its kernel, as the runtime (a __global__ function or a
 * cudaKernel_t) or the driver names it, its dynamic shared memory, its stream
 * and whether the call was a per-thread default stream's (_ptsz: a file built
 * with --default-stream per-thread). */
typedef struct {
  const void *runtime;
  CUfunction driver;
  size_t dynamic;
  const void *stream;
  int per_thread;
} launch;

/* The runtime's launch calls. CUPTI reports no driver callbacks for the
 * driver calls that the runtime makes itself: <<<>>> and cudaLaunchKernel are
 * seen here or not at all. Returns 0 for other calls. */
static int runtime_launch(CUpti_CallbackId id, const void *params, launch *l) {
  switch (id) {
  case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
  case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: {
    const pp_cudaLaunchKernel_v13000_params *p = params;
    l->runtime = (const void *)p->kernel; /* cudaFuncGetAttributes() takes a cudaKernel_t as is */
    l->dynamic = p->sharedMem;
    l->stream = p->stream;
    l->per_thread = id == CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000;
    return 1;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000: {
    const cudaLaunchKernel_v7000_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->sharedMem;
    l->stream = p->stream;
    return 1;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
    const cudaLaunchKernel_ptsz_v7000_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->sharedMem;
    l->stream = p->stream;
    l->per_thread = 1;
    return 1;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000: {
    const cudaLaunchCooperativeKernel_v9000_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->sharedMem;
    l->stream = p->stream;
    return 1;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000: {
    const cudaLaunchCooperativeKernel_ptsz_v9000_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->sharedMem;
    l->stream = p->stream;
    l->per_thread = 1;
    return 1;
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: {
    const cudaLaunchKernelExC_v11060_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->config ? p->config->dynamicSmemBytes : 0;
    l->stream = p->config ? p->config->stream : NULL;
    return p->config != NULL; /* without one the launch fails on its own */
  }
  case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
    const cudaLaunchKernelExC_ptsz_v11060_params *p = params;
    l->runtime = p->func;
    l->dynamic = p->config ? p->config->dynamicSmemBytes : 0;
    l->stream = p->config ? p->config->stream : NULL;
    l->per_thread = 1;
    return p->config != NULL; /* without one the launch fails on its own */
  }
  default:
    return 0;
  }
}

/* The driver's launch calls, made directly (a library such as cuBLAS).
 * Returns 0 for other calls. */
static int driver_launch(CUpti_CallbackId id, const void *params, launch *l) {
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const cuLaunchKernel_params *p = params;
    l->driver = p->f;
    l->dynamic = p->sharedMemBytes;
    l->stream = p->hStream;
    l->per_thread = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz;
    return 1;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const cuLaunchCooperativeKernel_params *p = params;
    l->driver = p->f;
    l->dynamic = p->sharedMemBytes;
    l->stream = p->hStream;
    l->per_thread = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
    return 1;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const cuLaunchKernelEx_params *p = params;
    l->driver = p->f;
    l->dynamic = p->config ? p->config->sharedMemBytes : 0;
    l->stream = p->config ? p->config->hStream : NULL;
    l->per_thread = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
    return p->config != NULL;
  }
  default:
    return 0;
  }
}

/* The launched kernel's static shared memory, or -1 with the reason in @p why;
 * -2 for a __global__ function that this process's runtime does not know:
 * another runtime's (cuBLAS carries its own), since through this one its
 * launch would fail on its own. */
static long long static_shared(const launch *l, char *why, size_t len) {
  int fixed = 0;
  if (l->driver) {
    CUresult got = func_attribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, l->driver);
    CUfunction f;
    /* The driver's launches also take a CUkernel cast to a CUfunction. */
    if (got != CUDA_SUCCESS && kernel_function(&f, (CUkernel)l->driver) == CUDA_SUCCESS)
      got = func_attribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    if (got == CUDA_SUCCESS) return fixed;
    snprintf(why, len, "cuFuncGetAttribute: CUresult %d", (int)got);
    return -1;
  }
  struct cudaFuncAttributes a;
  cudaError_t before = cudaPeekAtLastError(), got = cudaFuncGetAttributes(&a, l->runtime);
  if (got == cudaSuccess) return (long long)a.sharedSizeBytes;
  /* The failure is the watch's, and its note says so: not the launch's error. */
  if (before == cudaSuccess) cudaGetLastError();
  if (got == cudaErrorInvalidDeviceFunction && l->runtime != NULL) return -2;
  snprintf(why, len, "cudaFuncGetAttributes: %s", cudaGetErrorName(got));
  return -1;
}

static void CUPTIAPI on_launch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void *data) {
  (void)user;
  const CUpti_CallbackData *call = data;
  launch l = {0};
  if (call->callbackSite != CUPTI_API_ENTER) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API ? !runtime_launch(id, call->functionParams, &l)
                                            : domain != CUPTI_CB_DOMAIN_DRIVER_API ||
                                                  !driver_launch(id, call->functionParams, &l))
    return;
  char why[96] = "";
  long long fixed = static_shared(&l, why, sizeof why);
  if (fixed == -2) {
    ++foreign;
    return;
  }
  if (seen++ && (fixed != seen_fixed || (long long)l.dynamic != seen_dynamic)) seen_differ = 1;
  seen_fixed = fixed;
  seen_dynamic = (long long)l.dynamic;
  /* The contract's stream: the legacy default stream, as 0 or cudaStreamLegacy. */
  int other_stream = l.per_thread || (l.stream != NULL && l.stream != (const void *)cudaStreamLegacy);
  /* Without a cap, a kernel whose static shared memory cannot be read is not judged by it. */
  int fits = cap == INT_MAX || (fixed >= 0 && fixed + (long long)l.dynamic <= cap);
  if (overrun || (!other_stream && fits)) return;
  const char *name = call->symbolName;
  if (!name && l.runtime) {
    cudaError_t before = cudaPeekAtLastError();
    if (cudaFuncGetName(&name, l.runtime) != cudaSuccess) {
      if (before == cudaSuccess) cudaGetLastError();
      name = NULL;
    }
  }
  if (!name) name = "(unnamed)";
  overrun = 1;
  if (other_stream)
    snprintf(overrun_note, sizeof overrun_note,
             "kernel %.80s was launched on %s, not on the default stream that the contract names",
             name,
             l.stream == (const void *)cudaStreamPerThread || l.per_thread
                 ? "the calling thread's own default stream (cudaStreamPerThread)"
                 : "a stream of its own");
  else if (fixed < 0)
    snprintf(overrun_note, sizeof overrun_note,
             "kernel %.80s was launched with %zu bytes of dynamic shared memory, but its static shared "
             "memory could not be read (%s): its launch cannot be held to --max-shared-kib",
             name, l.dynamic, why);
  else
    snprintf(overrun_note, sizeof overrun_note,
             "kernel %.80s was launched with %lld bytes of static and %zu of dynamic shared memory, "
             "more than the %d KiB a block gets here (--max-shared-kib): it cannot run on such a GPU",
             name, fixed, l.dynamic, cap / 1024);
}

/* Ends the process: the launches were to be checked and cannot be. */
static void cannot_watch(const char *why) {
  fprintf(stderr, "error: the launch watch: %s, so the kernels' launches cannot be checked\n", why);
  exit(PP_EXIT_FAIL);
}

static void *driver_entry(const char *name) {
  void *entry = NULL;
  enum cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    char why[96];
    snprintf(why, sizeof why, "the driver has no %s()", name);
    cannot_watch(why);
  }
  return entry;
}

/* Fails the run with CUPTI's reason if @p got is an error. */
static void cupti_or_fail(CUptiResult got, const char *what) {
  if (got == CUPTI_SUCCESS) return;
  const char *name = NULL;
  if (cuptiGetResultString(got, &name) != CUPTI_SUCCESS || !name) name = "unknown CUPTI error";
  char why[384];
  snprintf(why, sizeof why, "%s failed (%s%s)", what, name,
           got == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
               ? ": another CUPTI client, such as a profiler, holds the process's one subscription"
               : "");
  cannot_watch(why);
}

void pp_launch_watch(int cap_bytes) {
  /* Every launch call of the runtime (<<<>>> goes through __cudaLaunchKernel
   * from CUDA 13 on; cudaLaunchKernel and cudaLaunchKernelEx are the labs'
   * own; _ptsz: per-thread default stream) and of the driver. */
  static const struct {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId id;
  } launches[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz}};
  /* Less than the smallest cap (1 KiB) with the probe's 256 static bytes. */
  enum { PROBE_DYNAMIC = 520 };
  static CUpti_SubscriberHandle subscriber;
  cap = cap_bytes > 0 ? cap_bytes : INT_MAX;
  if (subscriber) return;
  *(void **)&func_attribute = driver_entry("cuFuncGetAttribute");
  *(void **)&kernel_function = driver_entry("cuKernelGetFunction");
  cupti_or_fail(cuptiSubscribe(&subscriber, on_launch, NULL), "cuptiSubscribe");
  for (size_t i = 0; i < sizeof launches / sizeof *launches; ++i) {
    char what[160];
    const char *name = NULL;
    if (cuptiGetCallbackName(launches[i].domain, launches[i].id, &name) != CUPTI_SUCCESS || !name)
      name = "a launch call";
    snprintf(what, sizeof what, "cuptiEnableCallback(%s)", name);
    cupti_or_fail(cuptiEnableCallback(1, subscriber, launches[i].domain, launches[i].id), what);
  }
  /* The watch, held to a launch of its own: a subscription that sees no
   * launch, or reads the wrong sizes, must not pass every kernel. */
  seen = foreign = 0;
  long long fixed = pp_shared_probe(PROBE_DYNAMIC);
  char why[256];
  if (!seen)
    cannot_watch(foreign ? "the runtime did not know the kernel that CUPTI named for the watch's own "
                           "<<<>>> launch of a probe kernel"
                         : "CUPTI reported no launch call for the watch's own <<<>>> launch of a "
                           "probe kernel");
  if (seen_differ || seen_fixed != fixed || seen_dynamic != PROBE_DYNAMIC) {
    snprintf(why, sizeof why,
             "the watch read %lld bytes of static and %lld of dynamic shared memory for its probe kernel, "
             "launched with %lld and %d",
             seen_fixed, seen_dynamic, fixed, (int)PROBE_DYNAMIC);
    cannot_watch(why);
  }
  overrun = 0;
}

void pp_launch_forget(void) {
  overrun = 0;
}

int pp_launch_misfit(char *note, size_t len) {
  if (!overrun) return 0;
  snprintf(note, len, "%s", overrun_note);
  overrun = 0;
  return 1;
}
