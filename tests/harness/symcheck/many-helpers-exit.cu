// Refused: the launcher calls 70 helpers, then exit.
#include <stdlib.h>

#include "sample.cuh"

SAMPLE_HELPERS_70

static void launch_sample(float *x, size_t n) {
  int k = (int)n;
  SAMPLE_CALLS_70(k)
  if (x) exit(k);
}
