// Refused: a section that nvcc and its host compiler never emit for a lab
// file, though what it holds is harmless: the section allow-list
// (grading/allowed-sections.txt) fails closed.
#include "sample.cuh"

asm(".pushsection .pp_notes,\"\",@progbits\n"
    ".asciz \"only a note\"\n"
    ".popsection");

static void launch_sample(float *x, size_t n) {
  if (n > 0) twice_kernel<<<1, 256>>>(x, n);
}
