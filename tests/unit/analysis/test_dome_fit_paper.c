/*
 * The per-image formation fit (dome_fit.h) on the nine paper figures, and
 * the evidence issue 13 asks for when the figures disagree with the
 * simulator: for P1 Fig2 (Polypterus bichir, published D/(D+S) 0.298),
 * Fig1 (Lepidotes elvensis, 0.511) and Fig4 (Atractosteus simplex, 0.730)
 * the best formation is fitted with the fill held at the published value,
 * at the detector's own reading (the configured rule's), at the free
 * fit's fill and free, and the residual of each (RMS / SD of the figure's
 * mean patch around the detected centres) is printed with the mean radial
 * profiles. A fill that no formation reproduces leaves a residual well
 * above that of the free fit's fill held the same way.
 * Why a held fill is compared with a held fill and not with the free fit:
 * the search is path-dependent (the offset search moves to where the
 * formation it holds fits better, and the formation search there does
 * not always find that formation again), so on P1 Fig2 around the dome
 * rule's centres the fill 0.280 held reads 0.289 where the free fit
 * reached 0.225 at that very fill. Held against held, only the fill
 * differs.
 * Centres: the default detector (fs_detect); pitch: fs_dome_fit_pitch.
 * The evidence's bounds are made on the outline rule's centres whatever
 * the configured rule (h33f): the claims are about the figures, and the
 * formation fit's optimum moves with the centres it averages around (on
 * the dome rule's: Fig2's free fill 0.200 +- 0.010, Fig4's published fill
 * 0.092 above the free fit's held instead of 0.123), which are printed.
 * Under the sanitizers only the three figures of the evidence are fitted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/dome_fit.h"
#include "analysis/graph.h"
#include "analysis/measurement.h"
#include "analysis/metrics.h"
#include "image/image_io.h"
#include "paper_figs.h"

#if defined(__SANITIZE_ADDRESS__)
#define ONLY_EVIDENCE 1
#else
#define ONLY_EVIDENCE 0
#endif

#define DIR PAPER_FIGS_DIR
#define MAXIMG PAPER_FIGS_MAX

typedef struct fig {
	char file[160];
	double published;   /* d / (d + s) */
	double outline;     /* the detector's size_pitch_ratio (the configured rule) */
	size_t n;
	double pitch;
	fs_dome_fit fit;
	int fitted;         /* 0 when the fit refused (too few whole patches) */
	char why[256];
	fs_image *img;      /* kept for the evidence */
	double *xs, *ys;
} fig;

static fig figs[MAXIMG];
static fig outline_figs[3]; /* see on_outline_centres */
static int nfigs;

/* The figures and their published ratios (paper_figs.h); under the
 * sanitizers only those of the evidence. */
static int read_expected(void)
{
	paper_fig pub[PAPER_FIGS_MAX];
	int n = 0, all = paper_figs_read(pub, PAPER_FIGS_MAX);
	for (int i = 0; i < all && n < MAXIMG; i++) {
		if (ONLY_EVIDENCE && strncmp(pub[i].file, "P1_Fig1_", 8) && strncmp(pub[i].file, "P1_Fig2_", 8) &&
		    strncmp(pub[i].file, "P1_Fig4_", 8))
			continue;
		memcpy(figs[n].file, pub[i].file, sizeof figs[n].file);
		figs[n].published = pub[i].ratio;
		n++;
	}
	return all < 0 ? -1 : n;
}

/* g's detection with the rule, its mean patch's free formation fit */
static void measure(fig *g, fs_measurement_rule rule)
{
	char path[1024], err[256];
	snprintf(path, sizeof path, DIR "%.150s", g->file);
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(L.image, &p, 0, rule, NULL, &res, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err,
					sizeof err),
			 0);
	fs_stats st;
	assert_int_equal(fs_stats_compute(&res.tubercles, &e, 1.0, NULL, L.image->width, L.image->height, &st), 0);
	g->outline = st.size_pitch_ratio;
	g->n = res.tubercles.n;
	g->xs = malloc((g->n + 1) * sizeof *g->xs);
	g->ys = malloc((g->n + 1) * sizeof *g->ys);
	assert_true(g->xs && g->ys);
	for (size_t i = 0; i < g->n; i++) {
		g->xs[i] = res.tubercles.items[i].centroid_x;
		g->ys[i] = res.tubercles.items[i].centroid_y;
	}
	g->pitch = fs_dome_fit_pitch(g->xs, g->ys, g->n);
	assert_true(g->pitch > 0);
	g->fitted = fs_dome_fit_image(L.image, g->xs, g->ys, g->n, g->pitch, NULL, &g->fit, g->why, sizeof g->why) == 0;
	g->img = L.image;
	L.image = NULL;
	fs_edge_list_free(&e);
	fs_detect_result_free(&res);
	fs_loaded_free(&L);
}

