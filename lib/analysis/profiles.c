/*
 * profiles.c - the built-in parameter profiles (see params.h), with the
 * original tool's values (reference-analysis §2).
 *
 * Every profile keeps the original's method "log" and its µm size range, so
 * a user who picks one gets the original behaviour (with the diameter now
 * measured from each tubercle's profile). The "default" profile uses the new
 * method "auto", which estimates the lattice pitch from the image and derives
 * the scale range from it.
 *
 * Which profiles auto makes unnecessary: lepisosteus, atractosteus,
 * polypterus and scanned-pdf only existed to move the µm size window to the
 * genus (the size window is meaningless without a real calibration, and auto
 * does not use it); high-contrast only lowered blur and raised the threshold,
 * which auto's pitch-derived smoothing replaces. paralepidosteus is kept for
 * its calibration (0.33 µm/px), and low-contrast for its top-hat, which auto
 * does not replace (uneven illumination still needs it).
 *
 * The table is static and read-only; callers never free it.
 */
#include "analysis/params.h"

#include <string.h>

#define PROFILE(n, d, cal, meth, thr, dmin, dmax, circ, clip, kern, blur, margin, tophat)          \
	{                                                                                          \
		.name = (n), .description = (d), .calibration_um_per_px = (cal),                   \
		.params = {                                                                        \
			.method = (meth), .threshold = (thr), .min_diameter_um = (dmin),           \
			.max_diameter_um = (dmax), .min_circularity = (circ), .clahe_clip = (clip), \
			.clahe_kernel = (kern), .blur_sigma = (blur),                              \
			.neighbor_graph = FS_GRAPH_GABRIEL, .cull_long_edges = 1,                  \
			.cull_factor = FS_CULL_FACTOR_DEFAULT, .edge_margin_px = (margin), .tophat_radius = (tophat), \
			.auto_prominence = 0.3, .auto_smoothing = 0.15,                            \
		},                                                                                 \
	}

static const fs_profile profiles[] = {
	PROFILE("default", "Automatic: lattice pitch estimated from the image (no calibration needed)",
		0, FS_METHOD_AUTO, 0.05, 2.0, 10.0, 0.5, 0.03, 8, 1.0, 10, 0),
	PROFILE("paralepidosteus", "Paralepidosteus, reference image at 0.33 um/px", 0.33,
		FS_METHOD_LOG, 0.15, 5.0, 15.0, 0.35, 0.03, 8, 1.0, 8, 0),
	PROFILE("lepisosteus", "Lepisosteus (gars): medium tubercles 3-8 um", 0, FS_METHOD_LOG, 0.05,
		3.0, 8.0, 0.4, 0.03, 8, 1.0, 10, 0),
	PROFILE("atractosteus", "Atractosteus: large, tightly packed tubercles 5-12 um", 0,
		FS_METHOD_LOG, 0.08, 5.0, 12.0, 0.4, 0.03, 8, 1.0, 10, 0),
	PROFILE("polypterus", "Polypterus: small, widely spaced tubercles 1.5-4 um", 0, FS_METHOD_LOG,
		0.03, 1.5, 4.0, 0.5, 0.03, 8, 0.8, 8, 0),
	PROFILE("high-contrast", "Clean, high-contrast images", 0, FS_METHOD_LOG, 0.08, 2.0, 10.0,
		0.6, 0.02, 8, 0.5, 10, 0),
	PROFILE("low-contrast", "Faint or unevenly lit images (top-hat r = 12)", 0, FS_METHOD_LOG, 0.03,
		2.0, 10.0, 0.3, 0.08, 16, 1.5, 10, 12),
	PROFILE("scanned-pdf", "Figures scanned from papers (halftone, no circularity filter)", 0,
		FS_METHOD_LOG, 0.08, 3.0, 10.0, 0.0, 0.05, 12, 1.0, 8, 0),
};

const fs_profile *fs_profiles(size_t *count)
{
	if (count)
		*count = sizeof profiles / sizeof profiles[0];
	return profiles;
}

const fs_profile *fs_profile_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}
