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
 *
 * A guard zone also hides what it absorbs: a read past the end whose value
 * never reaches an output changes nothing. For compute-sanitizer memcheck the
 * runner takes `--no-guards` (pp_buffer_guards()): every buffer then ends
 * exactly where its allocation ends, so one element past the end lies outside
 * any allocation, and memcheck reports it.
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
  void *device; /**< start of the usable bytes (NULL for 0 bytes without a guard) */
  size_t bytes; /**< usable bytes (the guard follows) */
  size_t guard; /**< bytes of guard zone after them: ::PP_GUARD_BYTES, or 0 without guards */
} pp_buffer;

/**
 * Chooses whether the buffers allocated from now on get guard zones (they do
 * unless told otherwise). Without them a buffer's usable bytes are its whole
 * allocation, which ends exactly at the last usable byte (a buffer of 0 bytes
 * has no allocation: its pointer is NULL), so that compute-sanitizer memcheck
 * sees an access one element past the end; pp_buffer_guard_intact() then has
 * nothing to check. The runner's `--no-guards` calls it with 0. In the
 * checker/runner split (remote.h) the checker allocates, so its choice holds
 * for the runner too.
 * @param enabled  1 for guard zones, 0 for none
 */
void pp_buffer_guards(int enabled);

/**
 * Allocates @p bytes plus the guard (if guards are on), poisons both. Running out of device
 * memory is reported as a size that does not fit: exit ::PP_EXIT_USAGE.
 * @param bytes  usable size, may be 0
 * @return the buffer
 */
pp_buffer pp_buffer_alloc(size_t bytes);

/** What a buffer of a lab's state holds, for the checker's clock (pp_buffer_mark()). */
typedef enum pp_buffer_role {
  PP_BUFFER_INPUT,  /**< written by pp_problem::fill, read by the variants */
  PP_BUFFER_OUTPUT, /**< written by the variants, judged by pp_problem::check */
} pp_buffer_role;

/**
 * Marks a buffer of the state that pp_problem::create is building as an input
 * or an output; scratch buffers are not marked. When a submission is graded,
 * the checker's timed runs fill the inputs into copies of its own, which the
 * runner cannot map, and copy them in only after its clock has started; and
 * its clock stops only once it has found every output complete, when it
 * snapshots them: check() then judges the inputs it drew and the snapshot
 * (docs/grading-trust.md, "Where the time is measured"). So every input that fill()
 * writes and every output that check() reads must be marked.
 * @param buf   the buffer, inside the state (its address stays put until destroy)
 * @param role  what it holds
 */
void pp_buffer_mark(pp_buffer *buf, pp_buffer_role role);

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
 * Reads element @p i of a buffer of 4-byte floats or ints (synchronizes): one
 * value for a failure note, without downloading the rest.
 * @param buf       the buffer
 * @param i         the element, below @p buf->bytes / 4
 * @param is_float  1 for floats, 0 for int32
 * @param poison    receives 1 if the element still holds the poison (NaN as float, -1 as int),
 *                  or NULL
 * @return the element's value
 */
double pp_buffer_element(const pp_buffer *buf, size_t i, int is_float, int *poison);

/**
 * @param buf  the buffer
 * @return 1 if every guard byte still holds ::PP_POISON_BYTE (or there is no guard), 0 if
 *         something wrote past the end
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
 * @return device bytes that pp_buffer_alloc(@p bytes) takes now, guard included
 */
size_t pp_buffer_footprint(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
