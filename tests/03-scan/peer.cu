// Lab 03's library peer: cub::DeviceScan's scan by key, the key of element i
// being its section number i / section, computed on the fly.
#include <stdint.h>

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "peer.h"
#include "pp/check.h"

template <typename Index>
struct section_of {
  Index section;
  __host__ __device__ Index operator()(Index i) const { return i / section; }
};

// One call of CUB (a query of the scratch size when temp is NULL). Index is
// 32-bit where n allows: CUB's offsets and the key division are cheaper.
template <typename Index, typename T>
static void scan_by_key(int exclusive, const T *in, T *out, Index n, int section, void *temp,
                        size_t *temp_bytes) {
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<Index>(0),
                                              section_of<Index>{(Index)section});
  if (exclusive)
    PP_CHECK(cub::DeviceScan::ExclusiveSumByKey(temp, *temp_bytes, keys, in, out, n));
  else
    PP_CHECK(cub::DeviceScan::InclusiveSumByKey(temp, *temp_bytes, keys, in, out, n));
}

template <typename T>
static void scan_any(int exclusive, const void *in, void *out, size_t n, int section, void *temp,
                     size_t *temp_bytes) {
  if (n <= UINT32_MAX)
    scan_by_key<uint32_t>(exclusive, (const T *)in, (T *)out, (uint32_t)n, section, temp, temp_bytes);
  else
    scan_by_key<uint64_t>(exclusive, (const T *)in, (T *)out, (uint64_t)n, section, temp, temp_bytes);
}

static void dispatch(scan_peer_type type, int exclusive, const void *in, void *out, size_t n,
                     int section, void *temp, size_t *temp_bytes) {
  if (type == SCAN_PEER_INT32)
    scan_any<int32_t>(exclusive, in, out, n, section, temp, temp_bytes);
  else
    scan_any<float>(exclusive, in, out, n, section, temp, temp_bytes);
}

extern "C" size_t scan_peer_temp_bytes(size_t n, int section) {
  size_t most = 1;
  for (int type = SCAN_PEER_INT32; type <= SCAN_PEER_FLOAT; ++type)
    for (int exclusive = 0; exclusive <= 1; ++exclusive) {
      size_t bytes = 0;
      dispatch((scan_peer_type)type, exclusive, NULL, NULL, n, section, NULL, &bytes);
      if (bytes > most) most = bytes;
    }
  return most;
}

extern "C" void scan_peer(scan_peer_type type, int exclusive, const void *in, void *out, size_t n,
                          int section, void *temp, size_t temp_bytes) {
  if (n == 0) return;
  dispatch(type, exclusive, in, out, n, section, temp, &temp_bytes);
}
