/* se_mean_dome.c - see se_mean_dome.h */
#include "se_mean_dome.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the rule's model's caps (analysis/se_render.c): a grazing facet's
 * secant is held at 6 */
#define SEC_CAP 6.0

/* The mean secant over random slopes r ~ N(0, t^2 I) added to slope g
 * (|g| = gm): sec(g + r) = sqrt(1 + |g + r|^2) expanded to second order
 * in r, whose Hessian's trace is (2 + |g|^2) / sec^3; the odd terms
 * average out. Where the facet is at the cap the cap holds. */
static double mean_sec(double gm, double t)
{
	double sec = sqrt(1 + gm * gm);
	if (sec >= SEC_CAP)
		return SEC_CAP;
	double v = sec + 0.5 * t * t * (2 + gm * gm) / (sec * sec * sec);
	return v < SEC_CAP ? v : SEC_CAP;
}

/* E max(a + n, 0) for n ~ N(0, l^2) */
static double mean_ramp(double a, double l)
{
	if (l <= 0)
		return a > 0 ? a : 0;
	double z = a / l;
	return a * 0.5 * erfc(-z / M_SQRT2) + l * exp(-0.5 * z * z) / sqrt(2 * M_PI);
}

/* The mean edge term clip(c + n, 0, cap), n ~ N(0, l^2): a clip is the
 * difference of two ramps. */
static double mean_clip(double c, double l, double cap)
{
	return mean_ramp(c, l) - mean_ramp(c - cap, l);
}

static int grow(float **p, size_t *have, size_t need)
{
	if (*have >= need)
		return 0;
	float *q = realloc(*p, need * sizeof *q);
	if (!q)
		return -1;
	*p = q;
	*have = need;
	return 0;
}

void se_mean_free(se_mean_ctx *c)
{
	if (!c)
		return;
	fs_se_field_free(&c->f);
	for (int k = 0; k < FS_SE_NCOMP; k++)
		free(c->acc[k]);
	free(c->tmp);
	c->tmp = NULL;
	c->acc_n = c->tmp_n = 0;
	memset(c->acc, 0, sizeof c->acc);
}

/* The field's arrays for half hf and heights' half zh (the struct is
 * se_render's, so that fs_se_shadow casts the shadow; its arrays are
 * malloc'd here and freed by fs_se_field_free). */
static int field_for(fs_se_field *f, int hf, int zh)
{
	if (f->z && f->half == hf && f->zhalf == zh)
		return 0;
	fs_se_field_free(f);
	size_t nz = (size_t)(2 * zh + 1) * (2 * zh + 1), nc = (size_t)(2 * hf + 1) * (2 * hf + 1);
	f->z = malloc(nz * sizeof *f->z);
	int ok = f->z != NULL;
	for (int k = 0; k < FS_SE_NCOMP; k++)
		ok &= (f->c[k] = malloc(nc * sizeof *f->c[k])) != NULL;
	if (!ok) {
		fs_se_field_free(f);
		return -1;
	}
	f->half = hf;
	f->zhalf = zh;
	return 0;
}

/* One lattice of domes of radius rf x the nominal (fine grid units, S
 * samples a px) into the field; then its shadow. */
