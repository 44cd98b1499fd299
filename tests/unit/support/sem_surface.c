/* sem_surface.c - the simulator's continuous surface and SE signal (see
 * sem_surface.h). */
#include "sem_surface.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The smooth dome with its foot changed (sem_surface_foot): u = r / R
 * with R the support, v = u x stretch in units of the core's radius, w
 * the point of the cos^2 (to the power) profile that v shows: v itself in
 * the core, the tail beyond foot_from stretched to end at v = stretch.
 * *k = dw/dv. */
static double foot_w(const sem_surface *s, double u, double *k)
{
	double st = s->foot_stretch > 0 ? s->foot_stretch : 1, ut = s->foot_from, v = u * st;
	if (st == 1 || v < ut) {
		*k = 1;
		return v;
	}
	*k = (1 - ut) / (st - ut);
	return ut + (v - ut) * *k;
}

/* c^a, c = (1 + cos pi w) / 2, and its first two derivatives in w */
static void foot_base(const sem_surface *s, double w, double *b0, double *b1, double *b2)
{
	double a = s->foot_power > 0 ? s->foot_power : 1, c = 0.5 * (1 + cos(M_PI * w));
	double c1 = -0.5 * M_PI * sin(M_PI * w), c2 = -0.5 * M_PI * M_PI * cos(M_PI * w);
	if (w >= 1 || !(c > 1e-300)) { /* the support's edge: flat for a > 1/2 */
		*b0 = *b1 = *b2 = 0;
		return;
	}
	if (a == 1) {
		*b0 = c;
		*b1 = c1;
		*b2 = c2;
		return;
	}
	double ca1 = pow(c, a - 1);
	*b0 = ca1 * c;
	*b1 = a * ca1 * c1;
	*b2 = a * (ca1 * c2 + (a - 1) * ca1 / c * c1 * c1);
}

/* Dome height at u = r / R in [0, 1] for height H (base radius 1):
 * profile 0..1 blends the spherical cap into the paraboloid, 1..2 raises
 * the exponent of 1 - u^k from 2 to 6 (a flat top with steep sides);
 * SEM_PROFILE_SMOOTH is the smooth-footed cos^2 dome, H cos^2(pi u / 2)
 * (sem_surface.h), its foot changed by sem_surface_foot. Every profile
 * is at most H high (H at the top; a stretched foot's core lower), so R H
 * bounds a dome's height. */
static double dome_f(const sem_surface *s, double u)
{
	if (u >= 1)
		return 0;
	double H = s->h_over_r, profile = s->profile;
	if (profile <= 1) {
		/* the corners' profiles 0 and 1 take one term alone: the other's
		 * weight 0 adds +0 or -0 to a value that is not -0 (the cap's
		 * height minus a positive or zero Rs - H), the same bits */
		if (profile == 0)
			return sqrt(fmax(0, s->Rs2 - u * u)) - s->RsH;
		if (profile == 1)
			return H * (1 - u * u);
		double sph = sqrt(fmax(0, s->Rs2 - u * u)) - s->RsH;
		double par = H * (1 - u * u);
		return (1 - profile) * sph + profile * par;
	}
	if (profile == SEM_PROFILE_SMOOTH) {
		if (s->foot_power == 0 && s->foot_stretch == 0) /* the cos^2 dome, its bits as before h42h */
			return H * 0.5 * (1 + cos(M_PI * u));
		/* the core's top is H R0 = H R / stretch (stretch >= 1: R H
		 * still bounds the height) */
		double k, b0, b1, b2, st = s->foot_stretch > 0 ? s->foot_stretch : 1;
		foot_base(s, foot_w(s, u, &k), &b0, &b1, &b2);
		return H * b0 / st;
	}
	double k = 2 + 4 * (profile - 1);
	if (k == 6) /* the flat-topped corner: pow is the simulator's hot spot */
		return H * (1 - u * u * u * u * u * u);
	return H * (1 - pow(u, k));
}

/* f'(u), and f''(u) + f'(u) / u (the Laplacian of R f(r / R) times R),
 * analytic: the slope step at the base stays at the base. */
static void dome_df(const sem_surface *s, double u, double *d1, double *lapR)
{
	double H = s->h_over_r, profile = s->profile;
	if (profile <= 1) {
		/* profile 1: the cap's terms times 0 are -0 (they are <= 0), and
		 * -0 + v is v: the paraboloid's alone, without the sqrt */
		if (profile == 1) {
			*d1 = -2 * H * u;
			*lapR = -4 * H;
			return;
		}
		double Rs = s->Rs;
		double q = fmax(1e-12, s->Rs2 - u * u), sq = sqrt(q);
		double sph1 = -u / sq, sphl = -Rs * Rs / (q * sq) - 1 / sq;
		if (profile == 0) { /* + 0 * (a value <= 0) adds -0: none */
			*d1 = sph1;
			*lapR = sphl;
			return;
		}
		*d1 = (1 - profile) * sph1 + profile * (-2 * H * u);
		*lapR = (1 - profile) * sphl + profile * (-4 * H);
		return;
	}
	if (profile == SEM_PROFILE_SMOOTH && (s->foot_power != 0 || s->foot_stretch != 0)) {
		/* z / R = H b(w) / st, dw/du = k st: f' = H b'(w) k, f'' = H b''(w)
		 * k^2 st; at the top b' = 0, so f' / u tends to f'' there */
		double k, b0, b1, b2, st = s->foot_stretch > 0 ? s->foot_stretch : 1;
		foot_base(s, foot_w(s, u, &k), &b0, &b1, &b2);
		*d1 = H * b1 * k;
		double d2 = H * b2 * k * k * st;
		*lapR = d2 + (u > 1e-9 ? *d1 / u : d2);
		return;
	}
	if (profile == SEM_PROFILE_SMOOTH) {
		/* f' = -H pi/2 sin(pi u), f'' = -H pi^2/2 cos(pi u); f' / u tends
		 * to -H pi^2 / 2 at the top */
		double s1 = sin(M_PI * u);
		*d1 = -H * 0.5 * M_PI * s1;
		*lapR = -H * 0.5 * M_PI * M_PI * cos(M_PI * u) +
			(u > 1e-9 ? *d1 / u : -H * 0.5 * M_PI * M_PI);
		return;
	}
	double k = 2 + 4 * (profile - 1);
	double uk2 = k == 6 ? u * u * u * u : pow(u, k - 2);
	*d1 = -H * k * uk2 * u;
	*lapR = -H * k * k * uk2;
}

