/*
 * dome_signal.h - how much of the image's own dome a point shows: the SE
 * signal of the dome rule's formation templates (dome_base_fit.h) in the
 * patch about the point, the dome rule's test that a centre is a dome and
 * not flat ground (issue 13; detect_base_fit.h says how it is used).
 *
 * Why: the base rule's fit quality (dome_measure.h) is a share, the part
 * of the rays' strongest steps that lie on one circle; it does not say how
 * strong those steps are. In a flat gap between domes (a missing site, a
 * low fill) the strongest steps of every ray are the neighbours' bases and
 * the bright debris around, and they lie on a circle of about the
 * distance to the neighbours: the rule reports a dome there with a fit
 * quality like a real one's (P1 Fig2: 0.74 and 0.76 at (343, 202) and
 * (686, 94), real domes 0.65-1.00) and a base three or four times the
 * others'. What a dome has and flat ground has not is the dome's own SE
 * formation inside half a pitch of its centre: the bright cap or rim and
 * the shadowed side the templates render. A patch's signal is the
 * amplitude of the template it follows best: the standard deviation,
 * over the patch, of gain x template (intensity units of the image), the
 * gain and offset fitted by least squares (the same fit as
 * fs_dome_tpl_fit's, at the given centre, no search). On flat ground only
 * the noise's chance likeness to the template is left.
 *
 * Points of the patch outside the image are left out (a dome cut by the
 * frame shows its formation in the part that is there); with fewer than a
 * quarter of the patch's points inside, the signal is not known (NAN).
 *
 * The caller owns t and img (float storage); nothing is kept.
 */
#ifndef FS_DOME_SIGNAL_H
#define FS_DOME_SIGNAL_H

#include "analysis/dome_base_fit.h"
#include "image/image.h"

typedef struct fs_dome_signal {
	double signal;  /* SD of gain x template over the patch; 0 when no
			 * template has a positive gain; NAN: not known */
	double r2;      /* the share of the patch's variance it explains */
	size_t used;    /* points of the patch inside the image */
} fs_dome_signal;

/* The signal of the patch about (x, y) (px of img) against t's
 * templates, the best of every fill. */
fs_dome_signal fs_dome_signal_at(const fs_dome_tpl *t, const fs_image *img, double x, double y);
/* The same on img, a crop at (ox, oy) of a larger image, (x, y) in the
 * crop's pixels: the larger image's signal from (x + ox, y + oy) to the
 * last bit where the crop holds the patch or ends where that image ends
 * (the tiled dome rule; every point made in the larger image's pixels,
 * as fs_dome_tpl_fit_crop, h40e). */
fs_dome_signal fs_dome_signal_at_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y);

#endif
