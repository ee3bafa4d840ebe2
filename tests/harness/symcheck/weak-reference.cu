// Refused: a weak reference to puts, which the linker resolves like any other.
#include "sample.cuh"

extern "C" int puts(const char *) __attribute__((weak));

static void launch_sample(float *x, size_t n) {
  if (x && n) puts("a launcher that prints");
}
