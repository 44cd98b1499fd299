/* centre_perdome.c - centres locked onto a dome's lit flank, told and
 * moved one dome at a time (see centre_perdome.h). */
#include "analysis/centre_perdome.h"

#include <math.h>
#include <stdlib.h>

#include "base/sorting.h"

/* The scan of a dome's b: half range of r0 (inside the dome: a centre
 * locked on the lit flank of a low dome sits up to 0.3 r0 off, h37q) and
 * its step (px; finer moves nothing the level reads). */
#define PERDOME_REACH FS_CENTRE_PERDOME_REACH
#define PERDOME_SCAN 0.02
/* A dome is flagged this many median absolute deviations of the image's
 * b below its median, and at least MIN_PX (h37q: scene 3's locked
 * centres lie 4.6-14 MADs below, the pitch-64 fill-0.8 right domes up to
 * 15 where the gates let them through at 4 MADs, 6 with the margin it
 * leaves every corner scene). */
#define PERDOME_K 6.0
#define PERDOME_MIN_PX 1.0

void fs_centre_perdome_geom(double az, double r0, double sigma, double pitch, fs_centre_axis_geom *g)
{
	fs_centre_axis_geom_of(az, r0, sigma, pitch, g);
	/* the window read from a centre up to the scan's reach off, and one
	 * sample for the interpolation */
	g->ns = (int)ceil((r0 + g->win + PERDOME_REACH * r0) / g->step) + 2;
	/* along and across only: the other seven profiles were a quarter of
	 * the step's cost (h38l) */
	g->pair = 1;
}

/* The best b of one dome's lit profile pu against pv in [-reach, reach]
 * on the scan's grid; NAN at an end of the scan or where no match is
 * finite. First every COARSE-th grid point, then the grid between the
 * best one's neighbours: a dome's residual has one minimum that wide
 * (the full scan cost a quarter of detection on the scenes it runs on,
 * h38l; the tables' figures and the corner scenes' fingerprint are the
 * same either way). */
#define COARSE 5
double fs_centre_perdome_b(const double *pu, const double *pv, const fs_centre_axis_geom *g, double reach)
{
	int nb = (int)floor(reach / PERDOME_SCAN), kb = 0;
	double best = INFINITY;
	for (int k = -nb; k <= nb; k += COARSE) {
		double r = fs_centre_axis_match(pu, pv, g, k * PERDOME_SCAN, 1);
		if (r < best) {
			best = r;
			kb = k;
		}
	}
	if (!isfinite(best))
		return NAN;
	int lo = kb - COARSE + 1 > -nb ? kb - COARSE + 1 : -nb, hi = kb + COARSE - 1 < nb ? kb + COARSE - 1 : nb;
	int kc = kb;
	for (int k = lo; k <= hi; k++) {
		if (k == kc)
			continue;
		double r = fs_centre_axis_match(pu, pv, g, k * PERDOME_SCAN, 1);
		if (r < best) {
			best = r;
			kb = k;
		}
	}
	return kb != -nb && kb != nb ? kb * PERDOME_SCAN : NAN;
}

/* cal->own 2: a flagged dome kept only where its lit profile against its
 * own across-axis profile is flagged too (the same bound, read on those
 * b), so that a dome smaller than the others (its own across profile as
 * near as its lit one) is not moved; the move stays the sum's. Returns 0,
 * -1 on out of memory. */
static int own_veto(const double *profs, size_t n, const fs_centre_axis_geom *g, const fs_centre_perdome_cal *cal,
		    double *shift, int *flagged)
{
	size_t len = fs_centre_axis_len(g), q = 0;
	double *b = malloc(2 * n * sizeof *b);
	if (!b)
		return -1;
	double *w = b + n;
	for (size_t k = 0; k < n; k++) {
		const double *p = profs + k * len;
		b[k] = isfinite(p[0]) ? fs_centre_perdome_b(p, p + g->ns, g, PERDOME_REACH * g->r0) : NAN;
		if (isfinite(b[k]))
			w[q++] = b[k];
	}
	if (q >= FS_CENTRE_PERDOME_MIN) {
		double med = fs_median_upper(w, q);
		for (size_t i = 0; i < q; i++)
			w[i] = fabs(w[i] - med);
		double bound = fmax(fmax(PERDOME_MIN_PX, cal->floor), PERDOME_K * fs_median_upper(w, q) / fabs(cal->gain));
		for (size_t k = 0; k < n; k++)
			if (shift[k] != 0 && !((b[k] - med) / cal->gain > bound)) {
				shift[k] = 0;
				(*flagged)--;
			}
	}
	free(b);
	return 0;
}

int fs_centre_perdome_shifts(const double *profs, size_t n, const fs_centre_axis_geom *g, double *shift)
{
	return fs_centre_perdome_shifts_cal(profs, n, g, NULL, shift);
}

int fs_centre_perdome_shifts_cal(const double *profs, size_t n, const fs_centre_axis_geom *g,
				 const fs_centre_perdome_cal *cal, double *shift)
{
	size_t len = fs_centre_axis_len(g), q = 0;
	for (size_t k = 0; k < n; k++)
		shift[k] = 0;
	double *pv = calloc((size_t)g->ns + 2 * n, sizeof *pv);
	if (!pv)
		return -1;
	double *b = pv + g->ns, *w = b + n;
	/* the image's across-axis profile, summed as the axis step sums it
	 * (the match's scale a absorbs the sum's) */
	for (size_t k = 0; k < n; k++) {
		const double *p = profs + k * len;
		if (!isfinite(p[0]))
			continue;
		for (int i = 0; i < g->ns; i++)
			pv[i] += p[g->ns + i];
	}
	for (size_t k = 0; k < n; k++) {
		const double *p = profs + k * len;
		const double *ref = cal && cal->ok && cal->own == 1 ? p + g->ns : pv;
		b[k] = isfinite(p[0]) ? fs_centre_perdome_b(p, ref, g, PERDOME_REACH * g->r0) : NAN;
		if (isfinite(b[k]))
			w[q++] = b[k];
	}
	int flagged = 0;
	if (q >= FS_CENTRE_PERDOME_MIN) {
		double med = fs_median_upper(w, q);
		for (size_t i = 0; i < q; i++)
			w[i] = fabs(w[i] - med);
		double mad = fs_median_upper(w, q);
		if (cal && cal->ok) {
			/* in px of centre: b less the median over the
			 * formation's gain, against the larger of the fixed
			 * 1 px, the clean lattice's floor and the image's
			 * spread read the same way */
			double bound = fmax(fmax(PERDOME_MIN_PX, cal->floor), PERDOME_K * mad / fabs(cal->gain));
			for (size_t k = 0; k < n; k++) {
				double d = isfinite(b[k]) ? (b[k] - med) / cal->gain : NAN;
				if (d > bound) {
					shift[k] = -d;
					flagged++;
				}
			}
			if (cal->own == 2 && flagged > 0 && own_veto(profs, n, g, cal, shift, &flagged) < 0) {
				free(pv);
				return -1;
			}
		} else {
			double bound = fmax(PERDOME_MIN_PX, PERDOME_K * mad);
			/* only towards the detector: the lock this undoes
			 * (h36e, h37q) puts a centre on the lit flank, its lit
			 * base nearer; the other tail was not studied */
			for (size_t k = 0; k < n; k++)
				if (isfinite(b[k]) && b[k] - med < -bound) {
					shift[k] = b[k] - med;
					flagged++;
				}
		}
	}
	free(pv);
	return flagged;
}
