/*
 * databar.h - finds the data bar an SEM burns into its images: either a
 * separate band (uniform rows at the bottom or top holding text and usually
 * a scale bar: Zeiss, FEI/Thermo, TESCAN, older JEOL) or text and a
 * scale-bar line drawn over the image itself (JEOL, Hitachi). Its rectangle
 * is never scale surface: the scale region excludes it, so nothing is
 * detected on the glyphs or the bar. Reading the text is not done here
 * (databar_read.h); the bar's length in pixels is, since it is geometry.
 *
 * How (details in databar.c): a band is a run of rows from the top or bottom
 * edge in which most pixels share one level (separator rows of another
 * uniform level count too), between 8 px (or 2 % of the height) and a third
 * of the height high, set apart from the image by its level or a separator
 * line, holding at least three glyphs. An overlay is a set of pixels at full
 * white or full black (within 0.1; its cores within 0.1 of the image's
 * extreme value, its edges within 0.2) in the outer 30 % of the rows, shaped
 * as glyphs aligned in words next to a horizontal line (the scale bar), or,
 * without a line, at least three aligned words of eight glyphs in all. A glyph is a connected
 * component 6 px to a fifth of the height tall; a word is two or more
 * glyphs of similar height with a common baseline and gaps under 1.6 times
 * their height; a line is a component at least 24 px and four times its
 * height long, at most 70 % of the width, whose full-length rows are
 * contiguous (a bar, with or without end ticks, but not a box outline).
 *
 * Coordinates: pixel indices with the origin at the top-left pixel centre
 * (as in image_transform.h); rectangles cover whole pixels.
 *
 * Ownership: the caller owns img and out; nothing is kept.
 */
#ifndef FS_DATABAR_H
#define FS_DATABAR_H

#include <stddef.h>

#include "image/image.h"
#include "image/image_transform.h"

#define FS_DATABAR_MAX_TEXT 32

typedef struct fs_databar {
	int found;             /* 1 when the image carries a data bar; 0 = none (the rest is zero) */
	fs_rect rect;          /* the whole data bar, with a margin: never scale surface */
	int is_band;           /* 1: a separate band (rect spans the full width, from the edge) */
	int at_top;            /* the band (or the overlay's centre) is in the upper half */
	int light_on_dark;     /* glyphs lighter than what is behind them */
	float ink_level;       /* median level of the glyphs and the bar, [0, 1] */
	float background_level;/* the band's level, or the median level around an overlay */
	double text_height;    /* median glyph height, px */
	int n_text;            /* words found, in reading order (top to bottom, left to right) */
	fs_rect text[FS_DATABAR_MAX_TEXT];
	int has_line;          /* a scale-bar line was found */
	fs_rect line;          /* its bounding box, end ticks included */
	double line_x0, line_x1; /* its outer ends, sub-pixel (pixel-centre coordinates: a bar
				  * covering columns 524..662 exactly has x0 = 523.5, x1 = 662.5) */
	double line_y;         /* centre row of the bar's full-length rows */
	double line_length_px; /* x1 - x0 */
} fs_databar;

/*
 * Looks for a data bar in img. Returns 0 with out->found 1 (and the parts)
 * or 0 (none), or -1 with a message (no image, out of memory). out is always
 * written.
 */
int fs_databar_find(const fs_image *img, fs_databar *out, char *err, size_t errlen);

#endif
