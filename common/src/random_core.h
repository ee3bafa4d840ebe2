/* The random generator's arithmetic, shared by the host fills (random.c) and
 * the device fills (random_device.cu) so that both give the same bits and the
 * same values, element for element. Integer arithmetic and two explicitly
 * rounded double operations: nothing a compiler may contract differently. */
#ifndef PP_RANDOM_CORE_H
#define PP_RANDOM_CORE_H

#include <stdint.h>

#ifdef __CUDACC__
#define PP_HOST_DEVICE __host__ __device__
#else
#define PP_HOST_DEVICE
#endif

static inline PP_HOST_DEVICE uint64_t pp_splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* One key per (seed, stream): the arrays of one problem differ. */
static inline PP_HOST_DEVICE uint64_t pp_stream_key(uint64_t seed, uint64_t stream) {
  return pp_splitmix64(seed ^ pp_splitmix64(stream));
}

static inline PP_HOST_DEVICE uint64_t pp_bits_at(uint64_t key, uint64_t index) {
  return pp_splitmix64(key + index * 0xD1B54A32D192ED03ull);
}

/* The top 32 random bits scaled into [0, range), range <= 2^32 (multiply-shift). */
static inline PP_HOST_DEVICE uint64_t pp_bits_below(uint64_t bits, uint64_t range) {
  return ((bits >> 32) * range) >> 32;
}

/* lo + k * step for the top 24 bits k, rounded once to double at each step
 * (no fused multiply-add on either side), then to float. */
static inline PP_HOST_DEVICE float pp_uniform_value(uint64_t bits, double lo, double step) {
#ifdef __CUDA_ARCH__
  return (float)__dadd_rn(lo, __dmul_rn((double)(int64_t)(bits >> 40), step));
#else
  volatile double scaled = (double)(int64_t)(bits >> 40) * step; /* no contraction */
  return (float)(lo + scaled);
#endif
}

static inline PP_HOST_DEVICE float pp_nonzero_int_value(uint64_t bits, int max_abs) {
  int magnitude = 1 + (int)pp_bits_below(bits, (uint64_t)max_abs); /* top bits */
  return (float)(magnitude * (1 - 2 * (int)(bits & 1)));           /* sign: bottom bit */
}

static inline PP_HOST_DEVICE int32_t pp_int_value(uint64_t bits, int32_t lo, uint64_t range) {
  return (int32_t)(lo + (int64_t)pp_bits_below(bits, range));
}

/* r(k) of the telescoping ints: even, of magnitude in [2^29, 2^30 - 2], with
 * the sign of (-1)^k. */
static inline PP_HOST_DEVICE int32_t pp_telescoping_point(uint64_t key, uint64_t k) {
  int32_t magnitude = (int32_t)((1u << 29) + 2 * pp_bits_below(pp_bits_at(key, k), 1u << 28));
  return k & 1 ? -magnitude : magnitude;
}

/* r(index + 1) - r(index): opposite signs, so the magnitudes add, at most 2^31 - 4. */
static inline PP_HOST_DEVICE int32_t pp_telescoping_value(uint64_t key, uint64_t index) {
  return pp_telescoping_point(key, index + 1) - pp_telescoping_point(key, index);
}

#endif
