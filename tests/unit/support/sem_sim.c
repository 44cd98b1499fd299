/* sem_sim.c - SEM image formation over a dome height field (see sem_sim.h). */
#include "sem_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "analysis/preprocess.h"
#include "sem_surface.h"
#include "test_rng.h"

/* xorshift64* (test_rng.h): deterministic across platforms */
typedef uint64_t rng_t;

void sem_defaults(sem_opts *o)
{
	memset(o, 0, sizeof *o);
	o->width = 320;
	o->height = 256;
	o->pitch = 24;
	o->fill = 0.5;
	o->profile = 1;
	o->h_over_r = 0.5;
	o->radius_jitter = 0.04;
	o->pos_jitter = 0.02;
	o->undulation = 2;
	o->roughness = 0.05;
	o->secant_n = 1.0;
	o->det_elevation = 35 * M_PI / 180;
	o->det_strength = 0.5;
	o->shadow = 0.5;
	o->edge = 0.5;
	o->beam_blur = 0.8;
	o->dose = 600;
	o->bits = 8;
	o->drift = 0.1;
	o->scan_blur = 0.6;
	o->resample = 1;
	o->seed = 1;
}

void sem_truth_free(sem_truth *t)
{
	if (!t)
		return;
	free(t->x);
	free(t->y);
	free(t->d);
	free(t->inside);
	free(t->pi);
	free(t->pj);
	free(t->space);
	memset(t, 0, sizeof *t);
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

int sem_operator_range(const fs_image *sig, double *lo, double *hi)
{
	size_t nsm = 0, step = 7;
	size_t tot = (size_t)sig->width * sig->height;
	float *smp = malloc((tot / step + 1) * sizeof *smp);
	if (!smp)
		return -1;
	for (size_t k = 0; k < tot; k += step)
		smp[nsm++] = sig->data[k];
	qsort(smp, nsm, sizeof *smp, cmp_float);
	*lo = smp[(size_t)(0.01 * (nsm - 1))];
	*hi = smp[(size_t)(0.99 * (nsm - 1))];
	free(smp);
	if (*hi - *lo < 1e-6)
		*hi = *lo + 1e-6;
	return 0;
}

typedef struct site {
	double x, y, R;
	int i, j, present;
} site;

static int cmp_site(const void *a, const void *b)
{
	const site *p = a, *q = b;
	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

static long find_site(const site *s, size_t n, int i, int j)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (s[m].i < i || (s[m].i == i && s[m].j < j))
			lo = m + 1;
		else
			hi = m;
	}
	return lo < n && s[lo].i == i && s[lo].j == j ? (long)lo : -1;
}

static int jpeg_roundtrip(fs_image *img, int quality)
{
	int w = img->width, h = img->height, rc = -1;
	unsigned char *buf = NULL;
	unsigned long len = 0;
	unsigned char *row = malloc((size_t)w);
	if (!row)
		return -1;
	struct jpeg_compress_struct c;
	struct jpeg_error_mgr je;
	c.err = jpeg_std_error(&je);
	jpeg_create_compress(&c);
	jpeg_mem_dest(&c, &buf, &len);
	c.image_width = (JDIMENSION)w;
	c.image_height = (JDIMENSION)h;
	c.input_components = 1;
	c.in_color_space = JCS_GRAYSCALE;
	jpeg_set_defaults(&c);
	jpeg_set_quality(&c, quality, TRUE);
	jpeg_start_compress(&c, TRUE);
	while (c.next_scanline < (JDIMENSION)h) {
		const float *s = img->data + (size_t)c.next_scanline * w;
		for (int x = 0; x < w; x++) {
			double v = s[x] < 0 ? 0 : s[x] > 1 ? 1 : s[x];
			row[x] = (unsigned char)lround(v * 255);
		}
		JSAMPROW rp = row;
		jpeg_write_scanlines(&c, &rp, 1);
	}
	jpeg_finish_compress(&c);
	jpeg_destroy_compress(&c);
	struct jpeg_decompress_struct d;
	d.err = jpeg_std_error(&je);
	jpeg_create_decompress(&d);
	jpeg_mem_src(&d, buf, len);
	if (jpeg_read_header(&d, TRUE) == JPEG_HEADER_OK) {
		d.out_color_space = JCS_GRAYSCALE;
		jpeg_start_decompress(&d);
		while (d.output_scanline < d.output_height) {
			float *o = img->data + (size_t)d.output_scanline * w;
			JSAMPROW rp = row;
			jpeg_read_scanlines(&d, &rp, 1);
			for (int x = 0; x < w; x++)
				o[x] = row[x] / 255.0f;
		}
		jpeg_finish_decompress(&d);
		rc = 0;
	}
	jpeg_destroy_decompress(&d);
	free(buf);
	free(row);
	return rc;
}