static void render_node(se_mean_ctx *c, const se_mean_par *p, double S, double rf)
{
	fs_se_field *f = &c->f;
	int hf = f->half, zh = f->zhalf, zw = 2 * zh + 1, cw = 2 * hf + 1;
	int rough = (c->kinds & SE_MEAN_ROUGH) != 0;
	double t = rough ? p->rough_t : 0, l = rough ? p->rough_l : 0;
	double g = p->pitch_px * S, R = 0.5 * p->fill * g * rf, H = p->h_over_r;
	/* the flat surface's own mean yield and edge under roughness: every
	 * sample starts there and a dome replaces its subsamples' share */
	double y0 = mean_sec(0, t) - 1, e0 = mean_clip(0, l, c->edge_cap);
	for (size_t k = 0; k < (size_t)zw * zw; k++)
		f->z[k] = 0;
	for (size_t k = 0; k < (size_t)cw * cw; k++) {
		f->c[FS_SE_YIELD][k] = (float)(1 + y0);
		f->c[FS_SE_EDGE][k] = (float)e0;
		f->c[FS_SE_SLOPE_X][k] = f->c[FS_SE_SLOPE_Y][k] = f->c[FS_SE_SHADOW][k] = 0;
	}
	f->zmax = 0;
	double ax = g * cos(p->angle), ay = g * sin(p->angle);
	double bx = g * cos(p->angle + M_PI / 3), by = g * sin(p->angle + M_PI / 3);
	int span = (int)(zh / g) + 2;
	for (int i = -span; i <= span; i++)
		for (int j = -span; j <= span; j++) {
			double cx = i * ax + j * bx, cy = i * ay + j * by;
			int x0 = (int)floor(cx - R) - 1, x1 = (int)ceil(cx + R) + 1;
			int y0i = (int)floor(cy - R) - 1, y1 = (int)ceil(cy + R) + 1;
			if (x1 < -zh || y1 < -zh || x0 > zh || y0i > zh)
				continue;
			for (int y = y0i < -zh ? -zh : y0i; y <= y1 && y <= zh; y++)
				for (int x = x0 < -zh ? -zh : x0; x <= x1 && x <= zh; x++) {
					double ex = x - cx, ey = y - cy, r2 = ex * ex + ey * ey;
					if (r2 > (R + 0.75) * (R + 0.75))
						continue;
					double h, d1, d2;
					if (r2 < R * R) {
						fs_se_dome_shape(sqrt(r2) / R, H, p->profile, &h, &d1, &d2);
						float zv = (float)(R * h);
						f->z[(size_t)(y + zh) * zw + (x + zh)] = zv;
						if (zv > f->zmax)
							f->zmax = zv;
					}
					if (x < -hf || y < -hf || x > hf || y > hf)
						continue;
					size_t o = (size_t)(y + hf) * cw + (x + hf);
					/* 2 x 2 subsamples of the sample, as the rule's
					 * model: the base's edge placed within a quarter
					 * sample */
					for (int b = 0; b < 2; b++)
						for (int a = 0; a < 2; a++) {
							double px = ex + (a - 0.5) / 2, py = ey + (b - 0.5) / 2;
							double rr = sqrt(px * px + py * py), u = rr / R;
							if (u >= 1)
								continue;
							fs_se_dome_shape(u, H, p->profile, &h, &d1, &d2);
							double gx = rr > 1e-9 ? d1 * px / rr : 0, gy = rr > 1e-9 ? d1 * py / rr : 0;
							/* the Laplacian in 1 / px: grid units are
							 * 1 / S px */
							double lap = S * (u > 1e-6 ? d2 + d1 / u : 2 * d2) / R;
							double ys = mean_sec(fabs(d1), t) - 1;
							double es = mean_clip(-lap, l, c->edge_cap);
							f->c[FS_SE_YIELD][o] += (float)((ys - y0) / 4);
							f->c[FS_SE_SLOPE_X][o] += (float)(-gx / 4);
							f->c[FS_SE_SLOPE_Y][o] += (float)(-gy / 4);
							f->c[FS_SE_EDGE][o] += (float)((es - e0) / 4);
						}
				}
		}
	fs_se_shadow(f, p->az, p->el);
	c->renders++;
}

