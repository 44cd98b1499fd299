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
#include <string.h>

/* Two digits at a time: "00" .. "99". */
static const char two_digits[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
				    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
				    "8081828384858687888990919293949596979899";

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
		/* fewer than 17 digits before rounding: x is too large, even
		 * when the rounding carries into a 17th (9.9999999999999995e-07
		 * at x = -6 would print as 1e-06) */
		if (r < (u128)pow10_u64[16])
			return -1;
		r += rem > half;
	}
	if (r >= (u128)pow10_u64[17])
		return r == (u128)pow10_u64[17] ? 3 : 1; /* 3: rounded up to 10^17 */
	if (r < (u128)pow10_u64[16])
		return -1;
	*q = (unsigned long long)r;
	return 0;
}

/*
 * Below 1e-4 (%g's exponent notation, down to 1e-39): 10^p = 5^p * 2^p with
 * p = 16 - x <= 55, so the digits are m * 5^p (5^p < 2^128: a product of at
 * most 181 bits, kept as 64 + 128) shifted right by -(e + p) bits and
 * rounded, exactly as above. Orientations of round tubercles are such
 * values (a few 1e-17 radians): a third of a detection's, which snprintf
 * formatted for a fifth of the journal's time.
 */
typedef struct {
	unsigned long long hi;
	u128 lo;
} u192;

static u128 pow5_u128(int p)
{
	u128 f = 1;
	for (int i = 0; i < p; i++)
		f *= 5;
	return f;
}

/* As digits17, for x < -4 (p = 16 - x from 21 to 55). */
static int digits17_small(unsigned long long m, int e, int x, unsigned long long *q)
{
	int p = 16 - x;
	if (p > 55)
		return 2;
	int s = -(e + p); /* the bits shifted out */
	if (s < 1 || s > 180)
		return 2;
	u128 f = pow5_u128(p);
	u128 a = (u128)m * (unsigned long long)f, b = (u128)m * (unsigned long long)(f >> 64);
	u192 n;
	n.lo = a + (b << 64);
	n.hi = (unsigned long long)(b >> 64) + (n.lo < a);
	/* r = n >> s, rem = n mod 2^s against half = 2^(s-1) */
	u128 r_lo;
	unsigned long long r_hi;
	int cmp; /* rem against half: -1, 0, 1 */
	if (s < 128) {
		r_lo = (n.lo >> s) | ((u128)n.hi << (128 - s));
		r_hi = s < 64 ? n.hi >> s : 0;
		u128 rem = n.lo & (((u128)1 << s) - 1), half = (u128)1 << (s - 1);
		cmp = rem < half ? -1 : rem > half;
	} else {
		int t = s - 128;
		r_lo = (u128)(n.hi >> t);
		r_hi = 0;
		unsigned long long rem_hi = t ? n.hi & ((1ULL << t) - 1) : 0;
		if (t == 0)
			cmp = n.lo < ((u128)1 << 127) ? -1 : n.lo > ((u128)1 << 127);
		else {
			unsigned long long half_hi = 1ULL << (t - 1);
			cmp = rem_hi < half_hi ? -1 : rem_hi > half_hi ? 1 : n.lo != 0;
		}
	}
	if (r_hi || (r_lo >> 64))
		return 1;
	if (cmp == 0)
		return 2;
	if (r_lo < (u128)pow10_u64[16])
		return -1; /* as in digits17: decided before the rounding */
	u128 r = r_lo + (cmp > 0);
	if (r >= (u128)pow10_u64[17])
		return r == (u128)pow10_u64[17] ? 3 : 1;
	if (r < (u128)pow10_u64[16])
		return -1;
	*q = (unsigned long long)r;
	return 0;
}

/* %g's exponent notation of the digits (as fixed_notation): d.ddde-XX. */
static int exp_notation(char *out, int neg, const char *dig, int nd, int x)
{
	char *o = out;
	if (neg)
		*o++ = '-';
	*o++ = dig[0];
	if (nd > 1) {
		*o++ = '.';
		for (int i = 1; i < nd; i++)
			*o++ = dig[i];
	}
	*o++ = 'e';
	*o++ = x < 0 ? '-' : '+';
	int ax = x < 0 ? -x : x;
	if (ax >= 100)
		*o++ = (char)('0' + ax / 100);
	*o++ = (char)('0' + ax / 10 % 10);
	*o++ = (char)('0' + ax % 10);
	*o = 0;
	return (int)(o - out);
}

