/* The lattice method's recovered sites on real figures, judged by eye
 * (h35g, docs/paper-figures.md "2026-11-29 (h35g)"): under the dome rule
 * each site the lattice recovers is kept only if its patch looks like the
 * first pass's domes (h34j, detect_lattice.c). On P2 Fig1c and P1 Fig2
 * every recovered site, kept or removed, was cropped with the first
 * pass's detections around it and judged: a real tubercle is a dome of
 * the image (cap and shadow or rim, of the first pass's size) where the
 * lattice puts one and no first-pass detection covers it; not real is a
 * site on ground between domes, on a ridge, a crack or a speck, over a
 * first-pass dome's flank (centre within ~0.6 pitch of it), or in the
 * caption band or margin. Here: the sites judged not real that the check
 * removes stay out, and the sites judged real that it keeps stay in.
 * Before h34j's check the first list was all present (27 on Fig1c, 11 on
 * Fig2). Sites judged unclear are in neither list; so are Fig1c's six
 * kept sites judged not real (the check is not strict enough for them,
 * see the docs) and Fig2's one removed real dome (its disc holds the
 * caption band's edge). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analysis/detect.h"
#include "analysis/measurement.h"
#include "analysis/params.h"
#include "fixture_image.h"
#include "sanitized.h"

#define PAPER "tests/fixtures/paper/"

typedef struct site {
	double x, y;
} site;

typedef struct figure {
	const char *file;
	double pitch; /* the lattice's pitch on it (px), for the match radius */
	const site *gone;
	size_t n_gone;
	const site *real;
	size_t n_real;
} figure;

/* P2 Fig1c: removed and not real - a ridge's bright band (124,162),
 * (99,141), the gaps and flanks between first-pass domes, the top and
 * left margins (284,20), (310,20), (88,14), (31,35). (Not listed: the
 * removed (37,133), 6 px from the kept (31,136) - one place.) */
static const site fig1c_gone[] = {
	{241, 342}, {124, 162}, {99, 141}, {230, 264}, {178, 208}, {68, 156}, {144, 397},
	{284, 20},  {126, 278}, {310, 20}, {46, 359},  {103, 310}, {63, 55},  {222, 396},
	{32, 220},  {73, 179},  {56, 264}, {117, 93},  {88, 14},   {250, 391},
	{129, 198}, {281, 352}, {291, 72}, {126, 344}, {95, 366},  {31, 35},  {194, 363},
};
/* kept and real: two domes no first-pass detection covers (the outline
 * rule finds the second too) */
static const site fig1c_real[] = {{318, 255}, {164, 336}};

/* P1 Fig2: removed and not real - bare ground between domes (the
 * circles of 29-34 px radius centred on no dome), specks, the right
 * margin's debris (667,201) */
static const site fig2_gone[] = {
	{569, 163}, {645, 466}, {112, 316}, {286, 394}, {59, 494}, {43, 530},
	{667, 201}, {428, 515}, {162, 389}, {319, 261}, {355, 512},
};
/* kept and real: small domes at lattice sites (the outline rule finds
 * the first one too) */
static const site fig2_real[] = {{207, 396}, {360, 186}, {451, 271}, {539, 277}};

/* The tubercle of T nearest (x, y) within r, or -1. */
static long nearest(const fs_tubercle_list *T, double x, double y, double r)
{
	long best = -1;
	double bd = r;
	for (size_t i = 0; i < T->n; i++) {
		double d = hypot(T->items[i].centroid_x - x, T->items[i].centroid_y - y);
		if (d < bd) {
			bd = d;
			best = (long)i;
		}
	}
	return best;
}

static void check_figure(const figure *f)
{
	char err[256];
	fs_image *img = fixture_image(f->file);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	p.method = FS_METHOD_LATTICE;
	fs_detect_result res;
	assert_int_equal(fs_detect_rule_in_region(img, &p, 0, FS_RULE_DOME, NULL, &res, err, sizeof err), 0);
	/* a site is "there" when a recovered tubercle lies within 0.15
	 * pitch of it (the judged positions are the measured centres,
	 * rounded to the pixel) */
	double r = 0.15 * f->pitch;
	size_t back = 0, lost = 0;
	for (size_t k = 0; k < f->n_gone; k++) {
		long i = nearest(&res.tubercles, f->gone[k].x, f->gone[k].y, r);
		if (i >= 0 && res.tubercles.items[i].source == FS_SOURCE_LATTICE) {
			printf("  %s: judged not real, recovered: (%.0f, %.0f)\n", f->file, f->gone[k].x,
			       f->gone[k].y);
			back++;
		}
	}
	for (size_t k = 0; k < f->n_real; k++) {
		if (nearest(&res.tubercles, f->real[k].x, f->real[k].y, r) < 0) {
			printf("  %s: judged real, missing: (%.0f, %.0f)\n", f->file, f->real[k].x, f->real[k].y);
			lost++;
		}
	}
	printf("  %s: %zu tubercles; judged-not-real sites recovered %zu of %zu, judged-real missing %zu of %zu\n",
	       f->file, res.tubercles.n, back, f->n_gone, lost, f->n_real);
	fs_detect_result_free(&res);
	fs_image_free(img);
	assert_int_equal(back, 0);
	assert_int_equal(lost, 0);
}

static void fig1c_lattice_sites_match_the_judged_crops(void **state)
{
	(void)state;
	figure f = {PAPER "P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif", 43.1, fig1c_gone,
		    sizeof fig1c_gone / sizeof *fig1c_gone, fig1c_real, sizeof fig1c_real / sizeof *fig1c_real};
	check_figure(&f);
}

/* (Not under the sanitizers: Fig1c takes every code path Fig2 does, and
 * Fig2 would add about 3 s of ASan CPU to make test.) */
static void fig2_lattice_sites_match_the_judged_crops(void **state)
{
	(void)state;
	if (fs_test_subset())
		skip();
	figure f = {PAPER "P1_Fig2_Polypterus_bichir_2.63um.tif", 71.9, fig2_gone,
		    sizeof fig2_gone / sizeof *fig2_gone, fig2_real, sizeof fig2_real / sizeof *fig2_real};
	check_figure(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fig1c_lattice_sites_match_the_judged_crops),
		cmocka_unit_test(fig2_lattice_sites_match_the_judged_crops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
