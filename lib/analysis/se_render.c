/* se_render.c - a dome lattice through the SE image formation, split into
 * linear parts (see se_render.h). */
#include "analysis/se_render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A grazing slope's yield would grow without bound; real surfaces round
 * their steepest facets, and the cap keeps one steep ring from outweighing
 * the rest of the patch. */
#define SEC_CAP 6.0
/* Convexity (1 / grid unit), capped for the same reason where a flat top
 * bends into a steep side. */
#define EDGE_CAP 1.0

/* fmax(lo, v) and fmin(hi, v) for a bound that is a number (never NAN):
 * the bound where v is NAN, as libm's, and libm's +0 for fmax(0, -0)
 * too. Inline: libm's calls, three a component subsample and one a
 * height, were about a million a P1 Fig1 detection's renders, at eight
 * instructions a call (h46f). */
static inline double at_least(double lo, double v)
{
	return v > lo ? v : lo;
}

static inline double at_most(double hi, double v)
{
	return v < hi ? v : hi;
}

/* The dome's height h, slope h' and curvature h'' at u = r / R (0..1) for
 * height H (R = 1): the profile blends the spherical cap (0) into the
 * paraboloid (1), then sharpens the shoulder (1 - u^k with k from 2 at 1
 * to 6 at 2: a flat top with steep sides). Analytic, so that the slopes do
 * not depend on the grid. */
static void dome_shape(double u, double H, double profile, double *h, double *h1, double *h2)
{
	if (profile <= 1) {
		double rs = (1 + H * H) / (2 * H), q = at_least(1e-9, rs * rs - u * u), sq = sqrt(q);
		double w = 1 - profile;
		*h = w * (sq - (rs - H)) + profile * H * (1 - u * u);
		*h1 = w * (-u / sq) + profile * (-2 * H * u);
		*h2 = w * (-rs * rs / (q * sq)) + profile * (-2 * H);
		return;
	}
	double k = 2 + 4 * (profile - 1);
	*h = H * (1 - pow(u, k));
	*h1 = -H * k * pow(u, k - 1);
	*h2 = -H * k * (k - 1) * pow(u, k - 2);
}

/* dome_shape's height alone, the same expressions: a height sample reads
 * no slope or curvature, and the flat-topped profile's two pow() calls
 * for them were most of its cost there. */
static double dome_height(double u, double H, double profile)
{
	if (profile <= 1) {
		double rs = (1 + H * H) / (2 * H), q = at_least(1e-9, rs * rs - u * u), sq = sqrt(q);
		double w = 1 - profile;
		return w * (sq - (rs - H)) + profile * H * (1 - u * u);
	}
	double k = 2 + 4 * (profile - 1);
	return H * (1 - pow(u, k));
}

/* dome_shape with a smooth foot (se_render.h, fs_se_geom.foot): the
 * height fraction s = h0 / H to the power m. Why a power of the sharp
 * profiles and not a new family: the sharp-footed shapes stay its m = 1
 * member to the bit, so a fit that may choose the foot loses nothing
 * where the image shows a sharp one, and the top (s = 1) keeps its
 * height while only the lower flank and the foot change. */
static void dome_shape_foot(double u, double H, double profile, double foot, double *h, double *h1, double *h2)
{
	dome_shape(u, H, profile, h, h1, h2);
	if (!(foot > 1))
		return;
	double s = *h / H;
	if (!(s > 0)) {
		*h = *h1 = *h2 = 0;
		return;
	}
	/* (the foot search's grid, fs_dome_fit, is whole and half powers:
	 * s^(m - 1) made by products and a square root there, pow() only
	 * off the grid - pow() was a third of a fine render, h44g) */
	double e = foot - 1, sm1;
	if (e == 0.5)
		sm1 = sqrt(s);
	else if (e == 1)
		sm1 = s;
	else if (e == 1.5)
		sm1 = s * sqrt(s);
	else if (e == 2)
		sm1 = s * s;
	else if (e == 3)
		sm1 = s * s * s;
	else
		sm1 = pow(s, e);
	double d1 = *h1, d2 = *h2;
	*h = H * sm1 * s;
	*h1 = foot * sm1 * d1;
	*h2 = foot * (foot - 1) * (sm1 / s) * d1 * d1 / H + foot * sm1 * d2;
}

