/*
 * test_annotation_json.c - reading v1/v2/v3/_slo annotation files with
 * their reports and repairs, hostile inputs, writing v3.0, and the
 * write -> read round trip.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/annotation.h"
#include "store/annotation_json.h"

#define FIXTURES "tests/unit/fixtures/annotations/"

/* ------------------------------------------------------------ helpers */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *s = malloc((size_t)n + 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return s;
}

/* Parses text that must succeed; the report is left in *rep. */
static void parse_ok(const char *text, fs_annot_doc *d, fs_buf *rep)
{
	char err[256] = "";
	int rc = fs_annot_parse(text, strlen(text), d, rep, err, sizeof err);
	if (rc)
		fail_msg("parse failed: %s", err);
}

static void parse_fixture(const char *name, fs_annot_doc *d, fs_buf *rep)
{
	char path[256];
	size_t len;
	char err[256] = "";
	snprintf(path, sizeof path, FIXTURES "%s", name);
	char *text = slurp(path, &len);
	int rc = fs_annot_parse(text, len, d, rep, err, sizeof err);
	free(text);
	if (rc)
		fail_msg("%s: %s", name, err);
}

/* Parses text that must fail; returns the message for checks. */
static void parse_fails(const char *text, size_t len, const char *want_in_err)
{
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	char err[256] = "";
	assert_int_equal(fs_annot_parse(text, len, &d, &rep, err, sizeof err), -1);
	if (!strstr(err, want_in_err))
		fail_msg("error \"%s\" lacks \"%s\"", err, want_in_err);
	assert_null(d.sets);
	assert_int_equal(d.n_sets, 0);
	assert_int_equal(rep.len, 0);
	fs_buf_free(&rep);
}

static void has_line(const fs_buf *rep, const char *needle)
{
	if (!rep->data || !strstr(rep->data, needle))
		fail_msg("report lacks \"%s\":\n%s", needle, rep->data ? rep->data : "");
}

static void lacks_line(const fs_buf *rep, const char *needle)
{
	if (rep->data && strstr(rep->data, needle))
		fail_msg("report has \"%s\":\n%s", needle, rep->data);
}

static const fs_tubercle *tub(const fs_annot_set *s, int id)
{
	for (size_t i = 0; i < s->tubercles.n; i++)
		if (s->tubercles.items[i].id == id)
			return &s->tubercles.items[i];
	fail_msg("no tubercle %d", id);
	return NULL;
}

static cJSON *to_json(const fs_annot_doc *d)
{
	cJSON *j = fs_annot_to_json(d, "2026-01-02T03:04:05");
	assert_non_null(j);
	return j;
}

/* Writes d, reads it back into *back. */
static void round_trip(const fs_annot_doc *d, fs_annot_doc *back)
{
	cJSON *j = to_json(d);
	char *text = cJSON_PrintUnformatted(j);
	assert_non_null(text);
	parse_ok(text, back, NULL);
	free(text);
	cJSON_Delete(j);
}

static void same_tubercle(const fs_tubercle *a, const fs_tubercle *b)
{
	assert_int_equal(a->id, b->id);
	assert_true(a->centroid_x == b->centroid_x);
	assert_true(a->centroid_y == b->centroid_y);
	assert_true(a->radius_px == b->radius_px || (isnan(a->radius_px) && isnan(b->radius_px)));
	assert_true(a->circularity == b->circularity);
	assert_int_equal(a->has_ellipse, b->has_ellipse);
	if (a->has_ellipse) {
		assert_true(a->major_axis_px == b->major_axis_px);
		assert_true(a->minor_axis_px == b->minor_axis_px);
		assert_true(a->orientation == b->orientation);
		assert_true(a->eccentricity == b->eccentricity);
	}
	assert_int_equal(a->is_boundary, b->is_boundary);
	assert_int_equal(a->source, b->source);
}

static void same_params(const fs_params *a, const fs_params *b)
{
	assert_int_equal(a->method, b->method);
	assert_true(a->threshold == b->threshold);
	assert_true(a->min_diameter_um == b->min_diameter_um);
	assert_true(a->max_diameter_um == b->max_diameter_um);
	assert_true(a->min_circularity == b->min_circularity);
	assert_true(a->clahe_clip == b->clahe_clip);
	assert_int_equal(a->clahe_kernel, b->clahe_kernel);
	assert_true(a->blur_sigma == b->blur_sigma);
	assert_int_equal(a->neighbor_graph, b->neighbor_graph);
	assert_int_equal(a->cull_long_edges, b->cull_long_edges);
	assert_true(a->cull_factor == b->cull_factor);
	assert_int_equal(a->edge_margin_px, b->edge_margin_px);
	assert_int_equal(a->tophat_radius, b->tophat_radius);
}

static void same_doc(const fs_annot_doc *a, const fs_annot_doc *b)
{
	assert_string_equal(a->image_name, b->image_name);
	assert_true(a->um_per_px == b->um_per_px);
	assert_string_equal(a->calibration_method, b->calibration_method);
	assert_int_equal(a->active_set, b->active_set);
	assert_true(a->default_tubercle_diameter_um == b->default_tubercle_diameter_um);
	assert_string_equal(a->created, b->created);
	assert_int_equal(a->n_sets, b->n_sets);
	for (size_t i = 0; i < a->n_sets; i++) {
		const fs_annot_set *x = &a->sets[i], *y = &b->sets[i];
		assert_string_equal(x->id, y->id);
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->created, y->created);
		assert_string_equal(x->modified, y->modified);
		assert_true(x->calibration_um_per_px == y->calibration_um_per_px);
		assert_int_equal(x->has_params, y->has_params);
		if (x->has_params)
			same_params(&x->params, &y->params);
		assert_int_equal(x->tubercles.n, y->tubercles.n);
		for (size_t k = 0; k < x->tubercles.n; k++)
			same_tubercle(&x->tubercles.items[k], &y->tubercles.items[k]);
		assert_int_equal(x->edges.n, y->edges.n);
		for (size_t k = 0; k < x->edges.n; k++) {
			assert_int_equal(x->edges.items[k].id1, y->edges.items[k].id1);
			assert_int_equal(x->edges.items[k].id2, y->edges.items[k].id2);
		}
		assert_int_equal(x->history == NULL, y->history == NULL);
		if (x->history)
			assert_true(cJSON_Compare(x->history, y->history, 1));
	}
}

