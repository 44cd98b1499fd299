/*
 * predicates.c - exact-sign orientation and in-circle tests (see predicates.h).
 *
 * Stage 1 (inline in predicates.h) evaluates the determinant in doubles and
 * trusts its sign when it exceeds the forward error bound of that
 * evaluation. Stage 2, here, expands the determinant into a sum of products
 * of the original coordinates, forms every product exactly as an expansion
 * (Dekker's two-product) and accumulates all of them
 * into one non-overlapping expansion whose largest component has the sign of
 * the exact value. Stage 2 is slow (hundreds of operations) but only runs for
 * (nearly) degenerate input. In-circle tries a shorter exact form first:
 * the translated determinant, when the differences to the fourth point are
 * exact (nearby points; a lattice's ties). Integer input has its own
 * 128-bit stage. Assumes no overflow or underflow, which holds for image
 * coordinates.
 */
#include "analysis/predicates.h"

#include <math.h>
#include <stdint.h>


static const int NEXT[3] = {1, 2, 0};

/* Largest expansion built below: 48 products of 8 components (incircle). */
#define ACC_MAX 512

static void two_sum(double a, double b, double *x, double *y)
{
	double s = a + b;
	double bv = s - a;
	double av = s - bv;
	*x = s;
	*y = (a - av) + (b - bv);
}

/* Veltkamp split: a = hi + lo with both halves of at most 26 bits. */
static void split(double a, double *hi, double *lo)
{
	double c = 134217729.0 * a; /* 2^27 + 1 */
	double big = c - a;
	*hi = c - big;
	*lo = a - *hi;
}

/* Dekker's exact product; fma would be one instruction but is a libm call
 * without -mfma, which made the exact stage three times slower. */
static void two_prod(double a, double b, double *x, double *y)
{
	double p = a * b, ahi, alo, bhi, blo;
	split(a, &ahi, &alo);
	split(b, &bhi, &blo);
	*x = p;
	*y = alo * blo - (((p - ahi * bhi) - alo * bhi) - ahi * blo);
}

/*
 * h = e + b for a non-overlapping expansion e (increasing magnitude); zero
 * components are dropped. h may not alias e. Returns the length of h.
 */
static int grow(const double *e, int elen, double b, double *h)
{
	double q = b, hh;
	int n = 0;

	for (int i = 0; i < elen; i++) {
		two_sum(q, e[i], &q, &hh);
		if (hh != 0.0)
			h[n++] = hh;
	}
	if (q != 0.0 || n == 0)
		h[n++] = q;
	return n;
}

/* h = e * b, zero components dropped; h may not alias e. */
static int scale(const double *e, int elen, double b, double *h)
{
	double q, hh, p1, p0, sum;
	int n = 0;

	two_prod(e[0], b, &q, &hh);
	if (hh != 0.0)
		h[n++] = hh;
	for (int i = 1; i < elen; i++) {
		two_prod(e[i], b, &p1, &p0);
		two_sum(q, p0, &sum, &hh);
		if (hh != 0.0)
			h[n++] = hh;
		two_sum(p1, sum, &q, &hh);
		if (hh != 0.0)
			h[n++] = hh;
	}
	if (q != 0.0 || n == 0)
		h[n++] = q;
	return n;
}

/* An accumulator that adds expansions component by component. */
struct acc {
	double buf[2][ACC_MAX];
	int cur, len;
};

static void acc_add(struct acc *a, const double *e, int elen)
{
	for (int i = 0; i < elen; i++) {
		if (e[i] == 0.0)
			continue;
		int next = a->cur ^ 1;
		a->len = grow(a->buf[a->cur], a->len, e[i], a->buf[next]);
		a->cur = next;
	}
}

static int acc_sign(const struct acc *a)
{
	double top = a->len ? a->buf[a->cur][a->len - 1] : 0.0;
	return (top > 0.0) - (top < 0.0);
}

/* Adds sign * f[0] * f[1] * ... * f[nf - 1] exactly. */
static void acc_add_product(struct acc *a, int sign, const double *f, int nf)
{
	double t1[16], t2[16];
	double *src = t1, *dst = t2, *tmp;
	int len = 1;

	t1[0] = sign < 0 ? -f[0] : f[0];
	for (int i = 1; i < nf; i++) {
		len = scale(src, len, f[i], dst);
		tmp = src;
		src = dst;
		dst = tmp;
	}
	acc_add(a, src, len);
}

/*
 * Integer coordinates below 2^24 (LoG centres, lattices) are common and are
 * the inputs that reach the exact stage most often: their determinants fit
 * in 128-bit integers, which is far cheaper than expansions.
 */
#define INT_LIMIT 16777216.0

static int small_int(const double *v, int n)
{
	for (int i = 0; i < n; i++)
		if (!(fabs(v[i]) < INT_LIMIT) || v[i] != floor(v[i]))
			return 0;
	return 1;
}

static int orient_int(const double v[6])
{
	int64_t adx = (int64_t)v[0] - (int64_t)v[4], ady = (int64_t)v[1] - (int64_t)v[5];
	int64_t bdx = (int64_t)v[2] - (int64_t)v[4], bdy = (int64_t)v[3] - (int64_t)v[5];
	int64_t det = adx * bdy - ady * bdx;
	return (det > 0) - (det < 0);
}

