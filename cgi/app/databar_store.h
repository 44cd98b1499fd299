/*
 * databar_store.h - the end of a data-bar reading (cgi/main_databar.c): the
 * reading is stored, and when the owner's setting auto_calibrate_data_bar
 * asks for it, the calibration it brings is applied, in ONE transaction.
 *
 * Why one: the Calibration tab follows a pending reading and stops looking
 * once it is done. Committed apart, a look between the two commits saw the
 * reading done and the image uncalibrated, and the tab never showed the
 * calibration applied a moment later (the browser test
 * test_databar.testSettingCalibratesNewUploadsFromTheirDataBar timed out
 * so; the gap was milliseconds, longer when the machine is loaded).
 *
 * Applied only to an image still uncalibrated (the owner's own calibration
 * wins, even one made while the bar was read), when the reading may be
 * applied without a person (s->auto_ok) and agrees within 2 % with the
 * file metadata's pixel size when the file has one.
 *
 * Ownership: everything is borrowed; db must not be inside a transaction.
 */
#ifndef FS_DATABAR_STORE_H
#define FS_DATABAR_STORE_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "store/store.h"

/*
 * Stores the reading s of image rec (as it was when the reading began).
 * Returns 0 (stored; *applied says whether the calibration was applied with
 * it), 1 (the calibration could not be applied: the reading alone is
 * stored, err says why), or -1 with err (nothing stored).
 */
int fs_databar_store_reading(fs_db *db, const fs_image_rec *rec, const fs_databar_suggestion *s, int *applied,
			     char *err, size_t errlen);

#endif
