/*
 * measurement.h - which rule measures the diameters (the measurement rule
 * and its version), and measuring the diameters of given centres
 * (Re-measure).
 *
 * The rule turns a tubercle's image into its diameter. One rule is
 * selected per process (the server's configuration key measurement_rule,
 * `fishscale measure --rule`), and every consumer measures through it:
 * detection (fs_detect, fs_detect_in_region, fs_detect_rule_all in
 * detect.h: the CLI, the extraction jobs and synchronous extraction, the
 * agents and the optimiser) and Re-measure (fs_measure_centres below).
 *
 * The version names the rule that produced a set's diameters. Every
 * annotation set records it (store: sets.measurement_version); a set whose
 * version is not the server's offers Re-measure. Versions:
 *   0  measured before versioning (sets that existed before migration 9,
 *      imports of files that do not say)
 *   1  the outline rule: the half-level outline along 32 rays
 *      (blob_measure.h)
 *   2  the dome-base rule: the base of the SEM dome (dome_measure.h),
 *      candidates from circle votes (issue 13)
 * A change of a rule that changes its diameters takes a new version (not a
 * change of detection that only finds other centres).
 *
 * The rule is process-wide state, like the tiling of detect.h: set it once
 * at start-up (fs_app_config, the CLI's option parsing) before anything is
 * measured; it is not safe to change while measuring.
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_MEASUREMENT_H
#define FS_MEASUREMENT_H

#include <stddef.h>

#include "analysis/params.h"
#include "analysis/scale_region.h"
#include "image/image.h"
#include "image/tubercle.h"

/* A rule's value is its version. */
typedef enum fs_measurement_rule {
	FS_RULE_OUTLINE = 1,
	FS_RULE_DOME = 2,
} fs_measurement_rule;

/*
 * The build's rule, used when the configuration does not choose one.
 * Making the dome-base rule the default is this one line
 * (FS_RULE_OUTLINE -> FS_RULE_DOME).
 */
#define FS_MEASUREMENT_RULE_DEFAULT FS_RULE_OUTLINE

/* The version this process measures with (the selected rule's). Read at
 * run time: the configuration may select another rule than the build's. */
#define FS_MEASUREMENT_VERSION (fs_measurement_version())

/* Below this fit quality the dome rule sees no dome at all (detection
 * drops such a candidate, detect_measure.c); a centre kept there (Re-measure,
 * the editor's auto-size) is left unmeasured. */
#define FS_DOME_NO_DOME_QUALITY 0.45

void fs_measurement_set_rule(fs_measurement_rule rule);
fs_measurement_rule fs_measurement_get_rule(void);
int fs_measurement_version(void);

/* "outline" or "dome" to a rule; "" (not chosen) gives the build's
 * default. Returns 0, or -1 for any other name. */
int fs_measurement_rule_parse(const char *name, fs_measurement_rule *out);
/* "outline", "dome"; NULL for a value that is no rule. */
const char *fs_measurement_rule_name(fs_measurement_rule rule);
/* The rule a set's version names: 0 for version 0 and unknown versions
 * (written by a newer build). */
fs_measurement_rule fs_measurement_rule_of_version(int version);
/* What produced a set's diameters, for people: "the outline rule
 * (version 1)", "the dome rule (version 2)", "before versioning (version 0)", "an unknown rule
 * (version 7)". Static text, or out when the version is unknown. */
const char *fs_measurement_version_text(int version, char *out, size_t outlen);

/*
 * Measures every tubercle of t again on img (values in [0, 1], the image
 * the centres are in; float or compact, the same result) with the selected rule (fs_measure_centres) or the
 * given one, as detection measures its candidates with that rule: the
 * outline rule on detection's measurement image (top-hat when p has one,
 * the blur at 3 % of the lattice pitch) with rays up to 0.6 x pitch; the
 * dome rule by the extraction's own sizing of domes whose centres are
 * final (fs_det_measure_domes_at in detect_measure.h: the ray smoothing
 * chosen per image, each base, the formation fitted at the centres, the
 * template fit's sizes at the base rule's level read from the centres),
 * whole or tile by tile as detection measures the image.
 * The pitch is the image's lattice pitch (as auto finds it), else the
 * median distance of each centre to its nearest neighbour. Centres, ids,
 * sources and everything but the size, shape and fit quality stay as they
 * are; a tubercle whose base cannot be measured gets radius NaN
 * (unmeasured), its ellipse cleared - under the dome rule also one on flat
 * ground (the spread or the SE signal around it far below the image's
 * domes'), where noise alone can line the rays' steps up on a circle. An
 * unmeasured tubercle's fit quality under the dome rule says why: below
 * FS_DOME_NO_DOME_QUALITY the base rule's (no base circle), 0 flat
 * ground, NaN no base read at all, and a dome's quality (at least
 * FS_DOME_NO_DOME_QUALITY) a dome whose base the image does not show: most
 * of the image's base readings lie on no step and the templates name no
 * fill (detect_base_fit.h, h38b), so every dome of the image is left so. um_per_px is used for the diameter
 * range of methods that need it when no pitch can be found (0 = none).
 * Returns 0, or -1 with a message (no image, out of memory).
 */
