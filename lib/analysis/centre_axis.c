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
#define OWN_MAX_SHIFT 0.2 /* the scan's half range at the profile's own blur, of the pitch */
#define MIN_USED 8
/* The lit side's ground (h37j): read beyond the window over this share of
 * the pitch, and called shadowed below this share of the across-axis
 * ground's brightness (the neighbour's cast shadow: 0.54-0.67 of it on the
 * tall fill-0.8 corner scenes at pitch 64, 0.99-1.06 where the lit side
 * faces a gap). */
#define GROUND 0.05
#define SHADOWED 0.9
/* The oblique directions read beside the axis on the lit side, degrees
 * (each at +- of it): where the axis's ground is shadowed, the nearest of
 * them whose ground is not. */
static const double oblique_deg[FS_CENTRE_AXIS_OBLIQUE] = {30, 45, 60};

void fs_centre_axis_geom_of(double az, double r0, double sigma, double pitch, fs_centre_axis_geom *g)
{
	g->az = az;
	g->r0 = r0;
	g->sigma = fmax(0.5, sigma);
	g->win = WIN * g->sigma;
	g->step = STEP;
	g->pair = 0;
	g->vblur = 0;
	/* the window read from a centre up to MAX_SHIFT pitch off, and one
	 * sample for the interpolation */
	g->ns = (int)ceil((r0 + g->win + MAX_SHIFT * pitch) / STEP) + 2;
}

size_t fs_centre_axis_len(const fs_centre_axis_geom *g)
{
	return (size_t)(g->pair ? 2 : 3 + 2 * FS_CENTRE_AXIS_OBLIQUE) * g->ns;
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
		if (!g->pair)
			prof[2 * g->ns + i] = fs_image_sample_clamped(img, x - s * ux, y - s * uy);
	}
	for (int j = 0; j < FS_CENTRE_AXIS_OBLIQUE && !g->pair; j++)
		for (int side = 0; side < 2; side++) {
			double a = g->az + (side ? -1 : 1) * oblique_deg[j] * M_PI / 180, ox = cos(a), oy = sin(a);
			double *o = prof + (size_t)(3 + 2 * j + side) * g->ns;
			for (int i = 0; i < g->ns; i++)
				o[i] = fs_image_sample_clamped(img, x + i * g->step * ox, y + i * g->step * oy);
		}
}

/* The residual share of P_u after e + a P_v(r - c b) over the window: c
 * is the cosine of P_u's direction to the axis (1 on it), along which a
 * shift b along the axis moves the base by c b. */
