/* test_rng.c - see test_rng.h. */
#include "test_rng.h"

#include <math.h>

uint64_t test_xs64(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

double test_xs64_unit(uint64_t *s)
{
	return (double)(test_xs64(s) >> 11) / 9007199254740992.0;
}

double test_xs64_gauss(uint64_t *s)
{
	double u = test_xs64_unit(s), v = test_xs64_unit(s);
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

double test_lcg_unit(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*s >> 11) / 9007199254740992.0;
}

unsigned test_lcg32(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

double test_lcg32_unit(unsigned *s)
{
	return test_lcg32(s) / 16777216.0;
}
