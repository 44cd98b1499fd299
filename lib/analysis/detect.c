/*
 * detect.c - the detection entry point (see detect.h): estimates the
 * lattice, preprocesses and dispatches to the method (detect_*.c); drops
 * what lies outside a scale region handed to it (fs_region_src) once the
 * centres are final, before the dome rule sizes the rest.
 *
 * For auto and lattice the lattice is estimated first, on the raw image,
 * because the preprocessing depends on it: the CLAHE tile is widened to at
 * least three pitches, so equalisation evens out illumination between
 * tubercles instead of flattening each tubercle's own profile. Detection
 * runs on the image reduced to ~10 px per pitch, and measurement on the
 * full image up to a pitch of 60 px, reduced by pitch / 30 above: the cost
 * then depends on the number of tubercles more than on the pixel count.
 * For auto and lattice the measurement image is made tile by tile
 * (detect_tiled.h) unless the whole-image path is asked for.
 */
#include "analysis/detect.h"
#include "base/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/base_readings.h"
#include "analysis/blob_measure.h"
#include "analysis/detect_cand_domes.h"
#include "analysis/detect_methods.h"
#include "analysis/detect_pre_region.h"
#include "analysis/detect_scale.h"
#include "analysis/detect_tiled.h"
#include "analysis/detect_walk.h"
#include "analysis/lattice_estimate.h"
#include "analysis/preprocess.h"

/* The float image for the steps that read all of it (the whole-image
 * paths): img itself, or its float copy made once into *tmp (the caller
 * frees it). A compact image (image.h) is otherwise read a row band or a
 * tile at a time. NULL on out of memory. */
static const fs_image *whole_float(const fs_image *img, fs_image **tmp)
{
	if (!img->bits)
		return img;
	if (!*tmp)
		*tmp = fs_image_to_float(img);
	return *tmp;
}

/* Whether auto's and lattice's candidate step at full resolution runs tile
 * by tile: with the tiling on, on an image of more than four tiles (a
 * smaller one costs more in the tiles' overlaps and the stretches' passes
 * than it saves; the results are the same). */
static int cand_tiled(const fs_image *img)
{
	int tile = 0;
	fs_detect_get_tiling(&tile, NULL);
	return tile > 0 && (double)img->width * img->height > 4.0 * tile * tile;
}

/* Whether the dome rule measures tile by tile: with the tiling on, on an
 * image of more than four tiles (auto and lattice: the others go through
 * fs_detect_scale). A
 * smaller one is measured whole, in one thread or two, so the paper
 * figures and the simulator's scenes read exactly as before (the tiled
 * path equals it within 1e-9 px, not to the bit). */
static int dome_tiled(const fs_image *img, int tile)
{
	return tile > 0 && (double)img->width * img->height > 4.0 * tile * tile;
}

/* The scale region's drop (fs_region_src, detect.h) once the centres are
 * final; *ms: the wall time the source took, which is not detection's. */
static int take_region(const fs_region_src *src, fs_detect_result *out, double *ms, char *err, size_t errlen)
{
	const fs_scale_region *r = NULL;
	double t0 = 1e3 * fs_mono_s();
	int rc = src->get(src->ctx, &r, err, errlen);
	*ms = 1e3 * fs_mono_s() - t0;
	if (rc)
		return -1;
	out->n_outside_region = fs_scale_region_filter(r, &out->tubercles);
	return 0;
}

