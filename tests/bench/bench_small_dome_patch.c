/*
 * bench_small_dome_patch - whether the mean patch of small domes (D of a
 * few px) decides their profile and radius under a forward model of the
 * SE formation (issue 13, corner group A; docs/paper-figures.md, h38c).
 * Asserts nothing.
 *
 * Why: the dome rule reads 4-px flat-topped domes (fill 0.25, pitch 16)
 * +10 to +20 % large, and h32f / h33b concluded that a 4-px dome's image
 * does not decide the balance of the secant yield against the edge and
 * the detector's slope, so that fill, blur and the centres' offset form
 * one valley. Their mean patches were read by bilinear interpolation at
 * each dome's centre (a tent blur of up to 0.5 px on a 2-px base). This
 * instrument averages the domes without interpolation: every pixel near
 * a centre is put in the bin of its offset from that centre (q bins a
 * pixel), so the mean patch is sampled at sub-pixel offsets with only the
 * pixel's own integration and the beam's blur in it, and its noise is
 * that of a few hundred domes. The model is the rule's own formation
 * (analysis/se_render.h: secant yield, detector slopes, edge brightening
 * capped at 1.5 per px, shadow), rendered at q samples a pixel and
 * blurred by a Gaussian of the beam's sigma (the pixel's box included,
 * as the simulator defines it), sampled at the bins' offsets.
 *
 * For each profile (0 spherical cap, 1 paraboloid, 2 flat-topped) x h/R
 * x fill x blur x a common shift of the centres along the detector's
 * axis, the patch is fitted by weighted least squares (each bin weighted
 * by its count over its sample variance, so chi^2 counts the domes'
 * scatter as noise) under three mixes of the components:
 *   free: offset, yield, slope x, slope y, edge, shadow all free
 *         (what an image alone gives; h33b's valley);
 *   held: the simulator's physics (yield 1 - k sin e, slope k cos e
 *         towards the detector, edge e, shadow -s; k = 0.5, e = 0.5,
 *         s = 0.5, elevation 35 deg), only gain and offset free (an
 *         oracle of the mix: what the image decides once the balance
 *         is known).
 *   ye:   the yield and the edge held in the simulator's ratio, the
 *         slopes and the shadow free (the balance alone held).
 * The detector's azimuth and elevation are the scene's (oracle; h33b
 * found them not what decides).
 *
 * Usage: bench_small_dome_patch [--seed-add N] [--true|--detected]
 * [--surface] [--shift-step PX] [--ye-edge E] [SCENE...]; default the
 * eight unscreened fill-0.25 pitch-16 corner scenes (A: 2 6 18 22, E: 0
 * 4 16 20), both centre sets. Prints per scene, centre set and mix the best fit of each profile (D % from its
 * fill, the blur, h/R, shift, chi^2 per bin and chi^2 above the best)
 * and, with --surface, the residual surface: chi^2 above the best over
 * profile x fill and profile x blur (each cell minimised over the rest).
 * --shift-step sets the shift's grid (0.125 px), --ye-edge the edge's
 * weight in the ye mix (0.5, the simulator's: how well the balance must
 * be known). Cost: about 5-10 s of CPU per scene and centre set, 18 MB
 * (renders through SEM_SCENE_CACHE).
 * h38c's finding: with the yield : edge ratio held (even 30 % off) the
 * flat-topped 4-px domes' profile and D are decided (D within 2 %); with
 * the mix free they are not, and spherical caps are decided under
 * neither (docs/paper-figures.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/se_render.h"
#include "image/image.h"
#include "mean_patch.h"
#include "scene_sets.h"
#include "sem_scene.h"
#include "sem_sim.h"

#define Q 4                    /* bins (and model samples) per pixel */
#define WPX 6                  /* the patch's radius, px */
#define NB (2 * WPX * Q + 1)   /* bins per side */
#define NP 3                   /* profiles */
#define NH 3                   /* h/R */
#define NF 17                  /* fills */
#define NS 21                  /* blurs: 0.60-1.10 px */
#define NSH 33                 /* shifts along the detector's axis, at most */
#define NC 6                   /* offset + the five components */
#define NMIX 3

