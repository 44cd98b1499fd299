/*
 * test_rng.h - the tests' and benches' reproducible random numbers: the
 * same sequence from the same seed on every run and machine, without
 * libc's rand (whose sequence is the library's). Three generators, since
 * tests written against each keep their exact draws: xorshift64*,
 * Knuth's MMIX linear congruential step, and the 32-bit step with the C
 * standard's example constants.
 *
 * Ownership: the state is the caller's (a static or local uint64_t, or
 * unsigned for the 32-bit step, holding the seed); each call advances it.
 */
#ifndef FS_TEST_RNG_H
#define FS_TEST_RNG_H

#include <stdint.h>

/* xorshift64*: the next value of *s (a state of 0 stays 0). */
uint64_t test_xs64(uint64_t *s);
/* test_xs64's top 53 bits as a double in [0, 1). */
double test_xs64_unit(uint64_t *s);
/* A standard normal draw from two test_xs64_unit draws (Box-Muller's
 * cosine branch, the first draw floored at 1e-300). */
double test_xs64_gauss(uint64_t *s);
/* The MMIX step s = s 6364136223846793005 + 1442695040888963407, its
 * top 53 bits as a double in [0, 1). */
double test_lcg_unit(uint64_t *s);
/* The 32-bit step s = s 1103515245 + 12345 (mod 2^32): its top 24 bits. */
unsigned test_lcg32(unsigned *s);
/* test_lcg32's 24 bits as a double in [0, 1). */
double test_lcg32_unit(unsigned *s);

#endif
