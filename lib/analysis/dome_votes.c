/*
 * dome_votes.c - the dome rule's circle votes over a rectangle (see
 * dome_votes.h); moved from detect_auto.c unchanged but for the
 * rectangle's bounds.
 *
 * Circle votes (a Hough transform for circles of radius 0.1 .. 0.45 pitch):
 * every pixel whose gradient is stronger than the mean votes, with its
 * gradient magnitude, for the points at those distances along its gradient
 * direction, on both sides. The base of a dome is a circle whatever the
 * detector makes of it (bright facing slope, dark far slope, a ring, a cap),
 * so the votes gather at the dome's centre, not at its brightest part.
 *
 * Two things tell a dome's centre from the other places edges surround:
 * - a circle has an edge on both ends of every diameter: each vote is
 *   binned by the direction it came from, and a point scores per axis the
 *   geometric mean of the votes from its two ends (the hole between three
 *   tight domes sees three narrow arcs 120 degrees apart, none opposite
 *   another; the channel between two domes sees one axis only);
 * - a dome is raised: the SE yield of a tilted slope is at least the
 *   flat's (secant law) except on the side facing away from a side
 *   detector, so at one end of a diameter at least the brighter side of
 *   the base edge is inside. Votes are kept apart by whether the brighter
 *   side faces the point (bright[]) or not (dark[]). A dark region bounded
 *   by bright edges on both ends is ambiguous: the hole between domes, or
 *   the cast shadow between one dome's dark side and its neighbour's
 *   bright rim (which pulled the votes of tight steep domes 0.33 pitch
 *   towards the shadow), but also the flat top inside a flat-topped
 *   dome's bright slope ring. Dark-dark pairs count half: counting them
 *   fully, half or not at all met recall and precision >= 0.97 in 40, 48
 *   and 50 of test_sem_accuracy's 64 scenes, but not counting them lost
 *   the mean-space level (29 scenes within 3 % against 30, 31 with half),
 *   and test_paper_images' dome ratios within 0.08 were 4, 3 and 2 of 9.
 * Each bin is smoothed by `blur` px; a point scores, summed over axes,
 * 2 sqrt((B(d) + D(d)) (B(-d) + D(-d)) - D(d) D(-d) / 2): the full vote
 * where a bright-inside edge surrounds it evenly.
 */
#include "analysis/dome_votes.h"

#include <math.h>
#include <stdio.h>

#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "base/cpu_features.h"
#include "image/image.h"

/* lround(v) for |v| < 2^31, inline: the votes called lround four times
 * per radius of every edge pixel (3 % of the dome rule on the 2048 x 1536
 * lattice). v - trunc(v) is exact, so halves round away from zero as
 * lround's do: the same integers. */
static inline int round_half_away(double v)
{
	double t = (double)(long)v, f = v - t;
	return (int)t + (f >= 0.5) - (f <= -0.5);
}


/* fmaxf(0, v) inline, as glibc's gives it (a library call for each of
 * five per pixel and direction was a fifth of the votes' combination):
 * v when v > 0 or v is -0 (maxss keeps its second operand on a tie), 0
 * when v is below 0 or NAN. */
static inline float max0f(float v)
{
	return v != v ? 0.0f : (0.0f > v ? 0.0f : v);
}
#if defined(__SSE2__)
#include <emmintrin.h>
/* max0f of four lanes: 0 where v is NAN or below 0, else v (-0 kept, as
 * max0f keeps it; maxps alone would give +0 there) */
static inline __m128 max0f4(__m128 v)
{
	__m128 zero = _mm_setzero_ps();
	return _mm_andnot_ps(_mm_or_ps(_mm_cmpunord_ps(v, v), _mm_cmplt_ps(v, zero)), v);
}

/* A[i] += 2 sqrt(max0f((b1 + d1)(b2 + d2) - 0.5 d1 d2)) over the four
 * clamped votes of each pixel, four pixels at a time in the lanes of one
 * register, each lane the scalar expression's float operations in its
 * order (sqrtps rounds as sqrtf does), so the same sums; the scalar loop
 * does the last few. The combination was a tenth of the votes, 1 % of
 * the dome rule on the 2048 x 1536 lattice (h43f). Taken where
 * fs_cpu_has_sse2 says so (always, but for test_avx_same_bits). Returns
 * the first pixel left. */