static const double HR[NH] = {0.25, 0.5, 1.0};
static const char *PNAME[NP] = {"sph", "par", "flat"};
static double fill_at(int i) { return 0.17 + 0.01 * i; }
static double sig_at(int i) { return 0.6 + 0.025 * i; }
/* shifts -1..+1 px along the detector's axis in steps of shift_step
 * (--shift-step; 0.125 px by default, 17 shifts) */
static double shift_step = 0.125;
static int nsh = 17;
static double shift_at(int i) { return -1.0 + shift_step * i; }

/* The simulator's physics (sem_defaults), as weights of se_render's
 * components: yield x (1 + k (n.d - sin e)) = sec (1 - k sin e) + const +
 * k cos e (slope towards the detector); the shadow takes s of the signal
 * (about 1 there) away; the edge is e x the convexity (capped 1.5 / px). */
#define SIM_K 0.5
#define SIM_E 0.5
#define SIM_S 0.5
#define SIM_EL (35 * M_PI / 180)
#define EDGE_CAP_PX 1.5

/* --ye-edge E: the edge's weight in the ye mix (the simulator's 0.5 by
 * default): how well the balance must be known */
static double ye_edge = SIM_E;

typedef struct patch {
	double mean[NB * NB], w[NB * NB]; /* w = count / variance; 0 = unused */
	int nd;
} patch;

/* The mean patch of img about the centres (xs, ys; n), every centre moved
 * by (dx, dy) (mean_patch.h). */
static void build_patch(const fs_image *img, const double *xs, const double *ys, int n, double dx, double dy,
			patch *p)
{
	mean_patch_build(img, xs, ys, n, dx, dy, WPX, Q, p->mean, p->w);
	p->nd = n;
}

/* Weighted least squares of the patch on the columns col[0..nc-1] (each
 * NB x NB); chi^2, or INFINITY when singular. */
static double fit_chi2(const patch *p, const float *const *col, int nc)
{
	double x[NC], xwy[NC], ywy;
	if (wls_solve(p->mean, p->w, col, nc, NB * NB, x, xwy, &ywy))
		return INFINITY;
	/* chi^2 = y'Wy - x'b at the solution */
	double chi = ywy;
	for (int i = 0; i < nc; i++)
		chi -= x[i] * xwy[i];
	return chi > 0 ? chi : 0;
}

/* Separable Gaussian blur of a (2 h + 1)^2 field, returning the central
 * NB x NB samples. */
static void blur_centre(const float *src, int h, double sig_samples, float *out)
{
	int r = (int)ceil(3.5 * sig_samples), w = 2 * h + 1, c = WPX * Q;
	double k[128];
	if (r > 63)
		r = 63;
	double ks = 0;
	for (int i = -r; i <= r; i++)
		ks += k[i + r] = exp(-0.5 * i * i / (sig_samples * sig_samples));
	for (int i = 0; i <= 2 * r; i++)
		k[i] /= ks;
	/* rows: only the rows the columns' pass reads */
	static float tmp[(2 * 128 + 1) * NB];
	for (int y = -c - r; y <= c + r; y++)
		for (int x = -c; x <= c; x++) {
			double s = 0;
			for (int i = -r; i <= r; i++) {
				int xx = x + i;
				if (xx < -h || xx > h)
					continue;
				s += k[i + r] * src[(size_t)(y + h) * w + (xx + h)];
			}
			tmp[(y + c + r) * NB + (x + c)] = (float)s;
		}
	for (int y = -c; y <= c; y++)
		for (int x = -c; x <= c; x++) {
			double s = 0;
			for (int i = -r; i <= r; i++)
				s += k[i + r] * tmp[(y + i + c + r) * NB + (x + c)];
			out[(y + c) * NB + (x + c)] = (float)s;
		}
}