/* The 17 significant digits of a (1e-39 <= a < 1e17) exactly rounded, as
 * printf gives them, into dig, and their decimal exponent into *xo: 0, or
 * -1 where printf must decide (a tie of the rounding). */
static int digits_of(double a, char dig[17], int *xo)
{
	/* a = m * 2^e from its bits (a normal double here), and its decimal
	 * exponent x estimated from e: floor(log2(a) * log10(2)) by integers
	 * (78913 / 2^18), one too small at times, which the loop below
	 * corrects as it corrects any estimate (log10 cost a fifth) */
	unsigned long long bits;
	memcpy(&bits, &a, sizeof bits);
	unsigned long long m = (bits & ((1ULL << 52) - 1)) | (1ULL << 52);
	int e = (int)(bits >> 52) - 1075;
	int x = (int)(((long long)(e + 52) * 78913) >> 18), rc;
	unsigned long long q = 0;
	for (int tries = 0; (rc = x < -4 ? digits17_small(m, e, x, &q) : digits17(m, e, x, &q)) != 0; tries++) {
		if (rc == 1 && tries < 3)
			x++;
		else if (rc == -1 && tries < 3)
			x--;
		else if (rc == 3 && x + 1 <= 16) {
			q = pow10_u64[16]; /* 9.99..95 rounded up: 1 at the next power */
			x++;
			break;
		} else {
			return -1;
		}
	}
	if (x < -39 || x > 16)
		return -1;
	for (int i = 15; i >= 1; i -= 2, q /= 100) {
		unsigned d = (unsigned)(q % 100);
		dig[i] = two_digits[2 * d];
		dig[i + 1] = two_digits[2 * d + 1];
	}
	dig[0] = (char)('0' + q);
	*xo = x;
	return 0;
}

int fs_digits17(double v, char dig[17], int *x)
{
	double a = fabs(v);
	if (!(a >= 1e-39 && a < 1e17))
		return -1;
	return digits_of(a, dig, x);
}

int fs_fmt_g17(char *out, double v)
{
	double a = fabs(v);
	if (a == 0) {
		/* "0" or "-0", as %g prints a zero */
		char *o = out;
		if (signbit(v))
			*o++ = '-';
		*o++ = '0';
		*o = 0;
		return (int)(o - out);
	}
	char dig[17];
	int x;
	if (!(a >= 1e-39 && a < 1e17) || digits_of(a, dig, &x))
		return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
	int nd = 17;
	while (nd > 1 && dig[nd - 1] == '0')
		nd--;
	return x < -4 ? exp_notation(out, v < 0, dig, nd, x) : fixed_notation(out, v < 0, dig, nd, x);
}
#else
int fs_fmt_g17(char *out, double v)
{
	return snprintf(out, FS_FMT_G17_MAX, "%.17g", v);
}

int fs_digits17(double v, char dig[17], int *x)
{
	(void)v;
	(void)dig;
	(void)x;
	return -1;
}
#endif

int fs_fmt_int(char *out, long long v)
{
	char tmp[24];
	int n = 24;
	/* the magnitude as unsigned: -LLONG_MIN does not fit a long long */
	unsigned long long q = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	while (q >= 100) {
		unsigned d = (unsigned)(q % 100);
		q /= 100;
		tmp[--n] = two_digits[2 * d + 1];
		tmp[--n] = two_digits[2 * d];
	}
	if (q >= 10) {
		tmp[--n] = two_digits[2 * q + 1];
		tmp[--n] = two_digits[2 * q];
	} else {
		tmp[--n] = (char)('0' + q);
	}
	char *o = out;
	if (v < 0)
		*o++ = '-';
	memcpy(o, tmp + n, (size_t)(24 - n));
	o += 24 - n;
	*o = 0;
	return (int)(o - out);
}
