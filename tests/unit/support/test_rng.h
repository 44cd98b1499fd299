/*
 * test_rng.h - the tests' and benches' reproducible random numbers: the
 * same sequence from the same seed on every run and machine, without
 * libc's rand (whose sequence is the library's). Two generators, since
 * tests written against each keep their exact draws: xorshift64* and
 * Knuth's MMIX linear congruential step.
 *
 * Ownership: the state is the caller's (a static or local uint64_t
 * holding the seed); each call advances it.
 */
#ifndef FS_TEST_RNG_H
#define FS_TEST_RNG_H

#include <stdint.h>

/* xorshift64*: the next value of *s (a state of 0 stays 0). */
uint64_t test_xs64(uint64_t *s);
/* test_xs64's top 53 bits as a double in [0, 1). */
double test_xs64_unit(uint64_t *s);
/* The MMIX step s = s 6364136223846793005 + 1442695040888963407, its
 * top 53 bits as a double in [0, 1). */
double test_lcg_unit(uint64_t *s);

#endif
