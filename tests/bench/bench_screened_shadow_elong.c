/*
 * bench_screened_shadow_elong.c - under a halftone screen, whether the
 * level readings themselves show the away-side cast shadow that h37d's
 * shadow factor reads from the first pass's polygons (issue 13, group C:
 * pitch 64, fill 0.8, screened; docs/paper-figures.md h41e, h41i).
 *
 * Why: h41e found the shadow factor, given the screened gate, fires on
 * scenes 57 and 59 only, not on 43, whose +1.4 % from the TRUE centres is
 * 59's; the first pass's polygons (read on the screened image) do not
 * show the shadow there. This reads, from the TRUE centres, the rule's
 * ridge level reading on the screen's low-pass, and from the same
 * readings' polygons the elongation along the detector's axis relative
 * to their radius (q, as fs_det_base_shadow_factor reads it; it fires
 * above 0.008), and the factor that function gives from those polygons
 * under the TRUE formation (h/R, profile, azimuth) and under a given one
 * (--hr, --profile), and the mean D % corrected by it (the clean
 * images' floor 0.008; the rule's screened factor since h41i,
 * fs_det_base_shadow_factor_screened, takes 0.012 and the rule's own
 * formation). Columns: ridge D %, q, factor, corrected D %, the same
 * for the plain (no ridge) reading's polygons (qplain: its elongation,
 * its factor applied to the ridge reading), and shift / shiftp: the
 * readings' own centres' mean move away from the detector from the
 * true centre, % of their radius (the away border pulls the circle).
 * What it found (h41i): the shadowed scenes 43 and 59 show q 0.014-0.019
 * and a shift of 2.1-2.9 %, without the shadow (--set shadow=0) -0.002
 * and -0.8..-0.2; the fill-0.8 low spheres 41, 56, 57 show q 0.006-0.012
 * with or without it, the rest below 0.004.
 * Usage: bench_screened_shadow_elong [--seed-add N] [--set KEY=VALUE]...
 * [SCENE...] (default: the 16 screened pitch-64 corner scenes). Asserts
 * nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_base_fit.h"
#include "analysis/detect_offset.h"
#include "analysis/dome_measure.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_sim.h"

static sem_opts_args set_args;
static double g_hr = NAN, g_prof = NAN;

/* q as fs_det_base_shadow_factor reads it, from n polygons (the rule's
 * own elongation, fs_det_base_elongation, not a copy of its formula) */
static double elong(const fs_measured *m, const double *lr, size_t n, double az)
{
	double sa = 0, sr = 0;
	for (size_t k = 0; k < n; k++) {
		double e = fs_det_base_elongation(&m[k].t, az);
		if (!isfinite(lr[k]) || !isfinite(e))
			continue;
		sa += e;
		sr += lr[k];
	}
	return sr > 0 ? sa / sr : NAN;
}

