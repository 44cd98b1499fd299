/* centre_axis.c - the centres' common shift along the detector's axis
 * from the lit side's base against the unlit sides' (see centre_axis.h). */
#include "analysis/centre_axis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STEP 0.125      /* profile samples, px */
#define WIN 2.0         /* the fit's window, blurs either side of r0 */
#define MAX_SHIFT 0.1   /* the scan's half range, of the pitch */
#define SCAN 0.01       /* the scan's step, px */
#define MAX_RESIDUAL 0.01
#define MIN_R_SIGMA 3.0
#define MIN_USED 8

void fs_centre_axis_geom_of(double az, double r0, double sigma, double pitch, fs_centre_axis_geom *g)
{
	g->az = az;
	g->r0 = r0;
	g->sigma = fmax(0.5, sigma);
	g->win = WIN * g->sigma;
	g->step = STEP;
	/* the window read from a centre up to MAX_SHIFT pitch off, and one
	 * sample for the interpolation */
	g->ns = (int)ceil((r0 + g->win + MAX_SHIFT * pitch) / STEP) + 2;
}

double fs_centre_axis_reach(const fs_centre_axis_geom *g)
{
	return g->ns * g->step + 1;
}

void fs_centre_axis_profile(const fs_image *img, double x, double y, const fs_centre_axis_geom *g, double *prof)
{
	double ux = cos(g->az), uy = sin(g->az);
	for (int i = 0; i < g->ns; i++) {
		double s = i * g->step;
		prof[i] = fs_image_sample_clamped(img, x + s * ux, y + s * uy);
		prof[g->ns + i] = 0.5 * (fs_image_sample_clamped(img, x - s * uy, y + s * ux) +
					 fs_image_sample_clamped(img, x + s * uy, y - s * ux));
	}
}

/* The residual share of P_u after e + a P_v(r - b) over the window. */
static double match(const double *pu, const double *pv, const fs_centre_axis_geom *g, double b)
{
	double sxx = 0, sx = 0, sy = 0, sxy = 0, syy = 0;
	int m = 0;
	for (int i = 0; i < g->ns; i++) {
		double r = i * g->step;
		if (r < g->r0 - g->win || r > g->r0 + g->win)
			continue;
		double q = (r - b) / g->step;
		int i0 = (int)floor(q);
		if (i0 < 0 || i0 + 1 >= g->ns)
			continue;
		double f = q - i0, x = pv[i0] * (1 - f) + pv[i0 + 1] * f, y = pu[i];
		sxx += x * x;
		sx += x;
		sy += y;
		sxy += x * y;
		syy += y * y;
		m++;
	}
	double d = m * sxx - sx * sx, var = syy - sy * sy / (m ? m : 1);
	if (m < 4 || !(d > 0) || !(var > 0))
		return INFINITY;
	double a = (m * sxy - sx * sy) / d, e = (sy - a * sx) / m;
	double ssr = syy - 2 * a * sxy - 2 * e * sy + a * a * sxx + 2 * a * e * sx + m * e * e;
	return ssr / var;
}

int fs_centre_axis_estimate(const double *profs, size_t n, const fs_centre_axis_geom *g, double pitch,
			    fs_centre_axis *out)
{
	memset(out, 0, sizeof *out);
	if (g->r0 < MIN_R_SIGMA * g->sigma)
		return 0;
	size_t len = (size_t)2 * g->ns;
	double *sum = calloc(len, sizeof *sum);
	if (!sum)
		return -1;
	for (size_t k = 0; k < n; k++) {
		const double *p = profs + k * len;
		if (!isfinite(p[0]))
			continue;
		for (size_t i = 0; i < len; i++)
			sum[i] += p[i];
		out->used++;
	}
	if (out->used < MIN_USED) {
		free(sum);
		return 0;
	}
	int nb = (int)floor(MAX_SHIFT * pitch / SCAN);
	double best = INFINITY;
	int kb = 0;
	for (int k = -nb; k <= nb; k++) {
		double r = match(sum, sum + g->ns, g, k * SCAN);
		if (r < best) {
			best = r;
			kb = k;
		}
	}
	free(sum);
	out->shift = kb * SCAN;
	out->residual = best;
	out->end = kb == -nb || kb == nb;
	if (!isfinite(best) || out->end || best > MAX_RESIDUAL)
		return 0;
	out->ok = 1;
	out->dx = out->shift * cos(g->az);
	out->dy = out->shift * sin(g->az);
	return 0;
}
