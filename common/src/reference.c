#include "pp/reference.h"

#include <math.h>

void pp_accumulate(pp_accumulator *acc, double term) {
  double t = acc->sum + term;
  /* Neumaier: recover the low part of whichever operand was larger. */
  if (fabs(acc->sum) >= fabs(term))
    acc->compensation += (acc->sum - t) + term;
  else
    acc->compensation += (term - t) + acc->sum;
  acc->sum = t;
  acc->abs += fabs(term);
}

pp_sum pp_accumulated(const pp_accumulator *acc) {
  pp_sum s = {acc->sum + acc->compensation, acc->abs};
  return s;
}

pp_sum pp_reference_dot_f32(const float *a, const float *b, size_t n) {
  pp_accumulator acc = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i) pp_accumulate(&acc, (double)a[i] * (double)b[i]);
  return pp_accumulated(&acc);
}

pp_sum pp_reference_sum_f32(const float *x, size_t n) {
  pp_accumulator acc = {0.0, 0.0, 0.0};
  for (size_t i = 0; i < n; ++i) pp_accumulate(&acc, x[i]);
  return pp_accumulated(&acc);
}

int64_t pp_reference_sum_i32(const int32_t *x, size_t n) {
  int64_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += x[i];
  return sum;
}