/* The halftone screen's ink threshold at sub-sample (sx, sy) of pixel
 * (x, y), for a screen of period P at 45 degrees: the expression the
 * simulator has always used, which decides every sub-sample's comparison
 * to the bit. */
static double screen_spot(int x, int y, int sx, int sy, double P)
{
	double px = x + (sx - 1) / 3.0, py = y + (sy - 1) / 3.0;
	double u = (px + py) / M_SQRT2, w = (px - py) / M_SQRT2;
	return 0.5 + 0.25 * (cos(2 * M_PI * u / P) + cos(2 * M_PI * w / P));
}

/* How far the tabulated threshold may lie from screen_spot's: the phases
 * of the table and of the expression are sums of the same numbers (below
 * 2^20) rounded in another order, a few ulps of 2^20 (~1e-9 px) times
 * 2 pi / (sqrt 2 P) for P >= 0.5; 1e-6 leaves a factor of 100 over it. */
#define SCREEN_TIE 1e-6

/* A 45-degree halftone screen of period P over img (coverage of dark ink
 * dots integrated over 3 x 3 sub-samples a pixel): each sub-sample is
 * inked where the signal v is not above the dot's threshold.
 * The threshold's two cosines depend on the sub-sample's diagonals
 * px + py and px - py, which are x + y and x - y plus a multiple of 1/3:
 * the cosines are tabulated per diagonal (10 (W + H) cosines instead of 18
 * a pixel, h35f: the halftone's cos was 17.7 % of the simulator). The
 * table's phase is not the expression's to the bit (the sums are rounded
 * in another order), so where v lies within SCREEN_TIE of the tabulated
 * threshold the expression itself decides: every comparison, and so every
 * pixel, is what the expression alone gives. Returns 0, -1 on out of
 * memory. */
static int halftone_screen(fs_image *img, double P)
{
	int W = img->width, H = img->height;
	int tab = P >= 0.5 && (double)W + H < 1048576.0;
	size_t nd = tab ? 5 * ((size_t)W + H) : 1;
	double *cu = malloc(nd * sizeof *cu), *cw = malloc(nd * sizeof *cw);
	if (!cu || !cw) {
		free(cu);
		free(cw);
		return -1;
	}
	/* cu[5 n + k]: x + y = n, sx + sy = k; cw[5 m + k]: x - y = m - (H - 1),
	 * sx - sy = k - 2 */
	for (int n = 0; tab && n < W + H; n++) {
		for (int k = 0; k < 5; k++) {
			double o = (k - 2) / 3.0;
			cu[5 * (size_t)n + k] = cos(2 * M_PI * ((n + o) / M_SQRT2) / P);
			cw[5 * (size_t)n + k] = cos(2 * M_PI * ((n - (H - 1) + o) / M_SQRT2) / P);
		}
	}
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double v = img->data[(size_t)y * W + x], acc = 0;
			const double *ru = cu + (tab ? 5 * (size_t)(x + y) : 0);
			const double *rw = cw + (tab ? 5 * (size_t)(x - y + H - 1) : 0);
			for (int sy = 0; sy < 3; sy++) {
				for (int sx = 0; sx < 3; sx++) {
					double spot;
					if (tab) {
						spot = 0.5 + 0.25 * (ru[sx + sy] + rw[sx - sy + 2]);
						if (!(fabs(v - spot) > SCREEN_TIE))
							spot = screen_spot(x, y, sx, sy, P);
					} else {
						spot = screen_spot(x, y, sx, sy, P);
					}
					acc += v > spot ? 1 : 0;
				}
			}
			img->data[(size_t)y * W + x] = (float)(0.05 + 0.9 * acc / 9);
		}
	}
	free(cu);
	free(cw);
	return 0;
}