void fs_se_dome_shape(double u, double H, double profile, double *h, double *h1, double *h2)
{
	dome_shape(u, H, profile, h, h1, h2);
}

void fs_se_dome_shape_foot(double u, double H, double profile, double foot, double *h, double *h1, double *h2)
{
	dome_shape_foot(u, H, profile, foot, h, h1, h2);
}

/* The Laplacian of R h(r / R) per grid unit at u = r / R, from the
 * profile's slope h1 and curvature h2 there: (h'' + h' / u) / R, whose
 * limit at the top (u -> 0, h' -> 0) is 2 h'' / R. The render's edge
 * part and fs_se_edge_px read the same convexity. */
static inline double lap_grid(double u, double h1, double h2, double R)
{
	return u > 1e-6 ? (h2 + h1 / u) / R : 2 * h2 / R;
}

void fs_se_field_free(fs_se_field *f)
{
	if (!f)
		return;
	free(f->z);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		free(f->c[k]);
	memset(f, 0, sizeof *f);
}

static int field_alloc(fs_se_field *f, int half, int zhalf)
{
	if (f->z && f->half == half && f->zhalf == zhalf)
		return 0;
	int g = f->g;
	fs_se_field_free(f);
	f->g = g;
	size_t nz = (size_t)(2 * zhalf + 1) * (2 * zhalf + 1), nc = (size_t)(2 * half + 1) * (2 * half + 1);
	f->z = malloc(nz * sizeof *f->z);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		f->c[k] = malloc(nc * sizeof *f->c[k]);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		if (!f->c[k]) {
			fs_se_field_free(f);
			return -1;
		}
	if (!f->z) {
		fs_se_field_free(f);
		return -1;
	}
	f->half = half;
	f->zhalf = zhalf;
	return 0;
}

/* What every render starts with: the arguments checked, the field's
 * arrays, the heights zeroed and the flat surface's components (yield 1,
 * nothing else). Returns -1 as fs_se_render does. */
static int render_begin(const fs_se_geom *m, int g, int half, int reach, fs_se_field *f)
{
	if (g < 4 || half < 1 || reach < 0 || !(m->fill > 0) || m->fill >= 1 || !(m->h_over_r > 0))
		return -1;
	int zhalf = half + reach + 1;
	f->g = g;
	if (field_alloc(f, half, zhalf))
		return -1;
	int zw = 2 * zhalf + 1, cw = 2 * half + 1;
	for (int k = 0; k < zw * zw; k++)
		f->z[k] = 0;
	f->zmax = 0;
	/* The components are averages over 2 x 2 subsamples of each grid
	 * sample (what a pixel integrates); the flat surface gives yield 1
	 * and nothing else, a dome replaces its subsamples' share. */
	for (int k = 0; k < cw * cw; k++) {
		f->c[FS_SE_YIELD][k] = 1;
		f->c[FS_SE_SLOPE_X][k] = f->c[FS_SE_SLOPE_Y][k] = f->c[FS_SE_EDGE][k] = f->c[FS_SE_SHADOW][k] = 0;
	}
	return 0;
}

/* A height sample at u (< 1) of the dome, into z[i]. */
static void add_height(const fs_se_geom *m, int smooth, double R, double u, fs_se_field *f, size_t i)
{
	double h, h1, h2;
	if (smooth)
		dome_shape_foot(u, m->h_over_r, m->profile, m->foot, &h, &h1, &h2);
	else
		h = dome_height(u, m->h_over_r, m->profile);
	float zv = (float)(R * h);
	f->z[i] = zv;
	f->zmax = zv > f->zmax ? zv : f->zmax;
}

/* A component subsample at (px, py) from its site, rr = hypot(px, py),
 * uu = rr / R (< 1), added into the components' sample o. */