/*
 * The leaning smooth-footed dome (sem_surface_lean): the cos^2 profile
 * H R cos^2(pi rho / 2) in rho, the distance from the top (the base's
 * centre moved by lean R along the lean's direction) over the distance
 * from the top to the base circle along the same ray, so the base stays
 * the circle of radius R about the centre (the truth) while the flank on
 * the lean's side is shorter and steeper. Why: P1 Fig4's lobe pairs
 * (docs/paper-figures.md, h37i) show a dark lobe further out and narrower
 * than the bright one, which no centred profile gives. Height and slope
 * are analytic: with v the point from the top, w its unit vector, c the
 * top's offset, b = c.w, q = sqrt(b^2 - |c|^2 + R^2), L = q - b, the
 * gradient of rho = |v| / L is w / L - (b / q - 1)(c - b w) / L^2.
 * (dx, dy) is the point from the base's centre; inside the base only.
 */
static void lean_at(const sem_surface *s, const sem_dome *d, double dx, double dy, double *z, double *gx,
		    double *gy)
{
	double R = d->R, cx = s->lean_x * R, cy = s->lean_y * R;
	double vx = dx - cx, vy = dy - cy, vl = sqrt(vx * vx + vy * vy);
	*z = 0;
	*gx = *gy = 0;
	if (dx * dx + dy * dy >= R * R)
		return;
	if (vl < 1e-9 * R) { /* the top: flat */
		*z = s->h_over_r * R;
		return;
	}
	double wx = vx / vl, wy = vy / vl, b = cx * wx + cy * wy;
	double q = sqrt(fmax(0, b * b - (cx * cx + cy * cy) + R * R)), L = q - b;
	double rho = vl / L;
	if (rho >= 1)
		return;
	*z = s->h_over_r * R * 0.5 * (1 + cos(M_PI * rho));
	double k = b / q - 1, rx = wx / L - k * (cx - b * wx) / (L * L), ry = wy / L - k * (cy - b * wy) / (L * L);
	double dz = -s->h_over_r * R * 0.5 * M_PI * sin(M_PI * rho);
	*gx = dz * rx;
	*gy = dz * ry;
}

/* Its Laplacian for the edge brightening, by central differences of the
 * analytic slope over 1e-3 R (the term is clipped to [0, 1.5] and smooth
 * inside the base; the base circle itself is where the slope is 0). */
static double lean_lap(const sem_surface *s, const sem_dome *d, double dx, double dy)
{
	double e = 1e-3 * d->R, z, ax, ay, bx, by;
	lean_at(s, d, dx + e, dy, &z, &ax, &ay);
	lean_at(s, d, dx - e, dy, &z, &bx, &by);
	double l = (ax - bx) / (2 * e);
	lean_at(s, d, dx, dy + e, &z, &ax, &ay);
	lean_at(s, d, dx, dy - e, &z, &bx, &by);
	return l + (ay - by) / (2 * e);
}

/* A dome's height at (dx, dy) from its centre, either profile family. */
static double dome_height(const sem_surface *s, const sem_dome *d, double dx, double dy)
{
	if (s->lean != 0) {
		double z, gx, gy;
		lean_at(s, d, dx, dy, &z, &gx, &gy);
		return z;
	}
	return d->R * dome_f(s, sqrt(dx * dx + dy * dy) / d->R);
}

static double und_z(const sem_surface *s, double x, double y)
{
	return 0.5 * s->und_amp * (sin(s->k1x * x + s->k1y * y + s->p1) + sin(s->k2x * x + s->k2y * y + s->p2));
}

/* The undulation interpolated from its samples on the pixel grid (and a
 * margin around the frame): within 1e-3 px of height of und_z, and several
 * times cheaper for the shadow searches, which compare it only with
 * itself (und_grid at the path's start), so that a point's own dome never
 * shadows it by the interpolation's error. */
static double und_grid(const sem_surface *s, double x, double y)
{
	double gx = x + s->um, gy = y + s->um;
	int w = s->uw, h = s->uh;
	gx = gx < 0 ? 0 : gx > w - 1 ? w - 1 : gx;
	gy = gy < 0 ? 0 : gy > h - 1 ? h - 1 : gy;
	int x0 = (int)gx, y0 = (int)gy;
	int x1 = x0 + 1 < w ? x0 + 1 : x0, y1 = y0 + 1 < h ? y0 + 1 : y0;
	double fx = gx - x0, fy = gy - y0;
	const float *f = s->und;
	double a = f[(size_t)y0 * w + x0] * (1 - fx) + f[(size_t)y0 * w + x1] * fx;
	double b = f[(size_t)y1 * w + x0] * (1 - fx) + f[(size_t)y1 * w + x1] * fx;
	return a * (1 - fy) + b * fy;
}

/* The roughness's slope and Laplacian at (x, y), bilinear from their
 * samples: one set of weights for the three (each sum as bilinear made
 * it alone before h34k, the same bits). */
