/*
 * sem_metadata.h - pixel size from the text SEM vendors store in TIFF tags,
 * and the plausibility rule for plain resolution (DPI) tags.
 *
 * All functions read the text they are given (borrowed, need not be
 * NUL-terminated, at most len bytes are looked at) and keep nothing.
 *
 * Resolution rule: XResolution / ResolutionUnit give a pixel size, but most
 * writers put a screen or print DPI there (72, 96, 300 dpi = 353, 265, 85 µm
 * per pixel), which no SEM image has. A resolution-derived size is therefore
 * only reported when it is below FS_RESOLUTION_MAX_UM µm per pixel; vendor
 * SEM metadata is trusted between FS_SEM_MIN_UM and FS_SEM_MAX_UM.
 */
#ifndef FS_SEM_METADATA_H
#define FS_SEM_METADATA_H

#include <stddef.h>

#define FS_SEM_TAG_ZEISS 34118 /* Zeiss SmartSEM: "Image Pixel Size = 12.3 nm" */
#define FS_SEM_TAG_FEI 34682   /* FEI / Thermo: INI text, [Scan] PixelWidth=1.2e-08 (metres) */

#define FS_RESOLUTION_MAX_UM 10.0
#define FS_SEM_MIN_UM 1e-6
#define FS_SEM_MAX_UM 1000.0

/* 0 and *um_per_px when the text holds a plausible pixel size, else -1. */
int fs_sem_zeiss_pixel_size(const char *text, size_t len, double *um_per_px);
int fs_sem_fei_pixel_size(const char *text, size_t len, double *um_per_px);

/*
 * pixels_per_unit from a resolution tag, unit_um the length of its unit in µm
 * (25400 for inch, 10000 for cm). 0 and *um_per_px when the result passes the
 * rule above, else -1 (no unit, zero, non-finite, or a screen DPI).
 */
int fs_resolution_um_per_px(double pixels_per_unit, double unit_um, double *um_per_px);

#endif
