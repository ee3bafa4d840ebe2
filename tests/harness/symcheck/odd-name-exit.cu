// Refused: a static function that calls exit, renamed by an asm label to a
// name with "+0x0" in it, as objdump writes an offset after a name.
#include <stdlib.h>

#include "sample.cuh"

static void leave(int code) __asm__("\"leave+0x0\"");

__attribute__((noinline)) static void leave(int code) {
  exit(code);
}

static void launch_sample(float *x, size_t n) {
  if (!x) leave((int)n);
  launch_twice(x, n);
}