int fs_det_detect(const fs_image *img, const fs_params *p, double um_per_px, int dome, const fs_region_src *region,
		  fs_detect_result *out, char *err, size_t errlen)
{
	int rc = -1;
	int taken = !region; /* the region's drop done (or none to do) */
	double ms_region = 0;
	fs_image *pre = NULL, *meas = NULL, *msrc = NULL, *fimg = NULL;
	const fs_image *whole;
	fs_lattice lat = {0};
	fs_params mpar; /* the measurement's parameters when tiled */
	fs_pre_plan plan;
	fs_det_source csrc;
	fs_dome_resp dresp = {0}; /* the dome candidates' response, for lattice */
	fs_base_readings readings = {0}; /* the dome rule's, for its last step */
	const fs_det_source *tiled_src = NULL; /* the candidate step's tiles */
	int ctile = 0;
	double msigma = 0;
	int tiling = 0, threads = 1;
	if (!out) {
		snprintf(err, errlen, "detect: no result");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!img || !(img->data || img->px) || img->width < 1 || img->height < 1) {
		snprintf(err, errlen, "detect: no image");
		return -1;
	}
	if (fs_params_validate(p, err, errlen))
		return -1;
	if (fs_detect_check_size(p->method, img->width, img->height, err, errlen))
		return -1;
	mpar = *p;
	int needs_cal = p->method != FS_METHOD_AUTO && p->method != FS_METHOD_LATTICE;
	if (needs_cal && !(um_per_px > 0 && isfinite(um_per_px))) {
		snprintf(err, errlen, "detect: method %s needs a calibration (um per pixel > 0)",
			 fs_method_name(p->method));
		return -1;
	}
	if (needs_cal) {
		/* log, dog and ellipse: whole or tile by tile (detect_scale.h) */
		rc = fs_detect_scale(img, p, um_per_px, dome, out, err, errlen);
		if (!rc && !taken) {
			taken = 1;
			rc = take_region(region, out, &ms_region, err, errlen);
		}
		/* they size no dome at its final centres themselves: under the
		 * dome rule, once the region dropped some, the rest are sized
		 * as Re-measure sizes them (so that it gives these sizes back) */
		if (!rc && dome && out->n_outside_region > 0)
			rc = fs_measure_centres_detected(img, p, um_per_px, FS_RULE_DOME, &out->tubercles, err, errlen);
		goto out;
	}
	double t0 = 1e3 * fs_mono_s();
	int tile = p->clahe_kernel;
	int f = 1;
	fs_params pp = *p;
	if (!needs_cal) {
		if (img->width < 32 || img->height < 32) {
			rc = 0; /* too small to hold a lattice: nothing found */
			goto out;
		}
		if (fs_lattice_estimate(img, &lat, err, errlen))
			goto out;
		out->pitch_px = lat.pitch_px;
		out->lattice_angle = lat.angle;
		if (!(lat.pitch_px > 0)) {
			/* no lattice: auto and lattice find nothing, so no full-size
			 * preprocessing for it (a blank 100 MP image took 2.5 GB) */
			rc = 0;
			goto out;
		}
		/* the tile follows the pitch (clahe_kernel is not auto's or
		 * lattice's parameter: params.c) */
		if (lat.pitch_px > 0)
			tile = (int)lround(3 * lat.pitch_px);
		/* Detection at the lattice scale does not need more than ~10 px per
		 * pitch: reduce the image (and the pixel-sized parameters) by f.
		 * Measurement still runs at full resolution. */
		if (lat.pitch_px >= 20) {
			f = (int)(lat.pitch_px / 10);
			tile = tile / f > 2 ? tile / f : 2;
			pp.blur_sigma = p->blur_sigma / f;
			pp.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + f - 1) / f : 0;
		}
	}
	if (f > 1) {
		/* the reduction reads every pixel: in the tiling's threads
		 * (the CLI's two; the same image to the bit) */
		int dthreads = 1;
		fs_detect_get_tiling(NULL, &dthreads);
		fs_image *small = fs_downsample_threads(img, f, dthreads);
		if (!small) {
			snprintf(err, errlen, "detect: out of memory");
			goto out;
		}
		int prc = fs_det_preprocess(small, &pp, tile, &pre, err, errlen);
		fs_image_free(small);
		if (prc)
			goto out;
	} else if (cand_tiled(img)) {
		/* at full resolution the candidate step runs tile by tile from
		 * the preprocessing's plan (detect_cand_tiled.h; the dome
		 * rule's: detect_cand_domes.h, which leaves the lattice
		 * method's searches what makes its response): no full-size
		 * preprocessed image */
		fs_detect_get_tiling(&ctile, &threads);
		if (fs_pre_plan_make(&plan, img, p, tile, ctile, threads, err, errlen))
			goto out;
		csrc = (fs_det_source){.plan = &plan, .tile = ctile, .threads = threads, .width = img->width,
				       .height = img->height, .dome = dome ? &dresp : NULL};
		tiled_src = &csrc;
	} else if (fs_det_preprocess(img, p, tile, &pre, err, errlen)) {
		/* (a compact img is converted by the preprocessing's own copy) */
		goto out;
	}
	double msig;
	int fm = 1;
	if (dome) {
		/* The base rule (dome_measure.h) is applied at full resolution
		 * with little smoothing: smoothing moves the step at the foot of
		 * a small dome inwards (more for printed figures is chosen by
		 * fs_det_measure along the rays). */
		msig = lat.pitch_px >= 40 ? 1.0 : 0.5;
		fs_detect_get_tiling(&tiling, &threads);
		if (dome_tiled(img, tiling)) {
			/* tile by tile (detect_domes_tiled.h): no full-size
			 * float or measurement image */
			mpar = *p;
			msigma = msig;
			goto measured;
		}
		tiling = 0;
		if (!(whole = whole_float(img, &fimg))) {
			snprintf(err, errlen, "detect: out of memory");
			goto out;
		}
		if (fs_detect_measure_image(whole, p, msig, &meas, err, errlen))
			goto out;
		goto measured;
	}
	/* Measure with 3 % of the pitch of smoothing when there is a lattice,
	 * else 5 % of the mean expected diameter: enough to calm noise along
	 * the rays, little enough not to move the half-level edge. */
	if (lat.pitch_px > 0) {
		msig = 0.03 * lat.pitch_px;
	} else {
		double rmin, rmax;
		fs_det_radius_range(p, um_per_px, &rmin, &rmax);
		msig = 0.05 * (rmin + rmax);
	}
	/* Pitches of 60 px and more are measured at 1 / (pitch / 30) of the
	 * resolution: the smallest tubercles (0.15 pitch radius) still span
	 * 4.5 px there. The block mean already smooths by a variance of
	 * fm^2 / 12 px^2, which the measurement blur makes up to msig. */
	fm = lat.pitch_px >= 60 ? (int)(lat.pitch_px / 30) : 1; /* 0 pitch: log, dog, ellipse */
	fs_detect_get_tiling(&tiling, &threads);
	/* In one thread an image of at most four tiles is measured whole:
	 * its measurement image is small, and the tiles' overlaps would cost
	 * a few per cent (the results are the same). */
	double mpx = (double)(img->width / fm + 1) * (img->height / fm + 1);
	if (tiling > 0 && threads == 1 && mpx <= 4.0 * tiling * tiling)
		tiling = 0;
	if (tiling > 0 && !needs_cal) {
		/* auto and lattice measure tile by tile (detect_tiled.h): no
		 * full-size measurement image */
		if (fm > 1 && !(msrc = fs_downsample_threads(img, fm, threads))) {
			snprintf(err, errlen, "detect: out of memory");
			goto out;
		}
		mpar = *p;
		if (fm > 1)
			mpar.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + fm - 1) / fm : 0;
		double s2 = msig * msig - fm * fm / 12.0;
		msigma = fm > 1 ? (s2 > 0 ? sqrt(s2) / fm : 0) : msig;
		goto measured;
	}
	if (fm > 1) {
		fs_image *small = fs_downsample(img, fm);
		fs_params pm = *p;
		pm.tophat_radius = p->tophat_radius > 0 ? (p->tophat_radius + fm - 1) / fm : 0;
		double s2 = msig * msig - fm * fm / 12.0;
		int mrc = small ? fs_detect_measure_image(small, &pm, s2 > 0 ? sqrt(s2) / fm : 0,
							  &meas, err, errlen)
				: -1;
		if (!small)
			snprintf(err, errlen, "detect: out of memory");
		fs_image_free(small);
		if (mrc)
			goto out;
	} else if (!(whole = whole_float(img, &fimg))) {
		snprintf(err, errlen, "detect: out of memory");
		goto out;
	} else if (fs_detect_measure_image(whole, p, msig, &meas, err, errlen)) {
		goto out;
	}