static int votes_combine4(const float *B1, const float *D1, const float *B2, const float *D2, float *A, int n)
{
	__m128 half = _mm_set1_ps(0.5f), two = _mm_set1_ps(2.0f);
	int i = 0;
	for (; i + 3 < n; i += 4) {
		__m128 b1v = max0f4(_mm_loadu_ps(B1 + i)), d1 = max0f4(_mm_loadu_ps(D1 + i));
		__m128 b2 = max0f4(_mm_loadu_ps(B2 + i)), d2 = max0f4(_mm_loadu_ps(D2 + i));
		__m128 v = _mm_sub_ps(_mm_mul_ps(_mm_add_ps(b1v, d1), _mm_add_ps(b2, d2)),
				      _mm_mul_ps(_mm_mul_ps(half, d1), d2));
		__m128 a = _mm_add_ps(_mm_loadu_ps(A + i), _mm_mul_ps(two, _mm_sqrt_ps(max0f4(v))));
		_mm_storeu_ps(A + i, a);
	}
	return i;
}

/* One voter's votes at the radii rt[0..nr) (the scalar loop's radii),
 * with SSE2: the two points +r u and -r u in the lanes of two registers,
 * rounded and checked against the layers' rectangle [lo, lo + size) in
 * the four lanes of one, each lane round_half_away's and the bounds'
 * operations (cvttpd2dq truncates as the cast to long does for |v| <
 * 2^31; a comparison's mask is -1, so t - (f >= 0.5) + (f <= -0.5) is
 * its sum), the two votes added in the scalar loop's order. The scalar
 * loop made 90 instructions a radius, four library-free roundings and
 * four bounds checks one lane at a time (h46j). */
__attribute__((always_inline)) static inline void vote_steps2_at(const double *rt, int nr, int x, int y, double ux,
								 double uy, float mf, float *a1, float *a2, int ex0,
								 int ey0, int ex1, int ey1, int lw, const int checked)
{
	__m128d X = _mm_set_pd(y, x), U = _mm_set_pd(uy, ux);
	__m128d HALF = _mm_set1_pd(0.5), MHALF = _mm_set1_pd(-0.5);
	__m128i LO = _mm_set_epi32(ey0, ex0, ey0, ex0);
	__m128i SZ = _mm_set_epi32(ey1 - ey0, ex1 - ex0, ey1 - ey0, ex1 - ex0), ZERO = _mm_setzero_si128();
	for (int k = 0; k < nr; k++) {
		__m128d RU = _mm_mul_pd(_mm_set1_pd(rt[k]), U);
		__m128d P = _mm_add_pd(X, RU), Q = _mm_sub_pd(X, RU);
		__m128i tp = _mm_cvttpd_epi32(P), tq = _mm_cvttpd_epi32(Q);
		__m128d fp = _mm_sub_pd(P, _mm_cvtepi32_pd(tp)), fq = _mm_sub_pd(Q, _mm_cvtepi32_pd(tq));
		__m128 ge = _mm_shuffle_ps(_mm_castpd_ps(_mm_cmpge_pd(fp, HALF)), _mm_castpd_ps(_mm_cmpge_pd(fq, HALF)),
					   _MM_SHUFFLE(2, 0, 2, 0));
		__m128 le = _mm_shuffle_ps(_mm_castpd_ps(_mm_cmple_pd(fp, MHALF)),
					   _mm_castpd_ps(_mm_cmple_pd(fq, MHALF)), _MM_SHUFFLE(2, 0, 2, 0));
		__m128i v = _mm_add_epi32(_mm_sub_epi32(_mm_unpacklo_epi64(tp, tq), _mm_castps_si128(ge)),
					  _mm_castps_si128(le));
		__m128i d = _mm_sub_epi32(v, LO);
		if (!checked) {
			a1[(size_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(d, 1)) * lw + _mm_cvtsi128_si32(d)] += mf;
			a2[(size_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(d, 3)) * lw +
			   _mm_cvtsi128_si32(_mm_shuffle_epi32(d, 2))] += mf;
			continue;
		}
		__m128i in = _mm_andnot_si128(_mm_cmplt_epi32(d, ZERO), _mm_cmpgt_epi32(SZ, d));
		int bits = _mm_movemask_ps(_mm_castsi128_ps(in));
		if ((bits & 3) == 3) {
			int dx = _mm_cvtsi128_si32(d), dy = _mm_cvtsi128_si32(_mm_shuffle_epi32(d, 1));
			a1[(size_t)dy * lw + dx] += mf;
		}
		if ((bits & 12) == 12) {
			int dx = _mm_cvtsi128_si32(_mm_shuffle_epi32(d, 2)), dy = _mm_cvtsi128_si32(_mm_shuffle_epi32(d, 3));
			a2[(size_t)dy * lw + dx] += mf;
		}
	}
}

