/*
 * test_gap_wide_option.c - FS_TEST_GAP_WIDE for every unit test binary and
 * bench: =0 turns off the wide valleys' level where the flat tall top's
 * witness holds (gap_wide.h, fs_gap_wide_set_level; h53c; on by default),
 * =1 leaves it on. Unset: the rule as shipped.
 *
 * Why a constructor (as test_foot_pool_option.c's): the guard tables are
 * then read under the option without editing each main().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/gap_wide.h"

__attribute__((constructor)) static void test_gap_wide_option_init(void)
{
	const char *s = getenv("FS_TEST_GAP_WIDE");
	if (!s || !*s)
		return;
	if (strcmp(s, "0") && strcmp(s, "1")) {
		fprintf(stderr, "FS_TEST_GAP_WIDE=%s: 0 or 1\n", s);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_gap_wide_set_level(atoi(s));
}
