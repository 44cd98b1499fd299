/* Unit tests for the tubercle and edge lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "image/tubercle.h"

static void append_grows_and_keeps_values(void **state)
{
	(void)state;
	fs_tubercle_list l = {0};
	for (int i = 1; i <= 1000; i++) {
		fs_tubercle t = {.id = i, .centroid_x = i * 2.0, .radius_px = 3};
		assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	}
	assert_int_equal(l.n, 1000);
	assert_int_equal(l.items[999].id, 1000);
	assert_true(l.items[499].centroid_x == 1000.0);
	fs_tubercle_list_free(&l);
	assert_null(l.items);
	fs_tubercle_list_free(NULL);
}

static void source_names_round_trip(void **state)
{
	(void)state;
	fs_source s;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(fs_source_parse(fs_source_name((fs_source)i), &s), 0);
		assert_int_equal(s, i);
	}
	assert_int_equal(fs_source_parse("bogus", &s), -1);
	assert_int_equal(fs_source_parse(NULL, &s), -1);
}

static void index_finds_every_id_and_refuses_unknown_ones(void **state)
{
	(void)state;
	fs_tubercle_list l = {0};
	/* ids out of order and with gaps, as a set has after deletions */
	int ids[] = {40, 7, 1000, 3, 512, 9};
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		fs_tubercle t = {0};
		t.id = ids[i];
		assert_int_equal(fs_tubercle_list_append(&l, &t), 0);
	}
	fs_tubercle_index *ix = fs_tubercle_index_new(&l);
	assert_non_null(ix);
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		assert_int_equal(fs_tubercle_index_find(ix, ids[i]), (int)i);
	assert_int_equal(fs_tubercle_index_find(ix, 8), -1);
	assert_int_equal(fs_tubercle_index_find(ix, 0), -1);
	assert_int_equal(fs_tubercle_index_find(ix, 1001), -1);
	fs_tubercle_index_free(ix);
	/* ids 1..n (the direct lookup), listed backwards, plus one below 1 */
	fs_tubercle_list d = {0};
	for (int i = 50; i >= -1; i--) {
		fs_tubercle t = {0};
		t.id = i;
		assert_int_equal(fs_tubercle_list_append(&d, &t), 0);
	}
	ix = fs_tubercle_index_new(&d);
	assert_non_null(ix);
	for (size_t i = 0; i < d.n; i++)
		assert_int_equal(fs_tubercle_index_find(ix, d.items[i].id), (int)i);
	assert_int_equal(fs_tubercle_index_find(ix, 51), -1);
	assert_int_equal(fs_tubercle_index_find(ix, -2), -1);
	fs_tubercle_index_free(ix);
	fs_tubercle_list_free(&d);
	fs_tubercle_list empty = {0};
	ix = fs_tubercle_index_new(&empty);
	assert_non_null(ix);
	assert_int_equal(fs_tubercle_index_find(ix, 1), -1);
	fs_tubercle_index_free(ix);
	fs_tubercle_index_free(NULL);
	fs_tubercle_list_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(append_grows_and_keeps_values),
		cmocka_unit_test(source_names_round_trip),
		cmocka_unit_test(index_finds_every_id_and_refuses_unknown_ones),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