static int run(int k, unsigned seed_add)
{
	sem_opts o;
	sem_truth tr;
	sem_corner_args(k, seed_add, &set_args, &o);
	fs_image *img = sem_make_shared(&o, &tr);
	if (!img)
		return -1;
	char err[128];
	double period = o.halftone > 0 ? o.halftone : 5;
	fs_image *lp = fs_gaussian_blurred(img, FS_HALFTONE_LOWPASS * period, err, sizeof err);
	size_t cap = tr.n ? tr.n : 1;
	fs_measured *mr = calloc(cap, sizeof *mr), *mp = calloc(cap, sizeof *mp);
	double *lr = malloc(cap * sizeof *lr), *lpn = malloc(cap * sizeof *lpn), *d = malloc(cap * sizeof *d);
	double *tx = malloc(cap * sizeof *tx), *ty = malloc(cap * sizeof *ty);
	size_t *idx = malloc(cap * sizeof *idx);
	if (!lp || !mr || !mp || !lr || !lpn || !d || !idx || !tx || !ty) {
		fs_image_free(lp);
		fs_image_free(img);
		sem_truth_free(&tr);
		free(mr), free(mp), free(lr), free(lpn), free(d), free(idx), free(tx), free(ty);
		return -1;
	}
	size_t n = 0;
	for (size_t j = 0; j < tr.n; j++) {
		if (!sem_counted(&tr, tr.x[j], tr.y[j]))
			continue;
		double w = 0.75 * tr.d[j];
		int e1 = 0, e2 = 0;
		fs_tubercle a, b;
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		int r1 = fs_dome_measure_base_edge(lp, tr.x[j], tr.y[j], FS_DOME_R0 * w, FS_DOME_R1 * w, 1, &a, &e1);
		int r2 = fs_dome_measure_base_edge(lp, tr.x[j], tr.y[j], FS_DOME_R0 * w, FS_DOME_R1 * w, 0, &b, &e2);
		double ra = fs_det_base_level_value(r1, &a, e1, NAN, &e1, NULL);
		double rb = fs_det_base_level_value(r2, &b, e2, NAN, &e2, NULL);
		if (!isfinite(ra) || e1 || !isfinite(rb) || e2)
			continue;
		mr[n].t = a;
		mr[n].ok = 1;
		mp[n].t = b;
		mp[n].ok = 1;
		lr[n] = ra;
		lpn[n] = rb;
		d[n] = tr.d[j];
		tx[n] = tr.x[j];
		ty[n] = tr.y[j];
		idx[n] = n;
		n++;
	}
	double sr = 0, sd = 0, sh = 0, shp = 0;
	for (size_t j = 0; j < n; j++) {
		sr += 2 * lr[j];
		sd += d[j];
	}
	/* the readings' own centres' move away from the detector, in % of
	 * their radius (the away-side border pulls the fitted circle) */
	double ux = -cos(o.det_azimuth), uy = -sin(o.det_azimuth);
	for (size_t j = 0; j < n; j++) {
		sh += ((mr[j].t.centroid_x - tx[j]) * ux + (mr[j].t.centroid_y - ty[j]) * uy) / lr[j];
		shp += ((mp[j].t.centroid_x - tx[j]) * ux + (mp[j].t.centroid_y - ty[j]) * uy) / lpn[j];
	}
	sh = 100 * sh / (double)(n ? n : 1);
	shp = 100 * shp / (double)(n ? n : 1);
	double D = 100 * (sr - sd) / sd;
	fs_det_base_plan p;
	memset(&p, 0, sizeof p);
	p.n = n;
	p.idx = idx;
	fs_det_offset off;
	memset(&off, 0, sizeof off);
	off.fitted = 1;
	off.fit.azimuth = o.det_azimuth;
	off.fit.h_over_r = isfinite(g_hr) ? g_hr : o.h_over_r;
	off.fit.profile = isfinite(g_prof) ? g_prof : o.profile;
	off.fit.halftone = 0; /* the factor's own screen test passed by hand */
	double q = elong(mr, lr, n, o.det_azimuth), qp = elong(mp, lpn, n, o.det_azimuth);
	double f = fs_det_base_shadow_factor(&p, &off, mr, lr, 1);
	double fp = fs_det_base_shadow_factor(&p, &off, mp, lpn, 1);
	printf("%-5d %-4s %-4.2f %-4d %7.2f %7.4f %7.4f %7.2f %7.4f %7.4f %7.2f %6.2f %6.2f %4zu\n", k, k & 2 ? "flat" : "sph",
	       o.h_over_r, k & 16 ? 135 : 0, D, q, f, 100 * (f * sr - sd) / sd, qp, fp, 100 * (fp * sr - sd) / sd, sh, shp, n);
	fs_image_free(lp);
	fs_image_free(img);
	sem_truth_free(&tr);
	free(mr), free(mp), free(lr), free(lpn), free(d), free(idx), free(tx), free(ty);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int scenes[64], n = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (!strcmp(argv[i], "--hr") && i + 1 < argc)
			g_hr = atof(argv[++i]);
		else if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			g_prof = atof(argv[++i]);
		else if (n < 64)
			scenes[n++] = atoi(argv[i]);
	}
	if (!n)
		for (int k = 0; k < 64; k++)
			if ((k & 32) && (k & 8))
				scenes[n++] = k;
	printf("screened level's own polygons from the TRUE centres (seeds +%u)", seed_add);
	for (int i = 0; i < set_args.n; i++)
		printf(" %s", set_args.kv[i]);
	printf("\n%-5s %-4s %-4s %-4s %7s %7s %7s %7s %7s %7s %7s %6s %6s %4s\n", "scene", "prof", "h/R", "az", "ridgeD", "q",
	       "factor", "corrD", "qplain", "fplain", "corrDp", "shift", "shiftp", "n");
	int rc = 0;
	for (int i = 0; i < n; i++)
		rc |= run(scenes[i], seed_add) ? 1 : 0;
	return rc;
}
