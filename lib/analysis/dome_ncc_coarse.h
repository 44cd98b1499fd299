/*
 * dome_ncc_coarse.h - the mean dome's correlation (dome_template.h) looked
 * at coarse to fine, for the dome rule's candidates on a reduced image
 * (issue 13's cost, h48f).
 *
 * Why: the candidates are the correlation's 3x3 maxima above 0
 * (fs_det_peaks), their sub-pixel offsets come from each maximum's 3x3
 * neighbourhood (fs_det_peak_offset), and the rest of the image is read
 * only for the prominence (the lowest value on 16 rays within 0.6 pitch),
 * which decides no more than who stands out (keep_prominent in
 * detect_auto.c). Every pixel's correlation cost 125 M instructions of
 * the 2048 x 1536 lattice's 1,679 M. On the reduced image (a pitch of
 * 10-20 px, so a disc of radius 5-10 px) the correlation of a dome-sized
 * template does not turn within 2 px, so a quarter of its pixels places
 * the peaks: the correlation exact at every even pixel of every even row
 * (and the last row and column), bilinear between them, and exact again
 * in the 3x3 neighbourhood of every 3x3 maximum of that mixture (the test
 * fs_det_peaks makes, its ties included) until each such maximum has its
 * whole neighbourhood exact. Each is then a maximum of the correlation
 * itself with the value and sub-pixel offset the whole image gives it, to
 * the bit. What can move: a prominence read partly on interpolated pixels
 * (so who passes the bar), and a maximum the interpolation hides (a bump
 * narrower than 2 px, which the full image's 0.7-pitch suppression
 * mostly drops anyway). Neither has a bound that would make it the same
 * bits cheaply (h49d, bench_ncc_coarse_loss): the bilinear surface
 * under-reads the correlation by up to 0.11-0.30 beyond 2R of the edge
 * on every image measured (0.12 on the lattice), kept maxima are lost in
 * the interior too, and an exact pass wherever a maximum could hide under
 * each image's own largest under-read would cover 14 % of the lattice's
 * pixels and 25-90 % of the paper figures' and pitch-64 scenes'.
 *
 * Only the whole image's path takes it (the candidates on the reduced
 * image, f > 1, and no response kept for the lattice method's searches):
 * the tiled candidates (detect_cand_domes.h) run at full resolution only,
 * so tiles and whole image still give the same candidates there.
 *
 * Ownership: the caller owns every argument; *out is the caller's.
 */
#ifndef FS_DOME_NCC_COARSE_H
#define FS_DOME_NCC_COARSE_H

#include <stddef.h>

#include "analysis/dome_template.h"
#include "image/image.h"

/*
 * fs_dome_template_ncc's correlation of img with the mean of its patches
 * about the n points (the same template to the bit), made coarse to fine
 * as above: exact at the coarse pixels and around every 3x3 maximum above
 * 0, bilinear elsewhere. Returns 0 with *out a new image, or 0 with *out
 * NULL when fewer than 3 discs lie whole in the image; -1 on bad
 * arguments or out of memory (err set).
 */
int fs_dome_template_ncc_coarse(const fs_image *img, const double *xs, const double *ys, size_t n, double radius,
				fs_image **out, char *err, size_t errlen);

/* Whether the dome rule's candidates take it on a reduced image (off by
 * default; on, h48f's cut: -39.4 M on the lattice, but P2 Fig1e goes
 * unmeasured). Process-wide,
 * set at start-up (a test or bench: FS_TEST_NCC_COARSE=0, through
 * tests/unit/support/test_ncc_coarse.c). Returns the previous setting. */
int fs_dome_ncc_set_coarse(int on);
int fs_dome_ncc_coarse_on(void);

/* For an instrument (tests/bench/bench_ncc_coarse_loss.c, h49d): fn(ctx,
 * img, t, coarse) each time fs_dome_template_ncc_coarse has made an
 * image: img the image it correlated, t its mean dome, coarse its result
 * (all the caller's, valid during the call only), so that the exact
 * correlation can be made and compared. NULL (the default): none.
 * Process-wide, set at start-up; not to be changed while another thread
 * detects. */
typedef void (*fs_dome_ncc_witness)(void *ctx, const fs_image *img, const fs_dome_mean *t, const fs_image *coarse);
void fs_dome_ncc_set_witness(fs_dome_ncc_witness fn, void *ctx);

#endif
