/*
 * scale_region.h - the part of the frame that is scale surface: what is
 * left when white paper margins, black surroundings (with the text, lines
 * and marks printed on them) and the SEM data bar (databar.h) are taken
 * away. Every consumer asks it: detection drops candidates outside it, the
 * statistics call tubercles at its inner edge boundary tubercles, the agents
 * add nothing outside it, autocrop crops to it, the overlay shows it.
 *
 * Representation: a bitmap on a grid of square cells of `cell` pixels
 * (the last row and column of cells may be cut by the frame), 1 = scale.
 * Cells of 2 px at the smallest, chosen so the grid has at most 256 cells
 * along its longer side: a region costs at most 64 KiB and the point test
 * is one lookup. Its text form (JSON, the API and the database) is
 * run-length rows: rows[gy] = [x0, x1, x0, x1, ...], half-open runs of
 * cells inside the region.
 *
 * How the automatic region is found (details in scale_region.c): per cell
 * the mean and, over the 3x3 cells around it, the standard deviation of the
 * pixel values; a cell is blank when it is near white (mean >= 0.80) or
 * near black (mean <= 0.10) and flat (deviation <= 0.03). Blank cells that
 * touch the frame's border (in a component of at least 0.3 % of the frame,
 * so a saturated particle cut by the border stays), or that form a
 * component of at least 4 % of the frame, are not scale; that exclusion is closed (dilated then eroded
 * by 3 cells) so a line, a label or marks printed on a margin go with it.
 * The data bar's rectangle is excluded. What is left is the region, less
 * any piece of it smaller than 2 % of the frame (a sliver between a margin
 * and the border). A frame with no margin has the whole frame as region.
 *
 * Coordinates: pixel indices with the origin at the top-left pixel centre;
 * pixel (x, y) belongs to cell (x / cell, y / cell).
 *
 * Ownership: fs_scale_region owns its bitmap; free with
 * fs_scale_region_free (tolerates NULL and a zeroed struct). Functions
 * never keep the image or a tubercle list.
 */
#ifndef FS_SCALE_REGION_H
#define FS_SCALE_REGION_H

#include <stddef.h>

#include "image/image.h"
#include "image/image_transform.h"
#include "image/tubercle.h"

#define FS_SCALE_REGION_MAX_GRID 256 /* cells along the longer side, at most */

typedef struct fs_scale_region {
	int width, height; /* the frame, px */
	int cell;          /* px per cell side, >= 1 */
	int gw, gh;        /* grid size: ceil(width / cell), ceil(height / cell) */
	unsigned char *in; /* gw * gh, row-major, 1 = scale surface */
	int user;          /* 1: corrected by a person (stored), 0: automatic */
	int databar;       /* 1: a data bar was excluded (automatic regions) */
	fs_rect databar_rect;
} fs_scale_region;

/* The cell size used for a frame of w x h px. */
int fs_scale_region_cell_for(int width, int height);

/* A region covering the whole frame, with the given cell (0: the default
 * for the size). Returns 0, or -1 with a message (bad size, out of memory). */
int fs_scale_region_init_full(fs_scale_region *r, int width, int height, int cell, char *err, size_t errlen);

/* The automatic region of img (values in [0, 1]; may be compact, image.h).
 * Returns 0, or -1 with a message (no image, out of memory). */
int fs_scale_region_detect(const fs_image *img, fs_scale_region *out, char *err, size_t errlen);

void fs_scale_region_free(fs_scale_region *r);

/* 1 when the pixel position (x, y) lies in the region; points outside the
 * frame are not in it. A region without a bitmap contains everything. */
static inline int fs_scale_region_contains(const fs_scale_region *r, double x, double y)
{
	if (!r || !r->in)
		return 1;
	if (!(x > -0.5 && y > -0.5 && x < r->width - 0.5 && y < r->height - 0.5))
		return 0;
	int px = (int)(x + 0.5), py = (int)(y + 0.5);
	return r->in[(size_t)(py / r->cell) * (size_t)r->gw + (size_t)(px / r->cell)] != 0;
}

/* Fraction of the frame's cells in the region, [0, 1]. */
double fs_scale_region_fraction(const fs_scale_region *r);

/* 1 when the region covers every cell. */
int fs_scale_region_is_full(const fs_scale_region *r);

/*
 * 1 when (x, y) lies within dist px of a cell outside the region: the
 * region's inner edge (the frame's border is not an edge here; the convex
 * hull already makes tubercles there boundary ones).
 */
int fs_scale_region_near_edge(const fs_scale_region *r, double x, double y, double dist);

/* The bounding rectangle (px, clamped to the frame) of the region's cells;
 * 0, or 1 when the region is empty. */
int fs_scale_region_bbox(const fs_scale_region *r, fs_rect *out);

/*
 * Removes from t the tubercles whose centre is outside the region and
 * renumbers the rest 1..n in order (ids of detections are positions).
 * Returns the number removed.
 */
size_t fs_scale_region_filter(const fs_scale_region *r, fs_tubercle_list *t);

/* Marks is_boundary on the tubercles of t within their radius plus
 * `margin` px of the region's inner edge (never clears a flag). Returns
 * how many it marked that were not boundary before. */
size_t fs_scale_region_mark_boundary(const fs_scale_region *r, fs_tubercle_list *t, double margin);

/*
 * Run-length text form: writes into buf (NUL-terminated) the JSON array of
 * rows "[[x0,x1,...],...]". Returns 0, or -1 when cap is too small (the
 * worst case is fs_scale_region_rows_cap bytes).
 */
size_t fs_scale_region_rows_cap(const fs_scale_region *r);
int fs_scale_region_rows_write(const fs_scale_region *r, char *buf, size_t cap);

/*
 * Parses the rows text (as written above, whitespace allowed) into a
 * region of the frame width x height with the given cell, which must be
 * the frame's cell (fs_scale_region_cell_for). Refuses (-1 with a message)
 * malformed text, a row count other than the grid's, runs out of order,
 * overlapping or beyond the grid, and more than FS_SCALE_REGION_MAX_RUNS
 * runs in all.
 */
#define FS_SCALE_REGION_MAX_RUNS 65536
int fs_scale_region_rows_parse(const char *text, int width, int height, int cell, fs_scale_region *out, char *err,
			       size_t errlen);

#endif
