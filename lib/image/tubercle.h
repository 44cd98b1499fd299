/*
 * tubercle.h - the annotation model: tubercles (nodes) and connections (edges).
 *
 * Coordinates and lengths are stored in image pixels only; every µm value is
 * derived from pixels and the calibration (µm per pixel) when it is needed,
 * so a calibration change can never leave a stale µm value behind.
 *
 * Field names follow the original tool's JSON: id, centroid_x, centroid_y,
 * radius_px, circularity, major_axis_px, minor_axis_px, orientation,
 * eccentricity, is_boundary, source; edges id1, id2.
 *
 * Unmeasured diameters: a tubercle whose base could not be measured keeps
 * its centre and has radius_px = NaN (JSON null, an empty CSV cell, SQL
 * NULL); every consumer tests fs_tubercle_measured() before using the
 * radius, and the statistics leave such tubercles out of the diameter and
 * space figures and count them (n_unmeasured). fit_quality is the
 * measurement's confidence in 0..1, NaN when unknown (manual tubercles,
 * measurements that do not fit a model).
 *
 * Circularity belongs to the measured outline, so an unmeasured tubercle
 * has none either (issue 13, h33f): every writer gives it as the diameter
 * (fs_tubercle_circularity: null in JSON, an empty CSV cell, blank in the
 * workspace's table). In memory and in storage, whose column is NOT NULL,
 * it holds FS_UNMEASURED_CIRCULARITY (fs_tubercle_set_unmeasured), the 1 a
 * tubercle placed by hand gets: no earlier measurement's value lingers,
 * and a resize, which draws a circle, reads right.
 *
 * Ownership: fs_tubercle_list / fs_edge_list own their arrays; free with
 * *_list_free (tolerates NULL). Append functions grow the array and return
 * -1 on out of memory, leaving the list as it was.
 */
#ifndef FS_TUBERCLE_H
#define FS_TUBERCLE_H

#include <stddef.h>

typedef enum fs_source {
	FS_SOURCE_EXTRACTED = 0, /* found by detection */
	FS_SOURCE_MANUAL,        /* added by a person in the editor */
	FS_SOURCE_LATTICE,       /* recovered from the lattice model */
	FS_SOURCE_AGENT          /* added by an agent */
} fs_source;

typedef struct fs_tubercle {
	int id;              /* 1-based, unique within a set */
	double centroid_x;   /* pixels, origin top-left, x to the right */
	double centroid_y;   /* pixels, y downwards */
	double radius_px;    /* NaN = the base could not be measured */
	double fit_quality;  /* 0..1, NaN = unknown */
	double circularity;  /* 0..1 */
	int has_ellipse;     /* the four fields below are valid when set */
	double major_axis_px; /* full axis lengths */
	double minor_axis_px;
	double orientation;  /* radians */
	double eccentricity;
	int is_boundary;
	fs_source source;
} fs_tubercle;

typedef struct fs_edge {
	int id1, id2; /* tubercle ids */
} fs_edge;

typedef struct fs_tubercle_list {
	fs_tubercle *items;
	size_t n, cap;
} fs_tubercle_list;

typedef struct fs_edge_list {
	fs_edge *items;
	size_t n, cap;
} fs_edge_list;

/* A zeroed tubercle with fit_quality NaN (unknown), for code that builds one. */
void fs_tubercle_init(fs_tubercle *t);
/* 1 when the tubercle has a diameter: radius_px finite and > 0. */
int fs_tubercle_measured(const fs_tubercle *t);

#define FS_UNMEASURED_CIRCULARITY 1.0
/* Leaves t unmeasured: radius NaN, ellipse cleared, circularity
 * FS_UNMEASURED_CIRCULARITY; centre, id, source and fit quality (which
 * says why, measurement.h) untouched. */
void fs_tubercle_set_unmeasured(fs_tubercle *t);
/* Gives t m's size and shape (radius, circularity, ellipse); t's centre,
 * id, source, boundary flag and fit quality untouched: a measurement
 * taken for a centre that stays where it is (detection's final sizes,
 * Re-measure), one copy so a new shape field reaches both. */
void fs_tubercle_take_size(fs_tubercle *t, const fs_tubercle *m);
/* The circularity a writer gives: NaN (null, empty) where the diameter is
 * (radius NaN), else t->circularity. */
double fs_tubercle_circularity(const fs_tubercle *t);

int fs_tubercle_list_append(fs_tubercle_list *l, const fs_tubercle *t);
void fs_tubercle_list_free(fs_tubercle_list *l); /* frees items, zeroes l */
int fs_edge_list_append(fs_edge_list *l, const fs_edge *e);
void fs_edge_list_free(fs_edge_list *l);

/*
 * Position of each tubercle id in a list, for walking edges (which name
 * tubercles by id) in O(log n) per lookup instead of a scan: sorted pairs,
 * binary search. Built once per list; the list must not change meanwhile.
 * fs_tubercle_index_new returns NULL on out of memory; free with
 * fs_tubercle_index_free (tolerates NULL).
 */
typedef struct fs_tubercle_index fs_tubercle_index;
fs_tubercle_index *fs_tubercle_index_new(const fs_tubercle_list *t);
/* The position of id in the list, or -1. */
int fs_tubercle_index_find(const fs_tubercle_index *ix, int id);
void fs_tubercle_index_free(fs_tubercle_index *ix);

/* Name used in JSON/CSV for a source ("extracted", "manual", "lattice", "agent"). */
const char *fs_source_name(fs_source s);
/* Parses a source name; returns -1 for an unknown name. */
int fs_source_parse(const char *name, fs_source *out);

#endif
