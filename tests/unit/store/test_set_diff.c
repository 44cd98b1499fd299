/* Unit tests for changes of a set without the database: fitting an undo
 * to the set as it is now (its connections follow, its tubercles must be
 * as it left them) and the net effect of a run of changes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/params.h"
#include "store/set_diff.h"
#include "test_rng.h"

static fs_tubercle tub(int id, double x, double y)
{
	fs_tubercle t;
	memset(&t, 0, sizeof t);
	t.id = id;
	t.centroid_x = x;
	t.centroid_y = y;
	t.radius_px = 3;
	t.circularity = 1;
	return t;
}

/* A set of n tubercles in a row, each connected to the next. */
static void chain(fs_set_state *s, int n)
{
	memset(s, 0, sizeof *s);
	for (int i = 1; i <= n; i++) {
		fs_tubercle t = tub(i, 10 * i, 5);
		fs_tubercle_list_append(&s->t, &t);
		if (i > 1) {
			fs_edge e = {i - 1, i};
			fs_edge_list_append(&s->e, &e);
		}
	}
}

static void removing_a_tubercle_takes_its_connections_now(void **state)
{
	(void)state;
	fs_set_state s;
	chain(&s, 4);
	/* the inverse of "added #3": #3 goes, with 2-3 and 3-4 that others made */
	fs_set_diff d;
	memset(&d, 0, sizeof d);
	fs_tubercle t3 = tub(3, 30, 5);
	fs_tubercle_list_append(&d.removed, &t3);
	char why[200] = "";
	assert_int_equal(fs_set_diff_fit(&s, &d, why, sizeof why), 0);
	assert_int_equal(d.edges_removed.n, 2);
	assert_int_equal(d.edges_removed.items[0].id1, 2);
	assert_int_equal(d.edges_removed.items[1].id2, 4);
	fs_set_diff_free(&d);
	/* a tubercle not as the step left it: refused, saying so */
	memset(&d, 0, sizeof d);
	t3.centroid_x = 31;
	fs_tubercle_list_append(&d.removed, &t3);
	assert_int_equal(fs_set_diff_fit(&s, &d, why, sizeof why), -1);
	assert_string_equal(why, "tubercle #3 has changed since");
	fs_set_diff_free(&d);
	fs_set_state_free(&s);
}

static void bringing_back_keeps_the_connections_that_can_come_back(void **state)
{
	(void)state;
	fs_set_state s;
	chain(&s, 4); /* #5 was deleted with 4-5 and 5-6; #6 is gone too */
	fs_set_diff d;
	memset(&d, 0, sizeof d);
	fs_tubercle t5 = tub(5, 50, 5);
	fs_tubercle_list_append(&d.added, &t5);
	fs_edge e45 = {4, 5}, e56 = {5, 6}, e34 = {3, 4};
	fs_edge_list_append(&d.edges_added, &e45);
	fs_edge_list_append(&d.edges_added, &e56);
	fs_edge_list_append(&d.edges_added, &e34); /* exists already */
	char why[200] = "";
	assert_int_equal(fs_set_diff_fit(&s, &d, why, sizeof why), 0);
	assert_int_equal(d.edges_added.n, 1);
	assert_int_equal(d.edges_added.items[0].id2, 5);
	fs_set_diff_free(&d);
	/* an id in use again, and a step left with nothing to do */
	memset(&d, 0, sizeof d);
	fs_tubercle t2 = tub(2, 20, 5);
	fs_tubercle_list_append(&d.added, &t2);
	assert_int_equal(fs_set_diff_fit(&s, &d, why, sizeof why), -1);
	assert_string_equal(why, "tubercle #2 exists again");
	fs_set_diff_free(&d);
	memset(&d, 0, sizeof d);
	fs_edge e19 = {1, 9};
	fs_edge_list_append(&d.edges_removed, &e19);
	assert_int_equal(fs_set_diff_fit(&s, &d, why, sizeof why), -1);
	assert_string_equal(why, "connection 1-9 no longer exists");
	fs_set_diff_free(&d);
	fs_set_state_free(&s);
}

