/*
 * same_bits.h - two doubles compared by their bits, for the tests that
 * hold a shortcut or an option to the reading it replaces "to the bit": a
 * NAN (not measured) must be the same NAN and a -0 the same -0, which ==
 * would not say.
 */
#ifndef FS_TEST_SAME_BITS_H
#define FS_TEST_SAME_BITS_H

/* 1 when a and b have the same bits, else 0. */
int test_same_bits(double a, double b);

#endif
