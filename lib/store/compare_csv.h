/*
 * compare_csv.h - the Compare table as CSV: one row per set and one per
 * group mean, the numbers the chart draws (analysis/compare_chart.h).
 *
 * Columns: kind (set, group_mean), set_id (empty for a group), name, group,
 * calibrated (1/0), unit (um, or px for an uncalibrated set), n_tubercles,
 * n_edges, mean_diameter, sd_diameter, mean_space, sd_space, fill_ratio,
 * hexagonalness, suggested_genus, classification_confidence, and
 * measurement_version when versions are given. A group's diameter and space are the mean and SD of
 * its calibrated sets' means (empty when it has none); its fill ratio and
 * hexagonalness the means over its sets. Numbers "%.6g", empty when
 * unknown; RFC 4180 quoting (fs_csv_field).
 *
 * Ownership: appends to the caller's buffer.
 */
#ifndef FS_COMPARE_CSV_H
#define FS_COMPARE_CSV_H

#include "base/buf.h"
#include "analysis/compare_chart.h"

/* versions: per set, the measurement version that produced its diameters
 * (NULL: no such column). Returns 0 or -1 (out of memory). */
int fs_csv_compare(fs_buf *b, const fs_chart_set *sets, size_t n, const char *const *versions);

#endif
