#include "pp/random.h"

static uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t stream_key(uint64_t seed, uint64_t stream) {
  return splitmix64(seed ^ splitmix64(stream));
}

static uint64_t bits_at(uint64_t key, uint64_t index) {
  return splitmix64(key + index * 0xD1B54A32D192ED03ull);
}

uint64_t pp_random_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return bits_at(stream_key(seed, stream), index);
}

/* The top 32 random bits scaled into [0, range), range <= 2^32 (multiply-shift). */
static uint64_t below(uint64_t bits, uint64_t range) {
  return ((bits >> 32) * range) >> 32;
}

void pp_fill_uniform_f32(float *x, size_t n, float lo, float hi, uint64_t seed, uint64_t stream) {
  const double step = ((double)hi - lo) / 16777216.0;
  const uint64_t key = stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = (float)(lo + (double)(int64_t)(bits_at(key, i) >> 40) * step);
}

void pp_fill_nonzero_ints_f32(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream) {
  const uint64_t key = stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) {
    uint64_t bits = bits_at(key, i);
    int magnitude = 1 + (int)below(bits, (uint64_t)max_abs); /* top bits */
    x[i] = (float)(magnitude * (1 - 2 * (int)(bits & 1)));    /* sign: bottom bit */
  }
}

void pp_fill_ints_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream) {
  const uint64_t range = (uint64_t)((int64_t)hi - lo) + 1, key = stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = (int32_t)(lo + (int64_t)below(bits_at(key, i), range));
}
