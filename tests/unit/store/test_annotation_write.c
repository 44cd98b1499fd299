/*
 * test_annotation_write.c - the annotation file written to a sink a
 * tubercle at a time (fs_annot_write, issue 15's streamed download) is
 * cJSON_Print's text of fs_annot_to_json byte for byte: on a large set with
 * every kind of field (unmeasured, ellipses, unknown fit, edges to missing
 * and duplicate ids, a history with nested objects, escapes, UTF-8),
 * several sets, no sets, the document's and the set's calibration. The
 * chunks handed on stay bounded by the sink's chunk, a reader that leaves
 * stops the writer, and the per-set loader gives the same text.
 */
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

#include "test_rng.h"

#define MODIFIED "2026-11-28T12:00:00Z"

/* A reader of the chunks: collects them, the largest one, and leaves
 * (returns -1) once fail_after bytes have come (0: never). */
struct reader {
	fs_buf got;
	size_t calls, largest, fail_after, calls_after_fail;
	int failed;
};

static int reader_write(void *ctx, const char *p, size_t n)
{
	struct reader *r = ctx;
	if (r->failed) {
		r->calls_after_fail++;
		return -1;
	}
	r->calls++;
	if (n > r->largest)
		r->largest = n;
	if (fs_buf_append(&r->got, p, n))
		return -1;
	if (r->fail_after && r->got.len >= r->fail_after) {
		r->failed = 1;
		return -1;
	}
	return 0;
}

/* n tubercles of every kind, 3 edges per tubercle (some to ids that do
 * not exist, one duplicate id), a history. */
static void fill_set(fs_annot_set *s, int n, unsigned seed, const char *name)
{
	unsigned r = seed;
	snprintf(s->id, sizeof s->id, "set_%u", seed);
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->created, sizeof s->created, "2026-01-0%uT00:00:00Z", seed % 9 + 1);
	for (int i = 0; i < n; i++) {
		fs_tubercle t;
		fs_tubercle_init(&t);
		t.id = i + 1;
		t.centroid_x = 10000 * test_lcg32_unit(&r);
		t.centroid_y = (i % 7 == 0) ? (double)(i % 500) : 10000 * test_lcg32_unit(&r);
		t.radius_px = i % 11 == 3 ? NAN : 2 + 20 * test_lcg32_unit(&r);
		t.fit_quality = i % 5 == 0 ? NAN : test_lcg32_unit(&r);
		t.circularity = i % 13 == 0 ? 1.0 : test_lcg32_unit(&r);
		t.has_ellipse = i % 3 == 0;
		t.major_axis_px = 10 + test_lcg32_unit(&r);
		t.minor_axis_px = 8 + test_lcg32_unit(&r);
		t.orientation = 3.14159 * test_lcg32_unit(&r) - 1.5;
		t.eccentricity = test_lcg32_unit(&r);
		t.is_boundary = i % 17 == 0;
		t.source = (fs_source)(i % 4);
		assert_int_equal(fs_tubercle_list_append(&s->tubercles, &t), 0);
	}
	if (n > 4) { /* a duplicate id: edges name its first owner */
		fs_tubercle t = s->tubercles.items[n / 2];
		t.centroid_x += 1;
		t.id = s->tubercles.items[1].id;
		assert_int_equal(fs_tubercle_list_append(&s->tubercles, &t), 0);
	}
	for (int i = 0; i < 3 * n; i++) {
		fs_edge e = {(int)(test_lcg32(&r) % (unsigned)n) + 1, (int)(test_lcg32(&r) % (unsigned)n) + 1};
		if (i % 97 == 5)
			e.id2 = n + 1000; /* a missing tubercle: the ids are kept */
		assert_int_equal(fs_edge_list_append(&s->edges, &e), 0);
	}
	s->history = cJSON_Parse(
		"[{\"action\":\"extract\",\"at\":\"2026-01-01T00:00:00Z\",\"parameters\":{\"threshold\":0.30000000000000004,"
		"\"nested\":{\"deeper\":[1,2.5,{\"x\":[]},{}],\"e\":{}}},\"count\":70225},"
		"{\"action\":\"edit\",\"note\":\"tab\\there \\\"quoted\\\" \\u00e9\\u4e2d\\n\",\"values\":[0.1,1e-7,-3]},"
		"{\"empty\":{},\"list\":[]}]");
	assert_non_null(s->history);
	s->has_params = 1;
	fs_params_default(&s->params);
	s->calibration_um_per_px = seed % 2 ? 0.118 : 0;
	s->measurement_version = (int)(seed % 3);
}

