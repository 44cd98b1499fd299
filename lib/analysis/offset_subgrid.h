/*
 * offset_subgrid.h - the formation fit's common offset between the points
 * of its fine grid (issue 13, group B2; docs/paper-figures.md h38d, h39b).
 *
 * Why: the dome rule's formation fit (dome_fit.c) reads the centres'
 * common offset on a grid of 0.0125 pitch, 0.2 px at pitch 16. Where the
 * level is the base rule's first reading from each centre plus that
 * offset (pitch 16 under a halftone screen), one step of the grid moves
 * the scene's mean D by 2-3.5 points (h38d section 3), which is four
 * times the 0.75 % that S needs at fill 0.8. The residual around the
 * grid's minimum is smooth (the patch is read from the mean image by
 * bilinear sampling), so a quadratic through the grid's minimum and its
 * eight neighbours places the minimum between the points.
 *
 * fs_offset_subgrid: rss[] the residual at grid points (i, j), i, j in
 * -1..1, rss[(j + 1) * 3 + (i + 1)], the minimum at (0, 0). Writes the
 * least-squares quadratic's vertex (*di, *dj) in grid steps, each within
 * [-0.5, 0.5] (beyond half a step the grid's own neighbour would have
 * been the minimum); returns 1, or 0 with (0, 0) when any value is not
 * finite or the quadratic has no minimum (its curvature not positive in
 * every direction). No pointers kept.
 */
#ifndef FS_OFFSET_SUBGRID_H
#define FS_OFFSET_SUBGRID_H

int fs_offset_subgrid(const double rss[9], double *di, double *dj);

#endif