/* A set of two tubercles and one edge for building small documents. */
static void add_pair(fs_annot_set *s, double x2)
{
	fs_tubercle t = {.id = 1, .centroid_x = 10, .centroid_y = 10, .radius_px = 4,
			 .circularity = 0.9};
	fs_edge e = {1, 2};
	assert_int_equal(fs_tubercle_list_append(&s->tubercles, &t), 0);
	t.id = 2;
	t.centroid_x = x2;
	assert_int_equal(fs_tubercle_list_append(&s->tubercles, &t), 0);
	assert_int_equal(fs_edge_list_append(&s->edges, &e), 0);
}

static void one_set_doc(fs_annot_doc *d, double doc_cal, double set_cal, double x2)
{
	memset(d, 0, sizeof *d);
	d->sets = calloc(1, sizeof *d->sets);
	assert_non_null(d->sets);
	d->n_sets = 1;
	d->um_per_px = doc_cal;
	snprintf(d->created, sizeof d->created, "2025-12-31T23:59:59");
	snprintf(d->sets[0].name, sizeof d->sets[0].name, "Base");
	d->sets[0].calibration_um_per_px = set_cal;
	add_pair(&d->sets[0], x2);
}

static const cJSON *first_tub_json(const cJSON *j)
{
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 0);
	return cJSON_GetArrayItem(cJSON_GetObjectItem(s0, "tubercles"), 0);
}

static const cJSON *first_edge_json(const cJSON *j)
{
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 0);
	return cJSON_GetArrayItem(cJSON_GetObjectItem(s0, "edges"), 0);
}

/* ------------------------------------------------------------ fixtures */

