/*
 * base_readings.h - the dome rule's base readings (fs_dome_read_base_blur)
 * that one detection took on its measurement image, kept by point for its
 * last step.
 *
 * Why: detection's last step (fs_det_measure_domes_at with fs_meas.given
 * 2) reads every dome's base from its final centre, and for every dome the
 * template fit sized that centre is the fit's, from which the level's
 * reading of the first pass read the same base already
 * (detect_base_fit.h), and so did its second reading of the level on the
 * image blurred more (h32e): on bench_detect's 2048x1536 lattice 919 M
 * and 1,004 M of the 8,054 M instructions inside fs_detect_domes (issue
 * 13's cost). A
 * reading is a pure function of the image, the point and the radii, so
 * one found where all four are the same to the bit is the value a new
 * reading would give: the results do not change.
 *
 * The image is the caller's to keep the same (one set per measurement
 * image: fs_meas.readings); points and radii are compared bit for bit.
 * Adding is not thread-safe; finding is (between adds), so the tiled
 * passes add their readings after the pass, in plan order.
 *
 * Ownership: the set owns its entries; the caller owns the set
 * (zero-initialised, freed by fs_base_readings_free).
 */
#ifndef FS_BASE_READINGS_H
#define FS_BASE_READINGS_H

#include <stddef.h>

#include "analysis/dome_fit.h"
#include "analysis/dome_measure.h"

/* Which image a reading was taken on: the measurement image, or it
 * blurred by FS_DET_BASE_EXTRA_BLUR more (the level's second reading,
 * detect_base_fit.h: h32e's extrapolation to no blur, which the last step
 * reads again at the same centres too). */
enum { FS_BASE_ON_MEAS = 0, FS_BASE_ON_BLURRED = 1 };

typedef struct fs_base_reading_at {
	double x, y, r0, r1; /* where and with what radii it was read */
	int on;              /* on which image (FS_BASE_ON_*) */
	fs_dome_reading r;
} fs_base_reading_at;

/* A reading's step contrast (fs_base_step_contrast on the measurement
 * image, base_step.h) at (x, y) and radius r with the window r0..r1: the
 * last step judges the readings it takes from the set at the same points
 * and radii as the first pass did (2,675 of the 2,679 judgements on
 * bench_detect's lattice, 555 M instructions), and the contrast, too, is
 * a pure function of the image and these five numbers. */
typedef struct fs_base_step_at {
	double x, y, r, r0, r1;
	double contrast;
} fs_base_step_at;

typedef struct fs_base_readings {
	fs_base_reading_at *items;
	size_t n, cap;
	size_t sorted; /* items[0..sorted) are in key order */
	fs_base_step_at *steps;
	size_t nsteps, capsteps, ssorted; /* as n, cap, sorted */
	/* The halftone screen's period on the measurement image
	 * (fs_halftone_detect's; screen_read 0 until it is read): the first
	 * pass's formation fit and the last step's test whether a fit would
	 * find a screen each looked for it on the same image (detect_offset.c,
	 * h45f: 10.6 M instructions a look on bench_detect's lattice), and it
	 * is a pure function of the image. A detection tile by tile (no whole
	 * measurement image) keeps here its look on the image's centred crop
	 * (detect_domes_tiled.c, job_screen), which its last step's job
	 * would make again; one set serves one of the two paths, as the
	 * detection takes one. */
	int screen_read;
	double screen_period;
	/* The formation the first pass sized its domes through (the offset
	 * fit fs_det_base_fit_apply was given, whole image only; formation_kept
	 * 0 until kept): the last step may take it instead of fitting one
	 * again at the final centres (fs_det_set_first_formation, an option,
	 * off). Unlike the readings it is not what a new fit would give: the
	 * last step's fit reads other centres and other radii. */
	int formation_kept;
	double formation_quality;
	fs_dome_fit formation;
	/* The first pass's template fits by the centre the dome ended at
	 * (kept only under the option's modes 2 and 3, fs_det_set_first_formation):
	 * as fits, nfits, capfits, fsorted as items, n, cap, sorted */
	struct fs_base_fit_at *fits;
	size_t nfits, capfits, fsorted;
} fs_base_readings;

/* One template fit of the first pass (detect_base_fit.c fit_all): the
 * dome's final centre (x, y; after the axis step), the fitted radius and
 * the dome's signal, whether the best fill was the grid's end, and how
 * far (px) the final centre lies from the fit's own. Unlike a reading it
 * is not what the last step would find: its templates are the first
 * pass's. */
typedef struct fs_base_fit_at {
	double x, y, radius, signal, moved;
	int at_end;
} fs_base_fit_at;

/* Keeps f (by f->x, f->y). Returns 0, -1 out of memory (the set
 * unchanged: the last step fits that dome itself). */
int fs_base_readings_add_fit(fs_base_readings *s, const fs_base_fit_at *f);
/* The fit kept at exactly (x, y), NULL when none (or s NULL); after
 * fs_base_readings_seal. */
const fs_base_fit_at *fs_base_readings_find_fit(const fs_base_readings *s, double x, double y);

/* Keeps r read on image `on` at (x, y) with radii r0, r1. Returns 0, -1
 * out of memory (the set unchanged: the reading is then taken again,
 * nothing else changes). */
int fs_base_readings_add(fs_base_readings *s, int on, double x, double y, double r0, double r1,
			 const fs_dome_reading *r);

/* Keeps the step contrast c judged at (x, y) with radius r and window
 * r0..r1. Returns 0, -1 out of memory (the set unchanged: the contrast is
 * then judged again). */
int fs_base_readings_add_step(fs_base_readings *s, double x, double y, double r, double r0, double r1, double c);

/* Puts the added readings and step contrasts in key order: call after
 * adding, before finding. */
void fs_base_readings_seal(fs_base_readings *s);

/* The reading kept on image `on` at exactly (x, y, r0, r1), NULL when
 * none (or s NULL). */
const fs_dome_reading *fs_base_readings_find(const fs_base_readings *s, int on, double x, double y, double r0,
					     double r1);

/* The step contrast kept at exactly (x, y, r, r0, r1) into *c: 1, or 0
 * when none (or s NULL). */
int fs_base_readings_find_step(const fs_base_readings *s, double x, double y, double r, double r0, double r1,
			       double *c);

void fs_base_readings_free(fs_base_readings *s);

#endif
