/**
 * @file peer.h
 * @brief Lab 04's library peer: cub::DeviceScan, behind a C interface for the grader.
 */
#ifndef HIERARCHICAL_SCAN_PEER_H
#define HIERARCHICAL_SCAN_PEER_H

#include <stddef.h>

#include "hierarchical_scan.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Device scratch that scan_peer() needs for @p n elements, for either element
 * type and either kind of scan.
 * @param n  number of elements
 * @return bytes
 */
size_t scan_peer_temp_bytes(size_t n);

/**
 * Enqueues cub::DeviceScan::InclusiveSum or ExclusiveSum on the default stream.
 * @param is_float    1 for float elements, 0 for int
 * @param kind        inclusive or exclusive
 * @param in          device input, @p n elements
 * @param out         device output, @p n elements
 * @param n           number of elements
 * @param temp        device scratch of @p temp_bytes bytes
 * @param temp_bytes  at least scan_peer_temp_bytes(@p n)
 */
void scan_peer(int is_float, scan_kind kind, const void *in, void *out, size_t n, void *temp,
               size_t temp_bytes);

#ifdef __cplusplus
}
#endif

#endif
