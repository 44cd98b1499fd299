/*
 * bench_rim_rays.c - the dome rule's level read ray by ray from the TRUE
 * centres against the TRUE base radius, by the ray's angle from the
 * detector (issue 13, group C of h37e: corner scenes 39 and 55, fill 0.8,
 * flat-topped h/R 1, pitch 64, no screen, read -0.65 % of D from the true
 * centres).
 *
 * Why: the level's reading (fs_det_base_level_blur) is one number per
 * dome, the polygon of 32 rays' steepest steps less two corrections (the
 * inner slope's shift, the blur's inversion); a sub-percent bias of it
 * could sit on some rays (the away side's shadow, the lit side's
 * neighbour's shadow, the edge brightening's peak) or on all of them (the
 * sampling of the rays, the blur model). This reads the rays as pass() in
 * dome_measure.c picks them - the same directions, sample step, central
 * differences, window and weight around the circle, on the same
 * measurement image (fs_detect_measure_image at Re-measure's smoothing) -
 * but from the true centre with the true radius as the circle, with no
 * re-centring, so that each ray's pick minus the true radius is that
 * ray's own error. "fine" is the same pick (the same difference over
 * +-step) on rays sampled every 0.05 px: what the rule's 0.87-px sampling
 * and its parabola add. Then the reading itself at the true centre:
 * L0 without the inner slope's shift (fs_dome_measure, no smoothing: the
 * polygon's area radius about the re-fitted centre; L0-m0 is what the
 * polygon and the re-centring make of the rays' mean), L1 the level's
 * reading (fs_det_base_level_blur), shift = L0 - L1 (the inner slope's
 * shift; the blur inversion does not act above 8 sigma), and L1
 * extrapolated to no blur over these domes as fs_det_base_extrap_apply
 * would (second reading on the image blurred by FS_DET_BASE_EXTRA_BLUR
 * more; printed whether or not the rule's gate would apply it).
 *
 * Columns: the mean over the counted domes of (pick - R) in px per sector
 * of 45 degrees of the ray's angle from the direction towards the
 * detector (sector 0: the rays facing the detector, 4: facing away; a
 * ray on a border counts half to each), the mean over all rays (m0), and
 * the first two harmonics of the per-ray mean (a1 cos, a2 cos 2 of the
 * angle from the detector).
 *
 * Usage: bench_rim_rays [--seed-add N] [--no-shadow] [--no-edge]
 * [--profile] [--per-dome] [--beam-blur S] [--formation] [--extra-blur S]
 * [--lattice] [SCENE...] (default 39 55; SEM_SCENE_CACHE
 * shares renders). --no-shadow / --no-edge render the same scene and
 * seed without the simulator's cast shadow / edge brightening.
 * --per-dome prints each counted dome's L1 - R and sectors. --profile
 * adds, for the rays at 0, 90, 180 and 270 degrees from the detector,
 * the mean signed radial derivative of the measurement image (over its
 * largest magnitude) at r - R = -4..+4 px every 0.5: where each side's
 * step lies and what shape it has.
 * h38j: --beam-blur S renders the scene with the simulator's beam blur
 * sigma S px instead of its default 0.8, to tell a bias that grows with
 * the blur (which the level's extrapolation should remove) from one the
 * image has at any blur. A third line per scene reads the level once more
 * on the image blurred by 2 x FS_DET_BASE_EXTRA_BLUR and extrapolates the
 * three readings to no blur as a bias linear in sigma and as a + b sigma
 * + c sigma^2 (the rule assumes sigma^2 alone: a step on a smooth signal;
 * a bright line at the base, blurred, moves the steepest point by a
 * fraction of sigma), and the screened path's ridge reader
 * (fs_dome_measure_base_ridge: a rim read as a band whose outer flank
 * lies beyond the base) on the same image and on the +1 px one,
 * extrapolated as the level. --formation prints the formation fit
 * (fs_dome_fit_image) at the true centres and pitch: the dome a
 * correction derived from the formation would be told of.
 * h41f: --extra-blur S takes S px for the second reading's added blur
 * (and 2 S for the third) instead of FS_DET_BASE_EXTRA_BLUR, to see how
 * the level grows with the blur before the neighbours' steps merge
 * (pitch 16, fill 0.8: 3.2-px gaps). fs_gaussian_blurred samples its
 * kernel on the pixel lattice, so below 0.6 px the variance it adds is
 * less than S^2 (S 0.3: 0.008, 0.4: 0.081, 0.5: 0.215, from 0.6 within
 * 3 %): read a small S's change against that variance, not S^2 (the
 * "extrapolated" figures use S^2, as the rule does with its 1 px).
 * --lattice adds a line per scene: the coarse picks binned by the ray's
 * angle from its dome's nearest true neighbour (0-10, 10-20, 20-30
 * degrees folded): whether the level's excess sits on the rays that
 * cross the gap to a neighbour or on the dome's own edge all round.
 * Prints, asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_base_fit.h"
#include "analysis/detect_methods.h"
#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"
#include "analysis/params.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "sem_sim.h"

#define NR 32
#define NS 8
#define NPROF 33 /* r - R = -4 .. +4 px every 0.25 */

