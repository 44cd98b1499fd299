/*
 * test_export_csv.c - CSV quoting, the tubercle / edge / summary CSVs and
 * the JSON summary.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/export_csv.h"

static char *field(const char *s)
{
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_csv_field(&b, s), 0);
	return fs_buf_steal(&b);
}

static void check_field(const char *in, const char *want)
{
	char *got = field(in);
	assert_string_equal(got, want);
	free(got);
}

static void test_field_plain_is_unquoted(void **state)
{
	(void)state;
	check_field("P1_Fig2.tif", "P1_Fig2.tif");
	check_field("", "");
	check_field(NULL, "");
}

static void test_field_with_comma_quote_newline_is_quoted(void **state)
{
	(void)state;
	check_field("a,b", "\"a,b\"");
	check_field("say \"hi\"", "\"say \"\"hi\"\"\"");
	check_field("two\nlines", "\"two\nlines\"");
	check_field("cr\rhere", "\"cr\rhere\"");
	check_field(" padded", "\" padded\"");
}

static void test_field_formula_gets_a_quote_prefix(void **state)
{
	(void)state;
	check_field("=SUM(1+1)*cmd|x!A0.tif", "'=SUM(1+1)*cmd|x!A0.tif");
	check_field("@SUM(1+1)", "'@SUM(1+1)");
	check_field("+1", "'+1");
	check_field("-2", "'-2");
	check_field("\tx", "'\tx");
	check_field("\rx", "\"'\rx\"");
	check_field("=a,b", "\"'=a,b\"");
	check_field("a=b", "a=b");
}

/* Number of fields in one CSV record, honouring quotes; *end = after it. */
static int count_fields(const char *s, const char **end)
{
	int n = 1, q = 0;
	for (; *s; s++) {
		if (*s == '"')
			q = !q;
		else if (*s == ',' && !q)
			n++;
		else if (*s == '\n' && !q)
			break;
	}
	*end = *s ? s + 1 : s;
	return n;
}

static fs_tubercle_list two_tubercles(void)
{
	fs_tubercle_list l = {0};
	fs_tubercle a = {0}, b = {0};
	a.id = 1;
	a.centroid_x = 10;
	a.centroid_y = 20;
	a.radius_px = 2.5;
	a.circularity = 0.9;
	a.is_boundary = 1;
	a.fit_quality = NAN;
	b.fit_quality = 0.8;
	b.id = 2;
	b.centroid_x = 13;
	b.centroid_y = 24;
	b.radius_px = 3;
	b.circularity = 0.75;
	b.has_ellipse = 1;
	b.major_axis_px = 7;
	b.minor_axis_px = 5;
	b.orientation = 0.5;
	b.eccentricity = 0.7;
	b.source = FS_SOURCE_MANUAL;
	assert_int_equal(fs_tubercle_list_append(&l, &a), 0);
	assert_int_equal(fs_tubercle_list_append(&l, &b), 0);
	return l;
}

static void test_tubercles_csv_rows(void **state)
{
	(void)state;
	fs_tubercle_list t = two_tubercles();
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_csv_tubercles(&b, &t, 0.5), 0);
	assert_non_null(strstr(b.data, "id,centroid_x,centroid_y,diameter_px,diameter_um,"));
	assert_non_null(strstr(b.data, "\n1,10,20,5,2.5,2.5,0.9,,,,,1,extracted,\n"));
	assert_non_null(strstr(b.data, "\n2,13,24,6,3,3,0.75,7,5,0.5,0.7,0,manual,0.8\n"));
	fs_buf_free(&b);
	/* an unmeasured tubercle: empty diameter and radius cells, an empty
	 * circularity (no outline: it kept 0.9 before h33f), and its edge an
	 * empty edge distance */
	t.items[0].radius_px = NAN;
	assert_int_equal(fs_csv_tubercles(&b, &t, 0.5), 0);
	assert_non_null(strstr(b.data, "\n1,10,20,,,,,,,,,1,extracted,\n"));
	fs_buf_free(&b);
	fs_edge_list e = {0};
	fs_edge ed = {1, 2};
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_csv_edges(&b, &t, &e, 0.5), 0);
	assert_non_null(strstr(b.data, "\n1,2,5,2.5,,\n"));
	fs_buf_free(&b);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&t);
}

