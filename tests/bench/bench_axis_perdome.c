/*
 * bench_axis_perdome.c - each dome's own shift along the detector's axis
 * read at the dome rule's final centres, against the truth's error there,
 * and what moving the outliers alone does to D and S (issue 13;
 * docs/paper-figures.md, h37q).
 *
 * Why: on interior scene 3 (fill 0.6, pitch 40, azimuth 0, h/R 0.25) 15
 * of 102 final centres sit 1.9-3.2 px towards the detector, locked onto
 * the lit flank, while the rest are right; the axis step (centre_axis.h)
 * moves every centre by one common shift and cannot move those alone, and
 * the level's estimators that left them out lost corner scenes (h36e).
 * The question here is whether a dome's own profiles tell such a centre
 * from the others of its image: its lit-side profile is matched against
 * the image's mean across-axis profile (centre_axis.c's match, one dome
 * at a time: e + a P_v(r - b) within two blurs of the median radius r0),
 * and a dome whose b lies more than max(1 px, K median absolute
 * deviations) below the image's median b (its lit base nearer than the
 * others', as a centre locked on the lit flank sees it) is called locked.
 * The flagged centres are moved by b less the median and the scene
 * measured again at its centres (fs_measure_centres_rule, dome rule), so
 * the effect on D and S is read without wiring anything into detection.
 * Scenes under a halftone screen, bases below 3 blurs and lattices whose
 * gap does not hold the lit ground clear of the neighbour's foot (the
 * axis step's own gates) are skipped.
 *
 * Usage: bench_axis_perdome [--seed-add N] [--k MADS] [--sigma PX]
 *        [--verbose] [SCENE...]
 * SCENE is iN (interior scene N, sem_interior_scene) or cN (corner scene
 * N); default i3 c53. Prints per scene: the domes read, the median and
 * MAD of b, how many centres are locked (truth error > 1 px towards the
 * detector), flagged, flagged and locked, flagged and right (< 0.75 px),
 * the mean error along the axis before and after the move, then D and S
 * (% of truth) of detection, of Re-measure at its centres and at the
 * moved ones. --verbose prints every dome. Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/centre_axis.h"
#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "analysis/params.h"
#include "base/sorting.h"
#include "sem_scene.h"
#include "sem_score.h"
#include "sem_sim.h"

#define SCAN 0.02     /* px */
#define REACH_R0 0.4  /* the scan's half range, of r0 (inside the dome) */
#define LOCKED_PX 1.0 /* a truth error this far towards the detector: locked */
#define RIGHT_PX 0.75

/* The best b in [-reach, reach]; NAN at an end of the scan. */
static double scan(const double *pu, const double *pv, const fs_centre_axis_geom *g, double reach)
{
	int nb = (int)floor(reach / SCAN), kb = 0;
	double best = INFINITY;
	for (int k = -nb; k <= nb; k++) {
		double r = fs_centre_axis_match(pu, pv, g, k * SCAN, 1);
		if (r < best) {
			best = r;
			kb = k;
		}
	}
	return isfinite(best) && kb != -nb && kb != nb ? kb * SCAN : NAN;
}


static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, fs_cmp_double);
	return n ? v[n / 2] : NAN;
}

static int inside(const fs_image *img, double x, double y, double reach)
{
	return x >= reach && y >= reach && x + reach < img->width - 1 && y + reach < img->height - 1;
}

static int copy_list(const fs_tubercle_list *from, fs_tubercle_list *to)
{
	memset(to, 0, sizeof *to);
	for (size_t i = 0; i < from->n; i++)
		if (fs_tubercle_list_append(to, &from->items[i]))
			return -1;
	return 0;
}

