/* test_job_estimate.c - the extraction jobs' memory estimate follows the
 * method and its path (app/job_control.h): log and dog on an image they
 * detect whole (at most four default tiles) take their layers' bytes a
 * pixel, more than auto; on a larger image, detected tile by tile, they
 * take auto's estimate, which grows with the image (the compact image and
 * the lists), and an image that needs more than the budget is still
 * refused by admission control. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/detect.h"
#include "app/job_control.h"

static void whole_image_layers_cost_more(void **state)
{
	(void)state;
	long long px = 1000 * 1000;
	long long a = fs_job_extract_memory_estimate(px, FS_METHOD_AUTO);
	assert_true(fs_job_extract_memory_estimate(px, FS_METHOD_LOG) > a + 30 * px);
	assert_true(fs_job_extract_memory_estimate(px, FS_METHOD_DOG) > a + 20 * px);
	assert_true(fs_job_extract_memory_estimate(px, FS_METHOD_ELLIPSE) == a);
}

static void tiled_methods_take_autos_estimate(void **state)
{
	(void)state;
	long long tile = FS_DETECT_TILE_DEFAULT;
	long long px = 4 * tile * tile + 1, big = 10000LL * 10000;
	fs_method m[] = {FS_METHOD_LOG, FS_METHOD_DOG, FS_METHOD_ELLIPSE, FS_METHOD_LATTICE};
	for (int i = 0; i < 4; i++) {
		assert_true(fs_job_extract_memory_estimate(px, m[i]) == fs_job_memory_estimate(px));
		assert_true(fs_job_extract_memory_estimate(big, m[i]) == fs_job_memory_estimate(big));
	}
	/* still more for more pixels: a budget too small for an image stays
	 * too small for its method */
	assert_true(fs_job_memory_estimate(big) > fs_job_memory_estimate(px));
	assert_true(fs_job_extract_memory_estimate(big, FS_METHOD_LOG) > (100LL << 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_image_layers_cost_more),
		cmocka_unit_test(tiled_methods_take_autos_estimate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
