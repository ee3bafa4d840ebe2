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
  pp_shared_buffer *record = &shared[shared_count++];
  memset(record, 0, sizeof *record);
  if (buf->device) PP_CHECK(cudaIpcGetMemHandle(&record->handle, buf->device));
  record->bytes = buf->bytes;
  record->guard = buf->guard;
}

/* The runner's allocation is the checker's, opened: same size, in the same
 * order, with the checker's guard. */
static pp_buffer share_open(size_t bytes) {
  if (shared_next == shared_count || shared[shared_next].bytes != bytes) {
    fprintf(stderr, "error: the runner's state does not match the checker's (buffer %d)\n",
            shared_next);
    exit(PP_EXIT_USAGE);
  }
  const pp_shared_buffer *record = &shared[shared_next++];
  pp_buffer buf = {NULL, bytes, (size_t)record->guard};
  if (bytes + buf.guard > 0)
    PP_CHECK(cudaIpcOpenMemHandle(&buf.device, record->handle, cudaIpcMemLazyEnablePeerAccess));
  return buf;
}

static pp_mark *marks;
static int mark_count, mark_capacity;

void pp_buffer_marks_reset(void) {
  mark_count = 0;
}

int pp_buffer_marks(const pp_mark **list) {
  *list = marks;
  return mark_count;
}

void pp_buffer_mark(pp_buffer *buf, pp_buffer_role role) {
  if (mark_count == mark_capacity) {
    mark_capacity = mark_capacity ? 2 * mark_capacity : 8;
    marks = realloc(marks, (size_t)mark_capacity * sizeof *marks);
    if (!marks) {
      fprintf(stderr, "error: out of memory\n");
      exit(PP_EXIT_USAGE);
    }
  }
  marks[mark_count++] = (pp_mark){buf, role};
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

/* Whether buffers allocated from now on get a guard zone (pp_buffer_guards()). */
static int guards_enabled = 1;

void pp_buffer_guards(int enabled) {
  guards_enabled = enabled != 0;
}

size_t pp_buffer_footprint(size_t bytes) {
  return bytes + (guards_enabled ? PP_GUARD_BYTES : 0);
}

pp_buffer pp_buffer_alloc(size_t bytes) {
  if (share_mode == SHARE_IMPORT) return share_open(bytes);
  pp_buffer buf = {NULL, bytes, guards_enabled ? PP_GUARD_BYTES : 0};
  size_t footprint = bytes + buf.guard;
  if (footprint > 0) {
    /* Out of memory is a size that does not fit (exit 2), not a wrong answer (1). */
    cudaError_t err = cudaMalloc(&buf.device, footprint);
    if (err == cudaErrorMemoryAllocation) {
      fprintf(stderr, "error: cannot allocate %.2f GiB of device memory for this size\n",
              (double)footprint / (1024.0 * 1024.0 * 1024.0));
      exit(PP_EXIT_USAGE);
    }
    PP_CHECK(err);
    PP_CHECK(cudaMemset(buf.device, PP_POISON_BYTE, footprint));
  }
  if (share_mode == SHARE_RECORD) share_remember(&buf);
  return buf;
}

void pp_buffer_free(pp_buffer *buf) {
  if (buf->device)
    PP_CHECK(share_mode == SHARE_IMPORT ? cudaIpcCloseMemHandle(buf->device) : cudaFree(buf->device));
  buf->device = NULL;
  buf->bytes = 0;
  buf->guard = 0;
}

void pp_buffer_poison(const pp_buffer *buf) {
  if (buf->bytes + buf->guard > 0)
    PP_CHECK(cudaMemsetAsync(buf->device, PP_POISON_BYTE, buf->bytes + buf->guard, 0));
}

void pp_buffer_upload(const pp_buffer *buf, const void *host) {
  if (buf->bytes > 0) PP_CHECK(cudaMemcpy(buf->device, host, buf->bytes, cudaMemcpyHostToDevice));
}

void pp_buffer_download(const pp_buffer *buf, void *host, size_t bytes) {
  if (bytes > 0) PP_CHECK(cudaMemcpy(host, buf->device, bytes, cudaMemcpyDeviceToHost));
}

double pp_buffer_element(const pp_buffer *buf, size_t i, int is_float, int *poison) {
  union {
    float f;
    int32_t i;
  } x;
  PP_CHECK(cudaMemcpy(&x, (const char *)buf->device + i * sizeof x, sizeof x, cudaMemcpyDeviceToHost));
  if (poison) *poison = x.i == -1; /* every byte PP_POISON_BYTE, whichever the type */
  return is_float ? x.f : x.i;
}

int pp_buffer_guard_intact(const pp_buffer *buf) {
  if (buf->guard == 0) return 1;
  unsigned char *guard = malloc(buf->guard);
  PP_CHECK(cudaMemcpy(guard, (char *)buf->device + buf->bytes, buf->guard, cudaMemcpyDeviceToHost));
  int intact = 1;
  for (size_t i = 0; i < buf->guard; ++i) intact &= guard[i] == PP_POISON_BYTE;
  free(guard);
  return intact;
}
