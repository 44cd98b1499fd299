/*
 * test_reference.c - the reference data file (conf/reference.conf) and the
 * genus classifier that reads it: the compiled-in file parses, its species
 * are the paper figures' expected values, parse errors name their line, and
 * the classifier follows the table's order (so the file, not a constant in
 * the code, decides).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/metrics.h"
#include "analysis/reference.h"

static void test_builtin_parses_in_file_order(void **state)
{
	(void)state;
	const fs_reference *r = fs_reference_builtin();
	assert_string_equal(fs_reference_builtin_error(), "");
	assert_int_equal(r->n_genera, 6);
	const char *order[] = {"Lepisosteus", "Atractosteus", "Polypterus", "Obaichthys", "Paralepidosteus",
			       "Lepidotes"};
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(r->genera[i].name, order[i]);
	assert_true(r->n_cites >= 3);
	const fs_ref_genus *g = fs_reference_genus(r, "Atractosteus");
	assert_non_null(g);
	assert_true(g->d_min == 5.68 && g->d_max == 9.07 && g->s_min == 1.89 && g->s_max == 2.82);
	/* every genus and species names a citation that is defined */
	for (size_t i = 0; i < r->n_species; i++)
		assert_non_null(fs_reference_cite(r, r->species[i].cite));
}

/* The species points are the paper figures' published values: the same rows
 * as tests/fixtures/paper/expected.csv (species, genus, D, S). */
static void test_species_are_the_paper_figures(void **state)
{
	(void)state;
	const fs_reference *r = fs_reference_builtin();
	FILE *f = fopen("tests/fixtures/paper/expected.csv", "r");
	assert_non_null(f);
	char line[1024];
	size_t rows = 0;
	assert_non_null(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char *save = NULL;
		strtok_r(line, ",", &save); /* file */
		char *species = strtok_r(NULL, ",", &save);
		char *genus = strtok_r(NULL, ",", &save);
		strtok_r(NULL, ",", &save); /* arrangement */
		double d = atof(strtok_r(NULL, ",", &save));
		double s = atof(strtok_r(NULL, ",", &save));
		const fs_ref_species *sp = NULL;
		for (size_t i = 0; i < r->n_species; i++)
			if (!strcmp(r->species[i].name, species))
				sp = &r->species[i];
		if (!sp)
			fail_msg("species %s of expected.csv missing in conf/reference.conf", species);
		assert_string_equal(sp->genus, genus);
		assert_true(fabs(sp->d - d) < 1e-9);
		assert_true(fabs(sp->s - s) < 1e-9);
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, r->n_species);
}

static void expect_error(const char *text, const char *needle)
{
	fs_reference r;
	char err[256] = "";
	assert_int_equal(fs_reference_parse(text, &r, err, sizeof err), -1);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not contain '%s'", err, needle);
	assert_int_equal(r.n_genera, 0);
	assert_null(r.genera);
}

static void test_parse_errors_name_the_line(void **state)
{
	(void)state;
	const char *head = "cite A \"A. Author (2000)\"\n";
	char buf[512];
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 A\nfoo bar\n", head);
	expect_error(buf, "line 3: unknown record 'foo'");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 four A\n", head);
	expect_error(buf, "line 2: the ranges must be numbers");
	snprintf(buf, sizeof buf, "%sgenus X 2 1 3 4 A\n", head);
	expect_error(buf, "line 2: a range's maximum must exceed");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 B\n", head);
	expect_error(buf, "line 2: unknown citation B");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 A\ngenus X 1 2 3 4 A\n", head);
	expect_error(buf, "line 3: genus X listed twice");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 A\nspecies \"Y z 1 2 A \"src\"\n", head);
	expect_error(buf, "line 3: unterminated or misplaced quote");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 A\nspecies \"Y z\" X 1 A \"src\"\n", head);
	expect_error(buf, "line 3: species needs");
	snprintf(buf, sizeof buf, "%sgenus X 1 2 3 4 A\nspecies \"Y z\" X -1 2 A \"src\"\n", head);
	expect_error(buf, "line 3: D must be");
	expect_error("# nothing but a comment\n", "no genus ranges");
	snprintf(buf, sizeof buf, "%scite A \"again\"\n", head);
	expect_error(buf, "line 2: citation A defined twice");
}

