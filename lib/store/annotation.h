/*
 * annotation.h - the in-memory annotation document: one image's named sets
 * of tubercles and connections, as read from or written to the original
 * tool's annotation JSON (see annotation_json.h for the file format rules).
 *
 * Ownership: an fs_annot_doc owns its sets array; each fs_annot_set owns its
 * tubercle and edge lists and its history array (a cJSON tree, freed with
 * cJSON_Delete). fs_annot_doc_free / fs_annot_set_free release everything,
 * tolerate NULL and zeroed structs, and leave the struct zeroed so a second
 * free is harmless.
 */
#ifndef FS_ANNOTATION_H
#define FS_ANNOTATION_H

#include <stddef.h>

#include <cJSON.h>

#include "base/buf.h"
#include "base/sink.h"
#include "analysis/params.h"
#include "image/tubercle.h"

typedef struct fs_annot_set {
	char id[64];             /* the file's set id ("set_<epochms>_<rand>"), may be "" */
	char name[128];
	char created[40], modified[40]; /* ISO 8601 strings as in the file, may be "" */
	fs_tubercle_list tubercles;     /* owned */
	fs_edge_list edges;             /* owned */
	int has_params;
	fs_params params;
	double calibration_um_per_px;   /* the set's snapshot; 0 = none */
	int measurement_version;        /* of the diameters (analysis/measurement.h); 0 = not said */
	cJSON *history;                 /* owned JSON array of history events as in the file (may be NULL) */
} fs_annot_set;

typedef struct fs_annot_doc {
	char image_name[256];
	double um_per_px;                    /* 0 when none */
	char calibration_method[32];         /* "" when none */
	fs_annot_set *sets;                  /* owned */
	size_t n_sets;
	int active_set;                      /* index into sets */
	double default_tubercle_diameter_um; /* 0 = absent */
	int detected_version;                /* 1, 2 or 3 after parsing */
	char created[40];
} fs_annot_doc;

void fs_annot_doc_free(fs_annot_doc *d);
void fs_annot_set_free(fs_annot_set *s);

/*
 * Parses an annotation file of any version (v1, v2, v3 and the legacy
 * _slo.json files, which hold one of those). report (may be NULL) receives
 * human-readable lines, each ending in "\n": the detected version and why,
 * one summary per set (name, counts), and every field ignored or repaired.
 * Returns 0 with *out filled (the caller frees it with fs_annot_doc_free),
 * or -1 with a message in err and *out zeroed, for input that is not an
 * annotation file at all (not JSON, not an object, no tubercles/sets) or
 * exceeds the limits in annotation_json.h. Partial garbage inside a valid
 * file is repaired or dropped and reported, never fatal.
 */
int fs_annot_parse(const char *json, size_t len, fs_annot_doc *out, fs_buf *report,
		   char *err, size_t errlen);

/*
 * Writes d in the original's v3.0 layout (see annotation_json.h for the
 * fields). modified_iso is the "modified" time to write (the caller supplies
 * it so tests are deterministic); it is also "created" when d->created is
 * "". Returns a new cJSON object the caller deletes with cJSON_Delete, or
 * NULL on out of memory.
 */
cJSON *fs_annot_to_json(const fs_annot_doc *d, const char *modified_iso);

/*
 * Writes the text cJSON_Print makes of fs_annot_to_json(d, modified_iso),
 * byte for byte, to out: a tubercle or an edge at a time, ticking the sink
 * after each, so only the set's rows and one chunk are in memory (issue
 * 15). Returns 0, or -1 (out of memory, or the sink's reader is gone; then
 * out->failed is set and the text is cut short).
 */
int fs_annot_write(const fs_annot_doc *d, const char *modified_iso, fs_sink *out);

/* The same, with each set's rows and history filled by load(ctx, i,
 * &d->sets[i]) just before the set is written and freed after it, so an
 * image's sets are in memory one at a time. load returns 0, or non-zero to
 * stop (returned as it is); d->sets[i] keeps its other fields. */
typedef int (*fs_annot_load_fn)(void *ctx, size_t i, fs_annot_set *s);
int fs_annot_write_sets(fs_annot_doc *d, const char *modified_iso, fs_annot_load_fn load, void *ctx,
			fs_sink *out);

#endif