static void test_v1_fixture_reads_one_base_set(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture("v1.json", &d, &rep);
	assert_int_equal(d.detected_version, 1);
	assert_int_equal(d.n_sets, 1);
	assert_string_equal(d.sets[0].name, "Base");
	assert_string_equal(d.image_name, "P1_Fig3_Lepisosteus_osseus_3.79um.tif");
	assert_string_equal(d.created, "2025-06-01T10:00:00");
	assert_true(d.um_per_px == 0.25);
	assert_string_equal(d.calibration_method, "manual");
	assert_true(d.sets[0].calibration_um_per_px == 0.25);
	assert_int_equal(d.sets[0].tubercles.n, 3);
	assert_int_equal(d.sets[0].edges.n, 3);
	assert_true(tub(&d.sets[0], 1)->is_boundary);
	assert_true(tub(&d.sets[0], 1)->circularity == 0.91);
	/* id 3 has no source and no diameter_px: the original editor's mark */
	assert_int_equal(tub(&d.sets[0], 3)->source, FS_SOURCE_MANUAL);
	assert_int_equal(tub(&d.sets[0], 2)->source, FS_SOURCE_EXTRACTED);
	assert_true(d.sets[0].has_params);
	assert_int_equal(d.sets[0].params.method, FS_METHOD_LOG);
	assert_true(d.sets[0].params.threshold == 0.08);
	assert_int_equal(d.sets[0].params.neighbor_graph, FS_GRAPH_GABRIEL);
	assert_int_equal(d.sets[0].params.cull_long_edges, 1);
	has_line(&rep, "detected version 1 (the version field)");
	has_line(&rep, "statistics ignored");
	has_line(&rep, "set 1 \"Base\" (id \"\"): 3 tubercles, 3 edges, parameters yes");
	has_line(&rep, "1 tubercles without source or diameter_px read as manual");
	has_line(&rep, "1 tubercles without source read as extracted");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_v2_fixture_snapshots_document_calibration(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture("v2.json", &d, &rep);
	assert_int_equal(d.detected_version, 2);
	assert_int_equal(d.n_sets, 2);
	assert_int_equal(d.active_set, 1);
	assert_true(d.sets[0].calibration_um_per_px == 0.5);
	assert_true(d.sets[1].calibration_um_per_px == 0.5);
	assert_string_equal(d.sets[1].id, "set_1720000000000_b");
	assert_string_equal(d.sets[1].created, "2025-07-02T08:00:00.000Z");
	assert_false(d.sets[0].has_params);
	assert_true(d.sets[1].has_params);
	assert_int_equal(d.sets[1].params.method, FS_METHOD_DOG);
	assert_null(d.sets[0].history);
	assert_non_null(d.sets[1].history);
	assert_int_equal(cJSON_GetArraySize(d.sets[1].history), 1);
	has_line(&rep, "detected version 2 (the version field)");
	has_line(&rep, "set 2 \"Edited\" (id \"set_1720000000000_b\"): 1 tubercles, 0 edges, "
		 "parameters yes, calibration 0.5 um/px, 1 history events (active)");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_v3_fixture_reads_every_field(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture("v3.json", &d, &rep);
	assert_int_equal(d.detected_version, 3);
	assert_int_equal(d.n_sets, 2);
	assert_int_equal(d.active_set, 1);
	assert_true(d.um_per_px == 1.0 / 3.0);
	assert_true(d.default_tubercle_diameter_um == 6.5);
	const fs_annot_set *b = &d.sets[0];
	assert_true(b->calibration_um_per_px == 1.0 / 3.0);
	assert_true(d.sets[1].calibration_um_per_px == 0);
	const fs_tubercle *t = tub(b, 1);
	assert_true(t->centroid_x == 200.125);
	assert_true(t->centroid_y == 150.0625);
	assert_true(t->radius_px == 10.5);
	assert_true(t->has_ellipse);
	assert_true(t->major_axis_px == 23.0);
	assert_true(t->minor_axis_px == 19.0);
	assert_true(t->orientation == 0.7853981633974483);
	assert_true(t->eccentricity == 0.5635);
	assert_false(tub(b, 2)->has_ellipse);
	assert_int_equal(tub(b, 5)->source, FS_SOURCE_MANUAL);
	assert_int_equal(b->edges.items[1].id1, 5);
	assert_int_equal(b->params.method, FS_METHOD_ELLIPSE);
	assert_int_equal(b->params.clahe_kernel, 16);
	assert_int_equal(b->params.neighbor_graph, FS_GRAPH_RNG);
	assert_int_equal(b->params.tophat_radius, 12);
	assert_int_equal(cJSON_GetArraySize(b->history), 2);
	assert_int_equal(tub(&d.sets[1], 1)->source, FS_SOURCE_MANUAL);
	has_line(&rep, "detected version 3 (the version field)");
	has_line(&rep, "1 tubercles with source \"debug_seed\" read as manual");
	lacks_line(&rep, "unknown field");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_slo_fixture_detected_from_structure(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture("P1_Fig5_slo.json", &d, &rep);
	assert_int_equal(d.detected_version, 2);
	assert_true(d.um_per_px == 0.4);
	assert_string_equal(d.calibration_method, "estimated");
	assert_true(d.sets[0].calibration_um_per_px == 0.4);
	assert_true(tub(&d.sets[0], 1)->radius_px == 5);
	assert_true(tub(&d.sets[0], 2)->radius_px == 4.0 / 0.4 / 2);
	assert_int_equal(d.sets[0].edges.n, 1);
	has_line(&rep, "detected version 2 (sets without calibration_um_per_pixel)");
	has_line(&rep, "calibration: um_per_pixel read as um_per_px");
	has_line(&rep, "radius taken from diameter_px");
	has_line(&rep, "radius taken from diameter_um and the calibration");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_repairs_fixture_reports_every_repair(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture("repairs.json", &d, &rep);
	const fs_annot_set *s = &d.sets[0];
	/* kept: 1, dup of 1 -> 8, 4, 6, 7, no id -> 9 */
	assert_int_equal(s->tubercles.n, 6);
	assert_true(tub(s, 1)->centroid_x == 10);
	assert_true(tub(s, 8)->centroid_x == 40);
	assert_true(tub(s, 9)->centroid_x == 60);
	assert_int_equal(tub(s, 9)->source, FS_SOURCE_AGENT);
	assert_true(tub(s, 4)->radius_px == 4);
	assert_true(tub(s, 6)->radius_px == 3);
	assert_true(tub(s, 7)->circularity == 1);
	assert_int_equal(tub(s, 7)->source, FS_SOURCE_EXTRACTED);
	assert_int_equal(s->edges.n, 2);
	assert_int_equal(s->edges.items[0].id1, 1);
	assert_int_equal(s->edges.items[0].id2, 4);
	assert_int_equal(s->edges.items[1].id1, 6);
	assert_int_equal(s->edges.items[1].id2, 7);
	assert_true(s->has_params);
	assert_int_equal(s->params.method, FS_METHOD_LOG);
	assert_true(s->params.threshold == 0.05); /* 7 is out of range: default kept */
	has_line(&rep, "1 tubercle entries are not objects");
	has_line(&rep, "1 tubercles refused: centroid_x/centroid_y");
	has_line(&rep, "1 tubercles refused: negative radius_px");
	has_line(&rep, "1 tubercles with a missing or invalid id got new ids");
	has_line(&rep, "1 tubercles repeat an id already used");
	has_line(&rep, "unknown source (first \"sorcery\")");
	has_line(&rep, "wrong type or not finite ignored (first \"circularity\")");
	has_line(&rep, "1 edges without integer id1/id2 dropped");
	has_line(&rep, "1 edges referencing missing tubercle ids dropped");
	has_line(&rep, "1 edges joining a tubercle to itself dropped");
	has_line(&rep, "1 repeated edges dropped");
	has_line(&rep, "parameter \"threshold\" = \"7\" ignored");
	has_line(&rep, "parameter \"nonsense\" = \"1\" ignored");
	has_line(&rep, "statistics ignored");
	has_line(&rep, "unknown field \"colour\" ignored");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

/* A null radius (or diameter) is a tubercle whose base was not measured:
 * kept with its centre (radius NaN), reported, written back as null. */
static void test_null_diameter_is_an_unmeasured_tubercle(void **state)
{
	(void)state;
	fs_annot_doc d, back;
	fs_buf rep = {0};
	parse_ok("{\"version\": 3, \"sets\": [{\"name\": \"a\", \"tubercles\": ["
		 "{\"id\": 1, \"centroid_x\": 5, \"centroid_y\": 6, \"radius_px\": null, \"diameter_px\": null,"
		 " \"fit_quality\": 0.2, \"source\": \"extracted\"},"
		 "{\"id\": 2, \"centroid_x\": 9, \"centroid_y\": 6, \"diameter_um\": null, \"source\": \"manual\"},"
		 "{\"id\": 3, \"centroid_x\": 20, \"centroid_y\": 6, \"radius_px\": 3, \"source\": \"manual\"}]}]}",
		 &d, &rep);
	assert_int_equal(d.n_sets, 1);
	assert_int_equal(d.sets[0].tubercles.n, 3);
	assert_true(isnan(d.sets[0].tubercles.items[0].radius_px));
	assert_true(d.sets[0].tubercles.items[0].fit_quality == 0.2);
	assert_true(isnan(d.sets[0].tubercles.items[1].radius_px));
	assert_true(isnan(d.sets[0].tubercles.items[1].fit_quality));
	assert_true(d.sets[0].tubercles.items[2].radius_px == 3);
	has_line(&rep, "2 tubercles without a measured diameter (null)");
	/* an unmeasured tubercle has no circularity to miss (tubercle.h):
	 * only #3's is reported missing (before h33f, all three) */
	has_line(&rep, ": 1 tubercles without a numeric circularity");
	assert_true(d.sets[0].tubercles.items[0].circularity == FS_UNMEASURED_CIRCULARITY);
	/* and it writes none, whatever it holds */
	d.sets[0].tubercles.items[0].circularity = 0.6;
	cJSON *j = to_json(&d);
	const cJSON *t0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 0),
								 "tubercles"), 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t0, "radius_px")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t0, "diameter_px")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(t0, "circularity")));
	cJSON_Delete(j);
	round_trip(&d, &back);
	assert_true(isnan(back.sets[0].tubercles.items[0].radius_px));
	assert_true(back.sets[0].tubercles.items[0].fit_quality == 0.2);
	fs_annot_doc_free(&back);
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

/* ------------------------------------------------- version detection */

static void test_version_field_wins_over_format(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_ok("{\"version\": 3, \"format\": \"annotations-v2\", \"sets\": [{\"name\": \"a\"}]}",
		 &d, NULL);
	assert_int_equal(d.detected_version, 3);
	fs_annot_doc_free(&d);
}

static void test_format_decides_without_version(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_ok("{\"format\": \"annotations-v2\", \"calibration\": {\"um_per_px\": 2},"
		 " \"sets\": [{\"calibration_um_per_pixel\": 1}, {}]}", &d, NULL);
	assert_int_equal(d.detected_version, 2);
	assert_true(d.sets[0].calibration_um_per_px == 1);
	assert_true(d.sets[1].calibration_um_per_px == 2);
	fs_annot_doc_free(&d);
}

