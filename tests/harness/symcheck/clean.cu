// Clean: 70 helpers, a host function and a kernel whose instances' names are
// over 350 characters, and no exit: pp-symcheck must accept it. (The kernel's
// instance is an external definition, a weak one: a kernel may be.)
#include "sample.cuh"

SAMPLE_HELPERS_70

template <class A, class B, class C, class D, class E>
static __attribute__((noinline)) int long_named(int x) {
  __asm__ volatile("" : "+r"(x));
  return x + 1;
}

template <class A, class B, class C, class D, class E>
__global__ void long_named_kernel(float *x, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = twice(x[i]);
}

static void launch_sample(float *x, size_t n) {
  int k = (int)n;
  SAMPLE_CALLS_70(k)
  k = long_named<SAMPLE_LONG_TYPES>(k);
  if (k != 0 && n > 0)
    long_named_kernel<SAMPLE_LONG_TYPES><<<(unsigned)((n + 255) / 256), 256>>>(x, n);
}
