#include "pp/exact.h"

#include <math.h>

double pp_int128_to_double(pp_int128 x, int frac_bits) {
  /* |x| as two unsigned halves (two's-complement negation). */
  uint64_t hi = (uint64_t)x.hi, lo = x.lo;
  int negative = x.hi < 0;
  if (negative) {
    lo = ~lo + 1;
    hi = ~hi + (lo == 0);
  }
  /* Shift right until |x| fits 64 bits, keeping every bit shifted out as a
   * sticky low bit: the 64-bit conversion below then rounds as the 128-bit
   * value would (its 11 dropped bits include the sticky one). */
  int shift = 0;
  uint64_t sticky = 0;
  while (hi != 0) {
    sticky |= lo & 1;
    lo = (lo >> 1) | (hi << 63);
    hi >>= 1;
    ++shift;
  }
  double magnitude = ldexp((double)(lo | sticky), shift - frac_bits);
  return negative ? -magnitude : magnitude;
}

pp_sum pp_exact_rounded(pp_exact e) {
  pp_sum s = {pp_int128_to_double(e.sum, e.frac_bits), pp_int128_to_double(e.abs, e.frac_bits)};
  return s;
}