static void add_sub(const fs_se_geom *m, int smooth, double R, double px, double py, double rr, double uu,
		    double edge_cap, fs_se_field *f, size_t o)
{
	double h, h1, h2;
	if (smooth)
		dome_shape_foot(uu, m->h_over_r, m->profile, m->foot, &h, &h1, &h2);
	else
		dome_shape(uu, m->h_over_r, m->profile, &h, &h1, &h2);
	/* gradient h' along the radius; its direction is undefined at the
	 * top, where h' is 0 */
	double gx = rr > 1e-9 ? h1 * px / rr : 0, gy = rr > 1e-9 ? h1 * py / rr : 0;
	double sec = at_most(SEC_CAP, sqrt(1 + h1 * h1));
	double lap = lap_grid(uu, h1, h2, R);
	f->c[FS_SE_YIELD][o] += (float)((sec - 1) / 4);
	f->c[FS_SE_SLOPE_X][o] += (float)(-gx / 4);
	f->c[FS_SE_SLOPE_Y][o] += (float)(-gy / 4);
	f->c[FS_SE_EDGE][o] += (float)(at_most(edge_cap, at_least(0, -lap)) / 4);
}

/* The sites' loop: every height sample and component subsample that lies
 * on a dome, in the order a render adds them. With f, each is rendered
 * as it is found; with p (and f NULL), it is written into the plan. */
static int sites_loop(const fs_se_geom *m, int g, int half, int reach, double edge_cap, fs_se_field *f,
		      fs_se_plan *p);

int fs_se_render(const fs_se_geom *m, int g, int half, int reach, fs_se_field *f)
{
	return fs_se_render_cap(m, g, half, reach, EDGE_CAP, f);
}

int fs_se_render_cap(const fs_se_geom *m, int g, int half, int reach, double edge_cap, fs_se_field *f)
{
	if (!(edge_cap > 0) || render_begin(m, g, half, reach, f))
		return -1;
	return sites_loop(m, g, half, reach, edge_cap, f, NULL);
}

static int plan_push_z(fs_se_plan *p, size_t i, double u)
{
	if (p->nz == p->capz) {
		size_t cap = p->capz ? 2 * p->capz : 1024;
		fs_se_plan_z *z = realloc(p->z, cap * sizeof *z);
		if (!z)
			return -1;
		p->z = z;
		p->capz = cap;
	}
	p->z[p->nz++] = (fs_se_plan_z){i, u};
	return 0;
}

static int plan_push_sub(fs_se_plan *p, size_t o, double px, double py, double rr, double uu)
{
	if (p->ns == p->caps) {
		size_t cap = p->caps ? 2 * p->caps : 4096;
		fs_se_plan_sub *s = realloc(p->sub, cap * sizeof *s);
		if (!s)
			return -1;
		p->sub = s;
		p->caps = cap;
	}
	p->sub[p->ns++] = (fs_se_plan_sub){o, px, py, rr, uu};
	return 0;
}

