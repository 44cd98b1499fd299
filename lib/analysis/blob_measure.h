/*
 * blob_measure.h - the size and shape of one bright tubercle measured from
 * its own intensity profile, not from the scale a detector fired at.
 *
 * Along 32 rays from the centre, the boundary is where the intensity first
 * falls below the half level between the tubercle's peak and the
 * background (the lowest value along 16 evenly spaced rays up to max_r:
 * the deepest point around the tubercle). The 32 boundary points form a
 * polygon: its area gives the equivalent diameter, its centroid the refined
 * centre, its second moments the ellipse, and 4 pi A / P^2 the
 * circularity. A second pass starts from that centroid when it lies more
 * than 0.25 px from the start. Different tubercles therefore get different
 * diameters, whatever size the detector assumed.
 *
 * The caller owns img and t; nothing is kept.
 */
#ifndef FS_BLOB_MEASURE_H
#define FS_BLOB_MEASURE_H

#include "image/image.h"
#include "image/tubercle.h"

/*
 * Measures the blob around (x, y). max_r bounds the rays (about 0.6 x the
 * lattice pitch, or the largest expected radius). On success returns 0 and
 * fills centroid, radius_px, circularity and the ellipse fields of t (id and
 * source untouched). Returns -1 when there is no blob: fewer than 3/4 of the
 * rays find an edge, or the peak does not stand above the background.
 */
int fs_blob_measure(const fs_image *img, double x, double y, double max_r, fs_tubercle *t);

#endif
