#include "pp/buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"

void *pp_host_alloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "error: cannot allocate %.2f GiB of host memory for this size\n",
            (double)bytes / (1024.0 * 1024.0 * 1024.0));
    exit(PP_EXIT_USAGE);
  }
  return p;
}

size_t pp_buffer_footprint(size_t bytes) {
  return bytes + PP_GUARD_BYTES;
}

pp_buffer pp_buffer_alloc(size_t bytes) {
  pp_buffer buf = {NULL, bytes};
  /* Out of memory is a size that does not fit (exit 2), not a wrong answer (1). */
  cudaError_t err = cudaMalloc(&buf.device, pp_buffer_footprint(bytes));
  if (err == cudaErrorMemoryAllocation) {
    fprintf(stderr, "error: cannot allocate %.2f GiB of device memory for this size\n",
            (double)pp_buffer_footprint(bytes) / (1024.0 * 1024.0 * 1024.0));
    exit(PP_EXIT_USAGE);
  }
  PP_CHECK(err);
  PP_CHECK(cudaMemset(buf.device, PP_POISON_BYTE, pp_buffer_footprint(bytes)));
  return buf;
}

void pp_buffer_free(pp_buffer *buf) {
  if (buf->device) PP_CHECK(cudaFree(buf->device));
  buf->device = NULL;
  buf->bytes = 0;
}

void pp_buffer_poison(const pp_buffer *buf) {
  PP_CHECK(cudaMemsetAsync(buf->device, PP_POISON_BYTE, pp_buffer_footprint(buf->bytes), 0));
}

void pp_buffer_upload(const pp_buffer *buf, const void *host) {
  PP_CHECK(cudaMemcpy(buf->device, host, buf->bytes, cudaMemcpyHostToDevice));
}

void pp_buffer_download(const pp_buffer *buf, void *host, size_t bytes) {
  PP_CHECK(cudaMemcpy(host, buf->device, bytes, cudaMemcpyDeviceToHost));
}

int pp_buffer_guard_intact(const pp_buffer *buf) {
  unsigned char *guard = malloc(PP_GUARD_BYTES);
  PP_CHECK(cudaMemcpy(guard, (char *)buf->device + buf->bytes, PP_GUARD_BYTES,
                      cudaMemcpyDeviceToHost));
  int intact = 1;
  for (size_t i = 0; i < PP_GUARD_BYTES; ++i) intact &= guard[i] == PP_POISON_BYTE;
  free(guard);
  return intact;
}