typedef struct result {
	double chi[NMIX][NP][NH][NF][NS][NSH];
} result;

static void scan(const patch *pt, double pitch, double angle, double az, result *res)
{
	int half = WPX * Q + 40, g = (int)lround(pitch * Q);
	fs_se_field f;
	memset(&f, 0, sizeof f);
	static float bl[FS_SE_NCOMP][NB * NB], held[NB * NB], ye[NB * NB];
	for (int ip = 0; ip < NP; ip++)
		for (int ih = 0; ih < NH; ih++)
			for (int ifl = 0; ifl < NF; ifl++) {
				fs_se_geom m = {fill_at(ifl), HR[ih], (double)ip, angle, 0};
				if (fs_se_render(&m, g, half, 40, &f))
					continue;
				fs_se_shadow(&f, az, SIM_EL);
				/* the edge per px, capped as the simulator caps it:
				 * se_render's cap (1 per grid unit = Q per px) lies
				 * above, so it has not clipped below 1.5 per px */
				int w = 2 * half + 1;
				for (int k = 0; k < w * w; k++)
					f.c[FS_SE_EDGE][k] = (float)fmin(EDGE_CAP_PX, Q * f.c[FS_SE_EDGE][k]);
				for (int is = 0; is < NS; is++) {
					for (int cpt = 0; cpt < FS_SE_NCOMP; cpt++)
						blur_centre(f.c[cpt], half, sig_at(is) * Q, bl[cpt]);
					double ca = SIM_K * cos(SIM_EL) * cos(az), sa = SIM_K * cos(SIM_EL) * sin(az);
					for (int b = 0; b < NB * NB; b++)
						held[b] = (float)((1 - SIM_K * sin(SIM_EL)) * bl[FS_SE_YIELD][b] +
								  ca * bl[FS_SE_SLOPE_X][b] + sa * bl[FS_SE_SLOPE_Y][b] +
								  SIM_E * bl[FS_SE_EDGE][b] - SIM_S * bl[FS_SE_SHADOW][b]);
					const float *cfree[NC] = {NULL, bl[FS_SE_YIELD], bl[FS_SE_SLOPE_X],
								  bl[FS_SE_SLOPE_Y], bl[FS_SE_EDGE], bl[FS_SE_SHADOW]};
					const float *cheld[2] = {NULL, held};
					/* the yield and the edge in the simulator's ratio, the
					 * slopes and the shadow free: whether the balance
					 * h33b named is all the image leaves open */
					for (int b = 0; b < NB * NB; b++)
						ye[b] = (float)((1 - SIM_K * sin(SIM_EL)) * bl[FS_SE_YIELD][b] +
								ye_edge * bl[FS_SE_EDGE][b]);
					const float *cye[5] = {NULL, ye, bl[FS_SE_SLOPE_X], bl[FS_SE_SLOPE_Y],
							       bl[FS_SE_SHADOW]};
					for (int ish = 0; ish < nsh; ish++) {
						res->chi[0][ip][ih][ifl][is][ish] = fit_chi2(&pt[ish], cfree, NC);
						res->chi[1][ip][ih][ifl][is][ish] = fit_chi2(&pt[ish], cheld, 2);
						res->chi[2][ip][ih][ifl][is][ish] = fit_chi2(&pt[ish], cye, 5);
					}
				}
			}
	fs_se_field_free(&f);
}

/* The fill at the minimum of the parabola through a fill's neighbours
 * (the grid's step is 4 % of D). */
static double refine_fill(const double *chi_f, int i)
{
	if (i <= 0 || i >= NF - 1)
		return fill_at(i);
	double a = chi_f[i - 1], b = chi_f[i], c = chi_f[i + 1], den = a - 2 * b + c;
	if (!(den > 0))
		return fill_at(i);
	return fill_at(i) + 0.01 * 0.5 * (a - c) / den;
}