static void test_edges_csv_keeps_negative_distance(void **state)
{
	(void)state;
	fs_tubercle_list t = two_tubercles();
	fs_edge_list e = {0};
	fs_edge ed = {1, 2}, bad = {1, 9};
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	assert_int_equal(fs_edge_list_append(&e, &bad), 0);
	assert_int_equal(fs_csv_edges(&b, &t, &e, 2.0), 0);
	/* centre distance 5, radii 2.5 + 3: edge distance -0.5 */
	assert_non_null(strstr(b.data, "\n1,2,5,10,-0.5,-1\n"));
	assert_non_null(strstr(b.data, "\n1,9,,,,\n"));
	fs_buf_free(&b);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&t);
}

/* Uncalibrated (um 1, what the CLI writes without a calibration): every µm
 * cell is its pixel cell's text, "%.6g" of the same value, also for
 * lengths with six significant digits, negative ones, non-finite ones and
 * the snprintf fallback's range. */
static void test_uncalibrated_um_cells_equal_px_cells(void **state)
{
	(void)state;
	fs_tubercle_list t = two_tubercles();
	t.items[0].centroid_x = 1234.56789;
	t.items[0].radius_px = 9.904092; /* diameter 19.808184 -> 19.8082 */
	t.items[1].centroid_x = 1234.56789 + 39.3908123;
	t.items[1].centroid_y = 20;
	t.items[1].radius_px = 1e6; /* a diameter beyond the fast path */
	fs_edge_list e = {0};
	fs_edge ed = {1, 2};
	assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_csv_tubercles(&b, &t, 1.0), 0);
	assert_non_null(strstr(b.data, "\n1,1234.57,20,19.8082,19.8082,9.90409,0.9,"));
	assert_non_null(strstr(b.data, "\n2,1273.96,20,2e+06,2e+06,1e+06,0.75,"));
	fs_buf_free(&b);
	assert_int_equal(fs_csv_edges(&b, &t, &e, 1.0), 0);
	/* centre distance 39.3908, edge distance 39.3908 - 9.90409 - 1e6 */
	assert_non_null(strstr(b.data, "\n1,2,39.3908,39.3908,-999971,-999971\n"));
	fs_buf_free(&b);
	t.items[1].radius_px = NAN;
	assert_int_equal(fs_csv_edges(&b, &t, &e, 1.0), 0);
	assert_non_null(strstr(b.data, "\n1,2,39.3908,39.3908,,\n"));
	fs_buf_free(&b);
	fs_edge_list_free(&e);
	fs_tubercle_list_free(&t);
}

static fs_stats sample_stats(void)
{
	fs_stats s;
	memset(&s, 0, sizeof s);
	s.n_tubercles = 37;
	s.n_edges = 80;
	s.mean_diameter_um = 6.6;
	s.mean_space_um = 3.3;
	s.um_per_px = 0.33;
	s.reliability = "high";
	s.suggested_genus = "Lepisosteus";
	s.classification_confidence = "low";
	s.degree_histogram[6] = 12;
	s.degree_histogram[FS_DEGREE_HIST_MAX] = 1;
	s.hexagonalness_score = NAN; /* non-finite numbers become empty / null */
	return s;
}