static void test_set_calibration_field_means_v3(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"calibration\": {\"um_per_px\": 2}, \"sets\": [{\"calibration_um_per_pixel\": null},"
		 " {}]}", &d, &rep);
	assert_int_equal(d.detected_version, 3);
	assert_true(d.sets[1].calibration_um_per_px == 0); /* v3 does not inherit */
	has_line(&rep, "detected version 3 (sets[0] has calibration_um_per_pixel)");
	has_line(&rep, "set 2: no name; named \"Set 2\"");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_no_sets_means_v1(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"tubercles\": []}", &d, &rep);
	assert_int_equal(d.detected_version, 1);
	assert_int_equal(d.n_sets, 1);
	assert_int_equal(d.sets[0].tubercles.n, 0);
	has_line(&rep, "detected version 1 (no sets)");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_claimed_v1_with_only_sets_reads_sets(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"version\": \"1.0\", \"sets\": [{\"name\": \"x\"}]}", &d, &rep);
	assert_int_equal(d.detected_version, 2);
	assert_string_equal(d.sets[0].name, "x");
	has_line(&rep, "claims version 1 but has sets");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_unsupported_version_falls_back_to_structure(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"version\": \"9.1\", \"tubercles\": []}", &d, &rep);
	assert_int_equal(d.detected_version, 1);
	has_line(&rep, "unsupported version \"9.1\" ignored");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

/* ----------------------------------------------------- field repairs */

static void test_string_coordinate_is_refused(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": \"1\", \"centroid_y\": 2,"
		 " \"radius_px\": 3}, {\"id\": 2, \"centroid_x\": 1, \"centroid_y\": 2,"
		 " \"radius_px\": 3}]}", &d, NULL);
	assert_int_equal(d.sets[0].tubercles.n, 1);
	assert_int_equal(d.sets[0].tubercles.items[0].id, 2);
	fs_annot_doc_free(&d);
}

static void test_string_radius_falls_back_to_diameter(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": 1, \"centroid_y\": 2,"
		 " \"radius_px\": \"NaN\", \"diameter_px\": 6}]}", &d, &rep);
	assert_true(d.sets[0].tubercles.items[0].radius_px == 3);
	has_line(&rep, "first \"radius_px\"");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_diameter_um_without_calibration_is_refused(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": 1, \"centroid_y\": 2,"
		 " \"diameter_um\": 6}]}", &d, &rep);
	assert_int_equal(d.sets[0].tubercles.n, 0);
	has_line(&rep, "no usable radius_px, diameter_px or calibrated diameter_um");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_circularity_out_of_range_is_clamped(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": 1, \"centroid_y\": 2,"
		 " \"radius_px\": 1, \"circularity\": 1.5}, {\"id\": 2, \"centroid_x\": 1,"
		 " \"centroid_y\": 2, \"radius_px\": 1, \"circularity\": -3}]}", &d, &rep);
	assert_true(tub(&d.sets[0], 1)->circularity == 1);
	assert_true(tub(&d.sets[0], 2)->circularity == 0);
	has_line(&rep, "2 circularities outside 0..1 clamped");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_ellipse_needs_both_axes(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"calibration\": {\"um_per_px\": 0.5}, \"tubercles\": ["
		 "{\"id\": 1, \"centroid_x\": 1, \"centroid_y\": 2, \"radius_px\": 1,"
		 " \"major_axis_px\": 4},"
		 "{\"id\": 2, \"centroid_x\": 1, \"centroid_y\": 2, \"radius_px\": 1,"
		 " \"major_axis_um\": 2, \"minor_axis_um\": 1}]}", &d, &rep);
	assert_false(tub(&d.sets[0], 1)->has_ellipse);
	const fs_tubercle *t = tub(&d.sets[0], 2);
	assert_true(t->has_ellipse);
	assert_true(t->major_axis_px == 4);
	assert_true(t->minor_axis_px == 2);
	assert_true(fabs(t->eccentricity - sqrt(0.75)) < 1e-12);
	has_line(&rep, "1 incomplete ellipses");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_boundary_as_number_is_accepted(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": 1, \"centroid_y\": 2,"
		 " \"radius_px\": 1, \"is_boundary\": 1}]}", &d, NULL);
	assert_true(d.sets[0].tubercles.items[0].is_boundary);
	fs_annot_doc_free(&d);
}

