/**
 * @file peer.h
 * @brief Lab 03's library peer: CUB's scan by key, with the section number as the key.
 *
 * CUB (CUDA 13) has no segmented scan by name, but cub::DeviceScan's
 * InclusiveSumByKey and ExclusiveSumByKey restart the sum wherever the key
 * changes: with key(i) = i / section, computed on the fly and never stored,
 * they do exactly the lab's job. Called only from the grader.
 */
#ifndef SCAN_PEER_H
#define SCAN_PEER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Element types the peer scans. */
typedef enum scan_peer_type {
  SCAN_PEER_INT32, /**< int32_t */
  SCAN_PEER_FLOAT  /**< float */
} scan_peer_type;

/**
 * Device scratch the peer needs for any type and form at this size.
 * @param n        elements
 * @param section  section length, >= 1
 * @return bytes
 */
size_t scan_peer_temp_bytes(size_t n, int section);

/**
 * Enqueues the section-by-section scan on the default stream.
 * @param type        element type of @p in and @p out
 * @param exclusive   0: inclusive; 1: exclusive
 * @param in          device input, n elements
 * @param out         device output, n elements
 * @param n           elements
 * @param section     section length, >= 1
 * @param temp        device scratch
 * @param temp_bytes  its size, at least scan_peer_temp_bytes(@p n, @p section)
 */
void scan_peer(scan_peer_type type, int exclusive, const void *in, void *out, size_t n, int section,
               void *temp, size_t temp_bytes);

#ifdef __cplusplus
}
#endif

#endif
