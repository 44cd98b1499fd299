/*
 * test_foot_pool_option.c - FS_TEST_FOOT_POOL for every unit test binary
 * and bench: the dome rule's foot searched where the image's pooled
 * profile says the feet are smooth (detect_offset.h,
 * fs_det_offset_set_foot_pool; h48h), the value its passes' bits (1 the
 * first pass, 2 the last step and Re-measure, 3 both). Unset or 0: the
 * rule as shipped. FS_TEST_FOOT_SUPPORT=1: the rule's final sizes scaled
 * to the support the pooled profile reads where it says smooth
 * (foot_pool.h, fs_foot_pool_set_support; h48h); =2: the same gate, the
 * support read as the mean dome's contour (foot_contour.h; h52f).
 *
 * Why a constructor (as test_foot_option.c's): the guard tables are then
 * read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/detect_offset.h"
#include "analysis/foot_pool.h"

__attribute__((constructor)) static void test_foot_pool_option_init(void)
{
	const char *s = getenv("FS_TEST_FOOT_SUPPORT");
	if (s && *s) {
		if (strcmp(s, "0") && strcmp(s, "1") && strcmp(s, "2")) {
			fprintf(stderr, "FS_TEST_FOOT_SUPPORT=%s: 0, 1 or 2\n", s);
			_exit(2);
		}
		fs_foot_pool_set_support(atoi(s));
	}
	const char *v = getenv("FS_TEST_FOOT_POOL");
	if (!v || !*v)
		return;
	char *end;
	long passes = strtol(v, &end, 10);
	if (*end || passes < 0 || passes > 3) {
		fprintf(stderr, "FS_TEST_FOOT_POOL=%s: 0, 1, 2 or 3\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_offset_set_foot_pool((unsigned)passes);
}
