/*
 * base_plan_fixture.h - a plan of domes in a row for the tests of the
 * dome rule's level arithmetic (fs_det_base_fit_scale; test_base_level_*):
 * the plan and every array it and the level read, the domes laid out
 * along one row, each measured (ok, fit quality 0.8). The caller writes
 * each dome's fitted radius fr, level reading lr, pinned flag le, step
 * contrast step and its measurement's radius (base_plan_radius), then
 * runs the level (base_plan_scale).
 *
 * Ownership: the fixture is the caller's (on its stack; the plan points
 * into the fixture itself, so it is not copied once made); meas is the
 * caller's array of n.
 */
#ifndef BASE_PLAN_FIXTURE_H
#define BASE_PLAN_FIXTURE_H

#include <stddef.h>

#include "analysis/detect_base_fit.h"

#define BASE_PLAN_MAX 32

typedef struct base_plan_fixture {
	fs_det_base_plan p;
	size_t idx[BASE_PLAN_MAX];
	double xs[BASE_PLAN_MAX], ys[BASE_PLAN_MAX]; /* the plan's centres */
	double fx[BASE_PLAN_MAX], fy[BASE_PLAN_MAX]; /* the fit's: the same */
	double fr[BASE_PLAN_MAX], lr[BASE_PLAN_MAX], step[BASE_PLAN_MAX];
	int le[BASE_PLAN_MAX];
} base_plan_fixture;

/* n (at most BASE_PLAN_MAX) domes at (pitch k, y), k = 0 .. n - 1; meas
 * zeroed, each a tubercle measured ok with fit quality 0.8. */
void base_plan_init(base_plan_fixture *f, size_t n, double pitch, double y, fs_measured *meas);

/* One measurement's radius and both axes (2 r). */
void base_plan_radius(fs_measured *m, double r);

/* The level over the plan: fs_det_base_fit_scale with the fixture's
 * arrays, the scale into *info and the sized radii into meas. */
void base_plan_scale(base_plan_fixture *f, fs_measured *meas, fs_det_base_fit *info);

#endif