int se_mean_components(se_mean_ctx *c, const se_mean_par *p, float *const out[FS_SE_NCOMP])
{
	if (c->q < 1 || c->wb < 1 || !(p->fill > 0) || p->fill >= 1 || !(p->h_over_r > 0) || !(p->pitch_px > 0) ||
	    !(p->blur_px > 0) || !(p->el > 0))
		return -1;
	int m = (c->kinds & SE_MEAN_PIXEL) ? (c->fine > 1 ? c->fine : 1) : 1;
	int q = c->q;
	double S = (double)q * m;
	/* the bins' half width with the blur's kernel (3.5 sigma and the
	 * offset) around it; the fine field adds the pixel's half */
	int rb = (int)ceil(3.5 * p->blur_px * q + fmax(fabs(p->sx), fabs(p->sy)) * q) + 1;
	int hq = c->wb + rb;
	int box = (c->kinds & SE_MEAN_PIXEL) ? (int)lround(S / 2) : 0;
	int hf = hq * m + box;
	/* the shadow reaches the dome's height over tan(el) beyond the
	 * window (capped at a pitch, as the bench's se_render call) */
	double g = p->pitch_px * S, R = 0.5 * p->fill * g * 1.5;
	int reach = (int)ceil(fmin(g, R * p->h_over_r / tan(p->el))) + 2;
	if (field_for(&c->f, hf, hf + reach + 1))
		return -1;
	size_t nf = (size_t)(2 * hf + 1) * (2 * hf + 1);
	if (c->acc_n < nf) {
		/* the five accumulators share one capacity */
		for (int k = 0; k < FS_SE_NCOMP; k++) {
			size_t have = c->acc_n;
			if (grow(&c->acc[k], &have, nf))
				return -1;
		}
		c->acc_n = nf;
	}
	for (int k = 0; k < FS_SE_NCOMP; k++)
		memset(c->acc[k], 0, nf * sizeof *c->acc[k]);
	/* the radius scatter on three Gauss-Hermite nodes: exact for the
	 * mean of a quintic in e */
	int jit = (c->kinds & SE_MEAN_JITTER) && p->jitter > 0;
	double nodes[3] = {1, 1 - sqrt(3.0) * p->jitter, 1 + sqrt(3.0) * p->jitter};
	double wts[3] = {jit ? 2.0 / 3 : 1, 1.0 / 6, 1.0 / 6};
	for (int nd = 0; nd < (jit ? 3 : 1); nd++) {
		if (!(nodes[nd] > 0.05))
			return -1;
		render_node(c, p, S, nodes[nd]);
		for (int k = 0; k < FS_SE_NCOMP; k++)
			for (size_t i = 0; i < nf; i++)
				c->acc[k][i] += (float)(wts[nd] * c->f.c[k][i]);
	}
	/* to the bins' grid: under SE_MEAN_PIXEL each bin is the 1-px box
	 * over the fine samples (trapezoid: the ends half weight), else the
	 * sample itself */
	int qw = 2 * hq + 1, fw = 2 * hf + 1, ow = 2 * c->wb + 1;
	size_t need = (size_t)fw * qw + (size_t)qw * qw + (size_t)qw * ow;
	if (grow(&c->tmp, &c->tmp_n, need))
		return -1;
	float *rowbox = c->tmp, *q2 = c->tmp + (size_t)fw * qw, *t2 = q2 + (size_t)qw * qw;
	double sig = p->blur_px * q, ox = p->sx * q, oy = p->sy * q;
	double kx[2 * 512 + 1], ky[2 * 512 + 1];
	if (rb > 512)
		return -1;
	double sxs = 0, sys = 0;
	for (int i = -rb; i <= rb; i++) {
		sxs += kx[i + rb] = exp(-0.5 * (i - ox) * (i - ox) / (sig * sig));
		sys += ky[i + rb] = exp(-0.5 * (i - oy) * (i - oy) / (sig * sig));
	}
	for (int i = 0; i <= 2 * rb; i++) {
		kx[i] /= sxs;
		ky[i] /= sys;
	}
	for (int k = 0; k < FS_SE_NCOMP; k++) {
		const float *src = c->acc[k];
		/* along x: every fine row, the bins' columns */
		for (int y = -hf; y <= hf; y++)
			for (int x = -hq; x <= hq; x++) {
				const float *row = src + (size_t)(y + hf) * fw + hf + x * m;
				double s = 0;
				if (box) {
					for (int d = -box; d <= box; d++)
						s += (d == -box || d == box ? 0.5 : 1) * row[d];
					s /= 2 * box;
				} else {
					s = row[0];
				}
				rowbox[(size_t)(y + hf) * qw + (x + hq)] = (float)s;
			}
		/* along y: the bins' rows */
		for (int y = -hq; y <= hq; y++)
			for (int x = -hq; x <= hq; x++) {
				double s = 0;
				if (box) {
					for (int d = -box; d <= box; d++)
						s += (d == -box || d == box ? 0.5 : 1) *
						     rowbox[(size_t)(y * m + d + hf) * qw + (x + hq)];
					s /= 2 * box;
				} else {
					s = rowbox[(size_t)(y * m + hf) * qw + (x + hq)];
				}
				q2[(size_t)(y + hq) * qw + (x + hq)] = (float)s;
			}
		/* the beam's Gaussian centred at the offset: out(x) = sum_i
		 * k(i) src(x - i), a kernel peaked at +s moves the dome by +s */
		for (int y = -hq; y <= hq; y++)
			for (int x = -c->wb; x <= c->wb; x++) {
				double s = 0;
				const float *row = q2 + (size_t)(y + hq) * qw + hq + x;
				for (int i = -rb; i <= rb; i++)
					s += kx[i + rb] * row[-i];
				t2[(size_t)(y + hq) * ow + (x + c->wb)] = (float)s;
			}
		for (int y = -c->wb; y <= c->wb; y++)
			for (int x = -c->wb; x <= c->wb; x++) {
				double s = 0;
				for (int i = -rb; i <= rb; i++)
					s += ky[i + rb] * t2[(size_t)(y - i + hq) * ow + (x + c->wb)];
				out[k][(size_t)(y + c->wb) * ow + (x + c->wb)] = (float)s;
			}
	}
	return 0;
}