static void test_edge_to_renumbered_id_is_dropped(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	/* the duplicate 1 becomes 3; an edge naming 3 was never valid */
	parse_ok("{\"tubercles\": [{\"id\": 1, \"centroid_x\": 0, \"centroid_y\": 0, \"radius_px\": 1},"
		 "{\"id\": 2, \"centroid_x\": 5, \"centroid_y\": 0, \"radius_px\": 1},"
		 "{\"id\": 1, \"centroid_x\": 9, \"centroid_y\": 0, \"radius_px\": 1}],"
		 " \"edges\": [{\"id1\": 2, \"id2\": 3}, {\"id1\": 1, \"id2\": 2}]}", &d, &rep);
	assert_int_equal(tub(&d.sets[0], 3)->centroid_x, 9);
	assert_int_equal(d.sets[0].edges.n, 1);
	assert_int_equal(d.sets[0].edges.items[0].id1, 1);
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_ids_at_int_max_cannot_be_renumbered(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"tubercles\": [{\"id\": 2147483647, \"centroid_x\": 0, \"centroid_y\": 0,"
		 " \"radius_px\": 1}, {\"id\": 2147483647, \"centroid_x\": 1, \"centroid_y\": 0,"
		 " \"radius_px\": 1}, {\"id\": 2147483648, \"centroid_x\": 1, \"centroid_y\": 0,"
		 " \"radius_px\": 1}]}", &d, &rep);
	assert_int_equal(d.sets[0].tubercles.n, 1);
	assert_int_equal(d.sets[0].tubercles.items[0].id, INT_MAX);
	has_line(&rep, "2 tubercles dropped: no id left");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_params_graph_type_alias_and_type_errors(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"sets\": [{\"parameters\": {\"graph_type\": \"rng\", \"blur_sigma\": [1],"
		 " \"edge_margin_px\": 2.5}}]}", &d, &rep);
	assert_true(d.sets[0].has_params);
	assert_int_equal(d.sets[0].params.neighbor_graph, FS_GRAPH_RNG);
	assert_true(d.sets[0].params.blur_sigma == 1.0);
	assert_int_equal(d.sets[0].params.edge_margin_px, 10);
	has_line(&rep, "parameter \"blur_sigma\" is a array; ignored");
	has_line(&rep, "parameter \"edge_margin_px\" = \"2.5\" ignored");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_unknown_active_set_id_selects_first(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"activeSetId\": \"nope\", \"sets\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}", &d,
		 &rep);
	assert_int_equal(d.active_set, 0);
	has_line(&rep, "activeSetId \"nope\" names no set");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_duplicate_set_ids_are_cleared(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"activeSetId\": \"a\", \"sets\": [{\"id\": \"a\"}, {\"id\": \"a\"}]}", &d,
		 &rep);
	assert_string_equal(d.sets[0].id, "a");
	assert_string_equal(d.sets[1].id, "");
	assert_int_equal(d.active_set, 0);
	has_line(&rep, "set 2 repeats the id \"a\" of set 1");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_wrong_typed_set_fields_are_warned(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"sets\": [{\"name\": 5, \"tubercles\": {}, \"edges\": 3, \"history\": \"x\","
		 " \"parameters\": 7, \"calibration_um_per_pixel\": -1}, 4]}", &d, &rep);
	assert_int_equal(d.n_sets, 1);
	assert_string_equal(d.sets[0].name, "Base");
	assert_null(d.sets[0].history);
	assert_false(d.sets[0].has_params);
	has_line(&rep, "set 1: expected a string, got number");
	has_line(&rep, "tubercles is a object, not an array");
	has_line(&rep, "edges is a number, not an array");
	has_line(&rep, "history is a string");
	has_line(&rep, "parameters is a number");
	has_line(&rep, "calibration_um_per_pixel -1 is not positive");
	has_line(&rep, "sets[1] is a number, not an object; skipped");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

/* ------------------------------------------------- hostile and failing */

static void test_not_json_fails(void **state)
{
	(void)state;
	parse_fails("{\"sets\": [", 10, "not valid JSON");
	parse_fails("", 0, "not valid JSON");
}

static void test_nan_literal_is_not_json(void **state)
{
	(void)state;
	const char *s = "{\"tubercles\": [{\"id\": 1, \"centroid_x\": NaN, \"centroid_y\": 1}]}";
	parse_fails(s, strlen(s), "not valid JSON");
}

static void test_non_object_root_fails(void **state)
{
	(void)state;
	parse_fails("[1, 2]", 6, "not an object");
	parse_fails("\"sets\"", 6, "not an object");
}

static void test_object_without_sets_or_tubercles_fails(void **state)
{
	(void)state;
	const char *s = "{\"foo\": 1, \"sets\": {}}";
	parse_fails(s, strlen(s), "no sets or tubercles");
}

static void test_sets_without_objects_fail(void **state)
{
	(void)state;
	parse_fails("{\"sets\": []}", 12, "no usable set");
	parse_fails("{\"sets\": [1, null]}", 19, "no usable set");
}

static void test_length_is_respected(void **state)
{
	(void)state;
	/* the valid prefix must not be read past len */
	parse_fails("{\"tubercles\": []}garbage", 5, "not valid JSON");
}

static void test_deep_nesting_fails_cleanly(void **state)
{
	(void)state;
	size_t depth = 100000;
	char *s = malloc(2 * depth + 1);
	assert_non_null(s);
	memset(s, '[', depth);
	memset(s + depth, ']', depth);
	s[2 * depth] = '\0';
	parse_fails(s, 2 * depth, "not valid JSON");
	free(s);
}

static void test_deep_history_inside_limit_is_kept(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "{\"sets\": [{\"history\": [{\"x\": "), 0);
	for (int i = 0; i < 500; i++)
		assert_int_equal(fs_buf_putc(&b, '['), 0);
	for (int i = 0; i < 500; i++)
		assert_int_equal(fs_buf_putc(&b, ']'), 0);
	assert_int_equal(fs_buf_puts(&b, "}]}]}"), 0);
	fs_annot_doc d;
	parse_ok(b.data, &d, NULL);
	assert_non_null(d.sets[0].history);
	fs_annot_doc_free(&d);
	fs_buf_free(&b);
}

static void test_huge_numbers_are_refused(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok("{\"defaultTubercleDiameterUm\": 1e999, \"calibration\": {\"um_per_px\": 1e400},"
		 " \"tubercles\": [{\"id\": 1, \"centroid_x\": 1e300, \"centroid_y\": 0, \"radius_px\": 1},"
		 "{\"id\": 2, \"centroid_x\": 1e999, \"centroid_y\": 0, \"radius_px\": 1},"
		 "{\"id\": 1e20, \"centroid_x\": 0, \"centroid_y\": 0, \"radius_px\": 1e200},"
		 "{\"id\": 4, \"centroid_x\": 0, \"centroid_y\": 0, \"radius_px\": 1, \"orientation\": 1e999}]}",
		 &d, &rep);
	assert_true(d.um_per_px == 0);
	assert_true(d.default_tubercle_diameter_um == 0);
	assert_int_equal(d.sets[0].tubercles.n, 1);
	assert_int_equal(d.sets[0].tubercles.items[0].id, 4);
	has_line(&rep, "2 tubercles refused: centroid_x/centroid_y");
	has_line(&rep, "1 tubercles refused: no usable radius_px");
	has_line(&rep, "defaultTubercleDiameterUm is not a positive number");
	has_line(&rep, "the document is uncalibrated");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
}

static void test_megabyte_name_is_cut_at_a_character(void **state)
{
	(void)state;
	size_t n = 1 << 20;
	fs_buf b = FS_BUF_INIT;
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "{\"image_name\": \""), 0);
	for (size_t i = 0; i < n / 2; i++)
		assert_int_equal(fs_buf_puts(&b, "\xc3\xa9"), 0);
	assert_int_equal(fs_buf_puts(&b, "\", \"sets\": [{\"name\": \""), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(fs_buf_puts(&b, i % 100 == 0 ? "\\n" : "n"), 0);
	assert_int_equal(fs_buf_puts(&b, "\"}]}"), 0);
	parse_ok(b.data, &d, &rep);
	size_t len = strlen(d.image_name);
	assert_true(len < sizeof d.image_name);
	assert_int_equal(len, 254); /* 255 would split a two-byte character */
	assert_int_equal((unsigned char)d.image_name[len - 1], 0xa9);
	assert_int_equal(strlen(d.sets[0].name), sizeof d.sets[0].name - 1);
	has_line(&rep, "image_name: cut to 255 bytes");
	/* the report shows the name with the newline defused */
	lacks_line(&rep, "\nnnn");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
	fs_buf_free(&b);
}

static void test_too_many_sets_fail(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "{\"sets\": [{}"), 0);
	for (int i = 0; i < FS_ANNOT_MAX_SETS; i++)
		assert_int_equal(fs_buf_puts(&b, ",{}"), 0);
	assert_int_equal(fs_buf_puts(&b, "]}"), 0);
	parse_fails(b.data, b.len, "at most 100");
	fs_buf_free(&b);
}

