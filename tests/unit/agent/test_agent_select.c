/*
 * The agents' selections by area (agent/agent_select.h): a tool's
 * selection (fs_agent_select) and the test of a planned point against it
 * (fs_agent_point_in_area) read the region, edge and corner criteria
 * through the same tests, so a tubercle is selected exactly where a point
 * at its centre is in the area; and each band holds the tubercles its
 * width says, counted on a regular grid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_select.h"

#define W 200
#define H 100
#define STEP 10

/* A session of a W x H image holding a tubercle at the middle of every
 * STEP x STEP cell (ids from 1, row by row); screenshots at half size. */
static int setup(void **state)
{
	fs_agent_sess *s = calloc(1, sizeof *s);
	if (!s)
		return -1;
	s->rec.width = W;
	s->rec.height = H;
	s->shot_scale = 0.5;
	int id = 1;
	for (int y = STEP / 2; y < H; y += STEP)
		for (int x = STEP / 2; x < W; x += STEP) {
			fs_tubercle t;
			memset(&t, 0, sizeof t);
			t.id = id++;
			t.centroid_x = x;
			t.centroid_y = y;
			t.radius_px = 3;
			if (fs_tubercle_list_append(&s->t, &t))
				return -1;
		}
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	fs_agent_sess *s = *state;
	fs_tubercle_list_free(&s->t);
	free(s);
	return 0;
}

/* How many tubercles the selection in json picks; each picked exactly
 * where its centre is in the area. */
static size_t picked(const fs_agent_sess *s, const char *json)
{
	cJSON *args = cJSON_Parse(json);
	assert_non_null(args);
	int *ids = NULL;
	size_t n = 0;
	char desc[200], err[200];
	assert_int_equal(fs_agent_select(s, args, &ids, &n, desc, sizeof desc, err, sizeof err), 0);
	assert_true(desc[0] != 0);
	size_t k = 0;
	for (size_t i = 0; i < s->t.n; i++) {
		const fs_tubercle *t = &s->t.items[i];
		int in = fs_agent_point_in_area(s, args, t->centroid_x, t->centroid_y);
		int chosen = k < n && ids[k] == t->id;
		assert_int_equal(in, chosen);
		k += (size_t)chosen;
	}
	assert_int_equal(k, n);
	free(ids);
	cJSON_Delete(args);
	return n;
}

static void bands_and_corners_hold_what_their_width_says(void **state)
{
	const fs_agent_sess *s = *state;
	/* 10 %: x <= 20 or x >= 180 (two columns each side), y <= 10 or y >= 90 (a row) */
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"left\"}}"), 2 * 10);
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"right\"}}"), 2 * 10);
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"top\"}}"), 20);
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"bottom\"}}"), 20);
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"any\"}}"), 4 * 10 + 2 * 16);
	assert_int_equal(picked(s, "{\"edge\":{}}"), 4 * 10 + 2 * 16);
	/* 30 %: x <= 60 (six columns), y <= 30 (three rows) */
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"left\",\"width_percent\":30}}"), 6 * 10);
	assert_int_equal(picked(s, "{\"corner\":{\"which\":\"top-left\"}}"), 2);
	assert_int_equal(picked(s, "{\"corner\":{\"which\":\"bottom-right\",\"width_percent\":30}}"), 6 * 3);
	assert_int_equal(picked(s, "{\"corner\":{\"which\":\"any\"}}"), 4 * 2);
	assert_int_equal(picked(s, "{\"corner\":{}}"), 4 * 2);
	/* An edge and a corner together: each band keeps its own width (the
	 * selection once read the edge at the corner's). Left edge 30 % (x <=
	 * 60) and the top-left corner 10 % (x <= 20, y <= 10): two; left edge
	 * 10 % and the top-left corner 30 % (x <= 60, y <= 30): two columns of
	 * three rows. */
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"left\",\"width_percent\":30},\"corner\":{\"which\":\"top-left\"}}"), 2);
	assert_int_equal(picked(s, "{\"edge\":{\"side\":\"left\"},\"corner\":{\"which\":\"top-left\",\"width_percent\":30}}"), 2 * 3);
}

static void a_region_is_a_rectangle_in_screenshot_pixels(void **state)
{
	const fs_agent_sess *s = *state;
	/* corners given in either order; at half size (0..25, 0..15) is image
	 * (0..50, 0..30): five columns, three rows */
	assert_int_equal(picked(s, "{\"region\":{\"x0\":25,\"y0\":0,\"x1\":0,\"y1\":15}}"), 5 * 3);
	assert_int_equal(picked(s, "{\"region\":{\"x0\":0,\"y0\":0,\"x1\":25,\"y1\":15}}"), 5 * 3);
	/* with a band too, both must hold */
	assert_int_equal(picked(s, "{\"region\":{\"x0\":0,\"y0\":0,\"x1\":25,\"y1\":15},\"edge\":{\"side\":\"top\"}}"), 5);
	/* between centres: image (126..128, 86..88) */
	assert_int_equal(picked(s, "{\"region\":{\"x0\":63,\"y0\":43,\"x1\":64,\"y1\":44}}"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bands_and_corners_hold_what_their_width_says, setup, teardown),
		cmocka_unit_test_setup_teardown(a_region_is_a_rectangle_in_screenshot_pixels, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