static void rough_at(const sem_surface *s, double x, double y, double *gx, double *gy, double *lap)
{
	int W = s->W, H = s->H;
	x = x < 0 ? 0 : x > W - 1 ? W - 1 : x;
	y = y < 0 ? 0 : y > H - 1 ? H - 1 : y;
	int x0 = (int)x, y0 = (int)y;
	int x1 = x0 + 1 < W ? x0 + 1 : x0, y1 = y0 + 1 < H ? y0 + 1 : y0;
	double fx = x - x0, fy = y - y0;
	size_t i00 = (size_t)y0 * W + x0, i01 = (size_t)y0 * W + x1;
	size_t i10 = (size_t)y1 * W + x0, i11 = (size_t)y1 * W + x1;
	const float *f = s->rgx;
	double a = f[i00] * (1 - fx) + f[i01] * fx, b = f[i10] * (1 - fx) + f[i11] * fx;
	*gx = a * (1 - fy) + b * fy;
	f = s->rgy;
	a = f[i00] * (1 - fx) + f[i01] * fx;
	b = f[i10] * (1 - fx) + f[i11] * fx;
	*gy = a * (1 - fy) + b * fy;
	f = s->rlap;
	a = f[i00] * (1 - fx) + f[i01] * fx;
	b = f[i10] * (1 - fx) + f[i11] * fx;
	*lap = a * (1 - fy) + b * fy;
}

/* Bucket of a point, or -1 outside the grid. The grid starts at -B, -B. */
static long bucket_of(const sem_surface *s, double x, double y)
{
	int bx = (int)floor(x / s->B) + 1, by = (int)floor(y / s->B) + 1;
	if (bx < 0 || by < 0 || bx >= s->bw || by >= s->bh)
		return -1;
	return (long)by * s->bw + bx;
}

int sem_surface_init(sem_surface *s, int W, int H, double h_over_r, double profile, double und_amp,
		     double und_len, double p1, double p2, const float *rough, const sem_dome *domes,
		     size_t n, double bucket)
{
	memset(s, 0, sizeof *s);
	s->lean_steep = 1;
	s->W = W;
	s->H = H;
	s->h_over_r = h_over_r;
	s->profile = profile;
	s->Rs = (1 + h_over_r * h_over_r) / (2 * h_over_r);
	s->Rs2 = s->Rs * s->Rs;
	s->RsH = s->Rs - h_over_r;
	s->und_amp = und_amp;
	s->k1x = 2 * M_PI * 0.8 / und_len;
	s->k1y = 2 * M_PI * 0.6 / und_len;
	s->k2x = 2 * M_PI * -0.3 / (1.3 * und_len);
	s->k2y = 2 * M_PI * 0.95 / (1.3 * und_len);
	s->p1 = p1;
	s->p2 = p2;
	s->und_slope = 0.5 * und_amp * (hypot(s->k1x, s->k1y) + hypot(s->k2x, s->k2y));
	s->rough = rough;
	s->domes = domes;
	s->n_domes = n;
	s->B = bucket < 4 ? 4 : bucket;
	/* domes reach at most ~2 R beyond the frame: one bucket of margin on
	 * each side covers them once B >= 2 R */
	double rmax = 0;
	for (size_t k = 0; k < n; k++)
		rmax = fmax(rmax, domes[k].R);
	s->rmax = rmax;
	if (s->B < rmax * 2.6)
		s->B = rmax * 2.6;
	s->bw = (int)ceil(W / s->B) + 3;
	s->bh = (int)ceil(H / s->B) + 3;
	size_t nb = (size_t)s->bw * s->bh;
	s->bstart = calloc(nb + 1, sizeof *s->bstart);
	if (rough) {
		s->rgx = malloc((size_t)W * H * sizeof *s->rgx);
		s->rgy = malloc((size_t)W * H * sizeof *s->rgy);
		s->rlap = malloc((size_t)W * H * sizeof *s->rlap);
	}
	s->um = (int)ceil(s->B) + 2;
	s->uw = W + 2 * s->um;
	s->uh = H + 2 * s->um;
	s->und = malloc((size_t)s->uw * s->uh * sizeof *s->und);
	s->trig = malloc((size_t)W * H * 4 * sizeof *s->trig);
	if (!s->bstart || !s->und || !s->trig || (rough && (!s->rgx || !s->rgy || !s->rlap)))
		goto fail;
	for (int y = 0; y < s->uh; y++) {
		for (int x = 0; x < s->uw; x++) {
			int px = x - s->um, py = y - s->um;
			if (px < 0 || py < 0 || px >= W || py >= H) {
				s->und[(size_t)y * s->uw + x] = (float)und_z(s, px, py);
				continue;
			}
			/* und_z's sines, kept with their cosines for the pixel's
			 * first signal (signal_at) */
			double xd = px, yd = py;
			double a1 = s->k1x * xd + s->k1y * yd + s->p1, a2 = s->k2x * xd + s->k2y * yd + s->p2;
			double *tr = s->trig + 4 * ((size_t)py * W + px);
			tr[0] = sin(a1);
			tr[1] = cos(a1);
			tr[2] = sin(a2);
			tr[3] = cos(a2);
			s->und[(size_t)y * s->uw + x] = (float)(0.5 * s->und_amp * (tr[0] + tr[2]));
		}
	}
	/* the grid's largest steps along x and y: the interpolated
	 * undulation's slope bounds (clears) */
	for (int y = 0; y < s->uh; y++) {
		for (int x = 0; x < s->uw; x++) {
			const float *u = s->und + (size_t)y * s->uw + x;
			if (x + 1 < s->uw)
				s->und_dx = fmax(s->und_dx, fabs((double)u[1] - u[0]));
			if (y + 1 < s->uh)
				s->und_dy = fmax(s->und_dy, fabs((double)u[s->uw] - u[0]));
		}
	}
	if (rough) {
		for (int y = 0; y < H; y++) {
			for (int x = 0; x < W; x++) {
				int xl = x > 0 ? x - 1 : x, xr = x < W - 1 ? x + 1 : x;
				int yu = y > 0 ? y - 1 : y, yd = y < H - 1 ? y + 1 : y;
				const float *r = rough;
				size_t i = (size_t)y * W + x;
				s->rgx[i] = (r[(size_t)y * W + xr] - r[(size_t)y * W + xl]) / (float)(xr - xl);
				s->rgy[i] = (r[(size_t)yd * W + x] - r[(size_t)yu * W + x]) / (float)(yd - yu);
				s->rlap[i] = r[(size_t)y * W + xl] + r[(size_t)y * W + xr] +
					     r[(size_t)yu * W + x] + r[(size_t)yd * W + x] - 4 * r[i];
			}
		}
	}
	/* two passes over the domes' bounding boxes: count, then fill */
	for (int pass = 0; pass < 2; pass++) {
		size_t *fillp = NULL;
		if (pass == 1) {
			for (size_t b = 0; b < nb; b++)
				s->bstart[b + 1] += s->bstart[b];
			s->bidx = malloc((s->bstart[nb] + 1) * sizeof *s->bidx);
			fillp = malloc((nb + 1) * sizeof *fillp);
			if (!s->bidx || !fillp) {
				free(fillp);
				goto fail;
			}
			memcpy(fillp, s->bstart, nb * sizeof *fillp);
		}
		for (size_t k = 0; k < n; k++) {
			int bx0 = (int)floor((domes[k].x - domes[k].R) / s->B) + 1;
			int bx1 = (int)floor((domes[k].x + domes[k].R) / s->B) + 1;
			int by0 = (int)floor((domes[k].y - domes[k].R) / s->B) + 1;
			int by1 = (int)floor((domes[k].y + domes[k].R) / s->B) + 1;
			for (int by = by0 < 0 ? 0 : by0; by <= by1 && by < s->bh; by++) {
				for (int bx = bx0 < 0 ? 0 : bx0; bx <= bx1 && bx < s->bw; bx++) {
					size_t b = (size_t)by * s->bw + bx;
					if (pass == 0)
						s->bstart[b + 1]++;
					else
						s->bidx[fillp[b]++] = (int)k;
				}
			}
		}
		free(fillp);
	}
	return 0;
fail:
	sem_surface_free(s);
	return -1;
}