static void test_too_many_tubercles_fail(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "{\"tubercles\": [0"), 0);
	for (int i = 0; i < FS_ANNOT_MAX_TUBERCLES; i++)
		assert_int_equal(fs_buf_puts(&b, ",0"), 0);
	assert_int_equal(fs_buf_puts(&b, "]}"), 0);
	parse_fails(b.data, b.len, "at most 200000 are supported");
	fs_buf_free(&b);
}

static void test_report_budget_is_bounded(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_buf_puts(&b, "{\"tubercles\": []"), 0);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(fs_buf_printf(&b, ", \"k%d\": 1", i), 0);
	assert_int_equal(fs_buf_puts(&b, "}"), 0);
	fs_annot_doc d;
	fs_buf rep = FS_BUF_INIT;
	parse_ok(b.data, &d, &rep);
	size_t lines = 0;
	for (size_t i = 0; i < rep.len; i++)
		lines += rep.data[i] == '\n';
	assert_true(lines <= FS_ANNOT_REPORT_MAX_LINES + 3);
	has_line(&rep, "800 further warnings not shown");
	has_line(&rep, "set 1 \"Base\"");
	fs_annot_doc_free(&d);
	fs_buf_free(&rep);
	fs_buf_free(&b);
}

static void test_null_report_is_allowed(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_fixture("repairs.json", &d, NULL);
	assert_int_equal(d.sets[0].tubercles.n, 6);
	fs_annot_doc_free(&d);
}

static void test_free_tolerates_null_and_zeroed(void **state)
{
	(void)state;
	fs_annot_doc d;
	fs_annot_set s;
	memset(&d, 0, sizeof d);
	memset(&s, 0, sizeof s);
	fs_annot_doc_free(NULL);
	fs_annot_set_free(NULL);
	fs_annot_doc_free(&d);
	fs_annot_set_free(&s);
	parse_fixture("v3.json", &d, NULL);
	fs_annot_doc_free(&d);
	fs_annot_doc_free(&d); /* second free is harmless */
	assert_null(d.sets);
}

/* ----------------------------------------------------------- writing */

static void test_write_has_v3_layout(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_fixture("v3.json", &d, NULL);
	cJSON *j = to_json(&d);
	assert_string_equal(cJSON_GetObjectItem(j, "format")->valuestring, FS_ANNOT_FORMAT);
	assert_string_equal(cJSON_GetObjectItem(j, "version")->valuestring, "3.0");
	assert_string_equal(cJSON_GetObjectItem(j, "purpose")->valuestring, FS_ANNOT_PURPOSE);
	assert_string_equal(cJSON_GetObjectItem(j, "created")->valuestring,
			    "2025-08-10T14:00:00.123456");
	assert_string_equal(cJSON_GetObjectItem(j, "modified")->valuestring, "2026-01-02T03:04:05");
	const cJSON *cal = cJSON_GetObjectItem(j, "calibration");
	assert_true(cJSON_GetObjectItem(cal, "um_per_px")->valuedouble == 1.0 / 3.0);
	assert_string_equal(cJSON_GetObjectItem(cal, "method")->valuestring, "scale_bar");
	const cJSON *p = cJSON_GetObjectItem(j, "parameters");
	assert_true(cJSON_IsObject(p) && !p->child);
	assert_string_equal(cJSON_GetObjectItem(j, "activeSetId")->valuestring,
			    "set_1754830000000_q2w3e4r5t");
	assert_true(cJSON_GetObjectItem(j, "defaultTubercleDiameterUm")->valuedouble == 6.5);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "sets")), 2);
	const cJSON *s1 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 1);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(s1, "calibration_um_per_pixel")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(s1, "parameters")));
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(s1, "history")));
	const cJSON *t = first_tub_json(j);
	assert_true(cJSON_GetObjectItem(t, "diameter_px")->valuedouble == 21);
	assert_true(cJSON_GetObjectItem(t, "diameter_um")->valuedouble == 21 * d.um_per_px);
	assert_true(cJSON_GetObjectItem(t, "major_axis_um")->valuedouble == 23 * d.um_per_px);
	assert_true(cJSON_IsBool(cJSON_GetObjectItem(t, "is_boundary")));
	assert_string_equal(cJSON_GetObjectItem(t, "source")->valuestring, "extracted");
	const cJSON *s0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "sets"), 0);
	const cJSON *pj = cJSON_GetObjectItem(s0, "parameters");
	assert_string_equal(cJSON_GetObjectItem(pj, "method")->valuestring, "ellipse");
	assert_string_equal(cJSON_GetObjectItem(pj, "neighbor_graph")->valuestring, "rng");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(pj, "cull_long_edges")));
	assert_int_equal(cJSON_GetObjectItem(pj, "tophat_radius")->valueint, 12);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_uncalibrated_omits_um_values(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 0, 0, 30);
	cJSON *j = to_json(&d);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "calibration")));
	assert_null(cJSON_GetObjectItem(j, "defaultTubercleDiameterUm"));
	assert_null(cJSON_GetObjectItem(first_tub_json(j), "diameter_um"));
	assert_non_null(cJSON_GetObjectItem(first_tub_json(j), "diameter_px"));
	assert_null(cJSON_GetObjectItem(first_edge_json(j), "center_distance_um"));
	assert_true(cJSON_GetObjectItem(first_edge_json(j), "x2")->valuedouble == 30);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_uses_set_calibration_without_document_one(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 0, 0.5, 30);
	cJSON *j = to_json(&d);
	assert_true(cJSON_GetObjectItem(first_tub_json(j), "diameter_um")->valuedouble == 4);
	assert_true(cJSON_GetObjectItem(first_edge_json(j), "center_distance_um")->valuedouble ==
		    10);
	assert_true(cJSON_GetObjectItem(first_edge_json(j), "edge_distance_um")->valuedouble == 6);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_prefers_document_calibration(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 2, 0.5, 30);
	cJSON *j = to_json(&d);
	assert_true(cJSON_GetObjectItem(first_tub_json(j), "diameter_um")->valuedouble == 16);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_clamps_edge_distance_at_zero(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 1, 0, 13); /* centres 3 apart, radii 4 + 4 overlap */
	cJSON *j = to_json(&d);
	assert_true(cJSON_GetObjectItem(first_edge_json(j), "center_distance_um")->valuedouble == 3);
	assert_true(cJSON_GetObjectItem(first_edge_json(j), "edge_distance_um")->valuedouble == 0);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_keeps_edge_to_missing_tubercle(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 1, 0, 30);
	d.sets[0].edges.items[0].id2 = 77;
	cJSON *j = to_json(&d);
	const cJSON *e = first_edge_json(j);
	assert_int_equal(cJSON_GetObjectItem(e, "id2")->valueint, 77);
	assert_null(cJSON_GetObjectItem(e, "x1"));
	assert_null(cJSON_GetObjectItem(e, "center_distance_um"));
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_prints_doubles_exactly(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 0.1 + 0.2, 0, 30);
	d.sets[0].tubercles.items[0].centroid_x = 1.0 / 3.0;
	d.sets[0].history = cJSON_Parse("[{\"v\": 0.30000000000000004, \"deep\": [[0.1, 1.0000000000000002]]}]");
	assert_non_null(d.sets[0].history);
	cJSON *j = to_json(&d);
	char *text = cJSON_PrintUnformatted(j);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"um_per_px\":0.30000000000000004"));
	assert_non_null(strstr(text, "\"v\":0.30000000000000004"));
	assert_non_null(strstr(text, "\"centroid_x\":0.3333333333333333,"));
	assert_non_null(strstr(text, "[[0.1,1.0000000000000002]]"));
	assert_non_null(strstr(text, "\"id\":1,"));
	/* the tree can still be read without printing */
	assert_true(cJSON_GetObjectItem(first_tub_json(j), "centroid_x")->valuedouble == 1.0 / 3.0);
	free(text);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

