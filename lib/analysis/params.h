/*
 * params.h - extraction parameters with the original tool's names and units,
 * their ranges, and the built-in profiles.
 *
 * Every numeric field is range-checked by fs_params_validate(); 0 is a valid
 * value wherever it means "off" (blur_sigma, tophat_radius, min_circularity,
 * edge_margin_px, clahe_clip) and is never silently replaced by a default.
 */
#ifndef FS_PARAMS_H
#define FS_PARAMS_H

#include <stddef.h>

typedef enum fs_method {
	FS_METHOD_AUTO = 0, /* default: lattice pitch estimated from the image */
	FS_METHOD_LOG,
	FS_METHOD_DOG,
	FS_METHOD_ELLIPSE,
	FS_METHOD_LATTICE
} fs_method;

typedef enum fs_graph {
	FS_GRAPH_DELAUNAY = 0,
	FS_GRAPH_GABRIEL,
	FS_GRAPH_RNG
} fs_graph;

typedef struct fs_params {
	fs_method method;
	double threshold;       /* detector response threshold */
	double min_diameter_um;
	double max_diameter_um;
	double min_circularity; /* 0..1, 0 = off */
	double clahe_clip;      /* 0.01..0.20, 0 = CLAHE off */
	int clahe_kernel;       /* tile size in pixels */
	double blur_sigma;      /* pixels, 0 = off */
	fs_graph neighbor_graph;
	int cull_long_edges;    /* bool */
	double cull_factor;     /* x reference length, see graph.h */
	int edge_margin_px;     /* 0 = keep blobs up to the border */
	int tophat_radius;      /* pixels, 0 = off */
	double auto_prominence; /* auto, lattice: kept maxima stand out by this x the strong ones' */
	double auto_smoothing;  /* auto, lattice: smoothing sigma, x the lattice pitch */
} fs_params;

/* Range of one numeric parameter, for validation, the UI and the optimiser. */
typedef struct fs_param_range {
	const char *name;  /* JSON field name */
	double min, max;
	int is_integer;
	double default_value;
	const char *help;  /* one line, shown in the UI and --help */
} fs_param_range;

/*
 * The default cull factor: an edge longer than 1.4 x the median centre
 * distance is not between neighbours. On a hexagonal lattice the next
 * distance after the pitch a is sqrt(3) a (across a missing site); 1.4 a
 * lies between them, about (1 + sqrt(3)) / 2 a, with room for jitter and a
 * lattice a little longer in one direction (P1 Fig4: 71, 73 and 82 px).
 * At 1.8 the graph kept edges across holes and the mean space of
 * simulated lattices with 10-30 % of the sites missing came out 2-28 %
 * too large; at 1.4 it is within 1.3 % of the truth (pitch 16-64 px, fill
 * 0.3-0.73, position jitter up to 0.1 pitch: docs/paper-figures.md, h32d;
 * test_graph's spaces_between_neighbours).
 */
#define FS_CULL_FACTOR_DEFAULT 1.4

/* The table of numeric parameters (not method / neighbor_graph / cull_long_edges). */
const fs_param_range *fs_param_ranges(size_t *count);

/* Defaults of the "default" profile with method = auto. */
void fs_params_default(fs_params *p);

/*
 * Checks every field. Returns 0 when valid; otherwise -1 and writes a message
 * naming the field and its range into err (NUL-terminated, at most errlen).
 */
int fs_params_validate(const fs_params *p, char *err, size_t errlen);

/*
 * Sets one parameter from its JSON name and a textual value ("0.05", "log",
 * "true"). Returns 0, or -1 with a message in err (unknown name, bad value,
 * out of range).
 */
int fs_params_set(fs_params *p, const char *name, const char *value, char *err, size_t errlen);

const char *fs_method_name(fs_method m);
int fs_method_parse(const char *name, fs_method *out);
const char *fs_graph_name(fs_graph g);
int fs_graph_parse(const char *name, fs_graph *out);

/*
 * Which parameters a method uses: every detection method declares them
 * (the table in params.c), so the Extraction tab shows only those (the
 * others greyed with the reason), the optimisers and agents tune only
 * those, and `measure --help` says which belong to which method. name is a
 * parameter's JSON name (the numeric ones of fs_param_ranges, and
 * neighbor_graph, cull_long_edges: the neighbour graph, which every method
 * uses). Returns 1 when m uses it; 0 when not, with *why_not (may be NULL)
 * a static sentence saying why; -1 for an unknown name. It answers for the
 * process's measurement rule (measurement.h): under the dome rule auto and
 * lattice do not use auto_smoothing (their candidates are circle votes and
 * the image's dome template), so nothing offers or tunes it there.
 */
int fs_param_used_by(fs_method m, const char *name, const char **why_not);

/* Built-in profiles. */
typedef struct fs_profile {
	const char *name;
	const char *description;
	double calibration_um_per_px; /* 0 when the profile carries none */
	fs_params params;
} fs_profile;

const fs_profile *fs_profiles(size_t *count);
const fs_profile *fs_profile_find(const char *name); /* NULL if unknown */

#endif