void sem_surface_detector(sem_surface *s, double azimuth, double elevation, double secant_n,
			  double det_strength, double shadow, double edge)
{
	s->ca = cos(azimuth);
	s->sa = sin(azimuth);
	s->ce = cos(elevation);
	s->se = sin(elevation);
	s->te = s->se / fmax(s->ce, 1e-3);
	s->und_path = s->und_dx * fabs(s->ca) + s->und_dy * fabs(s->sa);
	s->shadows = shadow > 0 && s->ce > 1e-3;
	s->secant_n = secant_n;
	s->det_strength = det_strength;
	s->shadow = shadow;
	s->edge = edge;
}

int sem_surface_lean(sem_surface *s, double lean, double azimuth)
{
	if (!(lean >= 0 && lean <= SEM_LEAN_MAX) || (lean > 0 && s->profile != SEM_PROFILE_SMOOTH))
		return -1;
	s->lean = lean;
	s->lean_x = lean * cos(azimuth);
	s->lean_y = lean * sin(azimuth);
	/* R |grad rho| <= 1 / (1 - l) + l (1 + l / sqrt(1 - l^2)) / (1 - l)^2
	 * (L >= R (1 - l), |b| <= l R, q >= R sqrt(1 - l^2), |c - b w| <= l R):
	 * the bound on the slope that the shadow's branch and bound needs */
	s->lean_steep = lean > 0 ? 1 / (1 - lean) + lean * (1 + lean / sqrt(1 - lean * lean)) /
							     ((1 - lean) * (1 - lean))
				 : 1;
	return 0;
}

int sem_surface_foot(sem_surface *s, double power, double stretch, double from)
{
	if (!(power == 0 || (power >= SEM_FOOT_POWER_MIN && power <= SEM_FOOT_POWER_MAX)) ||
	    !(stretch == 0 || (stretch >= 1 && stretch <= SEM_FOOT_STRETCH_MAX)) || !(from > 0 && from < 1) ||
	    s->profile != SEM_PROFILE_SMOOTH || s->lean != 0 || s->cap != 0)
		return -1;
	s->foot_power = power;
	s->foot_stretch = stretch;
	s->foot_from = from;
	/* the steepest slope for the shadows' branch and bound: |f'| on a
	 * fine grid of u, raised by 2 % for what lies between its points
	 * (f' is smooth inside the base for a >= 1/2) */
	double m = 0, d1, lap;
	for (int i = 1; i < 4096; i++) {
		dome_df(s, i / 4096.0, &d1, &lap);
		m = fmax(m, fabs(d1));
	}
	s->foot_steep = 1.02 * m;
	return 0;
}

int sem_surface_cap(sem_surface *s, double cap, double power)
{
	if (!(cap >= 0 && cap <= SEM_CAP_MAX) || !(power > 0 && power <= SEM_CAP_POWER_MAX))
		return -1;
	s->cap = cap;
	s->cap_power = power;
	return 0;
}

void sem_surface_free(sem_surface *s)
{
	if (!s)
		return;
	free(s->rgx);
	free(s->rgy);
	free(s->rlap);
	free(s->bstart);
	free(s->bidx);
	free(s->und);
	free(s->trig);
	memset(s, 0, sizeof *s);
}

/* Height of dome k plus the undulation minus the ray's height at distance
 * t along the path from (x, y, z0) towards the detector. */
static double ray_gap(const sem_surface *s, const sem_dome *d, double x, double y, double z0, double t)
{
	double qx = x + t * s->ca, qy = y + t * s->sa, ex = qx - d->x, ey = qy - d->y;
	if (s->lean != 0)
		return dome_height(s, d, ex, ey) + und_grid(s, qx, qy) - z0 - t * s->te;
	double u = sqrt(ex * ex + ey * ey) / d->R;
	return d->R * dome_f(s, u) + und_grid(s, qx, qy) - z0 - t * s->te;
}

/* The steepest slope of a dome's profile, height per px (R f(r / R) has
 * slope f'(u)): the smooth-footed dome's, H pi / 2 at u = 1/2. */