int sem_screen(fs_image *img, double P, double scan_blur)
{
	char err[128];
	if (!img || !(P > 0) || scan_blur < 0)
		return -1;
	if (halftone_screen(img, P))
		return -1;
	/* as sem_make: the scan blur after the screen */
	return scan_blur > 0 && fs_gaussian_blur(img, scan_blur, err, sizeof err) ? -1 : 0;
}

/* Bilinear resampling by factor s (< 1 shrinks after an anti-alias blur). */
static fs_image *resample(const fs_image *src, double s)
{
	char err[128];
	int w = (int)lround(src->width * s), h = (int)lround(src->height * s);
	if (w < 8 || h < 8)
		return NULL;
	fs_image *b = s < 1 ? fs_gaussian_blurred(src, 0.5 / s, err, sizeof err) : fs_image_clone(src);
	fs_image *o = b ? fs_image_new(w, h) : NULL;
	if (!o) {
		fs_image_free(b);
		return NULL;
	}
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			double sx = (x + 0.5) / s - 0.5, sy = (y + 0.5) / s - 0.5;
			if (sx < 0)
				sx = 0;
			if (sy < 0)
				sy = 0;
			if (sx > b->width - 1)
				sx = b->width - 1;
			if (sy > b->height - 1)
				sy = b->height - 1;
			int x0 = (int)sx, y0 = (int)sy;
			int x1 = x0 + 1 < b->width ? x0 + 1 : x0, y1 = y0 + 1 < b->height ? y0 + 1 : y0;
			double fx = sx - x0, fy = sy - y0;
			const float *d = b->data;
			double a = d[(size_t)y0 * b->width + x0] * (1 - fx) + d[(size_t)y0 * b->width + x1] * fx;
			double c = d[(size_t)y1 * b->width + x0] * (1 - fx) + d[(size_t)y1 * b->width + x1] * fx;
			o->data[(size_t)y * w + x] = (float)(a * (1 - fy) + c * fy);
		}
	}
	fs_image_free(b);
	return o;
}

/* What the beam, the detector and the figure's reproduction make of a
 * rendered signal sig (consumed, W x H): the rest of the beam spot, the
 * detector's response with drift, noise and quantisation, the non-scale
 * margins (mt rows on top, bl columns on the left) and the halftone
 * screen, scan blur, resampling and JPEG. rng is the generator's state
 * after the surface's draws: every image of one scene starts from it
 * (sem_make_edges). Returns the image, NULL on failure. */
