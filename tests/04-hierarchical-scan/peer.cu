// Lab 04's library peer: CUB's device-wide scan, called only from the grader.
// CUB picks 32-bit offsets when the count is an int, its fastest path, so the
// count is passed as an int whenever it fits, and as a 64-bit count otherwise.
#include <limits.h>
#include <stdint.h>

#include <cub/device/device_scan.cuh>

#include "peer.h"
#include "pp/check.h"

template <typename T, typename Count>
static cudaError_t cub_scan(scan_kind kind, void *temp, size_t *temp_bytes, const T *in, T *out,
                            Count n) {
  if (kind == SCAN_EXCLUSIVE) return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, in, out, n);
  return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, in, out, n);
}

template <typename T>
static cudaError_t cub_scan_any(scan_kind kind, void *temp, size_t *temp_bytes, const T *in, T *out,
                                size_t n) {
  if (n <= (size_t)INT_MAX) return cub_scan(kind, temp, temp_bytes, in, out, (int)n);
  return cub_scan(kind, temp, temp_bytes, in, out, (int64_t)n);
}

// Bytes CUB asks for one element type and kind (a query: temp is NULL).
template <typename T> static size_t query(scan_kind kind, size_t n) {
  size_t bytes = 0;
  PP_CHECK(cub_scan_any<T>(kind, NULL, &bytes, NULL, NULL, n));
  return bytes;
}

extern "C" size_t scan_peer_temp_bytes(size_t n) {
  size_t most = 1;
  const scan_kind kinds[] = {SCAN_INCLUSIVE, SCAN_EXCLUSIVE};
  for (scan_kind kind : kinds) {
    size_t a = query<int>(kind, n), b = query<float>(kind, n);
    if (a > most) most = a;
    if (b > most) most = b;
  }
  return most;
}

extern "C" void scan_peer(int is_float, scan_kind kind, const void *in, void *out, size_t n,
                          void *temp, size_t temp_bytes) {
  if (n == 0) return;
  if (is_float)
    PP_CHECK(cub_scan_any(kind, temp, &temp_bytes, (const float *)in, (float *)out, n));
  else
    PP_CHECK(cub_scan_any(kind, temp, &temp_bytes, (const int *)in, (int *)out, n));
}