static double dome_max_slope(const sem_surface *s)
{
	if (s->profile == SEM_PROFILE_SMOOTH)
		return s->foot_steep > 0 ? s->foot_steep : s->h_over_r * 0.5 * M_PI;
	return 0; /* not used: the other profiles are searched as concave */
}

/* Whether the gap of ray_gap rises above eps anywhere on [t0, t1], for a
 * gap that need not be concave (the smooth-footed dome's chord is convex
 * where it crosses the foot, u > 1/2): branch and bound on the bounds of
 * the gap's derivative, hi = (steepest dome slope + the interpolated
 * undulation's) - te and lo = -(the same) - te. On [a, b] with the gap
 * known at both ends the gap lies under both g(a) + hi (t - a) and g(b)
 * - lo (b - t), so its largest value is at most where those lines cross;
 * an interval whose bound stays under eps is dropped, one narrower than
 * 1e-3 px along the path too (the golden-section search's precision: the
 * shadow's border to about that), any other is halved. Exact to that
 * precision whatever the profile's shape (test_sem_physics marches the
 * path by brute force against it). */
static int dome_blocks_any(const sem_surface *s, const sem_dome *d, double x, double y, double z0, double t0,
			   double t1)
{
	const double eps = 1e-7, tol = 1e-3;
	/* the undulation is read bilinearly from its grid: each axis's slope
	 * at most und_slope, so sqrt(2) und_slope along any path */
	double rise = dome_max_slope(s) * s->lean_steep + M_SQRT2 * s->und_slope;
	double hi = rise - s->te, lo = -rise - s->te;
	double sa[64], sb[64], ga[64], gb[64];
	int n = 0;
	sa[0] = t0;
	sb[0] = t1;
	ga[0] = ray_gap(s, d, x, y, z0, t0);
	gb[0] = ray_gap(s, d, x, y, z0, t1);
	if (ga[0] > eps || gb[0] > eps)
		return 1;
	n = 1;
	while (n > 0) {
		n--;
		double a = sa[n], b = sb[n], g0 = ga[n], g1 = gb[n];
		double bound;
		if (hi <= 0) {
			bound = g0; /* the gap only falls along the path */
		} else {
			double u = (g1 - g0 - lo * (b - a)) / (hi - lo);
			u = u < 0 ? 0 : u > b - a ? b - a : u;
			bound = g0 + hi * u;
		}
		if (bound <= eps || b - a < tol)
			continue;
		double m = 0.5 * (a + b), gm = ray_gap(s, d, x, y, z0, m);
		if (gm > eps)
			return 1;
		if (n + 2 > 64)
			return 0; /* unreachable: depth <= log2(path / tol) */
		/* the nearer half last, so it is searched first */
		sa[n] = m;
		sb[n] = b;
		ga[n] = gm;
		gb[n] = g1;
		n++;
		sa[n] = a;
		sb[n] = m;
		ga[n] = g0;
		gb[n] = gm;
		n++;
	}
	return 0;
}

/* Whether the path from (x, y) surely clears dome d on [t0, t1], by a
 * margin that no rounding of ray_gap reaches (h34k): on each of a few
 * pieces of the chord the dome is at most its height where the piece
 * passes closest to the centre (every profile falls with u), the
 * interpolated undulation rises at most und_path per px along the path
 * (from its grid's largest steps) and the ray rises te. When this holds,
 * every gap the searches below evaluate is below their eps, so they
 * would return 0: returning 0 first is the same answer. b is the path's
 * parameter of closest approach negated (dx ca + dy sa). */
static int clears(const sem_surface *s, const sem_dome *d, double dx, double dy, double b, double zd,
		  double t0, double t1)
{
	const int pieces = 4;
	const double margin = 1e-5;
	double dmin = dx * s->sa - dy * s->ca, tc = -b, slope = s->und_path - s->te;
	double step = (t1 - t0) / pieces;
	for (int i = 0; i < pieces; i++) {
		double a = t0 + i * step, e = i == pieces - 1 ? t1 : a + step;
		double tn = tc < a ? a : tc > e ? e : tc;
		double r = sqrt(dmin * dmin + (tn - tc) * (tn - tc)) * (1 - 1e-12);
		double h = d->R * dome_f(s, r / d->R);
		if (h - zd + slope * (slope < 0 ? a : e) > -margin)
			return 0;
	}
	return 1;
}

/* Whether the path from (x, y) towards the detector, starting at the
 * height zd (domes) + und (undulation) there, passes under dome d: the
 * largest gap over the path's chord through its base, by a golden-section
 * search where the gap is concave along the chord (the cap, paraboloid
 * and flat-topped profiles), by dome_blocks_any where it is not. */
static int dome_blocks(const sem_surface *s, const sem_dome *d, double x, double y, double zd, double und)
{
	double dx = x - d->x, dy = y - d->y;
	double b = dx * s->ca + dy * s->sa, c = dx * dx + dy * dy - d->R * d->R;
	double disc = b * b - c;
	if (disc <= 0)
		return 0;
	double sq = sqrt(disc), t1 = -b + sq, t0 = fmax(0, -b - sq);
	if (t1 <= t0)
		return 0;
	/* bound: the dome's highest point on the chord (where it passes
	 * closest to the centre), the undulation rising at most und_slope */
	double dmin = fabs(dx * s->sa - dy * s->ca);
	/* a leaning dome's highest point on the chord need not be where it
	 * passes closest to the centre: bound it by the top, and leave the
	 * finer bound of clears() to the centred profiles */
	double top = s->lean != 0 ? d->R * s->h_over_r : d->R * dome_f(s, dmin / d->R);
	if (top + s->und_slope * t1 - zd - t0 * s->te <= 0)
		return 0;
	if (s->lean == 0 && clears(s, d, dx, dy, b, zd, t0, t1))
		return 0;
	double z0 = zd + und_grid(s, x, y);
	(void)und;
	if (s->profile == SEM_PROFILE_SMOOTH)
		return dome_blocks_any(s, d, x, y, z0, t0, t1);
	const double gr = 0.6180339887498949, eps = 1e-7;
	double a = t0, e = t1;
	double m1 = e - gr * (e - a), m2 = a + gr * (e - a);
	double g1 = ray_gap(s, d, x, y, z0, m1), g2 = ray_gap(s, d, x, y, z0, m2);
	/* to 1e-3 px along the path: the shadow's border to about that */
	while (e - a > 1e-3) {
		if (g1 > eps || g2 > eps)
			return 1;
		if (g1 < g2) {
			a = m1;
			m1 = m2;
			g1 = g2;
			m2 = a + gr * (e - a);
			g2 = ray_gap(s, d, x, y, z0, m2);
		} else {
			e = m2;
			m2 = m1;
			g2 = g1;
			m1 = e - gr * (e - a);
			g1 = ray_gap(s, d, x, y, z0, m1);
		}
	}
	return g1 > eps || g2 > eps;
}

