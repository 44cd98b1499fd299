/*
 * dome_centre_fit.h - a dome's centre to a fraction of the template fit's
 * search step: the vertex of the quadratic surface through the fit's
 * residual at a 3 x 3 grid of trial centres (issue 13, "measure the
 * tubercle": the dome rule's centres).
 *
 * Why: the dome rule's centres were its largest remaining error on the
 * simulator (RMS 3.9 % of the pitch over the 64 corner scenes, h21f's
 * decomposition, docs/paper-figures.md): the base rule's centre is where
 * 32 rays' steps make the sharpest circle, which a side detector's bright
 * and dark halves and a halftone screen's remains pull about. The per-
 * tubercle template fit (dome_base_fit.h) reads every pixel of the patch
 * against the dome rendered through the image's own formation - shadowed
 * side included - so its best centre is the dome's; but its pattern
 * search stops on a grid of 0.02 pitch (1.3 px at a pitch of 64). Near
 * its minimum the residual is a smooth bowl in the centre (the template
 * is a smooth function of position, the patch is fixed), so a quadratic
 * through the 3 x 3 trial centres about the search's end puts the centre
 * between the grid's points.
 *
 * Nothing is kept; the caller owns every argument.
 */
#ifndef FS_DOME_CENTRE_FIT_H
#define FS_DOME_CENTRE_FIT_H

/*
 * s[3 * (j + 1) + (i + 1)] is the residual at the trial centre (i, j)
 * steps (i, j in -1..1) from the middle one. Writes into *u, *v (in
 * steps, each within -1..1) the least-squares quadratic's minimum and
 * returns 1; returns 0 (*u = *v = 0) when the surface is no bowl there
 * (not positive definite, or its minimum outside the 3 x 3 square): the
 * middle centre stands.
 */
int fs_dome_centre_vertex(const double s[9], double *u, double *v);

/*
 * The same from six of the nine: the middle, its four neighbours along
 * the axes and the one corner (p, q) (p, q each -1 or 1); the other
 * entries of s are not read. The quadratic through six points is
 * determined by them (no least squares), so a bowl still gives its
 * minimum exactly. Why (h47e): the template fit reads a patch per trial
 * centre, and three fewer reads a tubercle are a third of its cost.
 */
int fs_dome_centre_vertex6(const double s[9], int p, int q, double *u, double *v);

#endif