static fs_image *form_image(const sem_opts *o, fs_image *sig, rng_t rng, int mt, int bl)
{
	char err[128];
	int W = sig->width, H = sig->height;
	fs_image *out = NULL;
	/* The pixel's box (variance 1/12 per axis) is part of the spot: blur
	 * by the rest, so that box and Gaussian together have the beam's
	 * variance. */
	double spot2 = o->beam_blur * o->beam_blur - 1.0 / 12;
	if (!o->beam_continuous && spot2 > 0 && fs_gaussian_blur(sig, sqrt(spot2), err, sizeof err))
		goto fail;
	if (o->raw)
		return sig;
	/* Detector response: the operator sets brightness and contrast so that
	 * the signal spans most of the range (its 1st..99th percentile to
	 * 0.12..0.88), then drift, shot noise, quantisation. */
	double lo, hi;
	if (sem_operator_range(sig, &lo, &hi))
		goto fail;
	double g0 = 0.95 + 0.1 * test_xs64_unit(&rng), o0 = 0.02 * (test_xs64_unit(&rng) - 0.5);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double gain = 0.76 * g0 / (hi - lo) * (1 + o->drift * (x / (double)W - 0.5));
			double off = 0.12 + o0 + 0.1 * o->drift * sin(2 * M_PI * y / H);
			double v = off + gain * (sig->data[(size_t)y * W + x] - lo);
			if (o->dose > 0)
				v += sqrt(fmax(v, 0) / o->dose) * test_xs64_gauss(&rng);
			v = v < 0 ? 0 : v > 1 ? 1 : v;
			if (o->bits == 8)
				v = lround(v * 255) / 255.0;
			else if (o->bits == 16)
				v = lround(v * 65535) / 65535.0;
			sig->data[(size_t)y * W + x] = (float)v;
		}
	}
	/* Non-scale parts of the frame: the paper margin, the black surround
	 * with a label (blocks of "text") and a scale bar. */
	for (int y = 0; y < mt; y++)
		for (int x = 0; x < W; x++)
			sig->data[(size_t)y * W + x] = (float)(0.96 + 0.02 * test_xs64_unit(&rng));
	for (int y = mt; y < H; y++) {
		for (int x = 0; x < bl; x++) {
			float v = (float)(0.03 * test_xs64_unit(&rng));
			int lx = x - bl / 8, ly = y - mt - 10;
			/* text: 5 x 7 blocks in a row of characters */
			if (bl >= 24 && lx >= 0 && lx < bl * 3 / 4 && ly >= 0 && ly < 7 && (lx % 7) < 5 &&
			    ((lx / 7 + ly) % 3) != 0)
				v = 0.95f;
			/* the scale bar, 4 px high, 20 px from the bottom */
			if (bl >= 24 && y >= H - 24 && y < H - 20 && lx >= 0 && lx < bl * 3 / 4)
				v = 0.97f;
			sig->data[(size_t)y * W + x] = v;
		}
	}
	/* Reproduction: a 45° halftone screen (coverage of dark ink dots
	 * integrated over 3 x 3 subsamples per scanner pixel), scan blur. */
	if (o->halftone > 0 && halftone_screen(sig, o->halftone))
		goto fail;
	if (o->scan_blur > 0 && (o->halftone > 0 || o->resample != 1 || o->jpeg_quality > 0) &&
	    fs_gaussian_blur(sig, o->scan_blur, err, sizeof err))
		goto fail;
	if (o->resample != 1) {
		out = resample(sig, o->resample);
		fs_image_free(sig);
		sig = NULL;
		if (!out)
			return NULL;
	} else {
		out = sig;
		sig = NULL;
	}
	if (o->jpeg_quality > 0 && jpeg_roundtrip(out, o->jpeg_quality))
		goto fail;
	return out;
fail:
	fs_image_free(sig);
	fs_image_free(out);
	return NULL;
}

fs_image *sem_make(const sem_opts *o, sem_truth *t)
{
	fs_image *img = NULL;
	return sem_make_edges(o, &o->edge, 1, &img, t) ? NULL : img;
}