static void test_summary_header_and_row_have_same_width(void **state)
{
	(void)state;
	fs_stats s = sample_stats();
	fs_buf b = FS_BUF_INIT;
	const char *p, *end;
	assert_int_equal(fs_csv_summary_header(&b), 0);
	assert_int_equal(fs_csv_summary_row(&b, "odd, \"name\"\nhere.tif", &s, 0, 2), 0);
	int nh = count_fields(b.data, &p);
	int nr = count_fields(p, &end);
	assert_int_equal(nh, nr);
	assert_int_equal(*end, 0);
	assert_non_null(strstr(b.data, "calibration_um_per_px,n_tubercles,"));
	assert_non_null(strstr(p, "\"odd, \"\"name\"\"\nhere.tif\",uncalibrated,0.33,37,80,"));
	assert_non_null(strstr(b.data, ",mean_diameter_px,"));
	assert_non_null(strstr(p, ",20,")); /* 6.6 µm / 0.33 = 20 px */
	assert_non_null(strstr(p, ",Lepisosteus,low,"));
	/* the rule's columns come last: the older columns keep their places */
	assert_non_null(strstr(b.data, "degree_16_plus,measurement_version,measurement_rule\n"));
	assert_non_null(strstr(p, ",2,dome\n"));
	fs_buf_free(&b);
}

static void test_json_summary_fields(void **state)
{
	(void)state;
	fs_stats s = sample_stats();
	cJSON *o = fs_json_summary("a.tif", &s, 1, 1);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "calibration_status")->valuestring, "calibrated");
	assert_int_equal(cJSON_GetObjectItem(o, "measurement_version")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(o, "measurement_rule")->valuestring, "outline");
	assert_int_equal(cJSON_GetObjectItem(o, "n_tubercles")->valueint, 37);
	assert_true(fabs(cJSON_GetObjectItem(o, "mean_diameter_px")->valuedouble - 20) < 1e-9);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "hexagonalness_score")));
	cJSON *h = cJSON_GetObjectItem(o, "degree_histogram");
	assert_int_equal(cJSON_GetArraySize(h), FS_DEGREE_HIST_MAX + 1);
	assert_int_equal(cJSON_GetArrayItem(h, 6)->valueint, 12);
	assert_string_equal(cJSON_GetObjectItem(o, "suggested_genus")->valuestring, "Lepisosteus");
	cJSON_Delete(o);
}

static void test_summary_px_columns_empty_without_calibration_value(void **state)
{
	(void)state;
	fs_stats s = sample_stats();
	s.um_per_px = 0;
	cJSON *o = fs_json_summary("a.tif", &s, 0, 2);
	assert_non_null(o);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(o, "mean_diameter_px")));
	cJSON_Delete(o);
}

/* A summary says which rule measured its diameters; a version that names no
 * rule of this build (0: measured before versioning; 7: a newer build's)
 * keeps its number and leaves the rule empty (null in JSON) rather than
 * naming a rule that did not measure it. */