static int setup(void **state)
{
	(void)state;
	nfigs = read_expected();
	if (nfigs < (ONLY_EVIDENCE ? 3 : 9))
		return -1;
	printf("%-50s %5s %6s | %7s %6s %6s %5s %4s %5s %4s | %6s %6s %s\n", "file", "n", "pitch", "fit", "sigma",
	       "R2", "h/R", "prof", "blur", "az", "publ", "outl", "fit ok (0.08)");
	int ok = 0;
	for (int i = 0; i < nfigs; i++) {
		fig *g = &figs[i];
		measure(g, fs_measurement_get_rule());
		int good = g->fitted && fabs(g->fit.fill - g->published) <= 0.08;
		ok += good;
		if (!g->fitted) {
			printf("%-50s %5zu %6.2f | no fit: %s\n", g->file, g->n, g->pitch, g->why);
			continue;
		}
		printf("%-50s %5zu %6.2f | %7.3f %6.3f %6.3f %5.2f %4.0f %5.2f %4.0f | %6.3f %6.3f %s\n", g->file, g->n,
		       g->pitch, g->fit.fill, g->fit.sigma, g->fit.quality, g->fit.h_over_r, g->fit.profile,
		       g->fit.blur_px, g->fit.azimuth * 180 / M_PI, g->published, g->outline, good ? "yes" : "NO");
		fflush(stdout);
	}
	printf("formation fit within 0.08 of the published ratio: %d of %d\n", ok, nfigs);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < nfigs; i++) {
		fs_image_free(figs[i].img);
		free(figs[i].xs);
		free(figs[i].ys);
	}
	for (int i = 0; i < 3; i++) {
		fs_image_free(outline_figs[i].img);
		free(outline_figs[i].xs);
		free(outline_figs[i].ys);
	}
	return 0;
}

static const fig *find(const char *prefix)
{
	for (int i = 0; i < nfigs; i++)
		if (!strncmp(figs[i].file, prefix, strlen(prefix)))
			return &figs[i];
	return NULL;
}

/* The best formation with the fill held at f. */
static void held(const fig *g, double f, fs_dome_fit *out)
{
	fs_dome_fit_opts o;
	fs_dome_fit_opts_default(&o);
	o.fill_min = o.fill_max = f;
	o.use_start = 1;
	o.start_x = g->fit.offset_x;
	o.start_y = g->fit.offset_y;
	char err[256];
	assert_int_equal(fs_dome_fit_image(g->img, g->xs, g->ys, g->n, g->pitch, &o, out, err, sizeof err), 0);
}

/* The evidence's figures on the outline rule's centres: the table's under
 * that rule, else measured again (3 detections and free fits, about 3 s). */

static const fig *on_outline_centres(const fig *g, int w)
{
	if (fs_measurement_get_rule() == FS_RULE_OUTLINE)
		return g;
	fig *o = &outline_figs[w];
	if (!o->img) {
		memcpy(o->file, g->file, sizeof o->file);
		o->published = g->published;
		measure(o, FS_RULE_OUTLINE);
		printf("%s on the %s rule's centres: free fill %.3f +- %.3f (%.3f on the outline rule's)\n", g->file,
		       fs_measurement_rule_name(fs_measurement_get_rule()), g->fit.fill, g->fit.sigma, o->fit.fill);
	}
	return o;
}