static void net_effect_keeps_only_what_lasts(void **state)
{
	(void)state;
	fs_set_net *n = fs_set_net_new();
	fs_set_diff d;
	/* #7 added, moved twice and deleted: nothing; #1 (there before) moved twice: one move */
	fs_tubercle a = tub(7, 1, 1), b = tub(7, 2, 2), one = tub(1, 5, 5), one2 = tub(1, 6, 6), one3 = tub(1, 7, 5);
	memset(&d, 0, sizeof d);
	fs_tubercle_list_append(&d.added, &a);
	fs_set_net_add(n, &d);
	fs_set_diff_free(&d);
	memset(&d, 0, sizeof d);
	fs_tubercle_list_append(&d.before, &a);
	fs_tubercle_list_append(&d.after, &b);
	fs_tubercle_list_append(&d.before, &one);
	fs_tubercle_list_append(&d.after, &one2);
	fs_set_net_add(n, &d);
	fs_set_diff_free(&d);
	memset(&d, 0, sizeof d);
	fs_tubercle_list_append(&d.removed, &b);
	fs_tubercle_list_append(&d.before, &one2);
	fs_tubercle_list_append(&d.after, &one3);
	fs_edge e = {1, 2};
	fs_edge_list_append(&d.edges_removed, &e);
	fs_set_net_add(n, &d);
	fs_set_diff_free(&d);
	/* connections regenerated: 1-2 comes back, 2-3 is new */
	memset(&d, 0, sizeof d);
	fs_edge e23 = {2, 3};
	fs_edge_list_append(&d.edges_added, &e);
	fs_edge_list_append(&d.edges_added, &e23);
	fs_set_net_add(n, &d);
	fs_set_diff_free(&d);
	fs_set_net_counts c;
	fs_set_net_count(n, &c);
	assert_int_equal(c.added, 0);
	assert_int_equal(c.deleted, 0);
	assert_int_equal(c.moved, 1);
	assert_int_equal(c.resized, 0);
	assert_int_equal(c.edges_added, 1);
	assert_int_equal(c.edges_deleted, 0);
	fs_set_diff net;
	assert_int_equal(fs_set_net_diff(n, &net), 0);
	assert_int_equal(net.before.n, 1);
	assert_true(fs_tubercle_same(&net.before.items[0], &one));
	assert_true(fs_tubercle_same(&net.after.items[0], &one3));
	assert_int_equal(net.edges_added.n, 1);
	assert_int_equal(net.edges_added.items[0].id1, 2);
	fs_set_diff_free(&net);
	fs_set_net_free(n);
}

static void journal_form_reads_back_bit_for_bit(void **state)
{
	(void)state;
	fs_set_diff d, back;
	memset(&d, 0, sizeof d);
	fs_tubercle t = tub(4, 0.1 + 0.2, 1.0 / 3.0);
	t.has_ellipse = 1;
	t.orientation = -1.2345678901234567;
	fs_tubercle_list_append(&d.added, &t);
	d.replaces_all = 1;
	cJSON *j = fs_set_diff_to_json(&d);
	char *s = cJSON_PrintUnformatted(j);
	assert_int_equal(fs_set_diff_from_json(s, &back), 0);
	assert_true(fs_tubercle_same(&back.added.items[0], &t));
	assert_true(back.replaces_all);
	cJSON_free(s);
	cJSON_Delete(j);
	fs_set_diff_free(&d);
	fs_set_diff_free(&back);
	assert_int_equal(fs_set_diff_from_json("{\"bef\":[{\"id\":1}],\"aft\":[]}", &back), -1);
}

/* xorshift64* (test_rng.h): the same sequence on every run */
static uint64_t rnd_state = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	return test_xs64(&rnd_state);
}

static double unit(void)
{
	return test_xs64_unit(&rnd_state);
}

/* Tubercles as detection and editing make them: any position, radius
 * measured or not (NaN), fit quality known or not, ellipse or not, every
 * source, some values outside the formatter's fast range (0, tiny, huge). */
