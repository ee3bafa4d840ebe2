#include "pp/buffer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp/check.h"
#include "share.h"

/* Off, recording the checker's allocations, or importing them in the runner. */
static enum { SHARE_OFF, SHARE_RECORD, SHARE_IMPORT } share_mode;
static pp_shared_buffer *shared;
static int shared_count, shared_capacity, shared_next;

void pp_share_record(void) {
  share_mode = SHARE_RECORD;
  shared_count = 0;
}

int pp_share_recorded(const pp_shared_buffer **list) {
  *list = shared;
  return shared_count;
}

void pp_share_import(const pp_shared_buffer *list, int count) {
  if (count > shared_capacity) {
    shared_capacity = count;
    shared = realloc(shared, (size_t)count * sizeof *shared);
  }
  memcpy(shared, list, (size_t)count * sizeof *shared);
  share_mode = SHARE_IMPORT;
  shared_count = count;
  shared_next = 0;
}

int pp_share_unused(void) {
  return shared_count - shared_next;
}

static void share_remember(const pp_buffer *buf) {
  if (shared_count == shared_capacity) {
    shared_capacity = shared_capacity ? 2 * shared_capacity : 8;
    shared = realloc(shared, (size_t)shared_capacity * sizeof *shared);
  }
  PP_CHECK(cudaIpcGetMemHandle(&shared[shared_count].handle, buf->device));
  shared[shared_count++].bytes = buf->bytes;
}

/* The runner's allocation is the checker's, opened: same size, in the same order. */
static pp_buffer share_open(size_t bytes) {
  pp_buffer buf = {NULL, bytes};
  if (shared_next == shared_count || shared[shared_next].bytes != bytes) {
    fprintf(stderr, "error: the runner's state does not match the checker's (buffer %d)\n",
            shared_next);
    exit(PP_EXIT_USAGE);
  }
  PP_CHECK(cudaIpcOpenMemHandle(&buf.device, shared[shared_next++].handle,
                                cudaIpcMemLazyEnablePeerAccess));
  return buf;
}

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
  if (share_mode == SHARE_IMPORT) return share_open(bytes);
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
  if (share_mode == SHARE_RECORD) share_remember(&buf);
  return buf;
}

void pp_buffer_free(pp_buffer *buf) {
  if (buf->device)
    PP_CHECK(share_mode == SHARE_IMPORT ? cudaIpcCloseMemHandle(buf->device) : cudaFree(buf->device));
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
