/*
 * detect_diff.h - how two detections of one image differ, tubercle by
 * tubercle in list order and edge by edge: the tests that hold a tiled
 * path to the whole-image one (test_detect_tiled.c,
 * test_detect_scale_tiled.c) all make this comparison, each with its own
 * tolerances. It only measures; the tests decide what is close enough.
 *
 * Ownership: reads the lists, keeps nothing.
 */
#ifndef DETECT_DIFF_H
#define DETECT_DIFF_H

#include <stddef.h>

#include "image/tubercle.h"

typedef struct detect_diff {
	size_t n_a, n_b;              /* tubercles in each */
	size_t n_id_differ;           /* positions (of the shorter list) whose ids differ */
	size_t n_source_differ;       /* ... whose sources differ */
	double d_centre;              /* largest |dx| or |dy|; NaN when a centre is NaN */
	double d_radius;              /* largest |dr| over the pairs whose radii are both numbers */
	size_t n_radius_nan_a;        /* radii of a that are NaN (unmeasured) */
	size_t n_radius_nan_mismatch; /* pairs with one radius NaN and the other not */
	double d_circularity;         /* largest difference; NaN when one is NaN */
	size_t ne_a, ne_b;            /* edges in each */
	size_t n_edge_differ;         /* positions (of the shorter list) whose ends differ */
} detect_diff;

void detect_diff_compute(const fs_tubercle_list *a, const fs_edge_list *ea, const fs_tubercle_list *b,
			 const fs_edge_list *eb, detect_diff *d);

#endif