measured:;
	/* Candidates voted on an image reduced by f are up to about f px off
	 * (more where a side detector's shadow pulls the votes): the dome rule
	 * looks for the centre within 0.15 pitch at full resolution. */
	fs_meas m = {.img = meas, .f = fm, .width = img->width, .height = img->height, .dome = dome,
		     .refine = dome && f > 1 ? 0.15 * lat.pitch_px : 0, .src = msrc ? msrc : img, .mp = &mpar,
		     .sigma = msigma, .tile = tiling, .threads = threads, .readings = dome ? &readings : NULL,
		     .walk = dome ? fs_det_walk_get() : 0};
	double t1 = 1e3 * fs_mono_s();
	out->ms_preprocess = t1 - t0;
	switch (p->method) {
	case FS_METHOD_AUTO:
		rc = lat.pitch_px > 0 ? fs_detect_auto(&pre, tiled_src, &m, f, p, &lat, out, err, errlen) : 0;
		break;
	case FS_METHOD_LATTICE:
		rc = lat.pitch_px > 0 ? fs_detect_lattice(&pre, tiled_src, &m, f, p, &lat, out, err, errlen) : 0;
		break;
	default: /* log, dog, ellipse: fs_detect_scale above */
		snprintf(err, errlen, "detect: method %s not dispatched", fs_method_name(p->method));
		break;
	}
	/* The dome rule's sizes are read at its final centres, by the step
	 * Re-measure runs (fs_det_size_domes_list): re-measuring a fresh
	 * extraction gives back its sizes. After the scale region's drop:
	 * the rule sizes an image's domes together, so these are the sizes
	 * Re-measure gives the tubercles the region keeps, and each is sized
	 * once. Re-measure's pitch is the lattice estimate unless the kept
	 * centres' spacing overrules it (fs_measure_centres_pitch); then
	 * this measurement image is not its own, and Re-measure's step runs
	 * whole. */
	if (!rc && dome && lat.pitch_px > 0 && !taken) {
		taken = 1;
		rc = take_region(region, out, &ms_region, err, errlen);
	}
	if (!rc && dome && lat.pitch_px > 0) {
		double pitch = out->n_outside_region ? fs_measure_centres_pitch(lat.pitch_px, &out->tubercles)
						     : lat.pitch_px;
		fs_meas g = m;
		g.given = 2;
		g.refine = 0;
		g.flat_spread = NULL;
		rc = pitch == lat.pitch_px
			     ? fs_det_size_domes_list(&g, 0.6 * lat.pitch_px, &out->tubercles, err, errlen)
			     : fs_measure_centres_detected(img, p, um_per_px, FS_RULE_DOME, &out->tubercles, err,
							   errlen);
	}
	out->ms_detect = 1e3 * fs_mono_s() - t1 - ms_region;
out:
	fs_dome_resp_free(&dresp);
	fs_base_readings_free(&readings);
	fs_image_free(pre);
	fs_image_free(meas);
	fs_image_free(msrc);
	fs_image_free(fimg);
	/* The outline rule, and the paths that found nothing, drop after the
	 * images are freed, where the region was found before (its source
	 * may also report an error, or wait for a thread) */
	if (!rc && !taken)
		rc = take_region(region, out, &ms_region, err, errlen);
	if (rc)
		fs_tubercle_list_free(&out->tubercles);
	return rc;
}

void fs_detect_result_free(fs_detect_result *r)
{
	if (!r)
		return;
	fs_tubercle_list_free(&r->tubercles);
}

int fs_detect_all(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
		  char *err, size_t errlen)
{
	return fs_det_detect(img, p, um_per_px, 0, NULL, out, err, errlen);
}

int fs_detect_domes(const fs_image *img, const fs_params *p, double um_per_px, fs_detect_result *out,
		    char *err, size_t errlen)
{
	return fs_det_detect(img, p, um_per_px, 1, NULL, out, err, errlen);
}