static void report(const result *r, int mix, double true_fill, int nbins, int surface)
{
	static const char *MIX[NMIX] = {"free", "held", "ye"};
	double best = INFINITY;
	for (int ip = 0; ip < NP; ip++)
		for (int ih = 0; ih < NH; ih++)
			for (int ifl = 0; ifl < NF; ifl++)
				for (int is = 0; is < NS; is++)
					for (int ish = 0; ish < nsh; ish++)
						if (r->chi[mix][ip][ih][ifl][is][ish] < best)
							best = r->chi[mix][ip][ih][ifl][is][ish];
	for (int ip = 0; ip < NP; ip++) {
		double b = INFINITY;
		int bh = 0, bf = 0, bs = 0, bsh = 0;
		for (int ih = 0; ih < NH; ih++)
			for (int ifl = 0; ifl < NF; ifl++)
				for (int is = 0; is < NS; is++)
					for (int ish = 0; ish < nsh; ish++)
						if (r->chi[mix][ip][ih][ifl][is][ish] < b) {
							b = r->chi[mix][ip][ih][ifl][is][ish];
							bh = ih, bf = ifl, bs = is, bsh = ish;
						}
		double cf[NF];
		for (int ifl = 0; ifl < NF; ifl++)
			cf[ifl] = r->chi[mix][ip][bh][ifl][bs][bsh];
		double fl = refine_fill(cf, bf);
		printf("    %s %-4s D %+6.1f %% (grid %+5.1f)  blur %.3f  h/R %.2f  shift %+5.2f  chi2/bin %7.2f  +%.0f\n",
		       MIX[mix], PNAME[ip], 100 * (fl - true_fill) / true_fill,
		       100 * (fill_at(bf) - true_fill) / true_fill, sig_at(bs), HR[bh], shift_at(bsh), b / nbins, b - best);
	}
	if (!surface)
		return;
	printf("    %s surface, chi2 above the best (min over the rest), by D %% of the fill grid:\n      D%%  ",
	       MIX[mix]);
	for (int ifl = 0; ifl < NF; ifl++)
		printf(" %6.0f", 100 * (fill_at(ifl) - true_fill) / true_fill);
	printf("\n");
	for (int ip = 0; ip < NP; ip++) {
		printf("      %-4s", PNAME[ip]);
		for (int ifl = 0; ifl < NF; ifl++) {
			double b = INFINITY;
			for (int ih = 0; ih < NH; ih++)
				for (int is = 0; is < NS; is++)
					for (int ish = 0; ish < nsh; ish++)
						if (r->chi[mix][ip][ih][ifl][is][ish] < b)
							b = r->chi[mix][ip][ih][ifl][is][ish];
			printf(" %6.0f", b - best);
		}
		printf("\n");
	}
	printf("    %s by blur: best D %% / chi2 above the best, per profile\n", MIX[mix]);
	for (int ip = 0; ip < NP; ip++) {
		printf("      %-4s", PNAME[ip]);
		for (int is = 0; is < NS; is += 2) {
			double b = INFINITY;
			int bf = 0, bh = 0, bsh = 0;
			for (int ih = 0; ih < NH; ih++)
				for (int ifl = 0; ifl < NF; ifl++)
					for (int ish = 0; ish < nsh; ish++)
						if (r->chi[mix][ip][ih][ifl][is][ish] < b) {
							b = r->chi[mix][ip][ih][ifl][is][ish];
							bf = ifl, bh = ih, bsh = ish;
						}
			double cf[NF];
			for (int ifl = 0; ifl < NF; ifl++)
				cf[ifl] = r->chi[mix][ip][bh][ifl][is][bsh];
			double fl = refine_fill(cf, bf);
			printf(" %.2f:%+5.1f/%-5.0f", sig_at(is), 100 * (fl - true_fill) / true_fill, b - best);
		}
		printf("\n");
	}
}

