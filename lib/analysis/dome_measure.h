/*
 * dome_measure.h - the base of one tubercle (a dome) in a secondary-electron
 * image: the physically based diameter rule of issue 13.
 *
 * Why this rule: in an SE image the brightness of a surface point follows
 * its tilt (secant law), the side of it facing the detector, shadowing and
 * edge brightening. For every dome profile from spherical cap through
 * paraboloid to flat-topped the slope is steepest at the base and drops to
 * the flat surface's zero there, so the image has its strongest intensity
 * step, concentric with the dome, at the base - bright where the slope faces
 * the detector, dark where it faces away: the sign changes around the dome,
 * the position does not. The half level between the bright cap and the
 * darkest point (the old rule) lies inside it, by 12-26 % of D.
 *
 * The rule: along 32 rays from the centre, the magnitude of the radial
 * derivative of the (lightly smoothed) image; its sum over the rays as a
 * function of the radius peaks at the base circle (shadow edges, which are
 * not concentric, spread out in that sum). Each ray's own strongest step
 * within +-25 % of that radius is its edge point; a circle fitted to the
 * edge points (outliers beyond 3 median deviations dropped) gives the
 * centre, and the polygon of edge points about it the diameter, ellipse and
 * circularity. A second pass starts from the fitted centre.
 *
 * Fit quality (0..1): the share of the rays' strongest steps that lies on
 * the common circle (sum over the rays of the step at the base / sum of
 * each ray's largest step). Below FS_DOME_MIN_QUALITY the base is not
 * measurable: the centre is kept, radius_px is NAN.
 *
 * The caller owns img and t; nothing is kept.
 */
#ifndef FS_DOME_MEASURE_H
#define FS_DOME_MEASURE_H

#include "image/image.h"
#include "image/tubercle.h"

#define FS_DOME_MIN_QUALITY 0.2

/*
 * Measures the dome around (x, y) with a base radius in [rmin, rmax] px,
 * the ray profiles smoothed by smooth px (0: none; see fs_det_measure for
 * how it is chosen per image).
 * Returns 0 and fills centroid, radius_px (NAN when not measurable),
 * circularity, the ellipse fields and fit_quality of t (id and source
 * untouched); -1 when there is no dome at all (the point is outside the
 * image, or the image is flat there).
 */
int fs_dome_measure(const fs_image *img, double x, double y, double rmin, double rmax, double smooth,
		    fs_tubercle *t);

#endif
