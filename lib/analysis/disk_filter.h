/*
 * disk_filter.h - grey erosion (min) and dilation (max) of a float raster by
 * a flat disk {dx^2 + dy^2 <= r^2}, the two halves of the white top-hat
 * (fs_white_tophat, preprocess.h). Samples outside the raster take no part
 * (for a min or a max, the same as replicating the border).
 *
 * Exact: every output is one of the input's samples, the extreme of those
 * the disk covers, whatever the order they are compared in - to the bit for
 * any input without NaN and without negative zero (which compares equal to
 * +0, so where both meet as the extreme the order picks one;
 * fs_white_tophat's inputs are the stretched image, which holds neither).
 */
#ifndef FS_ANALYSIS_DISK_FILTER_H
#define FS_ANALYSIS_DISK_FILTER_H

/* out[x + y w] = the min (is_max 0) or max (is_max 1) of in over the disk of
 * radius r >= 0 centred there, for a w x h raster (w, h >= 1). in and out
 * are the caller's, w * h floats each, and must not overlap. Cost: O(w h)
 * per row of the disk (r + 1 of them) plus O(w h) per distinct chord
 * length, every pass a streaming min/max of two or three rows, whatever
 * the data. Returns 0, or -1 when its scratch (w * h + w floats) cannot be
 * allocated (out is then undefined). */
int fs_disk_filter(const float *in, float *out, int w, int h, int r, int is_max);

#endif