static int sites_loop(const fs_se_geom *m, int g, int half, int reach, double edge_cap, fs_se_field *f,
		      fs_se_plan *p)
{
	int zhalf = half + reach + 1;
	int zw = 2 * zhalf + 1, cw = 2 * half + 1;
	double R = 0.5 * m->fill * g;
	/* the sharp profiles' renders (every one the rule makes) call the
	 * shape without the foot's test per sample */
	int smooth = m->foot > 1;
	double ax = g * cos(m->angle), ay = g * sin(m->angle);
	double bx = g * cos(m->angle + M_PI / 3), by = g * sin(m->angle + M_PI / 3);
	int span = zhalf / g + 2;
	/* Sites never overlap below fill 1, so each point lies on one dome. */
	for (int i = -span; i <= span; i++) {
		for (int j = -span; j <= span; j++) {
			double sx = i * ax + j * bx, sy = i * ay + j * by;
			int x0 = (int)floor(sx - R) - 1, x1 = (int)ceil(sx + R) + 1;
			int y0 = (int)floor(sy - R) - 1, y1 = (int)ceil(sy + R) + 1;
			if (x1 < -zhalf || y1 < -zhalf || x0 > zhalf || y0 > zhalf)
				continue;
			for (int y = y0 < -zhalf ? -zhalf : y0; y <= y1 && y <= zhalf; y++)
				for (int x = x0 < -zhalf ? -zhalf : x0; x <= x1 && x <= zhalf; x++) {
					/* a point 0.75 beyond the base, and its
					 * subsamples (0.36 from it), are off the
					 * dome for any rounding of hypot(): nothing
					 * to add (most of the site's box, whose
					 * hypot() calls were a third of a render) */
					double ex = x - sx, ey = y - sy;
					if (ex * ex + ey * ey > (R + 0.75) * (R + 0.75))
						continue;
					double r = hypot(x - sx, y - sy), u = r / R;
					if (u < 1) {
						size_t zi = (size_t)(y + zhalf) * zw + (x + zhalf);
						if (f)
							add_height(m, smooth, R, u, f, zi);
						else if (plan_push_z(p, zi, u))
							return -1;
					}
					if (x < -half || y < -half || x > half || y > half)
						continue;
					size_t o = (size_t)(y + half) * cw + (x + half);
					for (int b = 0; b < 2; b++)
						for (int a = 0; a < 2; a++) {
							double px = x + (a - 0.5) / 2 - sx, py = y + (b - 0.5) / 2 - sy;
							if (px * px + py * py > R * R * (1 + 1e-6))
								continue; /* off the dome, as below */
							double rr = hypot(px, py), uu = rr / R;
							if (uu >= 1)
								continue;
							if (f)
								add_sub(m, smooth, R, px, py, rr, uu, edge_cap, f, o);
							else if (plan_push_sub(p, o, px, py, rr, uu))
								return -1;
						}
				}
		}
	}
	return 0;
}

void fs_se_plan_free(fs_se_plan *p)
{
	if (!p)
		return;
	free(p->z);
	free(p->sub);
	memset(p, 0, sizeof *p);
}

/* Why per image px: electrons escape a convex rim within a physical
 * depth, so the brightening saturates at a curvature fixed in the image's
 * pixels whatever the render's grid (h40b; h43b: at 64 samples a pitch
 * EDGE_CAP per grid unit is 4 px^-1). Why through the plan: the sites,
 * subsamples and profile are then the render's own (sites_loop), so the
 * part sits in the same pixel as the others and no second copy of the
 * lattice's walk can drift from it (stop 44's review). */
int fs_se_edge_px(const fs_se_geom *m, int g, int half, double px_per_sample, double cap_px, float *out)
{
	if (g < 4 || half < 1 || !(px_per_sample > 0) || !(cap_px > 0) || !(m->fill > 0) || m->fill >= 1 ||
	    !(m->h_over_r > 0))
		return -1;
	int cw = 2 * half + 1;
	memset(out, 0, (size_t)cw * cw * sizeof *out);
	fs_se_plan p;
	memset(&p, 0, sizeof p);
	if (sites_loop(m, g, half, 0, EDGE_CAP, NULL, &p)) {
		fs_se_plan_free(&p);
		return -1;
	}
	double R = 0.5 * m->fill * g, H = m->h_over_r;
	/* A sample's subsamples on one dome are consecutive in the plan, 0.5
	 * apart about that dome's site (another site is g >= 4 samples off,
	 * at least 2.8 along x or y); each such group is summed in double
	 * and added once, so a sample whose subsamples lie on two domes
	 * (where the domes all but touch) adds each dome's share on its
	 * own, as this part always has. */
	for (size_t k = 0; k < p.ns;) {
		const fs_se_plan_sub *s0 = &p.sub[k];
		double acc = 0;
		for (; k < p.ns; k++) {
			const fs_se_plan_sub *s = &p.sub[k];
			if (s->o != s0->o || fabs(s->px - s0->px) > 1 || fabs(s->py - s0->py) > 1)
				break;
			double h, h1, h2;
			dome_shape_foot(s->uu, H, m->profile, m->foot, &h, &h1, &h2);
			/* a sample is px_per_sample px */
			acc += at_most(cap_px, at_least(0, -lap_grid(s->uu, h1, h2, R) / px_per_sample));
		}
		out[s0->o] += (float)(acc / 4);
	}
	fs_se_plan_free(&p);
	return 0;
}