/* vote_steps2_at, without the bounds' tests for a voter whose votes all
 * land in the layers: every point it rounds lies within reach (ceil of
 * the largest radius, plus 1) of it in x and in y, |u| <= 1. The same
 * votes in the same order (h50a: most voters lie inside the rectangle). */
static void vote_steps2(const double *rt, int nr, int reach, int x, int y, double ux, double uy, float mf, float *a1,
			float *a2, int ex0, int ey0, int ex1, int ey1, int lw)
{
	if (x - reach >= ex0 && x + reach < ex1 && y - reach >= ey0 && y + reach < ey1)
		vote_steps2_at(rt, nr, x, y, ux, uy, mf, a1, a2, ex0, ey0, ex1, ey1, lw, 0);
	else
		vote_steps2_at(rt, nr, x, y, ux, uy, mf, a1, a2, ex0, ey0, ex1, ey1, lw, 1);
}
#endif

/* The most radii a voter's votes go to: (rmax - rmin) / rs is at most 16
 * (radii), one more for the tolerance of the sum's rounding */
#define VOTE_RADII 32

/* The radii the votes go to, rmin to rmax + 1e-9 in steps of rs summed
 * as the scalar loop sums them; their count, or -1 beyond max. */
static int vote_radii(double rmin, double rmax, double rs, double *rt, int max)
{
	int n = 0;
	for (double r = rmin; r <= rmax + 1e-9; r += rs) {
		if (n == max)
			return -1;
		rt[n++] = r;
	}
	return n;
}

/* Direction bins of the circle votes: 4 axes, each with its two ends. */
#define VOTE_DIRS 8

/* A gradient direction's bin, floor((atan2(uy, ux) + pi) / (2 pi) 8) mod 8,
 * the 45-degree sectors from -180 degrees: read from the signs of ux, uy and
 * which of them is larger wherever the direction lies at least VOTE_BIN_GAP
 * (in a unit vector's components, about that in radians) from a sector's
 * edge, where atan2's last bit and the sum's rounding (10^-15) cannot move
 * it across; near an edge, or for a NAN, the bin is atan2's as before. Why:
 * atan2 was a seventh of the votes' own instructions (10.2 M of 71 M on the
 * 2048 x 1536 lattice), for 3 bits. */
#define VOTE_BIN_GAP 1e-9

static int vote_bin(double ux, double uy)
{
	double ax = fabs(ux), ay = fabs(uy);
	if (ax > VOTE_BIN_GAP && ay > VOTE_BIN_GAP && fabs(ax - ay) > VOTE_BIN_GAP) {
		int steep = ay > ax;
		if (uy < 0)
			return ux < 0 ? steep : 3 - steep;
		return ux > 0 ? 4 + steep : 7 - steep;
	}
	return (int)floor((atan2(uy, ux) + M_PI) / (2 * M_PI) * VOTE_DIRS) % VOTE_DIRS;
}

double fs_dome_smoothing(double pitch, double period, int f)
{
	/* Votes from edges smoothed at 5 % of the pitch: finer texture
	 * (noise) would vote everywhere. The dots of a printed halftone
	 * screen are edges stronger than the domes' bases: when the image
	 * holds a screen (a period of at most 8 input px, see halftone.h; on
	 * a reduced image the block mean has already averaged a finer screen
	 * away), the low-pass that removes it from the measurement removes it
	 * here too. */
	double sig = fmax(0.5, 0.05 * pitch);
	if (period > 0 && period * f <= 8)
		sig = fmax(sig, FS_HALFTONE_LOWPASS * period);
	return sig;
}