static void make_doc(fs_annot_doc *d, double cal, int n_big)
{
	memset(d, 0, sizeof *d);
	snprintf(d->image_name, sizeof d->image_name, "scan \"one\"\t\xc3\xa9.tif");
	d->um_per_px = cal;
	snprintf(d->calibration_method, sizeof d->calibration_method, "manual");
	d->n_sets = 3;
	d->active_set = 1;
	d->sets = calloc(3, sizeof *d->sets);
	assert_non_null(d->sets);
	fill_set(&d->sets[0], n_big, 7, "Base");
	fill_set(&d->sets[1], 40, 8, "copy \"2\" \\ \x01 \xe4\xb8\xad");
	snprintf(d->sets[2].id, sizeof d->sets[2].id, "set_empty");
	snprintf(d->sets[2].name, sizeof d->sets[2].name, "empty");
}

/* cJSON's text of the tree: what the download was before it streamed */
static char *tree_text(const fs_annot_doc *d)
{
	cJSON *j = fs_annot_to_json(d, MODIFIED);
	assert_non_null(j);
	char *text = cJSON_Print(j);
	cJSON_Delete(j);
	assert_non_null(text);
	return text;
}

static void assert_same_text(const char *want, const fs_buf *got)
{
	size_t wl = strlen(want);
	if (got->len != wl || memcmp(want, got->data, wl)) {
		size_t i = 0;
		while (i < wl && i < got->len && want[i] == got->data[i])
			i++;
		fail_msg("streamed text differs at byte %zu of %zu (got %zu): want \"%.60s\" got \"%.60s\"", i, wl,
			 got->len, want + i, got->data ? got->data + i : "");
	}
}

static void check_streamed(const fs_annot_doc *d)
{
	char *want = tree_text(d);
	struct reader rd = {FS_BUF_INIT, 0, 0, 0, 0, 0};
	fs_buf pending = FS_BUF_INIT;
	fs_sink s = fs_sink_stream(&pending, reader_write, &rd);
	assert_int_equal(fs_annot_write(d, MODIFIED, &s), 0);
	assert_same_text(want, &rd.got);
	assert_int_equal(pending.len, 0);
	/* a chunk is the sink's chunk plus at most the item that filled it */
	assert_true(rd.largest <= FS_SINK_CHUNK + 4096);
	if (strlen(want) > 4 * FS_SINK_CHUNK)
		assert_true(rd.calls >= strlen(want) / (FS_SINK_CHUNK + 4096));
	/* and kept whole in a buffer: the same bytes */
	fs_buf whole = FS_BUF_INIT;
	fs_sink b = fs_sink_buffer(&whole);
	assert_int_equal(fs_annot_write(d, MODIFIED, &b), 0);
	assert_same_text(want, &whole);
	fs_buf_free(&whole);
	fs_buf_free(&pending);
	fs_buf_free(&rd.got);
	cJSON_free(want);
}

static void test_large_set_streams_the_tree_text(void **state)
{
	(void)state;
	fs_annot_doc d;
	make_doc(&d, 0, 3000);
	check_streamed(&d);
	d.default_tubercle_diameter_um = 4.75;
	check_streamed(&d);
	fs_annot_doc_free(&d);
}

static void test_document_calibration_and_set_snapshots(void **state)
{
	(void)state;
	fs_annot_doc d;
	make_doc(&d, 0.1180000000000001, 800);
	check_streamed(&d);
	d.active_set = 7; /* out of range: the first set is active */
	check_streamed(&d);
	fs_annot_doc_free(&d);
}

static void test_no_sets_and_one_empty_set(void **state)
{
	(void)state;
	fs_annot_doc d;
	memset(&d, 0, sizeof d);
	check_streamed(&d); /* "sets": [] */
	d.sets = calloc(1, sizeof *d.sets);
	assert_non_null(d.sets);
	d.n_sets = 1;
	check_streamed(&d); /* a set with nothing in it and no history */
	fs_annot_doc_free(&d);
}

