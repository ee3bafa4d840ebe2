// Refused: exit is in a table of function pointers in a data section, which
// the launcher calls through.
#include <stdlib.h>

#include "sample.cuh"

static void finish(int) {}

static void (*finishers[2])(int) = {finish, exit};

static void launch_sample(float *x, size_t n) {
  if (x) finishers[n & 1](0);
}
