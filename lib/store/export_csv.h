/*
 * export_csv.h - CSV and JSON writers for an annotation set: tubercles,
 * edges and the summary statistics, with RFC 4180 quoting.
 *
 * All lengths come from pixels; µm columns are pixels x um_per_px at the
 * time of writing (see metrics.h). Edge distances are written as they are,
 * negative when the circles overlap. Numbers use "%.6g"; a non-finite
 * number is an empty CSV field and a JSON null. Lines end with "\n".
 *
 * Ownership: the writers append to a caller's fs_buf; fs_json_summary
 * returns a cJSON tree the caller frees with cJSON_Delete.
 */
#ifndef FS_EXPORT_CSV_H
#define FS_EXPORT_CSV_H

#include <cJSON.h>

#include "base/buf.h"
#include "base/sink.h"
#include "analysis/metrics.h"
#include "image/tubercle.h"

/* Appends s as one CSV field, quoted ("" for ") when it holds a comma, a
 * quote, CR, LF or leading/trailing space. NULL is an empty field. A field
 * starting with = + - @ tab or CR gets a leading ' so that no spreadsheet
 * runs it as a formula (file and set names are user input); every CSV the
 * server and the CLI write takes its text through here. */
int fs_csv_field(fs_buf *b, const char *s);

/* Header + one row per tubercle: id, centroid_x, centroid_y, diameter_px,
 * diameter_um, radius_px, circularity, major_axis_px, minor_axis_px,
 * orientation, eccentricity (ellipse fields empty when absent),
 * is_boundary (0/1), source, fit_quality. An unmeasured tubercle (radius
 * NaN) has empty diameter and radius cells, as an unknown fit quality has;
 * its edges get empty edge-distance cells. Returns 0 or -1 (out of memory). */
int fs_csv_tubercles(fs_buf *b, const fs_tubercle_list *t, double um_per_px);

/* Header + one row per edge: id1, id2, center_distance_px,
 * center_distance_um, edge_distance_px, edge_distance_um. An edge naming an
 * unknown id gets empty length fields. Returns 0 or -1. */
int fs_csv_edges(fs_buf *b, const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px);

/* The same two files written to a sink, ticked after every row (a download
 * handed to the client in chunks: the same bytes). Return 0, or -1 when
 * out of memory or the sink's reader is gone. */
int fs_csv_tubercles_to(fs_sink *s, const fs_tubercle_list *t, double um_per_px);
int fs_csv_edges_to(fs_sink *s, const fs_tubercle_list *t, const fs_edge_list *e, double um_per_px);

/* The summary header line, and one row for an image (every statistic of
 * fs_stats in µm and px, calibration, the measurement, degree histogram).
 * calibrated = 0 writes "uncalibrated" in the calibration_status column.
 * measurement_version is the version of the rule that measured the
 * diameters (analysis/measurement.h: the CLI's rule, a set's stored
 * version); the row says it and the rule's name ("outline", "dome"; empty
 * for version 0 and versions this build does not know), so a summary read
 * later still says which rule its diameters belong to. */
int fs_csv_summary_header(fs_buf *b);
int fs_csv_summary_row(fs_buf *b, const char *image, const fs_stats *s, int calibrated, int measurement_version);

/* The same fields as a JSON object (degree_histogram as an array;
 * measurement_rule null where the CSV's cell is empty). NULL on out of
 * memory. */
cJSON *fs_json_summary(const char *image, const fs_stats *s, int calibrated, int measurement_version);

#endif
