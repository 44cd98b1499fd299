/*
 * detect_formation.h - the dome detector's per-tubercle base measured
 * through the image's fitted SE formation (issue 13 section 2), the last
 * step of the dome rule's measurement (detect_measure.c). Not part of the
 * public API (detect.h).
 *
 * Why: the base rule (dome_measure.h) finds each base where the signal
 * steps; the oracle of test_sem_oracle.c, which fits each base radius
 * with a gain and offset per patch against the true formation, meets the
 * accuracy targets in 59 of the 64 corner scenes where the step rule
 * meets 19. The formation is fitted once per image already, for the
 * centres' common offset (detect_offset.h); here each dome the base rule
 * kept is measured again by dome_base_fit.h against that formation, from
 * its (offset-corrected) centre.
 *
 * The rule, per candidate: no dome (the base rule's fit quality below
 * 0.45) is dropped as before; a dome whose patch the template fit cannot
 * read (the image's formation not fitted, its patch outside the image)
 * keeps the base rule's measurement; otherwise the template fit's centre,
 * radius (NAN when the base is not measurable: the centre is kept) and
 * R^2 as the fit quality, the ellipse axes scaled with the radius.
 *
 * Two passes: the templates of the formation fit's own geometry around
 * the base rule's centres, every dome fitted (its centre moved to where
 * its template fits best); then the formation searched (dome_base_fit.h)
 * around those centres, at their median fill, and every dome fitted
 * again from there. (Around the detector's centres, 1-2 px off the domes'
 * at a 16 px pitch, the search chose a formation that explains the
 * offset patches: fill 0.8 at pitch 16 read 4-8 % off, 0.5-4 % after the
 * second pass.)
 *
 * The caller owns every argument; nothing is kept.
 */
#ifndef FS_DETECT_FORMATION_H
#define FS_DETECT_FORMATION_H

#include "analysis/detect_measure.h"
#include "analysis/detect_offset.h"

/* What the step did (for reports and tests). */
typedef struct fs_det_formation {
	int applied;        /* 1 when the templates were built */
	size_t fitted;      /* domes measured by the template fit */
	size_t unmeasured;  /* of which without a measurable base */
} fs_det_formation;

/*
 * Applies the rule above to the n = c->n measured candidates meas[] (m's
 * pixels) with off the result of fs_det_offset_correct on them. info may
 * be NULL. Returns 0, -1 on out of memory (meas then as the base rule
 * left it, its non-domes marked not ok).
 */
int fs_det_formation_measure(const fs_meas *m, const fs_cand_list *c, const fs_det_offset *off,
			     fs_measured *meas, fs_det_formation *info);

#endif