static void test_summary_names_the_measurement_rule(void **state)
{
	(void)state;
	fs_stats s = sample_stats();
	static const struct {
		int version;
		const char *csv, *rule;
	} cases[] = {
		{1, ",1,outline\n", "outline"},
		{2, ",2,dome\n", "dome"},
		{0, ",0,\n", NULL},
		{7, ",7,\n", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fs_buf b = FS_BUF_INIT;
		assert_int_equal(fs_csv_summary_row(&b, "a.tif", &s, 1, cases[i].version), 0);
		assert_non_null(strstr(b.data, cases[i].csv));
		fs_buf_free(&b);
		cJSON *o = fs_json_summary("a.tif", &s, 1, cases[i].version);
		assert_non_null(o);
		assert_int_equal(cJSON_GetObjectItem(o, "measurement_version")->valueint, cases[i].version);
		const cJSON *r = cJSON_GetObjectItem(o, "measurement_rule");
		if (cases[i].rule)
			assert_string_equal(cJSON_GetStringValue(r), cases[i].rule);
		else
			assert_true(cJSON_IsNull(r));
		cJSON_Delete(o);
	}
}

/* A reader of a streamed CSV: collects chunks; leaves after fail_after
 * bytes (0: never). */
struct chunks {
	fs_buf got;
	size_t calls, largest, fail_after, after_fail;
};

static int chunks_write(void *ctx, const char *p, size_t n)
{
	struct chunks *c = ctx;
	if (c->fail_after && c->got.len >= c->fail_after) {
		c->after_fail++;
		return -1;
	}
	c->calls++;
	if (n > c->largest)
		c->largest = n;
	return fs_buf_append(&c->got, p, n);
}

/* The streamed CSVs (the downloads, issue 15) are the buffered ones byte
 * for byte, handed on in chunks of the sink's size, and a reader that
 * leaves stops the writer. */
static void test_streamed_csvs_equal_the_buffered_ones(void **state)
{
	(void)state;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	for (int i = 0; i < 20000; i++) {
		fs_tubercle p;
		fs_tubercle_init(&p);
		p.id = i + 1;
		p.centroid_x = (i % 211) * 37.25 + 0.1;
		p.centroid_y = (i / 211) * 32.5;
		p.radius_px = i % 9 == 4 ? NAN : 10 + (i % 7) * 0.37;
		p.circularity = 0.9;
		p.has_ellipse = i % 2;
		p.major_axis_px = 21.5;
		p.minor_axis_px = 19.25;
		p.source = (fs_source)(i % 4);
		assert_int_equal(fs_tubercle_list_append(&t, &p), 0);
		fs_edge ed = {i + 1, i % 50 == 0 ? 999999 : (i + 211) % 20000 + 1};
		assert_int_equal(fs_edge_list_append(&e, &ed), 0);
	}
	for (int kind = 0; kind < 2; kind++) {
		fs_buf whole = FS_BUF_INIT, pending = FS_BUF_INIT;
		struct chunks c = {FS_BUF_INIT, 0, 0, 0, 0};
		fs_sink s = fs_sink_stream(&pending, chunks_write, &c);
		if (kind == 0) {
			assert_int_equal(fs_csv_tubercles(&whole, &t, 0.118), 0);
			assert_int_equal(fs_csv_tubercles_to(&s, &t, 0.118), 0);
		} else {
			assert_int_equal(fs_csv_edges(&whole, &t, &e, 0.118), 0);
			assert_int_equal(fs_csv_edges_to(&s, &t, &e, 0.118), 0);
		}
		assert_true(whole.len > 4 * FS_SINK_CHUNK);
		assert_int_equal(c.got.len, whole.len);
		assert_memory_equal(c.got.data, whole.data, whole.len);
		assert_true(c.largest <= FS_SINK_CHUNK + 512);
		assert_true(c.calls >= whole.len / (FS_SINK_CHUNK + 512));
		/* the reader leaves after two chunks: the writer stops */
		fs_buf_reset(&c.got);
		c.fail_after = 2 * FS_SINK_CHUNK;
		s = fs_sink_stream(&pending, chunks_write, &c);
		int rc = kind == 0 ? fs_csv_tubercles_to(&s, &t, 0.118) : fs_csv_edges_to(&s, &t, &e, 0.118);
		assert_int_equal(rc, -1);
		assert_int_equal(c.after_fail, 1);
		assert_true(c.got.len < 3 * FS_SINK_CHUNK + 512);
		fs_buf_free(&whole);
		fs_buf_free(&pending);
		fs_buf_free(&c.got);
	}
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_plain_is_unquoted),
		cmocka_unit_test(test_field_with_comma_quote_newline_is_quoted),
		cmocka_unit_test(test_field_formula_gets_a_quote_prefix),
		cmocka_unit_test(test_tubercles_csv_rows),
		cmocka_unit_test(test_edges_csv_keeps_negative_distance),
		cmocka_unit_test(test_uncalibrated_um_cells_equal_px_cells),
		cmocka_unit_test(test_summary_header_and_row_have_same_width),
		cmocka_unit_test(test_json_summary_fields),
		cmocka_unit_test(test_summary_names_the_measurement_rule),
		cmocka_unit_test(test_summary_px_columns_empty_without_calibration_value),
		cmocka_unit_test(test_streamed_csvs_equal_the_buffered_ones),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