static void test_parse_fields_and_comments(void **state)
{
	(void)state;
	fs_reference r;
	char err[256];
	const char *text = "# comment\n"
			   "\n"
			   "cite K1 \"First, 1990\"   # trailing comment\n"
			   "cite K2 \"Second\"\r\n"
			   "genus Alpha 1 2 3 4 K1,K2\n"
			   "species \"Alpha beta\" Alpha 1.5 3.5 K2 \"Fig. 1\"\n";
	assert_int_equal(fs_reference_parse(text, &r, err, sizeof err), 0);
	assert_int_equal(r.n_cites, 2);
	assert_string_equal(r.cites[0].text, "First, 1990");
	assert_string_equal(r.cites[1].key, "K2");
	assert_int_equal(r.n_genera, 1);
	assert_string_equal(r.genera[0].cite, "K1,K2");
	assert_int_equal(r.n_species, 1);
	assert_string_equal(r.species[0].name, "Alpha beta");
	assert_string_equal(r.species[0].source, "Fig. 1");
	assert_true(r.species[0].d == 1.5 && r.species[0].s == 3.5);
	cJSON *j = fs_reference_to_json(&r);
	assert_non_null(j);
	cJSON *sp = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "species"), 0);
	assert_true(fabs(cJSON_GetObjectItem(sp, "fill_ratio")->valuedouble - 0.3) < 1e-12);
	cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "genera"), 0);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(g, "cite")), 2);
	assert_int_equal(cJSON_GetObjectItem(g, "precedence")->valueint, 1);
	cJSON_Delete(j);
	fs_reference_free(&r);
	fs_reference_free(&r); /* a freed struct is empty and may be freed again */
}

/* The table's order decides an overlap: the same point goes to whichever
 * overlapping genus is listed first. */
static void test_classifier_follows_the_table_order(void **state)
{
	(void)state;
	fs_reference a, b;
	char err[256];
	const char *ab = "cite K \"k\"\ngenus A 1 3 1 3 K\ngenus B 2 4 2 4 K\n";
	const char *ba = "cite K \"k\"\ngenus B 2 4 2 4 K\ngenus A 1 3 1 3 K\n";
	assert_int_equal(fs_reference_parse(ab, &a, err, sizeof err), 0);
	assert_int_equal(fs_reference_parse(ba, &b, err, sizeof err), 0);
	const char *g, *c;
	fs_reference_classify(&a, 2.5, 2.5, &g, &c);
	assert_string_equal(g, "A");
	assert_string_equal(c, "high");
	fs_reference_classify(&b, 2.5, 2.5, &g, &c);
	assert_string_equal(g, "B");
	/* outside both: the nearest by normalised distance */
	fs_reference_classify(&a, 4.2, 4.2, &g, &c); /* A: 1.6+1.6, B: 0.6+0.6 */
	assert_string_equal(g, "B");
	assert_string_equal(c, "medium");
	fs_reference_classify(&a, 30, 30, &g, &c);
	assert_string_equal(g, "Unknown");
	assert_string_equal(c, "none");
	char prec[256];
	fs_reference_precedence_text(&b, prec, sizeof prec);
	assert_non_null(strstr(prec, "B, then A."));
	fs_reference_free(&a);
	fs_reference_free(&b);
}

/* fs_classify_genus (what the statistics use) is the builtin table's classifier. */
static void test_metrics_classifier_is_the_builtin_table(void **state)
{
	(void)state;
	const fs_reference *r = fs_reference_builtin();
	for (size_t i = 0; i < r->n_genera; i++) {
		const fs_ref_genus *e = &r->genera[i];
		double d = (e->d_min + e->d_max) / 2, s = (e->s_min + e->s_max) / 2;
		const char *g1, *c1, *g2, *c2;
		fs_classify_genus(d, s, &g1, &c1);
		fs_reference_classify(r, d, s, &g2, &c2);
		assert_string_equal(g1, g2);
		assert_string_equal(c1, c2);
		assert_string_equal(c1, "high");
	}
	/* each published species falls in its own genus's range, except where
	 * the precedence says otherwise */
	for (size_t i = 0; i < r->n_species; i++) {
		const char *g, *c;
		fs_classify_genus(r->species[i].d, r->species[i].s, &g, &c);
		const fs_ref_genus *own = fs_reference_genus(r, r->species[i].genus);
		assert_non_null(own);
		int inside = r->species[i].d >= own->d_min && r->species[i].d <= own->d_max &&
			     r->species[i].s >= own->s_min && r->species[i].s <= own->s_max;
		if (inside && strcmp(g, own->name)) {
			/* taken by a genus listed earlier */
			const fs_ref_genus *won = fs_reference_genus(r, g);
			assert_non_null(won);
			assert_true(won < own);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_parses_in_file_order),
		cmocka_unit_test(test_species_are_the_paper_figures),
		cmocka_unit_test(test_parse_errors_name_the_line),
		cmocka_unit_test(test_parse_fields_and_comments),
		cmocka_unit_test(test_classifier_follows_the_table_order),
		cmocka_unit_test(test_metrics_classifier_is_the_builtin_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