/* Deterministic doubles from every binade: random bit patterns. */
static double bits_double(uint64_t *seed)
{
	double v;
	do {
		*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t b = *seed ^ (*seed >> 29);
		memcpy(&v, &b, sizeof v);
	} while (!isfinite(v));
	return v;
}

static void test_write_random_doubles_read_back_identical(void **state)
{
	(void)state;
	fs_annot_doc d, back;
	uint64_t seed = 42;
	one_set_doc(&d, 0, 0, 30);
	fs_tubercle t = d.sets[0].tubercles.items[0];
	t.has_ellipse = 1;
	for (int i = 0; i < 4000; i++) {
		t.id = 10 + i;
		t.orientation = bits_double(&seed);
		t.eccentricity = (i % 2 ? -1 : 1) * (i + 0.1) / 3.0;
		t.major_axis_px = fabs(bits_double(&seed)) * 1e-300;
		t.minor_axis_px = ldexp(1, -(i % 1074));
		assert_int_equal(fs_tubercle_list_append(&d.sets[0].tubercles, &t), 0);
	}
	round_trip(&d, &back);
	same_doc(&d, &back);
	fs_annot_doc_free(&back);
	fs_annot_doc_free(&d);
}

static void check_text(double v, const char *want)
{
	fs_annot_doc d;
	one_set_doc(&d, 0, 0, 30);
	d.sets[0].tubercles.items[0].circularity = v;
	cJSON *j = to_json(&d);
	char *text = cJSON_PrintUnformatted(cJSON_GetObjectItem(first_tub_json(j), "circularity"));
	assert_string_equal(text, want);
	free(text);
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_numbers_are_shortest(void **state)
{
	(void)state;
	check_text(0.1, "0.1");
	check_text(0.1 + 0.2, "0.30000000000000004");
	check_text(-2.5e-7, "-2.5e-07");
	check_text(0.0001, "0.0001");
	check_text(123456.789, "123456.789");
	check_text(1e21, "1e+21");
	check_text(0.99999999999999989, "0.9999999999999999");
	check_text(nextafter(1, 2), "1.0000000000000002");
	check_text(5e-324, "4.94065645841247e-324");
	check_text(3, "3");
}

static void test_write_non_finite_is_null(void **state)
{
	(void)state;
	fs_annot_doc d;
	one_set_doc(&d, 0, 0, 30);
	d.sets[0].tubercles.items[0].circularity = NAN;
	cJSON *j = to_json(&d);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(first_tub_json(j), "circularity")));
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

/* cJSON allocations fail from the countdown's end on, to reach every
 * out-of-memory path of the writer. */
static long alloc_countdown;

static void *failing_malloc(size_t n)
{
	if (alloc_countdown-- <= 0)
		return NULL;
	return malloc(n);
}

static void test_write_out_of_memory_returns_null_without_leaks(void **state)
{
	(void)state;
	fs_annot_doc d;
	parse_fixture("v3.json", &d, NULL);
	cJSON_Hooks hooks = {failing_malloc, free};
	long n;
	cJSON *j = NULL;
	for (n = 0; n < 100000 && !j; n++) {
		alloc_countdown = n;
		cJSON_InitHooks(&hooks);
		j = fs_annot_to_json(&d, "2026-01-02T03:04:05");
		cJSON_InitHooks(NULL);
	}
	assert_non_null(j);
	assert_true(n > 50); /* every earlier attempt failed cleanly */
	cJSON_Delete(j);
	fs_annot_doc_free(&d);
}

static void test_write_null_document_is_null(void **state)
{
	(void)state;
	assert_null(fs_annot_to_json(NULL, "x"));
}

/* -------------------------------------------------------- round trip */

static void test_round_trip_keeps_every_field(void **state)
{
	(void)state;
	fs_annot_doc d, back;
	memset(&d, 0, sizeof d);
	snprintf(d.image_name, sizeof d.image_name, "sc\xc3\xa8ne \"quoted\"\n.tif");
	snprintf(d.created, sizeof d.created, "2025-01-01T00:00:00");
	snprintf(d.calibration_method, sizeof d.calibration_method, "scale_bar");
	d.um_per_px = 0.1 + 0.2;
	d.default_tubercle_diameter_um = 1.0 / 7.0;
	d.n_sets = 2;
	d.active_set = 1;
	d.sets = calloc(2, sizeof *d.sets);
	assert_non_null(d.sets);
	for (int k = 0; k < 2; k++) {
		fs_annot_set *s = &d.sets[k];
		snprintf(s->id, sizeof s->id, "set_1700000000000_%d", k);
		snprintf(s->name, sizeof s->name, k ? "Edited" : "Base");
		snprintf(s->created, sizeof s->created, "2025-01-0%dT00:00:00.000Z", k + 1);
		snprintf(s->modified, sizeof s->modified, "2025-02-0%dT00:00:00.000Z", k + 1);
		s->calibration_um_per_px = k ? 0 : 2.0 / 3.0;
		for (int i = 0; i < 50; i++) {
			fs_tubercle t = {
				.id = 3 * i + 1 + k,
				.centroid_x = i * M_PI + 1e-9,
				.centroid_y = 1e6 / (i + 3.0),
				.radius_px = 1.0 / (i + 1.0) + 0.1,
				.circularity = i / 49.0,
				.has_ellipse = i % 2,
				.major_axis_px = i % 2 ? sqrt(i + 2.0) : 0,
				.minor_axis_px = i % 2 ? sqrt(i + 1.0) : 0,
				.orientation = i % 2 ? -M_PI / (i + 1) : 0,
				.eccentricity = i % 2 ? 1e-300 * i : 0,
				.is_boundary = i % 3 == 0,
				.source = (fs_source)(i % 4),
			};
			assert_int_equal(fs_tubercle_list_append(&s->tubercles, &t), 0);
		}
		for (int i = 0; i + 1 < 50; i++) {
			fs_edge e = {s->tubercles.items[i + 1].id, s->tubercles.items[i].id};
			assert_int_equal(fs_edge_list_append(&s->edges, &e), 0);
		}
		if (k == 0) {
			s->has_params = 1;
			fs_params_default(&s->params);
			s->params.method = FS_METHOD_LATTICE;
			s->params.threshold = 0.1 + 0.2 - 0.25;
			s->params.clahe_clip = 0;
			s->params.blur_sigma = 0;
			s->params.neighbor_graph = FS_GRAPH_GABRIEL;
			s->params.cull_long_edges = 1;
			s->params.cull_factor = 1.0 + 1.0 / 3.0;
			s->params.edge_margin_px = 0;
			s->params.tophat_radius = 7;
			s->history = cJSON_Parse("[{\"type\": \"clone\", \"n\": 0.30000000000000004,"
						 " \"u\": \"\\u00e9\"}]");
			assert_non_null(s->history);
		}
	}
	round_trip(&d, &back);
	assert_int_equal(back.detected_version, 3);
	same_doc(&d, &back);
	fs_annot_doc_free(&back);
	fs_annot_doc_free(&d);
}

