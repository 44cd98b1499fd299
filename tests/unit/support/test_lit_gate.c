/*
 * test_lit_gate.c - FS_TEST_LIT_GATE=px|off for every unit test binary and
 * bench: the per-image gate of the walked domes' lit cap (detect_base_fit.h,
 * fs_det_base_set_lit_gate; h52c) for the process. Unset: the rule as
 * shipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/detect_base_fit.h"

__attribute__((constructor)) static void test_lit_gate_init(void)
{
	const char *v = getenv("FS_TEST_LIT_GATE");
	if (!v || !*v)
		return;
	if (!strcmp(v, "off")) {
		fs_det_base_set_lit_gate(NAN);
		return;
	}
	char *end;
	double px = strtod(v, &end);
	if (*end || !(px >= 0)) {
		fprintf(stderr, "FS_TEST_LIT_GATE=%s: px (>= 0) or off\n", v);
		/* before main: no caller to return an error to */
		_exit(2);
	}
	fs_det_base_set_lit_gate(px);
}
