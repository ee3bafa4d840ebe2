/* Internal to the harness: the checker's look at a runner's outputs before
 * its clock stops (checker/seal.c). */
#ifndef PP_OUTPUT_PROBE_H
#define PP_OUTPUT_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most words one probe reads. */
#define PP_PROBE_WORDS 64

/* Reads the 4-byte words at @p count (at most PP_PROBE_WORDS) device
 * addresses in this process's context, past any cache of its own, and
 * returns how many hold the poison word (every byte PP_POISON_BYTE). */
int pp_probe_poison(const unsigned *const *words, int count);

#ifdef __cplusplus
}
#endif

#endif
