// The samples' contract, as a lab's header declares its variant table: the one
// external name a sample may define besides its kernels (pp-symcheck --contract).
#include <stddef.h>

extern void (*sample_variants[2])(float *, size_t);
