/*
 * calibration.c - µm per pixel from a direct value, a scale bar or a
 * magnification, and the px -> µm conversions (see metrics.h). µm values
 * are always derived from pixels here, never stored.
 */
#include "analysis/metrics.h"

#include <math.h>

double fs_calibration_direct(double um_per_px)
{
	/* outside the sensible range every extraction fails (see metrics.h) */
	return isfinite(um_per_px) && um_per_px >= FS_UM_PER_PX_MIN && um_per_px <= FS_UM_PER_PX_MAX ? um_per_px : 0;
}

double fs_calibration_from_scale_bar(double x1, double y1, double x2, double y2, double length_um)
{
	double px = hypot(x2 - x1, y2 - y1);

	if (!isfinite(px) || !(px > 0) || !isfinite(length_um) || !(length_um > 0))
		return 0;
	return fs_calibration_direct(length_um / px);
}

double fs_calibration_from_magnification(double magnification, double dpi_or_pixel_um)
{
	if (!isfinite(magnification) || !(magnification > 0) || !isfinite(dpi_or_pixel_um) ||
	    !(dpi_or_pixel_um > 0))
		return 0;
	return fs_calibration_direct(dpi_or_pixel_um / magnification);
}

double fs_pixel_um_from_dpi(double dpi)
{
	if (!isfinite(dpi) || !(dpi > 0))
		return 0;
	return 25400.0 / dpi;
}

double fs_px_to_um(double px, double um_per_px)
{
	return px * um_per_px;
}

double fs_tubercle_diameter_um(const fs_tubercle *t, double um_per_px)
{
	return 2.0 * t->radius_px * um_per_px;
}
