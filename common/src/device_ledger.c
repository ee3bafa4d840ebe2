/* The device memory a program's own allocations hold: every program that
 * links the harness is linked with --wrap for cudaMalloc, cudaMallocAsync,
 * cudaFree and cudaFreeAsync (common/CMakeLists.txt), so that each call,
 * the lab file's included, comes here first. The stress check asks how much
 * each launch of a variant kept (pp_stress_launch()): memory allocated on
 * every call and never freed grows with the calls. */
#include <pthread.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#include "share.h"

cudaError_t __real_cudaMalloc(void **ptr, size_t bytes);
cudaError_t __real_cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t stream);
cudaError_t __real_cudaFree(void *ptr);
cudaError_t __real_cudaFreeAsync(void *ptr, cudaStream_t stream);
cudaError_t __wrap_cudaMalloc(void **ptr, size_t bytes);
cudaError_t __wrap_cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t stream);
cudaError_t __wrap_cudaFree(void *ptr);
cudaError_t __wrap_cudaFreeAsync(void *ptr, cudaStream_t stream);

typedef struct held {
  void *ptr;
  size_t bytes;
} held;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static held *list;
static size_t count, capacity, total;

static void note_allocation(void *ptr, size_t bytes) {
  pthread_mutex_lock(&lock);
  if (count == capacity) {
    size_t more = capacity ? 2 * capacity : 256;
    held *grown = realloc(list, more * sizeof *grown);
    if (!grown) { /* not counted: the ledger only ever undercounts */
      pthread_mutex_unlock(&lock);
      return;
    }
    list = grown;
    capacity = more;
  }
  list[count++] = (held){ptr, bytes};
  total += bytes;
  pthread_mutex_unlock(&lock);
}

static void note_free(void *ptr) {
  pthread_mutex_lock(&lock);
  for (size_t i = count; i-- > 0;) /* the latest first: a workspace is freed soon */
    if (list[i].ptr == ptr) {
      total -= list[i].bytes;
      list[i] = list[--count];
      break;
    }
  pthread_mutex_unlock(&lock);
}

cudaError_t __wrap_cudaMalloc(void **ptr, size_t bytes) {
  cudaError_t err = __real_cudaMalloc(ptr, bytes);
  if (err == cudaSuccess && ptr && *ptr) note_allocation(*ptr, bytes);
  return err;
}

cudaError_t __wrap_cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t stream) {
  cudaError_t err = __real_cudaMallocAsync(ptr, bytes, stream);
  if (err == cudaSuccess && ptr && *ptr) note_allocation(*ptr, bytes);
  return err;
}

cudaError_t __wrap_cudaFree(void *ptr) {
  cudaError_t err = __real_cudaFree(ptr);
  if (err == cudaSuccess && ptr) note_free(ptr);
  return err;
}

cudaError_t __wrap_cudaFreeAsync(void *ptr, cudaStream_t stream) {
  cudaError_t err = __real_cudaFreeAsync(ptr, stream);
  if (err == cudaSuccess && ptr) note_free(ptr);
  return err;
}

size_t pp_device_bytes_held(void) {
  pthread_mutex_lock(&lock);
  size_t bytes = total;
  pthread_mutex_unlock(&lock);
  return bytes;
}