static void check_fixture_round_trip(const char *name)
{
	fs_annot_doc d, back;
	fs_buf rep = FS_BUF_INIT;
	parse_fixture(name, &d, NULL);
	round_trip(&d, &back);
	if (!d.created[0]) {
		/* a file without "created" is dated by its first write */
		assert_string_equal(back.created, "2026-01-02T03:04:05");
		back.created[0] = '\0';
	}
	same_doc(&d, &back);
	/* the second reading needs no repairs at all */
	cJSON *j = to_json(&back);
	char *text = cJSON_Print(j);
	fs_annot_doc again;
	parse_ok(text, &again, &rep);
	lacks_line(&rep, "ignored");
	lacks_line(&rep, "dropped");
	lacks_line(&rep, "refused");
	lacks_line(&rep, " read as ");
	lacks_line(&rep, "taken from");
	fs_annot_doc_free(&again);
	free(text);
	cJSON_Delete(j);
	fs_buf_free(&rep);
	fs_annot_doc_free(&back);
	fs_annot_doc_free(&d);
}

static void test_fixtures_round_trip_without_repairs(void **state)
{
	(void)state;
	check_fixture_round_trip("v1.json");
	check_fixture_round_trip("v2.json");
	check_fixture_round_trip("v3.json");
	check_fixture_round_trip("P1_Fig5_slo.json");
	check_fixture_round_trip("repairs.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1_fixture_reads_one_base_set),
		cmocka_unit_test(test_v2_fixture_snapshots_document_calibration),
		cmocka_unit_test(test_v3_fixture_reads_every_field),
		cmocka_unit_test(test_slo_fixture_detected_from_structure),
		cmocka_unit_test(test_repairs_fixture_reports_every_repair),
		cmocka_unit_test(test_version_field_wins_over_format),
		cmocka_unit_test(test_null_diameter_is_an_unmeasured_tubercle),
		cmocka_unit_test(test_format_decides_without_version),
		cmocka_unit_test(test_set_calibration_field_means_v3),
		cmocka_unit_test(test_no_sets_means_v1),
		cmocka_unit_test(test_claimed_v1_with_only_sets_reads_sets),
		cmocka_unit_test(test_unsupported_version_falls_back_to_structure),
		cmocka_unit_test(test_string_coordinate_is_refused),
		cmocka_unit_test(test_string_radius_falls_back_to_diameter),
		cmocka_unit_test(test_diameter_um_without_calibration_is_refused),
		cmocka_unit_test(test_circularity_out_of_range_is_clamped),
		cmocka_unit_test(test_ellipse_needs_both_axes),
		cmocka_unit_test(test_boundary_as_number_is_accepted),
		cmocka_unit_test(test_edge_to_renumbered_id_is_dropped),
		cmocka_unit_test(test_ids_at_int_max_cannot_be_renumbered),
		cmocka_unit_test(test_params_graph_type_alias_and_type_errors),
		cmocka_unit_test(test_unknown_active_set_id_selects_first),
		cmocka_unit_test(test_duplicate_set_ids_are_cleared),
		cmocka_unit_test(test_wrong_typed_set_fields_are_warned),
		cmocka_unit_test(test_not_json_fails),
		cmocka_unit_test(test_nan_literal_is_not_json),
		cmocka_unit_test(test_non_object_root_fails),
		cmocka_unit_test(test_object_without_sets_or_tubercles_fails),
		cmocka_unit_test(test_sets_without_objects_fail),
		cmocka_unit_test(test_length_is_respected),
		cmocka_unit_test(test_deep_nesting_fails_cleanly),
		cmocka_unit_test(test_deep_history_inside_limit_is_kept),
		cmocka_unit_test(test_huge_numbers_are_refused),
		cmocka_unit_test(test_megabyte_name_is_cut_at_a_character),
		cmocka_unit_test(test_too_many_sets_fail),
		cmocka_unit_test(test_too_many_tubercles_fail),
		cmocka_unit_test(test_report_budget_is_bounded),
		cmocka_unit_test(test_null_report_is_allowed),
		cmocka_unit_test(test_free_tolerates_null_and_zeroed),
		cmocka_unit_test(test_write_has_v3_layout),
		cmocka_unit_test(test_write_uncalibrated_omits_um_values),
		cmocka_unit_test(test_write_uses_set_calibration_without_document_one),
		cmocka_unit_test(test_write_prefers_document_calibration),
		cmocka_unit_test(test_write_clamps_edge_distance_at_zero),
		cmocka_unit_test(test_write_keeps_edge_to_missing_tubercle),
		cmocka_unit_test(test_write_prints_doubles_exactly),
		cmocka_unit_test(test_write_random_doubles_read_back_identical),
		cmocka_unit_test(test_write_numbers_are_shortest),
		cmocka_unit_test(test_write_non_finite_is_null),
		cmocka_unit_test(test_write_out_of_memory_returns_null_without_leaks),
		cmocka_unit_test(test_write_null_document_is_null),
		cmocka_unit_test(test_round_trip_keeps_every_field),
		cmocka_unit_test(test_fixtures_round_trip_without_repairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
