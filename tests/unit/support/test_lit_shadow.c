/*
 * test_lit_shadow.c - FS_TEST_LIT_SHADOW=0..3 for every unit test binary
 * and bench: the walked domes' cast-shadow excess read on the formation's
 * lattice (level_calib.h, fs_level_calib_set_lit_shadow; h53e) off (0),
 * read only (1), divided out of every walked image's lit readings (2) or
 * of those the lit gate freed (3) for the process. Unset: the rule as
 * shipped (0).
 *
 * The instrument (h53e, docs/paper-figures.md): FS_TEST_LIT_SHADOW_TRACE=1
 * prints one line a read image to stderr ("litshadow ..."), and
 * FS_TEST_LIT_SHADOW_ORACLE=h/R,elevation-degrees,profile,depth-factor[,start-px]
 * (each field a number or "-" for the formation's own) renders another
 * geometry, e.g. the simulator's 0.5,35,0,2; FS_TEST_PRODUCT_SHADOW=depth
 * forms the rendered shadow as the simulator does
 * (fs_dome_tpl_set_product_shadow, dome_base_fit.h), e.g. 0.5.
 *
 * Why a constructor (as test_axis_calib.c's): the guard tables
 * (test_sem_accuracy, bench_noise_band, bench_interior_seeds, ...) are
 * then read with it on without editing each main().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/dome_base_fit.h"
#include "analysis/level_calib.h"

static void trace_line(void *ctx, const fs_lit_shadow_info *in)
{
	(void)ctx;
	fprintf(stderr,
		"litshadow fill %.3f mr %.2f cap %.2f form h/R %.2f profile %.2f el %.1f shadow %.3f blur %.2f "
		"shadowed %d ratio %.4f phases %d applied %d\n",
		in->fill, in->mr, in->cap, in->form.h_over_r, in->form.profile, in->form.elevation * 180 / M_PI,
		in->form.shadow, in->form.blur_px, in->shadowed, in->ratio, in->nread, in->applied);
}

/* one field of the oracle: a number, or "-" for NAN; 0 or -1 */
static int oracle_field(const char **s, double *v)
{
	char *end;
	if (**s == '-' && ((*s)[1] == ',' || !(*s)[1])) {
		*v = NAN;
		end = (char *)*s + 1;
	} else {
		*v = strtod(*s, &end);
		if (end == *s)
			return -1;
	}
	*s = *end == ',' ? end + 1 : end;
	return 0;
}

__attribute__((constructor)) static void test_lit_shadow_init(void)
{
	const char *v = getenv("FS_TEST_LIT_SHADOW");
	if (v && *v) {
		if (v[0] < '0' || v[0] > '3' || v[1]) {
			fprintf(stderr, "FS_TEST_LIT_SHADOW=%s: 0, 1, 2 or 3\n", v);
			/* before main: no caller to return an error to */
			_exit(2);
		}
		fs_level_calib_set_lit_shadow(v[0] - '0');
	}
	const char *t = getenv("FS_TEST_LIT_SHADOW_TRACE");
	if (t && !strcmp(t, "1"))
		fs_level_calib_set_lit_shadow_trace(trace_line, NULL);
	const char *pd = getenv("FS_TEST_PRODUCT_SHADOW");
	if (pd && *pd) {
		char *end;
		double d = strtod(pd, &end);
		if (*end || !(d >= 0 && d <= 1)) {
			fprintf(stderr, "FS_TEST_PRODUCT_SHADOW=%s: a depth 0..1\n", pd);
			_exit(2);
		}
		fs_dome_tpl_set_product_shadow(d);
	}
	const char *o = getenv("FS_TEST_LIT_SHADOW_ORACLE");
	if (o && *o) {
		fs_lit_shadow_oracle g;
		const char *s = o;
		if (oracle_field(&s, &g.h_over_r) || oracle_field(&s, &g.elevation) || oracle_field(&s, &g.profile) ||
		    oracle_field(&s, &g.depth_x) || (g.start = NAN, *s && oracle_field(&s, &g.start)) || *s) {
			fprintf(stderr, "FS_TEST_LIT_SHADOW_ORACLE=%s: h/R,elevation,profile,depth (- for the formation's)\n",
				o);
			_exit(2);
		}
		g.elevation *= M_PI / 180;
		fs_level_calib_set_lit_shadow_oracle(&g);
	}
}
