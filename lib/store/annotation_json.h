/*
 * annotation_json.h - the original tool's annotation JSON files: reading
 * v1, v2, v3 (and the legacy _slo.json files, which hold one of those) and
 * writing v3.0. The functions are declared in annotation.h
 * (fs_annot_parse, fs_annot_to_json); this header holds the limits and the
 * rules, so a reader of the file format finds them in one place.
 *
 * Version detection (as the original): an explicit "version" (1, 2, 3,
 * "1.0", "2.0", "3.0") wins; then "format" ("annotations-v1",
 * "annotations-v2", "fish-scale-annotations" = v3); then sets[0] having
 * "calibration_um_per_pixel" means v3, sets without it v2; no "sets" means
 * v1. When the claimed version contradicts the structure (v1 with only
 * "sets", v2/v3 with only root "tubercles"), the structure wins, reported.
 *
 * v1 is read as one set "Base" with the root tubercles, edges and
 * parameters. v2 sets get the document calibration as their snapshot.
 *
 * Reading rules:
 *  - coordinates (centroid_x/y) must be finite JSON numbers within
 *    +-FS_ANNOT_MAX_COORD; otherwise the tubercle is refused (dropped) and
 *    counted. A negative radius is refused the same way.
 *  - radius_px missing or unusable: diameter_px / 2, else diameter_um /
 *    um_per_px / 2 (document calibration, else the set's); else, when one
 *    of them is given as null, the tubercle is unmeasured (radius NaN, its
 *    centre kept; counted in the report); else refused.
 *  - fit_quality: a number in 0..1, else unknown (NaN).
 *  - other fields of the wrong type are ignored with a warning (circularity
 *    defaults to 1, is_boundary to false); circularity is clamped to 0..1.
 *  - source: extracted, manual, lattice, agent; "debug_seed" becomes manual;
 *    an unknown name becomes extracted; a missing source is manual when
 *    diameter_px is missing too (the original's editor wrote neither), else
 *    extracted. Each case is counted in the report.
 *  - ids must be integers in 1..INT_MAX. A duplicate keeps its first
 *    owner; later tubercles with that id, and those with a bad or missing
 *    id, get new ids above the maximum. Edges are checked against the ids
 *    as written in the file (first owners), before any renumbering.
 *  - edges with a bad or unknown id, self-loops and repeats of the same
 *    unordered pair are dropped. x1..y2 and the distances are derived data
 *    and are ignored (recomputed on writing).
 *  - strings are cut to the model's field sizes at a UTF-8 character
 *    boundary; the report says which were cut.
 *  - parameters go through fs_params_set (graph_type is read as
 *    neighbor_graph); unknown or out-of-range ones are ignored, reported.
 *  - an empty history array is stored as NULL.
 *  - "statistics" and unknown keys are ignored, reported.
 *  - the report holds at most FS_ANNOT_REPORT_MAX_LINES warnings (plus one
 *    line per set and the version line); the rest are counted.
 *
 * Writing (v3.0): format, version "3.0", purpose, image_name, created,
 * modified, calibration {um_per_px, method} or null, parameters {},
 * activeSetId, sets, defaultTubercleDiameterUm (when non-zero). Every µm
 * value is derived from pixels with the document calibration, else the
 * set's snapshot, and omitted when there is neither. Edge distances: the
 * centre distance and the centre distance minus both radii clamped at 0.
 * An unmeasured tubercle's radius_px, diameter_px and diameter_um and the
 * edge_distance_um of its edges are null; fit_quality is written per
 * tubercle (null when unknown).
 * Numbers: integral values are cJSON numbers; every other double is a
 * cJSON_Raw node holding the shortest "%.15g".."%.17g" text that reads back
 * identical (cJSON's own printer rounds 0.30000000000000004 to 0.3), with
 * valuedouble set too, so read values with ->valuedouble, not
 * cJSON_IsNumber/cJSON_GetNumberValue. Non-finite values are written null.
 * The text assumes the C locale's decimal point (no setlocale(LC_NUMERIC)).
 */
#ifndef FS_ANNOTATION_JSON_H
#define FS_ANNOTATION_JSON_H

#include "store/annotation.h"

#define FS_ANNOT_MAX_SETS 100
#define FS_ANNOT_MAX_TUBERCLES 200000 /* per set */
#define FS_ANNOT_MAX_EDGES 1000000    /* per set */
#define FS_ANNOT_MAX_COORD 1e9        /* pixels; keeps squared distances finite */
#define FS_ANNOT_REPORT_MAX_LINES 200

#define FS_ANNOT_FORMAT "fish-scale-annotations"
#define FS_ANNOT_PURPOSE \
	"Tubercle and intertubercular space annotations for SEM fish scale classification"

#endif