static void evidence(void **state)
{
	(void)state;
	static const char *const which[3] = {"P1_Fig2_", "P1_Fig1_", "P1_Fig4_"};
	double res_pub[3], res_free[3], res_fit[3];
	for (int w = 0; w < 3; w++) {
		const fig *g = find(which[w]);
		assert_non_null(g);
		g = on_outline_centres(g, w);
		assert_true(g->fitted);
		fs_dome_fit at_pub, at_out, at_fit;
		held(g, g->published, &at_pub);
		held(g, g->outline, &at_out);
		held(g, g->fit.fill, &at_fit);
		printf("\n%s: residual (RMS / SD of the mean patch) at the published fill %.3f: %.3f; at the "
		       "detector's %.3f: %.3f; at the free fit's %.3f held: %.3f; free fit %.3f +- %.3f: %.3f\n",
		       g->file, g->published, at_pub.residual, g->outline, at_out.residual, g->fit.fill,
		       at_fit.residual, g->fit.fill, g->fit.sigma, g->fit.residual);
		printf("  r/pitch   observed  model@published  model@detector  model@free\n");
		for (int k = 0; k < FS_DOME_FIT_NRAD; k++)
			printf("  %6.3f   %8.3f  %15.3f  %14.3f  %10.3f\n", (k + 0.5) * 0.05, g->fit.obs[k],
			       at_pub.model[k], at_out.model[k], g->fit.model[k]);
		/* the free fit is the best of all fills: never worse than a
		 * held one beyond the fine grid's interpolation */
		assert_true(g->fit.residual <= at_pub.residual + 0.02);
		assert_true(g->fit.residual <= at_out.residual + 0.02);
		assert_true(g->fit.residual <= at_fit.residual + 0.02);
		res_pub[w] = at_pub.residual;
		res_free[w] = g->fit.residual;
		res_fit[w] = at_fit.residual;
	}
	/* The findings, each held fill against the free fit's fill held the
	 * same way. What the published fill costs over the best formation
	 * (the excess residual) is small on Fig2 and large on Fig4: outline
	 * rule's centres 0.000 (0.191 at 0.298 against 0.191 at 0.316) and
	 * 0.123 (0.305 at 0.730 against 0.182 at 0.228); dome rule's 0.065
	 * (0.285 against 0.220 at 0.253) and 0.153 (0.317 against 0.164 at
	 * 0.481), measured 2026-11-28 after the dome rule stopped keeping
	 * two domes on Fig2's flat ground (h24f), which moved its free fill
	 * from 0.285 to 0.253. Asserted: Fig2's excess is below Fig4's by
	 * 0.05 at least, i.e. Fig2's published value is what its image
	 * supports far better than Fig4's is. */
	assert_true(res_pub[0] - res_fit[0] + 0.05 <= res_pub[2] - res_fit[2]);
	/* and Fig2's free fit itself reads its published fill within 0.05
	 * (outline 0.316 +- 0.045, dome 0.253, against 0.298); Fig4's reads
	 * 0.228 / 0.481, so no such bound is asserted for it
	 * (test_paper_profile_fill has what Fig4's image supports) */
	const fig *f2 = on_outline_centres(find("P1_Fig2_"), 0);
	assert_true(fabs(f2->fit.fill - f2->published) <= 0.05);
	/* Not asserted against the detector's fill (at_out): with the fill
	 * held, the formation fit's search lands in different optima from
	 * one fill to the next, and Fig4's residual is no smooth function of
	 * it (h32d, the outline rule's centres: 0.238, 0.286, 0.295, 0.230,
	 * 0.226, 0.275, 0.327, 0.275, 0.328 at 0.400, 0.410, 0.425, 0.435,
	 * 0.440, 0.445, 0.450, 0.455, 0.460). The detector's fill moved from
	 * 0.442 to 0.450 with the neighbour graph's cull (h32d) and its
	 * residual from 0.226 to 0.327, above the published fill's 0.305:
	 * the bound "published at least 0.05 worse than the detector's" held
	 * at one optimum only. The two below, against the free fit's best
	 * formation, are the finding. */
	assert_true(res_pub[2] >= res_fit[2] + 0.1);
	assert_true(res_pub[2] >= res_free[2] + 0.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(evidence),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