int fs_se_render_planned(const fs_se_geom *m, int g, int half, int reach, fs_se_field *f, fs_se_plan *p)
{
	if (render_begin(m, g, half, reach, f))
		return -1;
	/* the key compared by its bits: a plan is reused only for the very
	 * support and lattice it was made for */
	int same = p->key_set && !memcmp(&p->fill, &m->fill, sizeof p->fill) &&
		   !memcmp(&p->angle, &m->angle, sizeof p->angle) && p->g == g && p->half == half && p->reach == reach;
	if (!same) {
		/* a first render of this support: rendered as it is found (a
		 * fit that moves the support every render pays nothing for
		 * the plan) */
		p->fill = m->fill;
		p->angle = m->angle;
		p->g = g;
		p->half = half;
		p->reach = reach;
		p->key_set = 1;
		p->built = 0;
		return sites_loop(m, g, half, reach, EDGE_CAP, f, NULL);
	}
	if (!p->built) {
		p->nz = p->ns = 0;
		if (sites_loop(m, g, half, reach, EDGE_CAP, NULL, p)) {
			p->key_set = 0;
			return sites_loop(m, g, half, reach, EDGE_CAP, f, NULL);
		}
		p->built = 1;
	}
	double R = 0.5 * m->fill * g;
	int smooth = m->foot > 1;
	for (size_t k = 0; k < p->nz; k++)
		add_height(m, smooth, R, p->z[k].u, f, p->z[k].i);
	for (size_t k = 0; k < p->ns; k++) {
		const fs_se_plan_sub *s = &p->sub[k];
		add_sub(m, smooth, R, s->px, s->py, s->rr, s->uu, EDGE_CAP, f, s->o);
	}
	return 0;
}

/* lround for |v| < 2^31, inline: v - (int)v is exact, and a library call
 * per step of every shadow ray was a third of fs_se_shadow */
static int round_half_away(double v)
{
	int t = (int)v;
	double fr = v - t;
	return fr >= 0.5 ? t + 1 : fr <= -0.5 ? t - 1 : t;
}

/* The rays' steps of fs_se_shadow: a ray from grid point (x, y) visits
 * (x, y) + (dx[k], dy[k]) at step k (1..n), the rounding of its real
 * position: with x and y whole numbers, rounding x + k cos(az) is x plus
 * the rounding of k cos(az) but for an exact half, so every ray walks the
 * same offsets, rounded once per field instead of once per step of every
 * ray. The offsets only grow (or only shrink) along each axis, so a ray
 * leaves the height field for good at the first step outside it: the
 * last step inside is found once per column (and row) of the field
 * instead of tested at every step. */
#define SHADOW_STEPS_MAX 512

/* The last step (0..ns) of a ray from coordinate v whose steps' offsets
 * d[1..ns] stay within [-zh, zh]. */
static int steps_inside(int v, const int *d, int ns, int zh)
{
	int k = 0;
	while (k < ns && v + d[k + 1] >= -zh && v + d[k + 1] <= zh)
		k++;
	return k;
}