static int run_scene(int k, unsigned seed_add, int which, int surface)
{
	sem_opts o;
	sem_corner_scene(k, &o);
	o.seed += seed_add;
	sem_scene sim;
	fs_detect_result det;
	if (sem_scene_detect(&sim, &o, fs_detect_domes, &det)) {
		printf("%d: %s\n", k, sim.err); /* (the simulator's refusal, or the detection's error) */
		return -1;
	}
	int rc = -1;
	double *xs = malloc((sim.tr.n + 1) * sizeof *xs), *ys = malloc((sim.tr.n + 1) * sizeof *ys);
	patch *pt = malloc(NSH * sizeof *pt);
	result *res = malloc(sizeof *res);
	int *mdet = NULL;
	if (!xs || !ys || !pt || !res)
		goto done;
	mdet = malloc((det.tubercles.n + 1) * sizeof *mdet);
	if (!mdet || sem_match_tubercles(&sim.tr, &det.tubercles, mdet, NULL))
		goto done;
	double ax = cos(o.det_azimuth), ay = sin(o.det_azimuth);
	for (int set = 0; set < 2; set++) {
		if (!(which & (1 << set)))
			continue;
		/* set 0: the true centres; 1: the dome rule's, matched to a
		 * counted true dome */
		int n = 0;
		double ox = 0, oy = 0;
		if (set == 0) {
			n = (int)sem_counted_centres(&sim.tr, xs, ys);
		} else {
			for (size_t i = 0; i < det.tubercles.n && n < (int)sim.tr.n; i++) {
				int j = mdet[i];
				if (j < 0 || !sem_counted(&sim.tr, sim.tr.x[j], sim.tr.y[j]))
					continue;
				xs[n] = det.tubercles.items[i].centroid_x;
				ys[n++] = det.tubercles.items[i].centroid_y;
				ox += xs[n - 1] - sim.tr.x[j];
				oy += ys[n - 1] - sim.tr.y[j];
			}
		}
		for (int ish = 0; ish < nsh; ish++)
			build_patch(sim.img, xs, ys, n, shift_at(ish) * ax, shift_at(ish) * ay, &pt[ish]);
		int nbins = 0;
		for (int b = 0; b < NB * NB; b++)
			nbins += pt[nsh / 2].w[b] > 0;
		double mean_d = 0;
		for (size_t j = 0; j < sim.tr.n; j++)
			mean_d += sim.tr.d[j];
		mean_d /= (double)sim.tr.n;
		double true_fill = mean_d / sim.tr.pitch;
		printf("scene %d (%s h/R %.2f az %d, seed +%u) %s centres: %d domes, %d bins, true fill %.4f", k,
		       k & 2 ? "flat" : "sph", o.h_over_r, k & 16 ? 135 : 0, seed_add, set ? "rule's" : "true", n,
		       nbins, true_fill);
		if (set)
			printf(", their offset along the axis %+.2f px",
			       n ? (ox * ax + oy * ay) / n : 0.0);
		printf("\n");
		scan(pt, sim.tr.pitch, o.angle, o.det_azimuth, res);
		for (int mix = 0; mix < NMIX; mix++)
			report(res, mix, true_fill, nbins, surface);
	}
	rc = 0;
done:
	free(mdet);
	fs_detect_result_free(&det);
	free(res);
	free(pt);
	free(xs);
	free(ys);
	sem_scene_close(&sim);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int which = 3, surface = 0, scenes[64], ns = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--true"))
			which = 1;
		else if (!strcmp(argv[i], "--detected"))
			which = 2;
		else if (!strcmp(argv[i], "--shift-step") && i + 1 < argc) {
			shift_step = atof(argv[++i]);
			if (!(shift_step >= 1.0 / 16) || shift_step > 1)
				shift_step = 0.125;
			nsh = (int)lround(2 / shift_step) + 1;
		} else if (!strcmp(argv[i], "--ye-edge") && i + 1 < argc) {
			ye_edge = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--surface"))
			surface = 1;
		else if (ns < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns)
		ns = small_dome_scenes(scenes, 0);
	for (int i = 0; i < ns; i++)
		run_scene(scenes[i], seed_add, which, surface);
	return 0;
}