double fs_centre_axis_match(const double *pu, const double *pv, const fs_centre_axis_geom *g, double b, double c)
{
	double sxx = 0, sx = 0, sy = 0, sxy = 0, syy = 0;
	int m = 0;
	/* from one sample before the window's start and up to its end only:
	 * the samples outside add nothing, and the per-dome scan
	 * (centre_perdome.c) calls this 40 r0 times a dome */
	int i_lo = (int)floor((g->r0 - g->win) / g->step) - 1;
	for (int i = i_lo > 0 ? i_lo : 0; i < g->ns; i++) {
		double r = i * g->step;
		if (r > g->r0 + g->win)
			break;
		if (r < g->r0 - g->win)
			continue;
		double q = (r - c * b) / g->step;
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

/* The base and its blur as the across-axis mean profile pv shows them:
 * *at the radius of its steepest step (|slope| largest between half and
 * two and a half times r0), the blur the half-width at exp(-1/2) of that
 * |slope| (a blurred step's slope is a Gaussian of the blur's sigma; a
 * dome's own gradual foot widens it, which only keeps the gate below
 * shut). NAN when the slope's peak or either crossing is not inside the
 * profile. */
static double profile_blur(const double *pv, const fs_centre_axis_geom *g, double *at)
{
	int lo = (int)ceil(0.5 * g->r0 / g->step), hi = (int)floor(2.5 * g->r0 / g->step);
	if (lo < 1)
		lo = 1;
	if (hi > g->ns - 2)
		hi = g->ns - 2;
	int ip = -1;
	double peak = 0;
	for (int i = lo; i <= hi; i++) {
		double d = fabs(pv[i + 1] - pv[i - 1]);
		if (d > peak) {
			peak = d;
			ip = i;
		}
	}
	*at = ip * g->step;
	if (ip <= lo || ip >= hi || !(peak > 0))
		return NAN;
	double lvl = peak * exp(-0.5), edge[2];
	for (int side = 0; side < 2; side++) {
		int dir = side ? 1 : -1;
		edge[side] = NAN;
		double prev = peak;
		for (int i = ip + dir; i >= 1 && i <= g->ns - 2; i += dir) {
			double d = fabs(pv[i + 1] - pv[i - 1]);
			if (d < lvl) {
				/* linear between the two samples either side of lvl */
				edge[side] = (i - dir * (lvl - d) / (prev - d)) * g->step;
				break;
			}
			prev = d;
		}
	}
	return 0.5 * (edge[1] - edge[0]);
}

/* Whether the summed profiles (fs_centre_axis_len) are brighter against
 * the azimuth than along it, on average over [0, r0] from the centres. */
static int lit_side_reversed(const double *sum, const fs_centre_axis_geom *g)
{
	double along = 0, against = 0;
	for (int i = 0; i < g->ns && i * g->step <= g->r0; i++) {
		along += sum[i];
		against += sum[2 * g->ns + i];
	}
	return against > along;
}

/* The mean of p over the ground just beyond the window (GROUND pitch). */
static double ground_of(const double *p, const fs_centre_axis_geom *g, double pitch)
{
	double s = 0;
	int m = 0;
	for (int i = 0; i < g->ns; i++) {
		double r = i * g->step;
		if (r >= g->r0 + g->win && r <= g->r0 + g->win + GROUND * pitch) {
			s += p[i];
			m++;
		}
	}
	return m ? s / m : NAN;
}

/* The scan of the shift of the summed profile pu (along the axis, or at
 * angle acos(c) to it) against pv (across it). */
static void scan_shift(const double *pu, const double *pv, const fs_centre_axis_geom *g, double reach, double c,
		       fs_centre_axis *out)
{
	int nb = (int)floor(reach / SCAN);
	double best = INFINITY;
	int kb = 0;
	for (int k = -nb; k <= nb; k++) {
		double r = fs_centre_axis_match(pu, pv, g, k * SCAN, c);
		if (r < best) {
			best = r;
			kb = k;
		}
	}
	out->shift = kb * SCAN;
	out->residual = best;
	out->end = kb == -nb || kb == nb;
	if (!isfinite(best) || out->end || best > MAX_RESIDUAL)
		return;
	out->ok = 1;
	fs_centre_axis_set_move(out);
}

void fs_centre_axis_set_move(fs_centre_axis *a)
{
	a->dx = a->shift * cos(a->az);
	a->dy = a->shift * sin(a->az);
}

int fs_centre_axis_gap_resolved(const fs_centre_axis_geom *g, double pitch)
{
	return 2 * (g->r0 + g->win) + GROUND * pitch < pitch;
}

int fs_centre_axis_estimate(const double *profs, size_t n, const fs_centre_axis_geom *g, double pitch,
			    fs_centre_axis *out)
{
	memset(out, 0, sizeof *out);
	out->az = g->az;
	out->r0 = g->r0;
	out->vblur = NAN;
	size_t len = fs_centre_axis_len(g);
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
	/* The lit side is the brighter one: the formation fit's azimuth,
	 * fitted at centres locked onto the lit flank, can point away from
	 * the detector (h35c: fill 0.5, pitch 40, -171 deg for 0), and a
	 * shift read there moves the centres further off. Its mean over the
	 * base radius against the opposite side's decides the axis. */
	const double *pu = sum;
	if (lit_side_reversed(sum, g)) {
		out->az = g->az + M_PI;
		out->reversed = 1;
		pu = sum + 2 * g->ns;
	}
	int shut = g->r0 < MIN_R_SIGMA * g->sigma;
	if (out->used < MIN_USED) {
		if (shut)
			out->used = 0;
		free(sum);
		return 0;
	}
	fs_centre_axis_geom own = *g;
	double reach = MAX_SHIFT * pitch;
	if (shut) {
		/* The formation's blur holds the detected centres' scatter
		 * (dome_fit.c), which does not blur the image: where centres
		 * locked onto a low dome's lit flank scatter, it reads 0.1
		 * pitch against 0.03 and would call a resolved base shading
		 * (h34i: fill 0.5, pitch 32-40). Judged again at the blur the
		 * across-axis profile itself shows, where that is smaller. */
		double rv = NAN, sv = profile_blur(sum + g->ns, g, &rv);
		if (!(sv < g->sigma) || rv < MIN_R_SIGMA * fmax(0.5, sv)) {
			out->used = 0;
			free(sum);
			return 0;
		}
		out->own = 1;
		own.r0 = out->r0 = rv;
		own.sigma = fmax(0.5, sv);
		own.win = WIN * own.sigma;
		/* centres that locked onto a lit flank sit further off than
		 * the scan's usual reach: as far as the profiles read hold */
		reach = fmin(OWN_MAX_SHIFT * pitch, (g->ns - 2) * g->step - own.r0 - own.win);
	}
	out->win = own.win;
	double c = 1;
	double *obl = NULL;
	if (!shut && !out->reversed) {
		/* A neighbour's cast shadow on the lit side (h37j): where the
		 * neighbours stand closer than the shadow is long and one
		 * lies near the axis ahead, its shadow covers the ground up
		 * to the base and the base's foot, the lit side's bright
		 * flank ends short of the base, and the shift read along the
		 * axis moves the centres away from the detector (corner
		 * scenes 37, 39, 55: -0.3 to -0.4 px from the true centres,
		 * -0.03 where that neighbour is missing). The shadow is told
		 * by the ground beyond the window, which a flat ground shows
		 * as bright on every side but in a shadow; where the gap
		 * holds that ground clear of the neighbour's foot and the
		 * axis's is shadowed, the shift is read along the nearest
		 * oblique direction whose ground is not (either side, or
		 * both summed), none moved when every one is. */
		double gv = ground_of(sum + g->ns, g, pitch);
		int resolved = fs_centre_axis_gap_resolved(g, pitch);
		out->ground = gv > 0 ? ground_of(pu, g, pitch) / gv : NAN;
		if (resolved && out->ground < SHADOWED) {
			out->shadowed = 1;
			obl = calloc((size_t)g->ns, sizeof *obl);
			if (!obl) {
				free(sum);
				return -1;
			}
			for (int j = 0; j < FS_CENTRE_AXIS_OBLIQUE && !out->oblique; j++)
				for (int side = 0; side < 2; side++) {
					const double *o = sum + (size_t)(3 + 2 * j + side) * g->ns;
					if (!(ground_of(o, g, pitch) >= SHADOWED * gv))
						continue;
					for (int i = 0; i < g->ns; i++)
						obl[i] += o[i];
					out->oblique = oblique_deg[j];
				}
			if (!out->oblique) {
				free(obl);
				free(sum);
				return 0;
			}
			pu = obl;
			c = cos(out->oblique * M_PI / 180);
		}
	}
	scan_shift(pu, sum + g->ns, &own, reach, c, out);
	if (g->vblur && out->ok && !shut && !out->reversed) {
		/* (for centre_axis_calib.h's mode 2, the one reader) */
		double rv;
		out->vblur = profile_blur(sum + g->ns, g, &rv);
	}
	free(obl);
	free(sum);
	return 0;
}