int sem_make_edges(const sem_opts *o, const double *edge, int n, fs_image **img, sem_truth *t)
{
	memset(t, 0, sizeof *t);
	for (int e = 0; e < n && e < SEM_EDGES_MAX; e++)
		img[e] = NULL;
	char err[128];
	int W = o->width, H = o->height;
	if (n < 1 || n > SEM_EDGES_MAX || W < 16 || H < 16 || o->pitch < 4 || o->fill <= 0 || o->fill >= 0.95 ||
	    o->h_over_r <= 0 || !(o->resample > 0) ||
	    !((o->profile >= 0 && o->profile <= 2) || o->profile == SEM_PROFILE_SMOOTH))
		return -1;
	rng_t rng = 0x9E3779B97F4A7C15ULL ^ ((rng_t)o->seed * 0xD1B54A32D192ED69ULL);
	if (!rng)
		rng = 1;
	test_xs64(&rng);
	float *rough = malloc((size_t)W * H * sizeof *rough);
	fs_image *sig[SEM_EDGES_MAX] = {NULL};
	site *s = NULL;
	sem_dome *dm = NULL;
	sem_surface surf;
	memset(&surf, 0, sizeof surf);
	size_t ns = 0;
	double L = 7 * o->pitch, p1 = 0, p2 = 0;
	int mt = o->margin_top < H / 2 ? o->margin_top : H / 2;
	int bl = o->black_left < W / 2 ? o->black_left : W / 2;
	if (!rough)
		goto fail;
	for (int e = 0; e < n; e++)
		if (!(sig[e] = fs_image_new(W, H)))
			goto fail;
	/* The surface: undulation (two slanted waves of ~7 pitches) and fine
	 * roughness (white noise smoothed over ~1 px). */
	{
		fs_image *r = fs_image_new(W, H);
		if (!r)
			goto fail;
		for (size_t k = 0; k < (size_t)W * H; k++)
			r->data[k] = (float)test_xs64_gauss(&rng);
		if (fs_gaussian_blur(r, 1.0, err, sizeof err)) {
			fs_image_free(r);
			goto fail;
		}
		/* a Gaussian of sigma 1 leaves SD 1 / (2 sqrt(pi)) of white noise */
		double rs = o->roughness * 2 * sqrt(M_PI);
		p1 = 2 * M_PI * test_xs64_unit(&rng);
		p2 = 2 * M_PI * test_xs64_unit(&rng);
		for (size_t k = 0; k < (size_t)W * H; k++)
			rough[k] = (float)(rs * r->data[k]);
		fs_image_free(r);
	}
	/* the crack's groove (sem_opts): no random draw, so the rest of the
	 * scene is the same as without it */
	double cnx = -sin(o->crack_angle), cny = cos(o->crack_angle); /* across the line */
	double cc = (W / 2.0) * cnx + (H / 2.0) * cny + o->crack_offset;
	if (o->crack_width > 0) {
		double sg = o->crack_width / 4;
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				double u = x * cnx + y * cny - cc;
				rough[(size_t)y * W + x] -= (float)(o->crack_depth * exp(-u * u / (2 * sg * sg)));
			}
	}
	/* Sites of the lattice covering the frame. */
	double ax = o->pitch * cos(o->angle), ay = o->pitch * sin(o->angle);
	double bx = o->pitch * cos(o->angle + M_PI / 3), by = o->pitch * sin(o->angle + M_PI / 3);
	int range = (int)((W + H) / (o->pitch * 0.8)) + 3;
	size_t cap = 0;
	double cx = W / 2.0, cy = H / 2.0;
	for (int i = -range; i <= range; i++) {
		for (int j = -range; j <= range; j++) {
			double x = cx + i * ax + j * bx, y = cy + i * ay + j * by;
			double R0 = 0.5 * o->fill * o->pitch;
			if (x < -2 * R0 || y < -2 * R0 || x > W + 2 * R0 || y > H + 2 * R0)
				continue;
			if (ns == cap) {
				cap = cap ? 2 * cap : 256;
				site *ps = realloc(s, cap * sizeof *s);
				if (!ps)
					goto fail;
				s = ps;
			}
			site *q = &s[ns++];
			q->i = i;
			q->j = j;
			q->present = test_xs64_unit(&rng) >= o->missing;
			q->x = x + o->pos_jitter * o->pitch * test_xs64_gauss(&rng);
			q->y = y + o->pos_jitter * o->pitch * test_xs64_gauss(&rng);
			double jr = o->radius_jitter * test_xs64_gauss(&rng);
			jr = jr < -0.25 ? -0.25 : jr > 0.25 ? 0.25 : jr;
			q->R = R0 * (1 + jr);
			/* broken by the crack: a dome whose base would reach into it */
			if (o->crack_width > 0 && fabs(q->x * cnx + q->y * cny - cc) < o->crack_width / 2 + q->R)
				q->present = 0;
		}
	}
	/* Domes stand on the surface (added heights; they do not overlap at
	 * fill <= 0.8 with the jitters used). radius_scale enlarges or shrinks
	 * them all about their centres (the oracle's model images). */
	/* a stretched smooth foot (sem_opts) widens the base, the truth, and
	 * keeps the core */
	double rscale = (o->radius_scale > 0 ? o->radius_scale : 1) * (o->foot_stretch > 0 ? o->foot_stretch : 1);
	size_t nd = 0;
	dm = malloc((ns + 1) * sizeof *dm);
	if (!dm)
		goto fail;
	for (size_t k = 0; k < ns; k++)
		if (s[k].present)
			dm[nd++] = (sem_dome){s[k].x + o->shift_x, s[k].y + o->shift_y, s[k].R * rscale};
	/* SE signal: each pixel the mean yield of the surface under it
	 * (sem_surface.h), then the rest of the beam spot. */
	if (sem_surface_init(&surf, W, H, o->h_over_r, o->profile, o->undulation, L, p1, p2, rough, dm, nd,
			     o->pitch))
		goto fail;
	sem_surface_detector(&surf, o->det_azimuth, o->det_elevation, o->secant_n, o->det_strength, o->shadow,
			     o->edge);
	if (o->lean != 0 && sem_surface_lean(&surf, o->lean, o->lean_azimuth))
		goto fail;
	if (o->cap != 0 && sem_surface_cap(&surf, o->cap, o->cap_power > 0 ? o->cap_power : 2))
		goto fail;
	if ((o->foot_power != 0 || o->foot_stretch != 0) &&
	    sem_surface_foot(&surf, o->foot_power, o->foot_stretch, o->foot_from > 0 ? o->foot_from : 0.8))
		goto fail;
	int S = o->supersample > 0 ? o->supersample : SEM_SUPERSAMPLE;
	double spot2 = o->beam_blur * o->beam_blur - 1.0 / 12;
	/* the continuous beam (sem_opts) blurs here, before the box; form_image
	 * then leaves the spot alone */
	if (o->beam_continuous ? sem_surface_render_beam(&surf, S, spot2 > 0 ? sqrt(spot2) : 0, edge, n, sig)
			       : sem_surface_render_edges(&surf, S, edge, n, sig))
		goto fail;
	sem_surface_free(&surf);
	free(dm);
	dm = NULL;
	free(rough);
	rough = NULL;
	/* every strength's image from the same state of the generator: the
	 * draws after the surface's are the formation's own, as in a render
	 * of that strength alone */
	for (int e = 0; e < n; e++) {
		img[e] = form_image(o, sig[e], rng, mt, bl);
		sig[e] = NULL;
		if (!img[e])
			goto fail;
	}
	double sc = o->raw ? 1 : o->resample;
	const fs_image *out = img[0];
	/* Truth in output pixels. */
	t->width = out->width;
	t->height = out->height;
	t->pitch = o->pitch * sc;
	t->rx0 = bl * sc;
	t->ry0 = mt * sc;
	t->rx1 = W * sc;
	t->ry1 = H * sc;
	qsort(s, ns, sizeof *s, cmp_site);
	size_t np = 0;
	for (size_t k = 0; k < ns; k++)
		np += s[k].present;
	t->x = malloc((np + 1) * sizeof *t->x);
	t->y = malloc((np + 1) * sizeof *t->y);
	t->d = malloc((np + 1) * sizeof *t->d);
	t->inside = malloc((np + 1) * sizeof *t->inside);
	long *idx = malloc((ns + 1) * sizeof *idx);
	t->pi = malloc((3 * np + 1) * sizeof *t->pi);
	t->pj = malloc((3 * np + 1) * sizeof *t->pj);
	t->space = malloc((3 * np + 1) * sizeof *t->space);
	if (!t->x || !t->y || !t->d || !t->inside || !idx || !t->pi || !t->pj || !t->space) {
		free(idx);
		goto fail;
	}
	for (size_t k = 0; k < ns; k++) {
		idx[k] = -1;
		if (!s[k].present)
			continue;
		/* a rendered pixel x covers output [x, x + 1) * sc */
		double X = (s[k].x + o->shift_x + 0.5) * sc - 0.5, Y = (s[k].y + o->shift_y + 0.5) * sc - 0.5,
		       D = 2 * s[k].R * rscale * sc;
		if (X < -D / 2 || Y < -D / 2 || X > t->width - 1 + D / 2 || Y > t->height - 1 + D / 2)
			continue;
		idx[k] = (long)t->n;
		t->x[t->n] = X;
		t->y[t->n] = Y;
		t->d[t->n] = D;
		t->inside[t->n] = X - D / 2 >= t->rx0 && Y - D / 2 >= t->ry0 && X + D / 2 <= t->rx1 - 1 &&
				  Y + D / 2 <= t->ry1 - 1;
		t->n++;
	}
	static const int nb[3][2] = {{1, 0}, {0, 1}, {-1, 1}};
	for (size_t k = 0; k < ns; k++) {
		if (idx[k] < 0)
			continue;
		for (int q = 0; q < 3; q++) {
			long m = find_site(s, ns, s[k].i + nb[q][0], s[k].j + nb[q][1]);
			if (m < 0 || idx[m] < 0)
				continue;
			size_t a = (size_t)idx[k], b = (size_t)idx[m];
			t->pi[t->n_pairs] = (int)a;
			t->pj[t->n_pairs] = (int)b;
			t->space[t->n_pairs] =
				hypot(t->x[a] - t->x[b], t->y[a] - t->y[b]) - 0.5 * (t->d[a] + t->d[b]);
			t->n_pairs++;
		}
	}
	free(idx);
	free(s);
	return 0;
