#include "shared_watch.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h> /* and the launch calls' parameters (generated_cuda_meta.h) */

#include "pp/check.h"

static int cap;
/* The driver's cuFuncGetAttribute(), found through the runtime: linking the
 * driver library would stop the labs from starting (and skipping) where
 * there is no driver. */
static CUresult (*func_attribute)(int *, CUfunction_attribute, CUfunction);
/* The first launch past the cap since the last pp_shared_overrun(). */
static int overrun;
static char overrun_note[256];

/* The kernel, and the dynamic shared memory of its launch, for each of the
 * driver's launch calls (the runtime's <<<>>>, cudaLaunchKernel and
 * cudaLaunchKernelEx all end in one of them). Returns 0 for other calls. */
static int launch_of(CUpti_CallbackId id, const void *params, CUfunction *f, unsigned *dynamic) {
  switch (id) {
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
    const cuLaunchKernel_params *p = params;
    *f = p->f;
    *dynamic = p->sharedMemBytes;
    return 1;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
    const cuLaunchCooperativeKernel_params *p = params;
    *f = p->f;
    *dynamic = p->sharedMemBytes;
    return 1;
  }
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
  case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
    const cuLaunchKernelEx_params *p = params;
    *f = p->f;
    *dynamic = p->config->sharedMemBytes;
    return 1;
  }
  default:
    return 0;
  }
}

static void CUPTIAPI on_launch(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                               const void *data) {
  (void)user;
  const CUpti_CallbackData *call = data;
  CUfunction f;
  unsigned dynamic;
  if (domain != CUPTI_CB_DOMAIN_DRIVER_API || call->callbackSite != CUPTI_API_ENTER || overrun ||
      !launch_of(id, call->functionParams, &f, &dynamic))
    return;
  int fixed = 0;
  if (func_attribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) != CUDA_SUCCESS) return;
  if ((long long)fixed + dynamic <= cap) return;
  overrun = 1;
  snprintf(overrun_note, sizeof overrun_note,
           "kernel %.80s was launched with %d bytes of static and %u of dynamic shared memory, "
           "more than the %d KiB a block gets here (--max-shared-kib): it cannot run on such a GPU",
           call->symbolName ? call->symbolName : "(unnamed)", fixed, dynamic, cap / 1024);
}

void pp_shared_watch(int cap_bytes) {
  static const CUpti_CallbackId launches[] = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz};
  static CUpti_SubscriberHandle subscriber;
  cap = cap_bytes;
  if (subscriber) return;
  void *entry = NULL;
  enum cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuFuncGetAttribute", &entry, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    fprintf(stderr, "error: --max-shared-kib: the driver has no cuFuncGetAttribute()\n");
    exit(PP_EXIT_FAIL);
  }
  *(void **)&func_attribute = entry;
  CUptiResult got = cuptiSubscribe(&subscriber, on_launch, NULL);
  for (size_t i = 0; got == CUPTI_SUCCESS && i < sizeof launches / sizeof *launches; ++i)
    got = cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, launches[i]);
  if (got == CUPTI_SUCCESS) return;
  const char *why = "";
  cuptiGetResultString(got, &why);
  fprintf(stderr, "error: --max-shared-kib: cannot watch the kernels' launches (CUPTI: %s), so "
                  "their shared memory cannot be checked\n", why);
  exit(PP_EXIT_FAIL);
}

void pp_shared_forget(void) {
  overrun = 0;
}

int pp_shared_overrun(char *note, size_t len) {
  if (!overrun) return 0;
  snprintf(note, len, "%s", overrun_note);
  overrun = 0;
  return 1;
}