static int shadowed(const sem_surface *s, double x, double y, double zd, double und)
{
	if (!s->shadows)
		return 0;
	/* every dome is at most R H high over the undulation: beyond that
	 * distance the ray is above them all */
	double L = (s->rmax * s->h_over_r - zd) / fmax(1e-3, s->te - s->und_slope) + s->B;
	int seen[64], nseen = 0;
	long prev = -1;
	for (double t = 0; t <= L; t += 0.5 * s->B) {
		long b = bucket_of(s, x + t * s->ca, y + t * s->sa);
		if (b < 0)
			break;
		/* the half-bucket steps meet most buckets twice in a row: every
		 * dome of the bucket was searched the step before and did not
		 * block (dome_blocks is a function of its arguments), so the
		 * same answer without the dedupe's scan (h35f) */
		if (b == prev)
			continue;
		prev = b;
		for (size_t q = s->bstart[b]; q < s->bstart[b + 1]; q++) {
			int k = s->bidx[q], dup = 0;
			for (int j = 0; j < nseen; j++)
				dup |= seen[j] == k;
			if (dup)
				continue;
			if (nseen < 64)
				seen[nseen++] = k;
			if (dome_blocks(s, &s->domes[k], x, y, zd, und))
				return 1;
		}
	}
	return 0;
}

/* The signal at (x, y) without its edge brightening, which is the edge
 * strength times *conv (the convexity, clamped): signal_at adds it. The
 * strength enters nothing else - not the shadow, not which pixels are
 * sub-sampled - so one evaluation serves every strength (h35i).
 * shade < 0 tests the shadow there (its result in *shade_out when not
 * NULL), 0 or 1 takes it as given. */
static inline double signal_parts(const sem_surface *s, const double *trig, double x, double y, int shade,
				  int *shade_out, double *conv)
{
	double a1 = s->k1x * x + s->k1y * y + s->p1, a2 = s->k2x * x + s->k2y * y + s->p2;
	double A = 0.5 * s->und_amp;
	/* at a pixel's centre the undulation's sines and cosines come from
	 * sem_surface_init's grid (trig: s1 c1 s2 c2, the same calls) */
	double s1, c1, s2, c2;
	if (trig) {
		s1 = trig[0];
		c1 = trig[1];
		s2 = trig[2];
		c2 = trig[3];
	} else {
		s1 = sin(a1);
		c1 = cos(a1);
		s2 = sin(a2);
		c2 = cos(a2);
	}
	double und = A * (s1 + s2), zd = 0;
	double gx = A * (s->k1x * c1 + s->k2x * c2);
	double gy = A * (s->k1y * c1 + s->k2y * c2);
	double lap = -A * ((s->k1x * s->k1x + s->k1y * s->k1y) * s1 + (s->k2x * s->k2x + s->k2y * s->k2y) * s2);
	if (s->rough) {
		double rx, ry, rl;
		rough_at(s, x, y, &rx, &ry, &rl);
		gx += rx;
		gy += ry;
		lap += rl;
	}
	/* the bright cap's relative height: the highest of the domes' own
	 * heights over their tops' here (they barely overlap) */
	double zrel = 0;
	long b = bucket_of(s, x, y);
	if (b >= 0) {
		for (size_t q = s->bstart[b]; q < s->bstart[b + 1]; q++) {
			const sem_dome *d = &s->domes[s->bidx[q]];
			double dx = x - d->x, dy = y - d->y, r = sqrt(dx * dx + dy * dy), u = r / d->R;
			if (u >= 1)
				continue;
			if (s->lean != 0) {
				double z, lx, ly;
				lean_at(s, d, dx, dy, &z, &lx, &ly);
				zd += z;
				gx += lx;
				gy += ly;
				lap += lean_lap(s, d, dx, dy);
				if (s->cap > 0)
					zrel = fmax(zrel, z / (s->h_over_r * d->R));
				continue;
			}
			double d1, lapR;
			dome_df(s, u, &d1, &lapR);
			zd += d->R * dome_f(s, u);
			if (s->cap > 0) /* every profile is H at its top (dome_f) */
				zrel = fmax(zrel, dome_f(s, u) / s->h_over_r);
			if (r > 0) {
				gx += d1 * dx / r;
				gy += d1 * dy / r;
			}
			lap += lapR / d->R;
		}
	}
	double g2 = gx * gx + gy * gy;
	double sec = sqrt(1 + g2);
	/* pow(v, 1) is v (pow is within 1 ulp, v a double): the default
	 * exponent without the call */
	double yield = s->secant_n == 1 ? (sec > 6 ? 6 : sec) : pow(sec > 6 ? 6 : sec, s->secant_n);
	double nd = (-gx * s->ce * s->ca - gy * s->ce * s->sa + s->se) / sec;
	double dirf = 1 + s->det_strength * (nd - s->se);
	if (dirf < 0.05)
		dirf = 0.05;
	int sh = shade >= 0 ? shade : shadowed(s, x, y, zd, und);
	if (shade_out)
		*shade_out = sh;
	*conv = fmin(1.5, fmax(0, -lap));
	if (s->cap > 0) {
		/* a yield of the material, so it scales the edge's electrons too;
		 * without a cap nothing here runs: the same bits as before it */
		double m = 1 + s->cap * pow(fmin(1, zrel), s->cap_power);
		*conv *= m;
		return yield * dirf * (sh ? 1 - s->shadow : 1) * m;
	}
	return yield * dirf * (sh ? 1 - s->shadow : 1);
}