fail:
	free(rough);
	free(dm);
	sem_surface_free(&surf);
	free(s);
	for (int e = 0; e < n && e < SEM_EDGES_MAX; e++) {
		fs_image_free(sig[e]);
		fs_image_free(img[e]);
		img[e] = NULL;
	}
	sem_truth_free(t);
	return -1;
}


typedef struct pair {
	double d;
	int det, tru;
} pair;

static int cmp_pair(const void *a, const void *b)
{
	const pair *p = a, *q = b;
	if (p->d != q->d)
		return p->d < q->d ? -1 : 1;
	if (p->det != q->det)
		return p->det - q->det;
	return p->tru - q->tru;
}

int sem_match(const sem_truth *t, const double *xs, const double *ys, size_t n, double max_dist,
	      int *match_of_det, int *match_of_truth)
{
	size_t np = 0, cap = 0;
	pair *p = NULL;
	int *md = malloc((n + 1) * sizeof *md), *mt = malloc((t->n + 1) * sizeof *mt);
	if (!md || !mt)
		goto fail;
	for (size_t i = 0; i < n; i++) {
		md[i] = -1;
		for (size_t j = 0; j < t->n; j++) {
			double d = hypot(xs[i] - t->x[j], ys[i] - t->y[j]);
			if (d > max_dist)
				continue;
			if (np == cap) {
				cap = cap ? 2 * cap : 1024;
				pair *q = realloc(p, cap * sizeof *p);
				if (!q)
					goto fail;
				p = q;
			}
			p[np++] = (pair){d, (int)i, (int)j};
		}
	}
	for (size_t j = 0; j < t->n; j++)
		mt[j] = -1;
	if (np)
		qsort(p, np, sizeof *p, cmp_pair);
	for (size_t k = 0; k < np; k++) {
		if (md[p[k].det] >= 0 || mt[p[k].tru] >= 0)
			continue;
		md[p[k].det] = p[k].tru;
		mt[p[k].tru] = p[k].det;
	}
	if (match_of_det)
		memcpy(match_of_det, md, n * sizeof *md);
	if (match_of_truth)
		memcpy(match_of_truth, mt, t->n * sizeof *mt);
	free(p);
	free(md);
	free(mt);
	return 0;
fail:
	free(p);
	free(md);
	free(mt);
	return -1;
}

