/*
 * The published figures (tests/fixtures/paper): method auto with the
 * default parameters and no per-image tuning. The calibration-free check is
 * the ratio diameter / (diameter + space) against the published one.
 * Diameter, spacing and ratio are what `fishscale measure` reports: the
 * default neighbour graph (fs_graph_build with the default parameters) and
 * fs_stats_compute's mean_diameter, mean_space (edge to edge, negative = 0)
 * and size_pitch_ratio.
 *
 * The target (within 0.08 for at least 7 of the 9 images, genera in
 * the order Polypterus < Lepisosteus-like < Atractosteus) is NOT met: the
 * published outlines sit at different brightness levels for different
 * genera on these halftone crops, so no brightness rule reaches them.
 * docs/paper-figures.md has the table, the evidence and the rules tried in
 * two investigations. This test guards the level reached (6 of 9 at the
 * time of writing; it asserts 5, since which borderline figure passes
 * depends on the detected set) and Polypterus bichir within 0.08, and
 * prints the table with every `make test`.
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
#include "analysis/graph.h"
#include "image/image_io.h"
#include "analysis/metrics.h"

#define DIR "tests/fixtures/paper/"
#define MAXIMG 16

typedef struct row {
	char file[160], genus[64];
	double exp_ratio, ratio, d, s;
	size_t n;
} row;

static int read_expected(row *rows)
{
	FILE *f = fopen(DIR "expected.csv", "r");
	if (!f)
		return -1;
	char line[1024];
	int n = 0;
	if (!fgets(line, sizeof line, f)) {
		fclose(f);
		return -1;
	}
	while (n < MAXIMG && fgets(line, sizeof line, f)) {
		char *fields[8] = {0};
		int k = 0;
		for (char *tok = strtok(line, ","); tok && k < 8; tok = strtok(NULL, ","))
			fields[k++] = tok;
		if (k < 6)
			continue;
		snprintf(rows[n].file, sizeof rows[n].file, "%.150s", fields[0]);
		snprintf(rows[n].genus, sizeof rows[n].genus, "%.60s", fields[2]);
		double d = atof(fields[4]), s = atof(fields[5]);
		rows[n].exp_ratio = d / (d + s);
		n++;
	}
	fclose(f);
	return n;
}

static void measure(row *r)
{
	char path[1024], err[256];
	snprintf(path, sizeof path, DIR "%.150s", r->file);
	fs_loaded L;
	assert_int_equal(fs_load_file(path, NULL, &L, err, sizeof err), 0);
	fs_params p;
	fs_params_default(&p);
	fs_detect_result res;
	assert_int_equal(fs_detect(L.image, &p, 0, &res, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&res.tubercles, p.neighbor_graph, p.cull_long_edges,
					p.cull_factor, &e, err, sizeof err), 0);
	fs_stats st;
	assert_int_equal(fs_stats_compute(&res.tubercles, &e, 1.0, NULL, L.image->width,
					  L.image->height, &st), 0);
	r->n = res.tubercles.n;
	r->d = st.mean_diameter_um;
	r->s = st.mean_space_um;
	r->ratio = st.size_pitch_ratio;
	fs_edge_list_free(&e);
	fs_detect_result_free(&res);
	fs_loaded_free(&L);
}

static row rows[MAXIMG];
static int nrows, nok;

/* Measures every image once and prints the table (group setup). */
static int measure_all(void **state)
{
	(void)state;
	nrows = read_expected(rows);
	if (nrows < 9)
		return -1;
	printf("%-50s %5s %7s %7s %6s %6s %s\n", "file", "n", "D px", "S px", "ratio", "expect", "ok");
	nok = 0;
	for (int i = 0; i < nrows; i++) {
		measure(&rows[i]);
		int good = fabs(rows[i].ratio - rows[i].exp_ratio) <= 0.08;
		nok += good;
		printf("%-50s %5zu %7.2f %7.2f %6.3f %6.3f %s\n", rows[i].file, rows[i].n, rows[i].d,
		       rows[i].s, rows[i].ratio, rows[i].exp_ratio, good ? "yes" : "NO");
	}
	printf("within 0.08: %d of %d (issue target 7)\n", nok, nrows);
	return 0;
}

static const row *find(const char *genus_or_file)
{
	for (int i = 0; i < nrows; i++)
		if (strstr(rows[i].file, genus_or_file))
			return &rows[i];
	return NULL;
}

static void paper_ratios_do_not_regress(void **state)
{
	(void)state;
	assert_true(nok >= 5);
	const row *bichir = find("Polypterus_bichir");
	assert_non_null(bichir);
	assert_true(fabs(bichir->ratio - bichir->exp_ratio) <= 0.08);
	for (int i = 0; i < nrows; i++)
		assert_true(rows[i].n >= 10); /* every figure shows a lattice */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(paper_ratios_do_not_regress),
	};
	return cmocka_run_group_tests(tests, measure_all, NULL);
}