/* the second reading's added blur (px): the rule's FS_DET_BASE_EXTRA_BLUR
 * unless --extra-blur says otherwise (h41f) */
static double extra = FS_DET_BASE_EXTRA_BLUR;

/* --lattice (h41f): the coarse picks binned by the ray's angle from the
 * direction of the dome's nearest true neighbour, folded to 0-30 degrees
 * in three bins (0: towards a neighbour across the gap, 2: between two
 * neighbours, where the next base is farther) */
static int by_lattice;

typedef struct acc {
	double coarse[NR], fine[NR];
	size_t n;
	double l1, raw, l0; /* sums of L1 - R, of the coarse polygon's mean - R and of L0 - R */
	double s1, s2, sv, sr; /* h32e's extrapolation: sums of L1, L2, the blur's variance, R */
	double s3; /* the third reading's sum (blurred by 2 x FS_DET_BASE_EXTRA_BLUR more) */
	double g1, g2, gr; /* the ridge reader's (fs_dome_measure_base_ridge) sums on meas and b2, of R */
	size_t ng;
	double lat[3], latn[3]; /* --lattice: coarse pick - R by the ray's angle from the nearest neighbour's direction */
	size_t nx;
	size_t nl;
	double prof[NR][NPROF];
} acc;

/* pass()'s sample step for the window's outer radius rmax */
static double rule_step(double rmax)
{
	return fmax(0.35, 1.3 * rmax / (48 - 2));
}

/* The ray's strongest step near R as pass() picks it: |central
 * difference over +-h| sampled every step, weighed by a Gaussian of SD
 * 0.1 R about R within 0.75-1.25 R, the vertex of a parabola through the
 * pick and its two neighbours. pass() itself: h = step. NAN outside the
 * image. */
static double ray_pick(const fs_image *img, double x, double y, double c, double s, double R, double step, double h)
{
	int o = (int)lround(h / step);
	if (o < 1)
		o = 1;
	int n = (int)ceil(1.3 * R / step) + o + 2;
	double *v = malloc((size_t)(n + 1) * sizeof *v), *d = calloc((size_t)(n + 1), sizeof *d);
	double out = NAN;
	if (!v || !d)
		goto done;
	for (int j = 0; j <= n; j++) {
		double px = x + j * step * c, py = y + j * step * s;
		if (px < 0 || py < 0 || px > img->width - 1 || py > img->height - 1)
			goto done;
		v[j] = fs_image_sample_clamped(img, px, py);
	}
	for (int j = o; j + o <= n; j++)
		d[j] = fabs(v[j + o] - v[j - o]) / (2 * o * step);
	int w0 = (int)floor(0.75 * R / step), w1 = (int)ceil(1.25 * R / step);
	if (w0 < o + 1)
		w0 = o + 1;
	if (w1 > n - o - 1)
		w1 = n - o - 1;
	int jb = w0;
	double sb = -1;
	for (int j = w0; j <= w1; j++) {
		double u = (j * step - R) / (0.1 * R), sc = d[j] * exp(-0.5 * u * u);
		if (sc > sb) {
			sb = sc;
			jb = j;
		}
	}
	double a = d[jb - 1], b = d[jb], e = d[jb + 1], den = a - 2 * b + e;
	double vx = den < -1e-12 ? 0.5 * (a - e) / den : 0;
	out = (jb + fmax(-1, fmin(1, vx))) * step;
done:
	free(v);
	free(d);
	return out;
}