void sem_corner_scene(int k, sem_opts *o)
{
	sem_defaults(o);
	o->fill = k & 1 ? 0.80 : 0.25;
	o->profile = k & 2 ? 2 : 0;
	o->h_over_r = k & 4 ? 1.0 : 0.25;
	o->halftone = k & 8 ? 5 : 0;
	o->det_azimuth = k & 16 ? 135 * M_PI / 180 : 0;
	o->pitch = k & 32 ? 64 : 16;
	o->seed = 1000 + (unsigned)k;
	o->width = (int)fmax(320, 12 * o->pitch);
	o->height = (int)fmax(256, 10 * o->pitch);
	o->angle = fmod(0.37 * k, M_PI / 3);
	if (k % 4 == 3) {
		o->margin_top = (int)(1.5 * o->pitch);
		o->black_left = (int)(2 * o->pitch);
	}
}

void sem_smooth_scene(int k, sem_opts *o)
{
	static const double fills[3] = {0.30, 0.55, 0.75};
	int b = k / 3;
	sem_defaults(o);
	o->profile = SEM_PROFILE_SMOOTH;
	o->fill = fills[k % 3];
	o->pitch = b & 1 ? 48 : 24;
	o->h_over_r = b & 2 ? 0.5 : 0.25;
	o->det_azimuth = b & 4 ? 135 * M_PI / 180 : 0;
	o->halftone = b & 8 ? 5 : 0;
	o->seed = 2000 + (unsigned)k;
	o->width = (int)fmax(320, 12 * o->pitch);
	o->height = (int)fmax(256, 10 * o->pitch);
	o->angle = fmod(0.37 * k, M_PI / 3);
}

