/**
 * @file buffer.h
 * @brief Device buffers with poisoned contents and guard zones past their end.
 *
 * Every buffer is followed by a guard zone of ::PP_GUARD_BYTES filled with
 * 0xFF bytes. Read as floats those bytes are NaN, so a kernel that reads past
 * the end of an input poisons its own answer; a kernel that writes past the
 * end of an output changes the guard, which pp_buffer_guard_intact() sees.
 * Outputs are poisoned with the same bytes before every run, so an element
 * that the kernel never wrote is caught (NaN as float, -1 as int).
 */
#ifndef PP_BUFFER_H
#define PP_BUFFER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Size of the guard zone after every buffer. */
#define PP_GUARD_BYTES ((size_t)1 << 16)

/** The byte that poisons outputs and fills guards. */
#define PP_POISON_BYTE 0xFF

/** A device allocation followed by a guard zone. */
typedef struct pp_buffer {
  void *device; /**< start of the usable bytes */
  size_t bytes; /**< usable bytes (the guard follows) */
} pp_buffer;

/**
 * Allocates @p bytes plus the guard, poisons both. Running out of device
 * memory is reported as a size that does not fit: exit ::PP_EXIT_USAGE.
 * @param bytes  usable size, may be 0
 * @return the buffer
 */
pp_buffer pp_buffer_alloc(size_t bytes);

/**
 * Frees a buffer and clears it.
 * @param buf  the buffer
 */
void pp_buffer_free(pp_buffer *buf);

/**
 * Fills the usable bytes and the guard with ::PP_POISON_BYTE (asynchronously,
 * on the default stream): a run that wrote past the end is blamed on itself,
 * not on the runs after it.
 * @param buf  the buffer
 */
void pp_buffer_poison(const pp_buffer *buf);

/**
 * Copies @p buf->bytes from the host into @p buf.
 * @param buf   destination
 * @param host  source, @p buf->bytes long
 */
void pp_buffer_upload(const pp_buffer *buf, const void *host);

/**
 * Copies @p bytes from the start of @p buf to the host (synchronizes).
 * @param buf    source
 * @param host   destination
 * @param bytes  at most @p buf->bytes
 */
void pp_buffer_download(const pp_buffer *buf, void *host, size_t bytes);

/**
 * @param buf  the buffer
 * @return 1 if every guard byte still holds ::PP_POISON_BYTE, 0 if something wrote past the end
 */
int pp_buffer_guard_intact(const pp_buffer *buf);

/**
 * Allocates host memory for inputs and references. A size that does not fit
 * is bad input: it prints a message and exits with ::PP_EXIT_USAGE.
 * @param bytes  size, may be 0
 * @return the memory, to release with free()
 */
void *pp_host_alloc(size_t bytes);

/**
 * @param bytes  usable size
 * @return device bytes that pp_buffer_alloc(@p bytes) takes, guard included
 */
size_t pp_buffer_footprint(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