static void random_tubs(fs_tubercle_list *l, int n, int id0)
{
	for (int i = 0; i < n; i++) {
		fs_tubercle t;
		fs_tubercle_init(&t);
		t.id = id0 + i;
		t.centroid_x = unit() * 10000;
		t.centroid_y = i % 50 ? unit() * 10000 : (double)(rnd() % 10000);
		t.radius_px = i % 13 ? 2 + unit() * 30 : NAN;
		t.circularity = i % 17 ? unit() : 0;
		t.fit_quality = i % 3 ? unit() : NAN;
		t.source = (fs_source)(i % 4);
		if (i % 2) {
			t.has_ellipse = 1;
			t.major_axis_px = 5 + unit() * 40;
			t.minor_axis_px = i % 11 ? 5 + unit() * 40 : 1e-7 * unit();
			/* a round tubercle's orientation is rounding noise (1e-17) */
			t.orientation = i % 7 ? (i % 3 ? unit() * 6.4 - 3.2 : 1e-16 * (unit() - 0.5)) : 0;
			t.eccentricity = i % 5 ? unit() : 1e20 * unit();
		}
		fs_tubercle_list_append(l, &t);
	}
}

/* The journal's text written straight into a buffer (the storing of a
 * large extraction) is cJSON's print of the journal's tree to the byte,
 * with every kind of member, and reads back bit for bit. */
static void journal_text_is_the_trees_print(void **state)
{
	(void)state;
	for (int variant = 0; variant < 4; variant++) {
		fs_set_diff d, back;
		memset(&d, 0, sizeof d);
		random_tubs(&d.added, variant == 3 ? 0 : 3000, 1);
		random_tubs(&d.removed, variant == 1 ? 0 : 2000, 5001);
		random_tubs(&d.before, 40 * variant, 9001);
		random_tubs(&d.after, 40 * variant, 9001);
		for (int i = 0; i < 500 * variant; i++) {
			fs_edge e = {(int)(rnd() % 3000) + 1, (int)(rnd() % 3000) + 1};
			fs_edge_list_append(i % 2 ? &d.edges_added : &d.edges_removed, &e);
		}
		d.replaces_all = variant % 2;
		if (variant >= 2) {
			d.params_changed = 1;
			d.had_params = variant == 2;
			d.has_params = 1;
			fs_params_default(&d.params_before);
			fs_params_default(&d.params_after);
			d.params_after.blur_sigma = 1.25;
		}
		d.version_changed = variant == 1;
		d.version_before = 1;
		d.version_after = 2;
		cJSON *j = fs_set_diff_to_json(&d);
		char *want = cJSON_PrintUnformatted(j);
		fs_buf got = FS_BUF_INIT;
		assert_int_equal(fs_set_diff_to_text(&d, &got), 0);
		assert_string_equal(got.data, want);
		assert_int_equal(fs_set_diff_from_json(got.data, &back), 0);
		assert_int_equal(back.added.n, d.added.n);
		assert_int_equal(back.removed.n, d.removed.n);
		for (size_t i = 0; i < d.added.n; i++)
			assert_true(fs_tubercle_same(&back.added.items[i], &d.added.items[i]));
		for (size_t i = 0; i < d.removed.n; i++)
			assert_true(fs_tubercle_same(&back.removed.items[i], &d.removed.items[i]));
		assert_int_equal(back.edges_added.n, d.edges_added.n);
		assert_int_equal(back.replaces_all, d.replaces_all);
		fs_buf_free(&got);
		cJSON_free(want);
		cJSON_Delete(j);
		fs_set_diff_free(&d);
		fs_set_diff_free(&back);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(removing_a_tubercle_takes_its_connections_now),
		cmocka_unit_test(bringing_back_keeps_the_connections_that_can_come_back),
		cmocka_unit_test(net_effect_keeps_only_what_lasts),
		cmocka_unit_test(journal_form_reads_back_bit_for_bit),
		cmocka_unit_test(journal_text_is_the_trees_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
