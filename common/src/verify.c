#include "pp/verify.h"

#include <math.h>
#include <string.h>

#include "pp/buffer.h"

int pp_is_poison_f32(float x) {
  unsigned char bytes[sizeof x];
  memcpy(bytes, &x, sizeof x);
  for (size_t i = 0; i < sizeof x; ++i)
    if (bytes[i] != PP_POISON_BYTE) return 0;
  return 1;
}

static void record(pp_mismatch *m, size_t i, double got, double want, double bound, int unwritten) {
  if (m->wrong == 0) {
    m->index = i;
    m->got = got;
    m->want = want;
    m->bound = bound;
  }
  m->wrong++;
  m->unwritten += unwritten != 0;
}

size_t pp_compare_f32(const float *got, const double *want, const double *bounds, size_t n,
                      pp_mismatch *m) {
  memset(m, 0, sizeof *m);
  for (size_t i = 0; i < n; ++i) {
    if (pp_within(got[i], want[i], bounds[i])) {
      double error = fabs(got[i] - want[i]);
      if (bounds[i] > 0.0) m->worst_ratio = fmax(m->worst_ratio, error / bounds[i]);
      if (want[i] != 0.0) m->worst_rel = fmax(m->worst_rel, error / fabs(want[i]));
    } else {
      record(m, i, got[i], want[i], bounds[i], pp_is_poison_f32(got[i]));
    }
  }
  return m->wrong;
}

size_t pp_compare_i32(const int32_t *got, const int32_t *want, size_t n, pp_mismatch *m) {
  memset(m, 0, sizeof *m);
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want[i]) record(m, i, got[i], want[i], 0.0, got[i] == -1);
  return m->wrong;
}