static int incircle_int(const double x[4], const double y[4])
{
	int64_t dx[3], dy[3];
	for (int i = 0; i < 3; i++) {
		dx[i] = (int64_t)x[i] - (int64_t)x[3];
		dy[i] = (int64_t)y[i] - (int64_t)y[3];
	}
	__int128 lift[3], cr[3];
	for (int i = 0; i < 3; i++) {
		int j = (i + 1) % 3, k = (i + 2) % 3;
		lift[i] = (__int128)(dx[i] * dx[i] + dy[i] * dy[i]);
		cr[i] = (__int128)(dx[j] * dy[k] - dx[k] * dy[j]);
	}
	__int128 det = lift[0] * cr[0] + lift[1] * cr[1] + lift[2] * cr[2];
	return (det > 0) - (det < 0);
}

static int orient_exact(double ax, double ay, double bx, double by, double cx, double cy)
{
	/* ax*by - ax*cy - ay*bx + ay*cx + bx*cy - by*cx */
	const double terms[6][2] = {
		{ax, by}, {ax, -cy}, {ay, -bx}, {ay, cx}, {bx, cy}, {by, -cx},
	};
	struct acc a;

	a.cur = 0;
	a.len = 0;
	for (int i = 0; i < 6; i++)
		acc_add_product(&a, 1, terms[i], 2);
	return acc_sign(&a);
}

int fs_orient2d_exact(double ax, double ay, double bx, double by, double cx, double cy)
{
	const double v[6] = {ax, ay, bx, by, cx, cy};
	if (small_int(v, 6))
		return orient_int(v);
	return orient_exact(ax, ay, bx, by, cx, cy);
}

/* Sign of the permutation rows -> columns given as col[row]. */
static int perm_sign(const int col[4])
{
	int inv = 0;

	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (col[i] > col[j])
				inv++;
	return (inv & 1) ? -1 : 1;
}

/*
 * Expands det [x y x^2+y^2 1] over the rows a, b, c, d, which equals the
 * translated 3x3 in-circle determinant, as 48 signed products of four
 * coordinates (x_i * y_j * (x_k^2 + y_k^2) split in two).
 */
static int incircle_exact(const double x[4], const double y[4])
{
	struct acc a; /* 8 KiB of stack rather than static: thread-safe */

	a.cur = 0;
	a.len = 0;
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			if (j == i)
				continue;
			for (int k = 0; k < 4; k++) {
				if (k == i || k == j)
					continue;
				int l = 6 - i - j - k;
				int col[4];
				col[i] = 0;
				col[j] = 1;
				col[k] = 2;
				col[l] = 3;
				int s = perm_sign(col);
				const double fx[4] = {x[i], y[j], x[k], x[k]};
				const double fy[4] = {x[i], y[j], y[k], y[k]};
				acc_add_product(&a, s, fx, 4);
				acc_add_product(&a, s, fy, 4);
			}
		}
	}
	return acc_sign(&a);
}

/* e = a * b + c * d as an expansion of at most 4 components; returns its length. */
static int two_products(double a, double b, double c, double d, double *e)
{
	double p[2], q0, q1, t[3];
	two_prod(a, b, &p[1], &p[0]);
	two_prod(c, d, &q1, &q0);
	int n = grow(p, 2, q0, t);
	return grow(t, n, q1, e);
}

/*
 * The translated determinant (the one fs_incircle filters) evaluated
 * exactly, when the six differences to d are exact doubles: nearby points
 * (within a factor two of each other, Sterbenz) always give exact ones,
 * which is where Delaunay meets its ties (a lattice's rows and rectangles).
 * Three lifts times three 2x2 minors, each at most 4 components: about a
 * tenth of the work of incircle_exact's 96 products of four coordinates.
 * Returns 2 when a difference is not exact.
 */
static int incircle_translated(const double x[4], const double y[4])
{
	double dx[3], dy[3], err;
	for (int i = 0; i < 3; i++) {
		two_sum(x[i], -x[3], &dx[i], &err);
		if (err != 0.0)
			return 2;
		two_sum(y[i], -y[3], &dy[i], &err);
		if (err != 0.0)
			return 2;
	}
	struct acc a;
	a.cur = 0;
	a.len = 0;
	for (int i = 0; i < 3; i++) {
		int j = NEXT[i], k = NEXT[j];
		double lift[4], minor[4], prod[8];
		int nl = two_products(dx[i], dx[i], dy[i], dy[i], lift);
		int nm = two_products(dx[j], dy[k], -dx[k], dy[j], minor);
		for (int m = 0; m < nl; m++)
			acc_add(&a, prod, scale(minor, nm, lift[m], prod));
	}
	return acc_sign(&a);
}

int fs_incircle_exact(double ax, double ay, double bx, double by, double cx, double cy,
		      double dx, double dy)
{
	const double x[4] = {ax, bx, cx, dx};
	const double y[4] = {ay, by, cy, dy};
	if (small_int(x, 4) && small_int(y, 4))
		return incircle_int(x, y);
	int s = incircle_translated(x, y);
	return s != 2 ? s : incircle_exact(x, y);
}
