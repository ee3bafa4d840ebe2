// Hostile: a compile that never ends and eats memory.
#include "/dev/zero"
