/*
 * test_rule.c - FS_TEST_MEASUREMENT_RULE for every unit test binary (see
 * test_rule.h).
 *
 * Why a constructor: the variable must reach all 150-odd test binaries,
 * including those that never thought about the rule (they are exactly the
 * ones a change of the default would surprise), without editing each
 * main(). Every binary links the support objects, so this runs in each.
 */
#include "test_rule.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static fs_measurement_rule forced = FS_MEASUREMENT_RULE_DEFAULT;

__attribute__((constructor)) static void test_rule_init(void)
{
	const char *name = getenv("FS_TEST_MEASUREMENT_RULE");
	if (!name || !*name)
		return;
	if (fs_measurement_rule_parse(name, &forced)) {
		fprintf(stderr, "FS_TEST_MEASUREMENT_RULE=%s: no such rule (outline or dome)\n", name);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_measurement_set_rule(forced);
	/* the configuration's key, for tests that load the site's config */
	setenv("FISHSCALE_MEASUREMENT_RULE", name, 1);
}

fs_measurement_rule test_rule_forced(void)
{
	return forced;
}