int fs_measure_centres(const fs_image *img, const fs_params *p, double um_per_px, fs_tubercle_list *t, char *err,
		       size_t errlen);
int fs_measure_centres_rule(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
			    fs_tubercle_list *t, char *err, size_t errlen);

/*
 * Re-measure inside the scale region (issue 13 section 3, h32b): every
 * consumer uses the region, and a diameter read outside it is no
 * tubercle's. fs_measure_centres_rule for the centres of t inside region
 * (scale_region.h: the image's, the stored one or a person's correction;
 * NULL: the automatic region of img, fs_scale_region_detect); a centre
 * outside it keeps its place, id and source and is left unmeasured
 * (radius NaN, ellipse cleared, fit quality NaN: nothing was read there)
 * and is not handed to the rule at all, so it plays no part in what the
 * dome rule fits once per image over all its centres (the ray smoothing,
 * the formation, the templates, the level). Why: extraction never sizes
 * anything outside the region (it drops it, detect.h), and on P1 Fig2
 * centres put on the white band (rows 15-60) were sized as domes of
 * 15-35 px (the domes 6-10) and moved the mean radius of every dome of the
 * set by up to +4.9 % through the level they share (docs/paper-figures.md,
 * section h32b). *outside (may be NULL) gets how many were left so.
 * Returns 0, or -1 with a message (no image, the region's frame is not the
 * image's, out of memory).
 */
int fs_measure_centres_in_region(const fs_image *img, const fs_params *p, double um_per_px,
				 fs_measurement_rule rule, const fs_scale_region *region, fs_tubercle_list *t,
				 size_t *outside, char *err, size_t errlen);

/* The dome rule's sizing in detection once the scale region dropped some
 * of its tubercles (detect.c), where detection cannot size them on its own
 * measurement (log, dog and ellipse; a pitch that the centres' spacing
 * overrules, fs_measure_centres_pitch): fs_measure_centres_rule, except
 * that under the dome rule an image with a halftone screen keeps its sizes
 * (fs_det_size_domes_list in detect_measure.h). */
int fs_measure_centres_detected(const fs_image *img, const fs_params *p, double um_per_px, fs_measurement_rule rule,
				fs_tubercle_list *t, char *err, size_t errlen);
/* The pitch fs_measure_centres measures t with when the image's lattice
 * estimate (fs_lattice_estimate, 0 = none) is lattice_pitch: that one,
 * unless it lies outside 0.6-1.6 times the centres' median
 * nearest-neighbour distance, which is then the pitch (0: neither). */
double fs_measure_centres_pitch(double lattice_pitch, const fs_tubercle_list *t);

/* The outline rule: on an image of more than FS_MEASURE_BAND_MIN_PIXELS
 * the measurement image above is made one band of FS_MEASURE_BAND_ROWS
 * rows (and the rows its blur and rays reach) at a time, never whole: a
 * 100 MP image's is 400 MB of floats. The dome rule: tile by tile as
 * detection (detect.h's tiling) on an image of more than four tiles. The
 * sizes equal the whole image's but for the last bits of the rays'
 * positions (test_measure_centres). Tests: bands of rows rows (the dome
 * rule: tiles of that side) on any image (0: back to the default). Not
 * thread-safe: set it before measuring. */
void fs_measure_centres_set_band_rows(int rows);
#define FS_MEASURE_BAND_ROWS 1024
#define FS_MEASURE_BAND_MIN_PIXELS (16LL * 1000 * 1000)

#endif
