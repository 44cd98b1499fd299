/*
 * num_format.c - "%.6g" and "%lld" without printf (see num_format.h).
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
	char *o = out;
	if (v < 0)
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
