/*
 * measurement.h - the version of the diameter measurement, and measuring
 * the diameters of given centres (Re-measure).
 *
 * FS_MEASUREMENT_VERSION names the rule that turns a tubercle's image into
 * its diameter. Every annotation set records the version that produced its
 * diameters (store: sets.measurement_version); a set with an older version
 * offers Re-measure. Bump it whenever a change of the measurement changes
 * diameters (not for a change of detection that only finds other centres).
 *   0  measured before versioning (sets that existed before migration 9,
 *      imports of files that do not say)
 *   1  the half-level outline along 32 rays (blob_measure.h)
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_MEASUREMENT_H
#define FS_MEASUREMENT_H

#include <stddef.h>

#include "analysis/params.h"
#include "image/image.h"
#include "image/tubercle.h"

#define FS_MEASUREMENT_VERSION 1

/*
 * Measures every tubercle of t again on img (values in [0, 1], the image
 * the centres are in) with the current measurement, as detection measures
 * its candidates: the same measurement image (top-hat when p has one, the
 * blur at 3 % of the lattice pitch) and the same ray length (0.6 x pitch).
 * The pitch is the image's lattice pitch (as auto finds it), else the
 * median distance of each centre to its nearest neighbour. Centres, ids,
 * sources and everything but the size and shape stay as they are; a
 * tubercle whose base cannot be measured gets radius NaN (unmeasured), its
 * ellipse cleared. um_per_px is used for the diameter range of methods
 * that need it when no pitch can be found (0 = none). Returns 0, or -1
 * with a message (no image, out of memory).
 */
int fs_measure_centres(const fs_image *img, const fs_params *p, double um_per_px, fs_tubercle_list *t, char *err,
		       size_t errlen);

#endif