static void test_reader_that_leaves_stops_the_writer(void **state)
{
	(void)state;
	fs_annot_doc d;
	make_doc(&d, 0, 3000);
	struct reader rd = {FS_BUF_INIT, 0, 0, 3 * FS_SINK_CHUNK, 0, 0};
	fs_buf pending = FS_BUF_INIT;
	fs_sink s = fs_sink_stream(&pending, reader_write, &rd);
	assert_int_equal(fs_annot_write(&d, MODIFIED, &s), -1);
	assert_true(s.failed);
	assert_int_equal(rd.calls_after_fail, 0); /* nothing more was written after it left */
	assert_true(rd.got.len < 5 * FS_SINK_CHUNK);
	char *want = tree_text(&d);
	assert_memory_equal(want, rd.got.data, rd.got.len); /* what did arrive is the start */
	cJSON_free(want);
	fs_buf_free(&pending);
	fs_buf_free(&rd.got);
	fs_annot_doc_free(&d);
}

/* The loader hands over copies of a prepared document's rows. */
struct loader {
	const fs_annot_doc *from;
	size_t loaded, fail_at;
};

static int load_copy(void *ctx, size_t i, fs_annot_set *s)
{
	struct loader *l = ctx;
	if (i == l->fail_at)
		return 5; /* e.g. FS_DB_BUSY: returned as it is */
	const fs_annot_set *src = &l->from->sets[i];
	for (size_t k = 0; k < src->tubercles.n; k++)
		assert_int_equal(fs_tubercle_list_append(&s->tubercles, &src->tubercles.items[k]), 0);
	for (size_t k = 0; k < src->edges.n; k++)
		assert_int_equal(fs_edge_list_append(&s->edges, &src->edges.items[k]), 0);
	s->history = src->history ? cJSON_Duplicate(src->history, 1) : NULL;
	l->loaded++;
	return 0;
}

static void test_sets_loaded_one_at_a_time_give_the_same_text(void **state)
{
	(void)state;
	fs_annot_doc full, lazy;
	make_doc(&full, 0.2, 800);
	char *want = tree_text(&full);
	memset(&lazy, 0, sizeof lazy);
	lazy = full;
	lazy.sets = calloc(full.n_sets, sizeof *lazy.sets);
	assert_non_null(lazy.sets);
	for (size_t i = 0; i < full.n_sets; i++) { /* the heads only */
		lazy.sets[i] = full.sets[i];
		memset(&lazy.sets[i].tubercles, 0, sizeof lazy.sets[i].tubercles);
		memset(&lazy.sets[i].edges, 0, sizeof lazy.sets[i].edges);
		lazy.sets[i].history = NULL;
	}
	struct loader l = {&full, 0, (size_t)-1};
	fs_buf got = FS_BUF_INIT;
	fs_sink s = fs_sink_buffer(&got);
	assert_int_equal(fs_annot_write_sets(&lazy, MODIFIED, load_copy, &l, &s), 0);
	assert_same_text(want, &got);
	assert_int_equal(l.loaded, full.n_sets);
	for (size_t i = 0; i < lazy.n_sets; i++) { /* each freed after it was written */
		assert_null(lazy.sets[i].tubercles.items);
		assert_null(lazy.sets[i].history);
	}
	/* a loader's error stops the text there and is returned */
	fs_buf_reset(&got);
	struct loader bad = {&full, 0, 1};
	s = fs_sink_buffer(&got);
	assert_int_equal(fs_annot_write_sets(&lazy, MODIFIED, load_copy, &bad, &s), 5);
	assert_int_equal(bad.loaded, 1);
	assert_true(got.len < strlen(want));
	fs_buf_free(&got);
	cJSON_free(want);
	fs_annot_doc_free(&lazy);
	fs_annot_doc_free(&full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_large_set_streams_the_tree_text),
		cmocka_unit_test(test_document_calibration_and_set_snapshots),
		cmocka_unit_test(test_no_sets_and_one_empty_set),
		cmocka_unit_test(test_reader_that_leaves_stops_the_writer),
		cmocka_unit_test(test_sets_loaded_one_at_a_time_give_the_same_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
