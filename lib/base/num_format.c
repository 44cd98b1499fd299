/*
 * num_format.c - "%.6g", "%.17g" and "%lld" without printf (see num_format.h).
 *
 * The fast path of fs_fmt_g6, for 1e-4 <= |v| < 999999: %g then uses the
 * fixed notation. p = |v| * 10^k, with the smallest k in 0..9 that brings p
 * to 100000 or more, holds the six significant digits in its integer part;
 * 10^k is exact in a double, so p is the exact product rounded once, less
 * than 2^-34 away from it (p < 2^20). Rounding p to an integer therefore
 * rounds the exact value the same way whenever p's fraction is not within
 * 1e-6 of one half; within it (ties, near-ties) snprintf decides, as it
 * does for every other value.
 */
#include "base/num_format.h"

#include <math.h>
#include <stdio.h>

static const double pow10_exact[10] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};

/* %g's fixed notation of the significant digits dig[0..nd-1] (nd > 0,
 * dig[nd-1] not '0' unless nd is 1) at decimal exponent x, with a minus
 * sign when neg: both formatters' last step. Returns the length. */
static int fixed_notation(char *out, int neg, const char *dig, int nd, int x)
{
	char *o = out;
	if (neg)
		*o++ = '-';
	if (x >= 0) {
		for (int i = 0; i <= x; i++)
			*o++ = dig[i];
		if (nd > x + 1) {
			*o++ = '.';
			for (int i = x + 1; i < nd; i++)
				*o++ = dig[i];
		}
	} else {
		*o++ = '0';
		*o++ = '.';
		for (int i = 0; i < -x - 1; i++)
			*o++ = '0';
		for (int i = 0; i < nd; i++)
			*o++ = dig[i];
	}
	*o = 0;
	return (int)(o - out);
}

int fs_fmt_g6(char *out, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 999999.0))
		return snprintf(out, FS_FMT_G6_MAX, "%.6g", v);
	int k = 0;
	double p = a;
	while (p < 1e5)
		p = a * pow10_exact[++k];
	long n = (long)p; /* p > 0: truncation is floor */
	double frac = p - (double)n;
	if (fabs(frac - 0.5) < 1e-6)
		return snprintf(out, FS_FMT_G6_MAX, "%.6g", v);
	n += frac > 0.5;
	int x = 5 - k; /* the decimal exponent of the rounded value */
	if (n >= 1000000) {
		n /= 10;
		x++;
	}
	char dig[6];
	for (int i = 5; i >= 0; i--, n /= 10)
		dig[i] = (char)('0' + n % 10);
	int nd = 6; /* significant digits left once trailing zeros go */
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	return fixed_notation(out, v < 0, dig, nd, x);
}

/*
 * "%.17g" for 1e-4 <= |v| < 1e17, where %g takes the fixed notation. |v| is
 * m * 2^e exactly (m < 2^53 an integer); its 17 significant digits are
 * m * 10^p / 2^-e rounded to an integer, p = 16 - x, x the decimal exponent
 * (-4 .. 16, so 10^p <= 10^20 and m * 10^p < 2^120): computed exactly in
 * 128 bits, so the rounding is exact too. A tie (the part shifted out is
 * exactly one half) goes to snprintf, which rounds it to even, as does every
 * value outside the range. About ten times faster than glibc's printf,
 * which works the digits out with multi-precision arithmetic.
 */
#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 u128;

static const unsigned long long pow10_u64[20] = {1ULL,
						 10ULL,
						 100ULL,
						 1000ULL,
						 10000ULL,
						 100000ULL,
						 1000000ULL,
						 10000000ULL,
						 100000000ULL,
						 1000000000ULL,
						 10000000000ULL,
						 100000000000ULL,
						 1000000000000ULL,
						 10000000000000ULL,
						 100000000000000ULL,
						 1000000000000000ULL,
						 10000000000000000ULL,
						 100000000000000000ULL,
						 1000000000000000000ULL,
						 10000000000000000000ULL};

static u128 pow10_u128(int p)
{
	return p < 20 ? (u128)pow10_u64[p] : (u128)pow10_u64[19] * pow10_u64[p - 19];
}

/* The 17 digits of m * 2^e at decimal exponent x into *q: 0, or 1 when q
 * has too many digits (x too small), -1 too few (x too large), 2 a tie. */
static int digits17(unsigned long long m, int e, int x, unsigned long long *q)
{
	int p = 16 - x;
	if (p < 0 || p > 20)
		return 2;
	u128 n = (u128)m * pow10_u128(p), r;
	if (e >= 0) {
		r = n << e; /* e <= 4 here: no overflow */
	} else {
		int s = -e;
		if (s > 127)
			return 2;
		u128 half = (u128)1 << (s - 1), rem = n & (((u128)1 << s) - 1);
		r = n >> s;
		if (rem == half)
			return 2;
		r += rem > half;
	}
	if (r >= (u128)pow10_u64[17])
		return r == (u128)pow10_u64[17] ? 3 : 1; /* 3: rounded up to 10^17 */
	if (r < (u128)pow10_u64[16])
		return -1;
	*q = (unsigned long long)r;
	return 0;
}

int fs_fmt_g17(char *out, double v)
{
	double a = fabs(v);
	if (!(a >= 1e-4 && a < 1e17))
		return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
	int e2;
	double f = frexp(a, &e2); /* a = f * 2^e2, 0.5 <= f < 1 */
	unsigned long long m = (unsigned long long)ldexp(f, 53);
	int e = e2 - 53;
	int x = (int)floor(log10(a)), rc;
	unsigned long long q = 0;
	for (int tries = 0; (rc = digits17(m, e, x, &q)) != 0; tries++) {
		if (rc == 1 && tries < 3)
			x++;
		else if (rc == -1 && tries < 3)
			x--;
		else if (rc == 3 && x + 1 <= 16) {
			q = pow10_u64[16]; /* 9.99..95 rounded up: 1 at the next power */
			x++;
			break;
		} else {
			return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
		}
	}
	if (x < -4 || x > 16)
		return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
	char dig[17];
	for (int i = 16; i >= 0; i--, q /= 10)
		dig[i] = (char)('0' + q % 10);
	int nd = 17;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	return fixed_notation(out, v < 0, dig, nd, x);
}
#else
int fs_fmt_g17(char *out, double v)
{
	return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
}
#endif

int fs_fmt_int(char *out, long long v)
{
	char tmp[24];
	int n = 0;
	/* negative: digits of the magnitude from the negative value, so that
	 * LLONG_MIN needs no special case */
	long long q = v;
	do {
		int d = (int)(q % 10);
		tmp[n++] = (char)('0' + (d < 0 ? -d : d));
		q /= 10;
	} while (q);
	char *o = out;
	if (v < 0)
		*o++ = '-';
	while (n)
		*o++ = tmp[--n];
	*o = 0;
	return (int)(o - out);
}