double fs_dome_votes_blur(double pitch)
{
	/* The votes of one base spread by its radius times the error of the
	 * gradient's direction (about 0.3 rad on noisy, jittered domes):
	 * 0.14 pitch at the largest radius. */
	return fmax(0.7, 0.14 * pitch);
}

double fs_dome_grad_add(const float *rows, int w, int n, double acc)
{
	for (int y = 0; y < n; y++) {
		for (int x = 1; x < w - 1; x++) {
			const float *q = rows + (size_t)y * w + x;
			double gx = q[1] - q[-1], gy = q[w] - q[-w];
			acc += fabs(gx) + fabs(gy);
		}
	}
	return acc;
}

static double g_votes_cells = FS_DOME_VOTES_CELLS;

double fs_dome_votes_set_cells(double cells)
{
	double old = g_votes_cells;
	g_votes_cells = cells;
	return old;
}

int fs_dome_votes_window(int w, int h, double pitch, int *x0, int *y0, int *x1, int *y1)
{
	*x0 = *y0 = 0;
	*x1 = w;
	*y1 = h;
	double cells = (double)w * h / (pitch * pitch);
	if (!(g_votes_cells > 0) || !(pitch > 0) || !(cells > g_votes_cells))
		return 0;
	/* each side shrunk by the same factor, rounded up */
	double k = sqrt(g_votes_cells / cells);
	int ww = (int)ceil(k * w), wh = (int)ceil(k * h);
	if (ww >= w && wh >= h)
		return 0;
	*x0 = (w - ww) / 2;
	*y0 = (h - wh) / 2;
	*x1 = *x0 + ww;
	*y1 = *y0 + wh;
	return 1;
}

static void radii(double pitch, double *rmin, double *rmax, double *rs)
{
	*rmin = fmax(1, 0.1 * pitch);
	*rmax = 0.45 * pitch;
	*rs = fmax(0.5, (*rmax - *rmin) / 16);
}