/* The signal at (x, y): the same two products and one sum as before the
 * split, so the same bits (no contraction: -std=c11). */
static inline double signal_at(const sem_surface *s, const double *trig, double x, double y, int shade,
			       int *shade_out)
{
	double conv, base = signal_parts(s, trig, x, y, shade, shade_out, &conv);
	return base + s->edge * conv;
}

double sem_surface_signal(const sem_surface *s, double x, double y)
{
	return signal_at(s, NULL, x, y, -1, NULL);
}

int sem_surface_shadowed(const sem_surface *s, double x, double y)
{
	double zd = 0;
	long b = bucket_of(s, x, y);
	if (b >= 0) {
		for (size_t q = s->bstart[b]; q < s->bstart[b + 1]; q++) {
			const sem_dome *d = &s->domes[s->bidx[q]];
			double dx = x - d->x, dy = y - d->y, u = sqrt(dx * dx + dy * dy) / d->R;
			if (u < 1)
				zd += s->lean != 0 ? dome_height(s, d, dx, dy) : d->R * dome_f(s, u);
		}
	}
	return shadowed(s, x, y, zd, 0);
}

int sem_surface_render(const sem_surface *s, int S, fs_image *img)
{
	return sem_surface_render_edges(s, S, &s->edge, 1, &img);
}

/* Every pixel's S x S sub-samples (render_core's sub) from the centre
 * values of img[e] interpolated bilinearly at the sheared grid's points
 * (clamped at the frame). */
static void fill_sub_bilinear(fs_image **img, int n, int S, int W, int H, float **sub)
{
	double SS = (double)S * S;
	for (int e = 0; e < n; e++)
		for (int j = 0; j < S; j++)
			for (int i = 0; i < S; i++) {
				double ox = (i * S + j + 0.5) / SS - 0.5, oy = (j * S + i + 0.5) / SS - 0.5;
				float *pl = sub[e] + ((size_t)j * S + i) * W * H;
				const float *c = img[e]->data;
				for (int y = 0; y < H; y++) {
					double fy = y + oy;
					int y0 = (int)floor(fy);
					double ty = fy - y0;
					int ya = y0 < 0 ? 0 : y0 >= H ? H - 1 : y0, yb = y0 + 1 < 0 ? 0 : y0 + 1 >= H ? H - 1 : y0 + 1;
					for (int x = 0; x < W; x++) {
						double fx = x + ox;
						int x0 = (int)floor(fx);
						double tx = fx - x0;
						int xa = x0 < 0 ? 0 : x0 >= W ? W - 1 : x0,
						    xb = x0 + 1 < 0 ? 0 : x0 + 1 >= W ? W - 1 : x0 + 1;
						double v = (1 - ty) * ((1 - tx) * c[(size_t)ya * W + xa] + tx * c[(size_t)ya * W + xb]) +
							   ty * ((1 - tx) * c[(size_t)yb * W + xa] + tx * c[(size_t)yb * W + xb]);
						pl[(size_t)y * W + x] = (float)v;
					}
				}
			}
}

/* sem_surface_render_edges, and with sub (n planes' arrays of S x S
 * planes of W x H, plane j S + i the sample in cell (i, j)) every
 * sub-sample's value as well: the flagged pixels' own, elsewhere the
 * centres' values interpolated bilinearly (the signal is smooth there,
 * and a constant per pixel would be the staircase again). img is the
 * same to the bit with or without sub. */
static int render_core(const sem_surface *s, int S, const double *edge, int n, fs_image **img, float **sub)
{
	int W = s->W, H = s->H;
	if (S < 1 || n < 1 || n > SEM_EDGES_MAX)
		return -1;
	for (int e = 0; e < n; e++)
		if (!img[e] || img[e]->width != W || img[e]->height != H)
			return -1;
	unsigned char *flag = calloc((size_t)W * H, 1);
	unsigned char *sh = calloc((size_t)W * H, 1);
	if (!flag || !sh) {
		free(flag);
		free(sh);
		return -1;
	}
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			int shd = 0;
			size_t k = (size_t)y * W + x;
			double conv, base = signal_parts(s, s->trig + 4 * k, x, y, -1, &shd, &conv);
			for (int e = 0; e < n; e++)
				img[e]->data[k] = (float)(base + edge[e] * conv);
			sh[k] = (unsigned char)shd;
		}
	}
	if (sub)
		fill_sub_bilinear(img, n, S, W, H, sub);
	if (S == 1)
		goto done;
	/* pixels within 1.25 px of a base: the slope steps there, and on a
	 * steep cap the secant law's cap (6) is reached just inside it */
	for (size_t k = 0; k < s->n_domes; k++) {
		const sem_dome *d = &s->domes[k];
		int x0 = (int)floor(d->x - d->R - 2), x1 = (int)ceil(d->x + d->R + 2);
		int y0 = (int)floor(d->y - d->R - 2), y1 = (int)ceil(d->y + d->R + 2);
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < H; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++)
				if (fabs(hypot(x - d->x, y - d->y) - d->R) < 1.25)
					flag[(size_t)y * W + x] = 1;
	}
	/* pixels next to a change of shadow test it at every sub-sample (flag
	 * 2); elsewhere the centre's shadow holds for the whole pixel */
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			unsigned char v = sh[(size_t)y * W + x];
			for (int yy = y - 1; yy <= y + 1; yy++)
				for (int xx = x - 1; xx <= x + 1; xx++)
					if (xx >= 0 && yy >= 0 && xx < W && yy < H && sh[(size_t)yy * W + xx] != v)
						flag[(size_t)y * W + x] = 2;
		}
	}
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			if (!flag[(size_t)y * W + x])
				continue;
			double acc[SEM_EDGES_MAX] = {0};
			int shade = flag[(size_t)y * W + x] == 2 ? -1 : sh[(size_t)y * W + x];
			/* one sample in each cell of an S x S grid, at S x S distinct
			 * columns and rows (a sheared grid): an edge along x or y is
			 * then placed to 1 / S^2 of a pixel, not 1 / S */
			double S2 = (double)S * S;
			for (int j = 0; j < S; j++)
				for (int i = 0; i < S; i++) {
					double conv, base = signal_parts(s, NULL, x - 0.5 + (i * S + j + 0.5) / S2,
									 y - 0.5 + (j * S + i + 0.5) / S2, shade,
									 NULL, &conv);
					/* each strength's sum in the order a render of it alone
					 * makes */
					for (int e = 0; e < n; e++) {
						acc[e] += base + edge[e] * conv;
						if (sub)
							sub[e][((size_t)j * S + i) * W * H + (size_t)y * W + x] =
								(float)(base + edge[e] * conv);
					}
				}
			for (int e = 0; e < n; e++)
				img[e]->data[(size_t)y * W + x] = (float)(acc[e] / ((double)S * S));
		}
	}