void fs_se_shadow(fs_se_field *f, double az, double el)
{
	int zw = 2 * f->zhalf + 1, cw = 2 * f->half + 1, zh = f->zhalf;
	double ca = cos(az), sa = sin(az), te = tan(el);
	float zmax = f->zmax;
	/* the longest ray (heights are >= 0) */
	double lmax = te > 1e-6 ? zmax / te : 0;
	int ns = lmax < SHADOW_STEPS_MAX ? (int)lmax : SHADOW_STEPS_MAX;
	int dxs[SHADOW_STEPS_MAX + 1], dys[SHADOW_STEPS_MAX + 1];
	ptrdiff_t off[SHADOW_STEPS_MAX + 1];
	/* the ray's rise at each step, k te, the product every step of every
	 * ray made again (h50a: the same product, so the same bits) */
	double rise[SHADOW_STEPS_MAX + 1];
	for (int k = 1; k <= ns; k++) {
		dxs[k] = round_half_away(k * ca);
		dys[k] = round_half_away(k * sa);
		off[k] = (ptrdiff_t)dys[k] * zw + dxs[k];
		rise[k] = k * te;
	}
	/* per column (kxs[x + half]; counted at each point without the
	 * memory) */
	int *kxs = malloc((size_t)cw * sizeof *kxs);
	for (int x = -f->half; kxs && x <= f->half; x++)
		kxs[x + f->half] = steps_inside(x, dxs, ns, zh);
	for (int y = -f->half; y <= f->half; y++) {
		int ky = steps_inside(y, dys, ns, zh);
		for (int x = -f->half; x <= f->half; x++) {
			size_t o = (size_t)(y + f->half) * cw + (x + f->half);
			const float *zp = f->z + (size_t)(y + zh) * zw + (x + zh);
			double z0 = *zp;
			double len = te > 1e-6 ? (zmax - z0) / te : 0;
			int blocked = 0;
			if (len < ns + 1) {
				int kx = kxs ? kxs[x + f->half] : steps_inside(x, dxs, ns, zh), kn = kx < ky ? kx : ky;
				/* the last step, whole, that k <= len and k <= kn
				 * let through (0 <= len < ns + 1), found once
				 * instead of tested at every step (h46f) */
				int kl = (int)len;
				if (kl > kn)
					kl = kn;
				for (int k = 1; k <= kl; k++)
					if (zp[off[k]] > z0 + rise[k]) {
						blocked = 1;
						break;
					}
			} else {
				for (double st = 1; st <= len && !blocked; st += 1) {
					int xx = round_half_away(x + st * ca), yy = round_half_away(y + st * sa);
					if (xx < -zh || yy < -zh || xx > zh || yy > zh)
						break;
					blocked = f->z[(size_t)(yy + zh) * zw + (xx + zh)] > z0 + st * te;
				}
			}
			f->c[FS_SE_SHADOW][o] = blocked ? f->c[FS_SE_YIELD][o] : 0;
		}
	}
	free(kxs);
}

/* The shadow's outline beyond the base along a ray at phi from the away
 * direction is that of the dome's horizontal slices (radius u at height
 * h(u)) each cast h(u) / tan(e) away from the detector: along the ray the
 * slice reaches u + h(u) cos(phi) / tan(e) for small casts, the farthest
 * slice setting the outline. So the ray sees the dome at an effective
 * elevation tan(e) / cos(phi), and only the foot steeper than that casts
 * beyond the base. */
double fs_se_shadow_reach(double h_over_r, double profile, double el)
{
	if (!(h_over_r > 0) || !(el > 0) || el >= M_PI / 2)
		return 0;
	double te = tan(el), best = 1;
	/* the outline's farthest slice, on 200 heights of u (the foot is
	 * where it lies; a step of 0.005 R moves it by less than 0.0001 R:
	 * the maximum is flat there) */
	for (int i = 0; i <= 200; i++) {
		double u = i / 200.0, h, h1, h2;
		dome_shape(u, h_over_r, profile, &h, &h1, &h2);
		double v = u + h / te;
		if (v > best)
			best = v;
	}
	return best - 1;
}

void fs_se_shadow_rays(double h_over_r, double profile, double el, double cap, double *mean, double *a2)
{
	*mean = *a2 = 0;
	if (!(h_over_r > 0) || !(el > 0) || el >= M_PI / 2)
		return;
	/* 32 rays, as the base rule's; those facing the detector (cos phi
	 * <= 0) cast nothing beyond the base */
	enum { NR = 32 };
	double te = tan(el);
	for (int k = 0; k < NR; k++) {
		double phi = 2 * M_PI * k / NR, c = cos(phi);
		if (c <= 1e-9)
			continue;
		double r = fs_se_shadow_reach(h_over_r, profile, atan(te / c));
		if (r > cap)
			continue;
		*mean += r / NR;
		*a2 += 2 * r * cos(2 * phi) / NR;
	}
}