int fs_dome_votes_reach(double pitch, double blur)
{
	double rmin, rmax, rs;
	radii(pitch, &rmin, &rmax, &rs);
	/* the layers' blur, a vote's length (rounded), the Sobel's pixel */
	return fs_gaussian_radius(blur) + (int)ceil(rmax) + 1 + 1;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

int fs_dome_votes_rect(const float *sm, size_t stride, int sx, int sy, int W, int H, double mean, double pitch,
		       double blur, int x0, int y0, int x1, int y1, float *out, size_t ostride, char *err,
		       size_t errlen)
{
	if (W < 3 || H < 3 || x1 <= x0 || y1 <= y0)
		return 0;
	double rmin, rmax, rs;
	radii(pitch, &rmin, &rmax, &rs);
	/* The layers hold the rectangle and the blur's K px each side, and
	 * receive the votes of every voter that reaches them (up to rmax + 1
	 * further): each pixel gets the same votes in the same order as on
	 * the whole image, and the blur gives the rectangle the same values
	 * to the bit. */
	int K = fs_gaussian_radius(blur), reach = (int)ceil(rmax) + 1;
	int ex0 = clampi(x0 - K, 0, W), ex1 = clampi(x1 + K, 0, W);
	int ey0 = clampi(y0 - K, 0, H), ey1 = clampi(y1 + K, 0, H);
	int lw = ex1 - ex0, lh = ey1 - ey0;
	fs_image *bright[VOTE_DIRS] = {0}, *dark[VOTE_DIRS] = {0};
	int rc = -1;
	for (int b = 0; b < VOTE_DIRS; b++)
		if (!(bright[b] = fs_image_new(lw, lh)) || !(dark[b] = fs_image_new(lw, lh))) {
			snprintf(err, errlen, "auto: out of memory");
			goto out;
		}
	int v0 = clampi(ey0 - reach, 1, H - 1), v1 = clampi(ey1 + reach, 1, H - 1);
	int u0 = clampi(ex0 - reach, 1, W - 1), u1 = clampi(ex1 + reach, 1, W - 1);
	long st = (long)stride;
#if defined(__SSE2__)
	/* asked once per rectangle: test_avx_same_bits forbids it to run the
	 * scalar twins on a processor that has SSE2 */
	int sse2 = fs_cpu_has_sse2();
	double rt[VOTE_RADII];
	int nr = vote_radii(rmin, rmax, rs, rt, VOTE_RADII);
#endif
	for (int y = v0; y < v1; y++) {
		for (int x = u0; x < u1; x++) {
			const float *q = sm + (size_t)(y - sy) * stride + (x - sx);
			/* Sobel */
			double gx = (q[-st + 1] + 2 * q[1] + q[st + 1]) - (q[-st - 1] + 2 * q[-1] + q[st - 1]);
			double gy = (q[st - 1] + 2 * q[st] + q[st + 1]) - (q[-st - 1] + 2 * q[-st] + q[-st + 1]);
			if (fabs(gx) + fabs(gy) < 4 * mean)
				continue;
			double m = hypot(gx, gy);
			if (!(m > 0))
				continue; /* (a flat image's mean 0) no direction, a vote of 0 */
			double ux = gx / m, uy = gy / m;
			/* The point at +r u (up the gradient) has the edge's
			 * brighter side towards it and sees the edge in
			 * direction -u; the point at -r u the darker side, in
			 * direction u. */
			int b = vote_bin(ux, uy);
			float *a1 = bright[(b + VOTE_DIRS / 2) % VOTE_DIRS]->data, *a2 = dark[b]->data;
#if defined(__SSE2__)
			if (sse2 && nr >= 0) {
				vote_steps2(rt, nr, reach, x, y, ux, uy, (float)m, a1, a2, ex0, ey0, ex1, ey1, lw);
				continue;
			}
#endif
			for (double r = rmin; r <= rmax + 1e-9; r += rs) {
				int px = round_half_away(x + r * ux), py = round_half_away(y + r * uy);
				int qx = round_half_away(x - r * ux), qy = round_half_away(y - r * uy);
				if (px >= ex0 && py >= ey0 && px < ex1 && py < ey1)
					a1[(size_t)(py - ey0) * lw + (px - ex0)] += (float)m;
				if (qx >= ex0 && qy >= ey0 && qx < ex1 && qy < ey1)
					a2[(size_t)(qy - ey0) * lw + (qx - ex0)] += (float)m;
			}
		}
	}
	/* blurred where the combination reads them, the rectangle alone (its
	 * values those of the whole layer's blur; the margins' blur was 4 M
	 * instructions of the 2048 x 1536 lattice, h51b) */
	int rx0 = x0 - ex0, ry0 = y0 - ey0, rx1 = x1 - ex0, ry1 = y1 - ey0;
	for (int b = 0; b < VOTE_DIRS; b++)
		if (fs_gaussian_blur_rect(bright[b], blur, rx0, ry0, rx1, ry1, err, errlen) ||
		    fs_gaussian_blur_rect(dark[b], blur, rx0, ry0, rx1, ry1, err, errlen))
			goto out;
	for (int b = 0; b < VOTE_DIRS / 2; b++) {
		int o = b + VOTE_DIRS / 2;
		for (int y = y0; y < y1; y++) {
			size_t off = (size_t)(y - ey0) * lw + (x0 - ex0);
			const float *B1 = bright[b]->data + off, *D1 = dark[b]->data + off;
			const float *B2 = bright[o]->data + off, *D2 = dark[o]->data + off;
			float *A = out + (size_t)(y - y0) * ostride;
			int i = 0;
#if defined(__SSE2__)
			if (sse2)
				i = votes_combine4(B1, D1, B2, D2, A, x1 - x0);
#endif
			for (; i < x1 - x0; i++) {
				float b1v = max0f(B1[i]), d1 = max0f(D1[i]);
				float b2 = max0f(B2[i]), d2 = max0f(D2[i]);
				A[i] += 2 * sqrtf(max0f((b1v + d1) * (b2 + d2) - 0.5f * d1 * d2));
			}
		}
	}
	rc = 0;
out:
	for (int b = 0; b < VOTE_DIRS; b++) {
		fs_image_free(bright[b]);
		fs_image_free(dark[b]);
	}
	return rc;
}