/* the 8 sectors' means of one set of 32 per-ray values indexed by the
 * angle from the detector (a ray on a sector's border counts half to each) */
static void sectors(const double *v, double *out)
{
	for (int s = 0; s < NS; s++)
		out[s] = 0;
	for (int q = 0; q < NR; q++) {
		double pos = q / (double)(NR / NS);
		if (fabs(pos - floor(pos) - 0.5) < 1e-9) {
			int lo = (int)floor(pos) % NS;
			out[lo] += 0.5 * v[q];
			out[(lo + 1) % NS] += 0.5 * v[q];
		} else {
			out[(int)floor(pos + 0.5) % NS] += v[q];
		}
	}
	for (int s = 0; s < NS; s++)
		out[s] /= NR / NS;
}

static int run_scene(int k, unsigned seed_add, int no_shadow, int no_edge, int profile, int per_dome, double beam,
		     int formation)
{
	sem_opts o;
	sem_truth t;
	sem_corner_scene(k, &o);
	o.seed += seed_add;
	if (beam >= 0)
		o.beam_blur = beam;
	if (no_shadow)
		o.shadow = 0;
	if (no_edge)
		o.edge = 0;
	fs_image *img = sem_make_shared(&o, &t);
	if (!img) {
		printf("%d: the simulator refused the scene\n", k);
		return -1;
	}
	fs_params p;
	fs_params_default(&p);
	fs_image *fimg = img->bits ? fs_image_to_float(img) : NULL, *meas = NULL;
	char err[256];
	/* Re-measure's image and window (measure_centres.c, dome_rule) */
	double msig = t.pitch >= 40 ? 1.0 : 0.5, mr = 0.6 * t.pitch;
	if (fs_detect_measure_image(fimg ? fimg : img, &p, msig, &meas, err, sizeof err)) {
		printf("%d: %s\n", k, err);
		fs_image_free(fimg);
		fs_image_free(img);
		sem_truth_free(&t);
		return -1;
	}
	acc *A = calloc(1, sizeof *A);
	/* the second reading's image (detect_base_fit.c: the level extrapolated
	 * to no blur) */
	fs_image *b2 = fs_gaussian_blurred(meas, extra, err, sizeof err);
	fs_image *b3 = fs_gaussian_blurred(meas, 2 * extra, err, sizeof err);
	double step = rule_step(FS_DOME_R1 * mr);
	double az = o.det_azimuth, meanR = 0;
	/* each dome's nearest true neighbour's direction (NAN: none) */
	double *nphase = malloc((t.n + 1) * sizeof *nphase), *ndist = malloc((t.n + 1) * sizeof *ndist);
	for (size_t j = 0; nphase && ndist && j < t.n; j++) {
		nphase[j] = NAN;
		ndist[j] = INFINITY;
	}
	for (size_t q = 0; nphase && ndist && q < t.n_pairs; q++) {
		int a = t.pi[q], b = t.pj[q];
		double dx = t.x[b] - t.x[a], dy = t.y[b] - t.y[a], dd = hypot(dx, dy);
		if (dd < ndist[a]) {
			ndist[a] = dd;
			nphase[a] = atan2(dy, dx);
		}
		if (dd < ndist[b]) {
			ndist[b] = dd;
			nphase[b] = atan2(-dy, -dx);
		}
	}
	for (size_t j = 0; A && j < t.n; j++) {
		if (!sem_counted(&t, t.x[j], t.y[j]))
			continue;
		double R = 0.5 * t.d[j], co[NR], fi[NR], sum = 0;
		int ok = 1;
		for (int r = 0; r < NR && ok; r++) {
			/* ray r at 2 pi r / NR in the image (pass()'s), relative
			 * index from the detector's direction */
			double a = 2 * M_PI * r / NR;
			co[r] = ray_pick(meas, t.x[j], t.y[j], cos(a), sin(a), R, step, step) - R;
			fi[r] = ray_pick(meas, t.x[j], t.y[j], cos(a), sin(a), R, 0.05, step) - R;
			ok = isfinite(co[r]) && isfinite(fi[r]);
			sum += co[r];
		}
		if (!ok)
			continue;
		double own[NR];
		for (int r = 0; r < NR; r++) {
			double rel = fmod(2 * M_PI * r / NR - az + 4 * M_PI, 2 * M_PI);
			int q = (int)lround(rel / (2 * M_PI / NR)) % NR;
			own[q] = co[r];
			if (by_lattice && nphase && isfinite(nphase[j])) {
				double rl = fmod(2 * M_PI * r / NR - nphase[j] + 8 * M_PI, M_PI / 3);
				double fold = fmin(rl, M_PI / 3 - rl) * 180 / M_PI;
				int bi = fold < 10 ? 0 : fold < 20 ? 1 : 2;
				A->lat[bi] += co[r];
				A->latn[bi]++;
			}
			A->coarse[q] += co[r];
			A->fine[q] += fi[r];
			if (profile) {
				double a = 2 * M_PI * r / NR, c = cos(a), s = sin(a);
				for (int i = 0; i < NPROF; i++) {
					double u = R - 4 + 0.25 * i, h = 0.25;
					double v1 = fs_image_sample_clamped(meas, t.x[j] + (u + h) * c, t.y[j] + (u + h) * s);
					double v0 = fs_image_sample_clamped(meas, t.x[j] + (u - h) * c, t.y[j] + (u - h) * s);
					A->prof[q][i] += (v1 - v0) / (2 * h);
				}
			}
		}
		A->n++;
		meanR += R;
		int e;
		double var;
		double l1 = fs_det_base_level_blur(meas, t.x[j], t.y[j], mr, 1, &e, &var, NULL);
		fs_tubercle tb;
		memset(&tb, 0, sizeof tb);
		int r0 = fs_dome_measure(meas, t.x[j], t.y[j], FS_DOME_R0 * mr, FS_DOME_R1 * mr, 0, &tb);
		if (per_dome) {
			double sc[NS];
			sectors(own, sc);
			printf("  dome %3zu (%6.1f, %6.1f) R %5.2f L1-R %6.3f coarse", j, t.x[j], t.y[j], R,
			       isfinite(l1) && !e ? l1 - R : NAN);
			for (int q = 0; q < NS; q++)
				printf(" %6.3f", sc[q]);
			printf("\n");
		}
		if (isfinite(l1) && !e && !r0 && tb.radius_px > 0) {
			A->l0 += tb.radius_px - R;
			int e2;
			double v2, l2 = b2 ? fs_det_base_level_blur(b2, t.x[j], t.y[j], mr, 1, &e2, &v2, NULL) : NAN;
			int e3;
			double v3, l3 = b3 ? fs_det_base_level_blur(b3, t.x[j], t.y[j], mr, 1, &e3, &v3, NULL) : NAN;
			if (isfinite(l2) && !e2 && isfinite(l3) && !e3 && var > 0) {
				A->s3 += l3;
				A->s1 += l1;
				A->s2 += l2;
				A->sv += var;
				A->sr += R;
				A->nx++;
			}
			/* the screened path's ridge reader on the same image: a rim
			 * read as a band whose outer flank lies beyond the base */
			fs_tubercle g, g2;
			memset(&g, 0, sizeof g);
			memset(&g2, 0, sizeof g2);
			if (b2 && !fs_dome_measure_base_ridge(meas, t.x[j], t.y[j], FS_DOME_R0 * mr, FS_DOME_R1 * mr, &g) &&
			    !fs_dome_measure_base_ridge(b2, t.x[j], t.y[j], FS_DOME_R0 * mr, FS_DOME_R1 * mr, &g2) &&
			    g.radius_px > 0 && g2.radius_px > 0) {
				A->g1 += g.radius_px;
				A->g2 += g2.radius_px;
				A->gr += R;
				A->ng++;
			}
			A->l1 += l1 - R;
			A->raw += sum / NR;
			A->nl++;
		}
	}
	if (formation) {
		/* the formation fit (dome_fit.c) at the true centres on the
		 * source image and the true pitch: what a correction derived from
		 * the formation would know of this scene's dome */
		fs_dome_fit f;
		char ferr[256];
		if (fs_dome_fit_image(fimg ? fimg : img, t.x, t.y, t.n, t.pitch, NULL, &f, ferr, sizeof ferr))
			printf("%-3d formation: %s\n", k, ferr);
		else
			printf("%-3d formation: fill %.3f h/R %.2f profile %.2f blur %.2f px azimuth %.0f deg elevation %.0f deg "
			       "side %.2f edge %.2f shadow %.2f R^2 %.3f (true fill %.2f h/R %.2f profile %.0f)\n",
			       k, f.fill, f.h_over_r, f.profile, f.blur_px, f.azimuth * 180 / M_PI, f.elevation * 180 / M_PI,
			       f.side, f.edge, f.shadow, f.quality, o.fill, o.h_over_r, o.profile);
	}
	if (A && A->n) {
		double n = (double)A->n, sc[NS], sf[NS], mc[NR], mf[NR], m0 = 0, a1 = 0, a2 = 0, f0 = 0;
		meanR /= n;
		for (int q = 0; q < NR; q++) {
			double rel = 2 * M_PI * q / NR;
			mc[q] = A->coarse[q] / n;
			mf[q] = A->fine[q] / n;
			m0 += mc[q] / NR, f0 += mf[q] / NR;
			a1 += 2 * mc[q] * cos(rel) / NR, a2 += 2 * mc[q] * cos(2 * rel) / NR;
		}
		sectors(mc, sc);
		sectors(mf, sf);
		printf("%-3d %4zu %5.2f coarse", k, A->n, meanR);
		for (int s = 0; s < NS; s++)
			printf(" %6.3f", sc[s]);
		double nl = A->nl ? (double)A->nl : NAN;
		printf(" | m0 %6.3f (%5.2f%%) a1 %6.3f a2 %6.3f | L0 %6.3f (L0-m0 %6.3f) L1 %6.3f (%5.2f%%) shift %6.3f\n",
		       m0, 100 * m0 / meanR, a1, a2, A->l0 / nl, (A->l0 - A->raw) / nl, A->l1 / nl,
		       100 * A->l1 / nl / meanR, (A->l0 - A->l1) / nl);
		printf("%-3s %4s %5s fine  ", "", "", "");
		for (int s = 0; s < NS; s++)
			printf(" %6.3f", sf[s]);
		/* (as fs_det_base_extrap_apply, on these domes, gate or not) */
		double corr = A->nx ? (A->s2 / A->s1 - 1) * (A->sv / (double)A->nx) /
					      (extra * extra)
				    : NAN;
		printf(" | m0 %6.3f (%5.2f%%) | L1 extrapolated %5.2f%% (x %.4f)\n", f0, 100 * f0 / meanR,
		       100 * (A->s1 * (1 - corr) - A->sr) / A->sr, 1 - corr);
		if (A->nx) {
			/* the same readings extrapolated as a bias linear in the blur's
			 * sigma (a bright line at the base, blurred, moves the steepest
			 * point by a fraction of sigma), and as a + b sigma + c sigma^2
			 * through the third reading */
			double nx = (double)A->nx, v = A->sv / nx, q1 = sqrt(v);
			double q2 = sqrt(v + extra * extra);
			double q3 = sqrt(v + 4 * extra * extra);
			double m1 = A->s1 / nx, m2 = A->s2 / nx, m3 = A->s3 / nx, mR = A->sr / nx;
			double lin = m1 - (m2 - m1) * q1 / (q2 - q1);
			/* Lagrange through (q1, m1), (q2, m2), (q3, m3) at 0 */
			double quad = m1 * q2 * q3 / ((q1 - q2) * (q1 - q3)) + m2 * q1 * q3 / ((q2 - q1) * (q2 - q3)) +
				      m3 * q1 * q2 / ((q3 - q1) * (q3 - q2));
			printf("%-3s %4s %5s sigma %.3f: L1 %5.2f%% L2 %5.2f%% L3 %5.2f%% | linear in sigma %5.2f%% | a+b s+c s^2 %5.2f%%",
			       "", "", "", q1, 100 * (m1 - mR) / mR, 100 * (m2 - mR) / mR, 100 * (m3 - mR) / mR,
			       100 * (lin - mR) / mR, 100 * (quad - mR) / mR);
			/* the ridge reader, and extrapolated as the rule's level */
			if (A->ng) {
				double gc = (A->g2 / A->g1 - 1) * v / (extra * extra);
				printf(" | ridge %5.2f%% (+1 px %5.2f%%) extrapolated %5.2f%%", 100 * (A->g1 - A->gr) / A->gr,
				       100 * (A->g2 - A->gr) / A->gr, 100 * (A->g1 * (1 - gc) - A->gr) / A->gr);
			}
			printf("\n");
		}
		if (by_lattice)
			printf("%-3s %4s %5s lattice: pick - R by the ray's angle from the nearest neighbour, 0-10 %6.3f "
			       "10-20 %6.3f 20-30 deg %6.3f px\n",
			       "", "", "", A->latn[0] ? A->lat[0] / A->latn[0] : NAN, A->latn[1] ? A->lat[1] / A->latn[1] : NAN,
			       A->latn[2] ? A->lat[2] / A->latn[2] : NAN);
		if (profile) {
			double norm = 0;
			for (int q = 0; q < NR; q++)
				for (int i = 0; i < NPROF; i++)
					norm = fmax(norm, fabs(A->prof[q][i] / n));
			for (int s = 0; s < NS; s += 2) {
				int q = s * (NR / NS);
				printf("    sector %d (%3d deg) r-R:", s, 45 * s);
				for (int i = 0; i < NPROF; i += 2)
					printf(" %5.2f", A->prof[q][i] / n / norm);
				printf("\n");
			}
		}
	}
	free(A);
	free(nphase);
	free(ndist);
	fs_image_free(b2);
	fs_image_free(b3);
	fs_image_free(meas);
	fs_image_free(fimg);
	fs_image_free(img);
	sem_truth_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	int no_shadow = 0, no_edge = 0, profile = 0, per_dome = 0, formation = 0, listed = 0, rc = 0;
	double beam = -1;
	unsigned seed_add = 0;
	int scenes[64];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-shadow"))
			no_shadow = 1;
		else if (!strcmp(argv[i], "--no-edge"))
			no_edge = 1;
		else if (!strcmp(argv[i], "--profile"))
			profile = 1;
		else if (!strcmp(argv[i], "--per-dome"))
			per_dome = 1;
		else if (!strcmp(argv[i], "--formation"))
			formation = 1;
		else if (!strcmp(argv[i], "--beam-blur") && i + 1 < argc)
			beam = atof(argv[++i]);
		else if (!strcmp(argv[i], "--lattice"))
			by_lattice = 1;
		else if (!strcmp(argv[i], "--extra-blur") && i + 1 < argc)
			extra = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (listed < 64 && atoi(argv[i]) >= 0 && atoi(argv[i]) < 64)
			scenes[listed++] = atoi(argv[i]);
		else {
			fprintf(stderr, "usage: %s [--seed-add N] [--no-shadow] [--no-edge] [--profile] [--per-dome] [--beam-blur S] "
				"[--formation] [--extra-blur S] [--lattice] [SCENE 0-63...]\n",
				argv[0]);
			return 2;
		}
	}
	if (!listed) {
		scenes[listed++] = 39;
		scenes[listed++] = 55;
	}
	if (beam >= 0)
		printf("simulator beam blur sigma %.2f px\n", beam);
	printf("level rays from the TRUE centres, seeds +%u%s%s: pick - R (px) by 45-degree sector from the detector "
	       "(0 facing it, 4 away); coarse = the rule's sample step, fine = 0.05 px\n",
	       seed_add, no_shadow ? ", no cast shadow" : "", no_edge ? ", no edge brightening" : "");
	printf("%-3s %4s %5s %6s", "sc", "domes", "R", "");
	for (int s = 0; s < NS; s++)
		printf(" %6d", 45 * s);
	printf("\n");
	for (int i = 0; i < listed; i++)
		rc |= run_scene(scenes[i], seed_add, no_shadow, no_edge, profile, per_dome, beam, formation) ? 1 : 0;
	return rc;
}
