// Refused: the launcher calls a static function that calls exit, placed in a
// code section whose name is 94 characters long.
#include <stdlib.h>

#include "sample.cuh"

__attribute__((noinline, section(".text.a_section_whose_name_is_longer_than_any_that_a_compiler_"
                                 "would_choose_for_code_0123456789")))
static void leave(int code) {
  exit(code);
}

static void launch_sample(float *x, size_t n) {
  if (!x) leave((int)n);
  launch_twice(x, n);
}