done:
	free(flag);
	free(sh);
	return 0;
}

int sem_surface_render_edges(const sem_surface *s, int S, const double *edge, int n, fs_image **img)
{
	return render_core(s, S, edge, n, img, NULL);
}

int sem_surface_render_beam(const sem_surface *s, int S, double sigma, const double *edge, int n, fs_image **img)
{
	int W = s->W, H = s->H;
	if (S < 1 || n < 1 || n > SEM_EDGES_MAX)
		return -1;
	float *sub[SEM_EDGES_MAX] = {NULL};
	int rc = -1;
	for (int e = 0; e < n; e++)
		if (!(sub[e] = malloc((size_t)S * S * W * H * sizeof *sub[e])))
			goto out;
	if (render_core(s, S, edge, n, img, sub))
		goto out;
	for (int e = 0; e < n; e++)
		if (sem_beam_box(sub[e], S, W, H, sigma, img[e]))
			goto out;
	rc = 0;
out:
	for (int e = 0; e < n; e++)
		free(sub[e]);
	return rc;
}

/* The 1-D kernel of a Gaussian of sigma convolved with a 1-px box, at u:
 * Phi((u + 1/2) / sigma) - Phi((u - 1/2) / sigma). */
static double box_gauss(double u, double sigma)
{
	return 0.5 * (erf((u + 0.5) / (sigma * M_SQRT2)) - erf((u - 0.5) / (sigma * M_SQRT2)));
}

int sem_beam_box(const float *sub, int S, int W, int H, double sigma, fs_image *out)
{
	if (!sub || S < 1 || W < 1 || H < 1 || !out || out->width != W || out->height != H || !(sigma >= 0))
		return -1;
	/* sigma 0 is the box alone; 1e-3 px leaves it that (the nearest
	 * sample is 1 / (2 S^2) px from a pixel's border) */
	if (sigma < 1e-3)
		sigma = 1e-3;
	int r = (int)ceil(4 * sigma + 1);
	int nk = 2 * r + 1, SS = S * S;
	size_t WH = (size_t)W * H;
	double *kx = malloc((size_t)SS * nk * sizeof *kx), *ky = malloc((size_t)SS * nk * sizeof *ky);
	double *tmp = malloc(WH * sizeof *tmp), *acc = calloc(WH, sizeof *acc);
	int rc = -1;
	if (!kx || !ky || !tmp || !acc)
		goto out;
	/* the sample of cell (i, j) sits at (ox, oy) from its pixel's centre
	 * (the render's sheared grid); a pixel p takes the sample of pixel
	 * p + d with weight K(d + ox) K(d + oy) / S^2 (K symmetric) */
	double total = 0;
	for (int j = 0; j < S; j++)
		for (int i = 0; i < S; i++) {
			int c = j * S + i;
			double ox = (i * S + j + 0.5) / SS - 0.5, oy = (j * S + i + 0.5) / SS - 0.5, sx = 0, sy = 0;
			for (int d = -r; d <= r; d++) {
				sx += kx[c * nk + d + r] = box_gauss(d + ox, sigma);
				sy += ky[c * nk + d + r] = box_gauss(d + oy, sigma);
			}
			total += sx * sy;
		}
	/* the truncated kernel's weights, the 1 / S^2 included, to sum 1: a
	 * flat signal stays flat */
	for (int k = 0; k < SS * nk; k++)
		kx[k] /= total;
	for (int c = 0; c < SS; c++) {
		const float *pl = sub + (size_t)c * WH;
		const double *wx = kx + c * nk + r, *wy = ky + c * nk + r;
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				double v = 0;
				for (int d = -r; d <= r; d++) {
					int xx = x + d < 0 ? 0 : x + d >= W ? W - 1 : x + d;
					v += wx[d] * pl[(size_t)y * W + xx];
				}
				tmp[(size_t)y * W + x] = v;
			}
		for (int y = 0; y < H; y++)
			for (int d = -r; d <= r; d++) {
				int yy = y + d < 0 ? 0 : y + d >= H ? H - 1 : y + d;
				const double *t = tmp + (size_t)yy * W;
				double *a = acc + (size_t)y * W, w = wy[d];
				for (int x = 0; x < W; x++)
					a[x] += w * t[x];
			}
	}
	for (size_t k = 0; k < WH; k++)
		out->data[k] = (float)acc[k];
	rc = 0;
out:
	free(kx);
	free(ky);
	free(tmp);
	free(acc);
	return rc;
}
