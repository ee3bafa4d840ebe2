// What every pp-symcheck sample shares with a lab file: a kernel that calls a
// __device__ function (for which nvcc gives the host a never-run copy that
// calls exit), its launcher, and a table of launchers. Each sample defines
// launch_sample(), the second entry, with what it is to be judged on.
#include <cuda_runtime.h>

#include <stddef.h>

__device__ float twice(float x) { return 2.0f * x; }

__global__ void twice_kernel(float *x, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = twice(x[i]);
}

static void launch_twice(float *x, size_t n) {
  if (n > 0) twice_kernel<<<(unsigned)((n + 255) / 256), 256>>>(x, n);
}

static void launch_sample(float *x, size_t n);

extern "C" {
void (*sample_variants[2])(float *, size_t) = {launch_twice, launch_sample};
}

// Host helpers that are neither inlined nor folded into one another: each is
// one more function that the launcher calls (static: a lab file may define no
// other external name than its contract's and its kernels').
#define SAMPLE_HELPER(i)                                   \
  static __attribute__((noinline)) int helper_##i(int x) { \
    __asm__ volatile("" : "+r"(x));                        \
    return x * (i + 3) + i;                                \
  }
#define SAMPLE_HELPERS_10(d)                                                     \
  SAMPLE_HELPER(d##0) SAMPLE_HELPER(d##1) SAMPLE_HELPER(d##2) SAMPLE_HELPER(d##3) \
  SAMPLE_HELPER(d##4) SAMPLE_HELPER(d##5) SAMPLE_HELPER(d##6) SAMPLE_HELPER(d##7) \
  SAMPLE_HELPER(d##8) SAMPLE_HELPER(d##9)
#define SAMPLE_CALLS_10(d, x)                                                           \
  x = helper_##d##0(x); x = helper_##d##1(x); x = helper_##d##2(x); x = helper_##d##3(x); \
  x = helper_##d##4(x); x = helper_##d##5(x); x = helper_##d##6(x); x = helper_##d##7(x); \
  x = helper_##d##8(x); x = helper_##d##9(x);
// 70 helpers, helper_10 to helper_79, and a call of each in turn.
#define SAMPLE_HELPERS_70                                                          \
  SAMPLE_HELPERS_10(1) SAMPLE_HELPERS_10(2) SAMPLE_HELPERS_10(3) SAMPLE_HELPERS_10(4) \
  SAMPLE_HELPERS_10(5) SAMPLE_HELPERS_10(6) SAMPLE_HELPERS_10(7)
#define SAMPLE_CALLS_70(x)                                                                  \
  SAMPLE_CALLS_10(1, x) SAMPLE_CALLS_10(2, x) SAMPLE_CALLS_10(3, x) SAMPLE_CALLS_10(4, x) \
  SAMPLE_CALLS_10(5, x) SAMPLE_CALLS_10(6, x) SAMPLE_CALLS_10(7, x)

// Five types whose names make a template instance's mangled name over 350
// characters (a name used twice is abbreviated, so each must be different).
struct a_first_type_whose_long_name_makes_every_mangled_name_that_mentions_it_long {};
struct a_second_type_with_a_long_name_so_that_no_abbreviation_can_shorten_it_much {};
struct a_third_type_with_a_long_name_so_that_the_mangled_name_is_long_enough {};
struct a_fourth_type_with_a_long_name_so_that_the_mangled_name_is_long_enough {};
struct a_fifth_type_with_a_long_name_so_that_the_mangled_name_is_long_enough {};
#define SAMPLE_LONG_TYPES                                                         \
  a_first_type_whose_long_name_makes_every_mangled_name_that_mentions_it_long,    \
      a_second_type_with_a_long_name_so_that_no_abbreviation_can_shorten_it_much, \
      a_third_type_with_a_long_name_so_that_the_mangled_name_is_long_enough,      \
      a_fourth_type_with_a_long_name_so_that_the_mangled_name_is_long_enough,     \
      a_fifth_type_with_a_long_name_so_that_the_mangled_name_is_long_enough
