/*
 * test_lit_cap.c - FS_TEST_LIT_CAP=px|off for every unit test binary and
 * bench: the lit cap of the reading without the far rays (dome_measure.h,
 * fs_dome_set_lit_cap; h51f) for the process. Unset: the rule as shipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include "analysis/dome_measure.h"

__attribute__((constructor)) static void test_lit_cap_init(void)
{
	const char *v = getenv("FS_TEST_LIT_CAP");
	if (!v || !*v)
		return;
	if (!strcmp(v, "off")) {
		fs_dome_set_lit_cap(NAN);
		return;
	}
	char *end;
	double px = strtod(v, &end);
	if (*end || !(px >= 0)) {
		fprintf(stderr, "FS_TEST_LIT_CAP=%s: px (>= 0) or off\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_dome_set_lit_cap(px);
}