/* Scenes 10-13 (h35c): points of a sweep by hand around the first ten
 * (fill 0.4-0.7, pitch 28-48, both azimuths, h/R 0.25 / 0.5, seeds
 * 3100-3135) that fail in ways those do not show, or did before h35c:
 * fill 0.7, pitch 28, azimuth 0, whose formation fit's azimuth points
 * away from the detector and whose first axis reading stops short (D
 * -12.4 % with the lit side read but not read again); fill 0.4, pitch
 * 28, azimuth 0 (D -23 %, the axis step not run; h35j: -3.1 %, a
 * lattice harmonic no longer taken for a screen); small tall domes at
 * fill 0.4, pitch 28 (D -6.6 %; h35j: +1.8 %, the same false screen);
 * tall domes at fill 0.7 (S -4.4 % from D +1.9 %: S within 3 % needs D
 * within 1.3 % there). */
static const struct {
	double fill, pitch, h_over_r;
	int corner; /* the formation: 33 (detector at 0 deg) or 49 (135 deg) */
	unsigned seed;
} interior_more[] = {
	{0.70, 28, 0.25, 33, 3112},
	{0.40, 28, 0.25, 33, 3100},
	{0.40, 28, 0.50, 49, 3119},
	{0.70, 36, 0.50, 33, 3132},
};

void sem_interior_scene(int i, sem_opts *o)
{
	if (i >= 10) {
		int q = i - 10;
		sem_corner_scene(interior_more[q].corner, o);
		o->fill = interior_more[q].fill;
		o->pitch = interior_more[q].pitch;
		o->h_over_r = interior_more[q].h_over_r;
		o->seed = interior_more[q].seed;
	} else {
		int j = i < 8 ? i : i == 8 ? 0 : 7;
		sem_corner_scene(j & 4 ? 49 : 33, o);
		o->fill = j & 1 ? 0.6 : 0.5;
		o->pitch = j & 2 ? 40 : 32;
		o->h_over_r = i < 8 ? 0.25 : 0.5;
		o->seed = 3000 + (unsigned)i;
	}
	o->width = (int)(12 * o->pitch);
	o->height = (int)(10 * o->pitch);
	o->angle = fmod(0.37 * ((int)o->seed - 3000 + 7), M_PI / 3);
}

int sem_counted(const sem_truth *t, double x, double y)
{
	double m = 0.75 * t->pitch;
	return x >= t->rx0 + m && y >= t->ry0 + m && x <= t->rx1 - 1 - m && y <= t->ry1 - 1 - m;
}

size_t sem_counted_centres(const sem_truth *t, double *xs, double *ys)
{
	size_t n = 0;
	for (size_t j = 0; j < t->n; j++)
		if (sem_counted(t, t->x[j], t->y[j])) {
			xs[n] = t->x[j];
			ys[n++] = t->y[j];
		}
	return n;
}
