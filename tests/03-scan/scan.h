/**
 * @file scan.h
 * @brief Lab 03 contract: what labs/03-scan/scan.cu gives the grader.
 *
 * The student's file exports a table of variants, the ladder of the handout.
 * Each variant scans a long array section by section: the array is cut into
 * sections of @p section consecutive elements (the last one may be shorter),
 * and every output element is the sum of the elements of its own section up
 * to it (inclusive scan) or before it (exclusive scan: 0 at the start of each
 * section). Sections never add into each other; lab 04 joins them.
 *
 * A launcher only enqueues work on the default stream (the grader
 * synchronizes and checks errors afterwards), for any n >= 0 and any section
 * length from 1 to ::SCAN_MAX_SECTION.
 *
 * - in is a device array of n elements, 256-byte aligned, not to be written;
 *   reading past in[n - 1] reads the guard: NaN as float, -1 as int.
 * - out is a device array of n elements, poisoned before every run; writing
 *   past out[n - 1] is caught.
 *
 * The ladder's order is fixed, because the grader checks each variant's count
 * of additions against the algorithm of its rung: v0 sequential, v1
 * Kogge-Stone, v2 Kogge-Stone double-buffered, v3 Brent-Kung, v4 Brent-Kung
 * without bank conflicts, v5 warp shuffles.
 */
#ifndef SCAN_H
#define SCAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest section: two elements for each of a block's 1024 threads. */
#define SCAN_MAX_SECTION 2048

/** Section length when a size names only n. */
#define SCAN_DEFAULT_SECTION 2048

/**
 * Enqueues the section-by-section scan of int32 data (exact, wrapping never happens in the grader's data).
 * @param in         device input, n elements
 * @param out        device output, n elements
 * @param n          elements, >= 0
 * @param section    section length, 1 to ::SCAN_MAX_SECTION
 * @param exclusive  0: inclusive scan; 1: exclusive scan
 */
typedef void scan_i32_launcher(const int32_t *in, int32_t *out, size_t n, int section, int exclusive);

/**
 * Enqueues the section-by-section scan of float data.
 * @param in         device input, n elements
 * @param out        device output, n elements
 * @param n          elements, >= 0
 * @param section    section length, 1 to ::SCAN_MAX_SECTION
 * @param exclusive  0: inclusive scan; 1: exclusive scan
 */
typedef void scan_f32_launcher(const float *in, float *out, size_t n, int section, int exclusive);

/**
 * The work of a rung's algorithm: how many additions it does to scan one
 * whole section (inclusive form), additions of padding zeros included, as the
 * handout's table counts them. The grader compares this count with the
 * table's; it does not count what the kernel executes.
 * @param section  section length, a power of two from 1 to ::SCAN_MAX_SECTION
 * @return the number of additions
 */
typedef long long scan_additions(int section);

/** One rung of the ladder. */
typedef struct scan_variant {
  const char *name;             /**< e.g. "v3-brent-kung" */
  const char *what;             /**< what changed from the previous rung, and why it is faster */
  scan_i32_launcher *scan_i32;  /**< its launcher for int32 data */
  scan_f32_launcher *scan_f32;  /**< its launcher for float data */
  scan_additions *additions;    /**< its count of additions per section */
} scan_variant;

/** The ladder, in handout order; entry 0 is the baseline. */
extern const scan_variant scan_variants[];

/** Number of entries in ::scan_variants. */
extern const int scan_variant_count;

#ifdef __cplusplus
}
#endif

#endif