static int run_scene(const char *name, int seed_add, double k_mad, double sigma, int verbose)
{
	sem_opts o;
	int k = atoi(name + 1);
	if (name[0] == 'i')
		sem_interior_scene(k, &o);
	else
		sem_corner_scene(k, &o);
	o.seed += (unsigned)seed_add;
	sem_scene sim;
	fs_detect_result res;
	if (sem_scene_detect(&sim, &o, fs_detect_domes, &res)) {
		fprintf(stderr, "%s: %s\n", name, sim.err);
		return -1;
	}
	char err[256];
	fs_tubercle_list *L = &res.tubercles;
	size_t n = L->n, nr = 0;
	double *buf = malloc(6 * (n + 1) * sizeof *buf);
	int *mt = malloc((n + 1) * sizeof *mt);
	size_t *idx = malloc((n + 1) * sizeof *idx);
	if (!buf || !mt || !idx)
		return -1;
	double *rr = buf, *bs = buf + n + 1, *along = buf + 2 * (n + 1), *tmp = buf + 3 * (n + 1);
	for (size_t i = 0; i < n; i++)
		if (isfinite(L->items[i].radius_px))
			rr[nr++] = L->items[i].radius_px;
	double r0 = median(rr, nr);
	fs_centre_axis_geom g;
	fs_centre_axis_geom_of(o.det_azimuth, r0, sigma, sim.tr.pitch, &g);
	if (o.halftone > 0 || !(r0 >= 3 * g.sigma) || !(2 * (r0 + g.win) + 0.05 * sim.tr.pitch < sim.tr.pitch)) {
		printf("%s+%d skipped (screen, base below 3 blurs or gap not resolved)\n", name, seed_add);
		goto done;
	}
	double reach_b = REACH_R0 * r0;
	g.ns = (int)ceil((r0 + g.win + reach_b) / g.step) + 2;
	size_t len = fs_centre_axis_len(&g);
	double reach = fs_centre_axis_reach(&g), ux = cos(o.det_azimuth), uy = sin(o.det_azimuth);
	double *pr = malloc(len * sizeof *pr), *pv = calloc((size_t)g.ns, sizeof *pv);
	if (!pr || !pv)
		return -1;
	/* the image's mean across-axis profile, as the axis step sums it */
	for (size_t i = 0; i < n; i++) {
		if (!inside(sim.img, L->items[i].centroid_x, L->items[i].centroid_y, reach))
			continue;
		fs_centre_axis_profile(sim.img, L->items[i].centroid_x, L->items[i].centroid_y, &g, pr);
		for (int j = 0; j < g.ns; j++)
			pv[j] += pr[g.ns + j];
	}
	double *xs = tmp, *ys = buf + 4 * (n + 1);
	for (size_t i = 0; i < n; i++) {
		xs[i] = L->items[i].centroid_x;
		ys[i] = L->items[i].centroid_y;
	}
	if (sem_match(&sim.tr, xs, ys, n, 0.25 * sim.tr.pitch, mt, NULL))
		return -1;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!inside(sim.img, xs[i], ys[i], reach) || mt[i] < 0 ||
		    !sem_counted(&sim.tr, sim.tr.x[mt[i]], sim.tr.y[mt[i]]))
			continue;
		fs_centre_axis_profile(sim.img, xs[i], ys[i], &g, pr);
		double dx = xs[i] - sim.tr.x[mt[i]], dy = ys[i] - sim.tr.y[mt[i]];
		idx[m] = i;
		along[m] = dx * ux + dy * uy;
		bs[m] = scan(pr, pv, &g, reach_b);
		if (verbose)
			printf("  dome %zu truth error along %+.2f px, own b %+.2f px\n", i, along[m], bs[m]);
		m++;
	}
	double *w = buf + 5 * (n + 1);
	size_t q = 0;
	for (size_t i = 0; i < m; i++)
		if (isfinite(bs[i]))
			w[q++] = bs[i];
	double med = median(w, q);
	for (size_t i = 0; i < q; i++)
		w[i] = fabs(w[i] - med);
	double mad = median(w, q), bound = fmax(1.0, k_mad * mad);
	int locked = 0, flagged = 0, hit = 0, wrong = 0;
	double e0 = 0, e1 = 0;
	fs_tubercle_list moved;
	if (copy_list(L, &moved))
		return -1;
	for (size_t i = 0; i < m; i++) {
		int lk = along[i] > LOCKED_PX, f = isfinite(bs[i]) && bs[i] - med < -bound;
		double mv = f ? bs[i] - med : 0;
		locked += lk;
		flagged += f;
		hit += f && lk;
		wrong += f && fabs(along[i]) < RIGHT_PX;
		e0 += along[i];
		e1 += along[i] + mv;
		moved.items[idx[i]].centroid_x += mv * ux;
		moved.items[idx[i]].centroid_y += mv * uy;
	}
	printf("%s+%d pitch %.1f r0 %.2f domes %zu median b %+.2f MAD %.2f bound %.2f | locked %d flagged %d "
	       "(locked %d, right %d) | mean error along %+.3f -> %+.3f px\n",
	       name, seed_add, sim.tr.pitch, r0, m, med, mad, bound, locked, flagged, hit, wrong, m ? e0 / m : NAN,
	       m ? e1 / m : NAN);
	fs_tubercle_list at;
	if (copy_list(L, &at))
		return -1;
	sem_score sd, s0, s1;
	if (sem_score_detection(&sim.tr, L, o.halftone, &sd) ||
	    fs_measure_centres_rule(sim.img, &sim.p, 0, FS_RULE_DOME, &at, err, sizeof err) ||
	    fs_measure_centres_rule(sim.img, &sim.p, 0, FS_RULE_DOME, &moved, err, sizeof err) ||
	    sem_score_detection(&sim.tr, &at, o.halftone, &s0) || sem_score_detection(&sim.tr, &moved, o.halftone, &s1))
		return -1;
	printf("  D / S %%: detection %+.2f / %+.2f, Re-measure at its centres %+.2f / %+.2f, flagged moved "
	       "%+.2f / %+.2f\n",
	       sd.d_err, sd.s_err, s0.d_err, s0.s_err, s1.d_err, s1.s_err);
	fs_tubercle_list_free(&at);
	fs_tubercle_list_free(&moved);
	free(pr);
	free(pv);
done:
	free(buf);
	free(mt);
	free(idx);
	fs_detect_result_free(&res);
	sem_scene_close(&sim);
	return 0;
}

int main(int argc, char **argv)
{
	int seed_add = 0, verbose = 0, nscenes = 0;
	double k_mad = 6, sigma = 1.2;
	const char *scenes[256];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--k") && i + 1 < argc)
			k_mad = atof(argv[++i]);
		else if (!strcmp(argv[i], "--sigma") && i + 1 < argc)
			sigma = atof(argv[++i]);
		else if (!strcmp(argv[i], "--verbose"))
			verbose = 1;
		else if ((argv[i][0] == 'i' || argv[i][0] == 'c') && nscenes < 256)
			scenes[nscenes++] = argv[i];
		else {
			fprintf(stderr, "usage: bench_axis_perdome [--seed-add N] [--k MADS] [--sigma PX] [--verbose] "
					"[iN|cN ...]\n");
			return 2;
		}
	}
	if (!nscenes) {
		scenes[nscenes++] = "i3";
		scenes[nscenes++] = "c53";
	}
	for (int i = 0; i < nscenes; i++)
		if (run_scene(scenes[i], seed_add, k_mad, sigma, verbose))
			return 1;
	return 0;
}
