#include "pp/random.h"

#include "random_core.h"

uint64_t pp_random_bits(uint64_t seed, uint64_t stream, uint64_t index) {
  return pp_bits_at(pp_stream_key(seed, stream), index);
}

void pp_fill_uniform_f32(float *x, size_t n, float lo, float hi, uint64_t seed, uint64_t stream) {
  const double step = ((double)hi - lo) / 16777216.0;
  const uint64_t key = pp_stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = pp_uniform_value(pp_bits_at(key, i), lo, step);
}

void pp_fill_nonzero_ints_f32(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream) {
  const uint64_t key = pp_stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = pp_nonzero_int_value(pp_bits_at(key, i), max_abs);
}

void pp_fill_nonzero_quarters_f32(float *x, size_t n, int max_abs, uint64_t seed, uint64_t stream) {
  const uint64_t key = pp_stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = pp_nonzero_int_value(pp_bits_at(key, i), max_abs) * 0.25f;
}

void pp_fill_ints_i32(int32_t *x, size_t n, int32_t lo, int32_t hi, uint64_t seed, uint64_t stream) {
  const uint64_t range = (uint64_t)((int64_t)hi - lo) + 1, key = pp_stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = pp_int_value(pp_bits_at(key, i), lo, range);
}

void pp_fill_telescoping_i32(int32_t *x, size_t n, uint64_t seed, uint64_t stream) {
  const uint64_t key = pp_stream_key(seed, stream);
  for (size_t i = 0; i < n; ++i) x[i] = pp_telescoping_value(key, i);
}
