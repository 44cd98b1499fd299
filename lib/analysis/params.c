/*
 * params.c - the parameter table (names, ranges, defaults, help), validation
 * and textual setting of fs_params (see params.h).
 *
 * One table drives validation, the UI and the optimiser, so a range can never
 * differ between them. Bounds are the original optimiser's where it had them.
 */
#include "analysis/params.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/measurement.h"

enum {
	P_THRESHOLD,
	P_MIN_DIAM,
	P_MAX_DIAM,
	P_MIN_CIRC,
	P_CLAHE_CLIP,
	P_CLAHE_KERNEL,
	P_BLUR,
	P_CULL_FACTOR,
	P_EDGE_MARGIN,
	P_TOPHAT,
	P_AUTO_PROMINENCE,
	P_AUTO_SMOOTHING,
	P_COUNT
};

static const fs_param_range ranges[P_COUNT] = {
	[P_THRESHOLD] = {"threshold", 0.01, 0.50, 0, 0.05,
			 "detector response threshold (lower finds fainter tubercles)"},
	[P_MIN_DIAM] = {"min_diameter_um", 0.5, 20.0, 0, 2.0,
			"smallest tubercle diameter searched, micrometres"},
	[P_MAX_DIAM] = {"max_diameter_um", 1.0, 50.0, 0, 10.0,
			"largest tubercle diameter searched, micrometres"},
	[P_MIN_CIRC] = {"min_circularity", 0.0, 1.0, 0, 0.5,
			"drop blobs less circular than this (0 = off)"},
	[P_CLAHE_CLIP] = {"clahe_clip", 0.0, 0.20, 0, 0.03,
			  "CLAHE clip limit, 0.01-0.20 (0 = CLAHE off)"},
	[P_CLAHE_KERNEL] = {"clahe_kernel", 4, 32, 1, 8, "CLAHE tile size in pixels"},
	[P_BLUR] = {"blur_sigma", 0.0, 5.0, 0, 1.0, "Gaussian blur sigma in pixels (0 = off)"},
	[P_CULL_FACTOR] = {"cull_factor", 1.0, 5.0, 0, FS_CULL_FACTOR_DEFAULT,
			   "edges longer than this x the median centre distance are culled"},
	[P_EDGE_MARGIN] = {"edge_margin_px", 0, 200, 1, 10,
			   "ignore blobs closer than this to the border, pixels (0 = off)"},
	[P_TOPHAT] = {"tophat_radius", 0, 100, 1, 0,
		      "white top-hat radius for uneven illumination, pixels (0 = off)"},
	[P_AUTO_PROMINENCE] = {"auto_prominence", 0.05, 0.9, 0, 0.3,
			       "keep maxima whose prominence is at least this x the strong ones' (90th "
			       "percentile); lower finds fainter tubercles"},
	[P_AUTO_SMOOTHING] = {"auto_smoothing", 0.05, 0.4, 0, 0.15,
			      "smoothing before finding maxima, sigma as a fraction of the lattice pitch; "
			      "higher merges close maxima"},
};

const fs_param_range *fs_param_ranges(size_t *count)
{
	if (count)
		*count = P_COUNT;
	return ranges;
}

void fs_params_default(fs_params *p)
{
	memset(p, 0, sizeof *p);
	p->method = FS_METHOD_AUTO;
	p->threshold = ranges[P_THRESHOLD].default_value;
	p->min_diameter_um = ranges[P_MIN_DIAM].default_value;
	p->max_diameter_um = ranges[P_MAX_DIAM].default_value;
	p->min_circularity = ranges[P_MIN_CIRC].default_value;
	p->clahe_clip = ranges[P_CLAHE_CLIP].default_value;
	p->clahe_kernel = (int)ranges[P_CLAHE_KERNEL].default_value;
	p->blur_sigma = ranges[P_BLUR].default_value;
	p->neighbor_graph = FS_GRAPH_GABRIEL;
	p->cull_long_edges = 1;
	p->cull_factor = ranges[P_CULL_FACTOR].default_value;
	p->edge_margin_px = (int)ranges[P_EDGE_MARGIN].default_value;
	p->tophat_radius = (int)ranges[P_TOPHAT].default_value;
	p->auto_prominence = ranges[P_AUTO_PROMINENCE].default_value;
	p->auto_smoothing = ranges[P_AUTO_SMOOTHING].default_value;
}

static double get(const fs_params *p, int i)
{
	switch (i) {
	case P_THRESHOLD: return p->threshold;
	case P_MIN_DIAM: return p->min_diameter_um;
	case P_MAX_DIAM: return p->max_diameter_um;
	case P_MIN_CIRC: return p->min_circularity;
	case P_CLAHE_CLIP: return p->clahe_clip;
	case P_CLAHE_KERNEL: return p->clahe_kernel;
	case P_BLUR: return p->blur_sigma;
	case P_CULL_FACTOR: return p->cull_factor;
	case P_EDGE_MARGIN: return p->edge_margin_px;
	case P_TOPHAT: return p->tophat_radius;
	case P_AUTO_PROMINENCE: return p->auto_prominence;
	case P_AUTO_SMOOTHING: return p->auto_smoothing;
	}
	return NAN;
}

static void put(fs_params *p, int i, double v)
{
	switch (i) {
	case P_THRESHOLD: p->threshold = v; break;
	case P_MIN_DIAM: p->min_diameter_um = v; break;
	case P_MAX_DIAM: p->max_diameter_um = v; break;
	case P_MIN_CIRC: p->min_circularity = v; break;
	case P_CLAHE_CLIP: p->clahe_clip = v; break;
	case P_CLAHE_KERNEL: p->clahe_kernel = (int)v; break;
	case P_BLUR: p->blur_sigma = v; break;
	case P_CULL_FACTOR: p->cull_factor = v; break;
	case P_EDGE_MARGIN: p->edge_margin_px = (int)v; break;
	case P_TOPHAT: p->tophat_radius = (int)v; break;
	case P_AUTO_PROMINENCE: p->auto_prominence = v; break;
	case P_AUTO_SMOOTHING: p->auto_smoothing = v; break;
	}
}

/* clahe_clip is the one field whose "off" value lies outside its range. */
static int value_ok(int i, double v)
{
	if (!isfinite(v))
		return 0;
	if (i == P_CLAHE_CLIP && v == 0.0)
		return 1;
	if (i == P_CLAHE_CLIP && v < 0.01)
		return 0;
	return v >= ranges[i].min && v <= ranges[i].max;
}

static void range_msg(int i, char *err, size_t errlen)
{
	if (i == P_CLAHE_CLIP)
		snprintf(err, errlen, "clahe_clip must be 0 (off) or between 0.01 and 0.2");
	else if (ranges[i].is_integer)
		snprintf(err, errlen, "%s must be an integer between %g and %g", ranges[i].name,
			 ranges[i].min, ranges[i].max);
	else
		snprintf(err, errlen, "%s must be between %g and %g", ranges[i].name, ranges[i].min,
			 ranges[i].max);
}

int fs_params_validate(const fs_params *p, char *err, size_t errlen)
{
	if (!p) {
		snprintf(err, errlen, "no parameters");
		return -1;
	}
	if ((unsigned)p->method > FS_METHOD_LATTICE) {
		snprintf(err, errlen, "method is not one of auto, log, dog, ellipse, lattice");
		return -1;
	}
	if ((unsigned)p->neighbor_graph > FS_GRAPH_RNG) {
		snprintf(err, errlen, "neighbor_graph is not one of delaunay, gabriel, rng");
		return -1;
	}
	if (p->cull_long_edges != 0 && p->cull_long_edges != 1) {
		snprintf(err, errlen, "cull_long_edges must be true or false");
		return -1;
	}
	for (int i = 0; i < P_COUNT; i++) {
		if (!value_ok(i, get(p, i))) {
			range_msg(i, err, errlen);
			return -1;
		}
	}
	if (p->min_diameter_um > p->max_diameter_um) {
		snprintf(err, errlen, "min_diameter_um must not exceed max_diameter_um");
		return -1;
	}
	return 0;
}

static const char *const method_names[] = {"auto", "log", "dog", "ellipse", "lattice"};
static const char *const graph_names[] = {"delaunay", "gabriel", "rng"};

const char *fs_method_name(fs_method m)
{
	if ((unsigned)m > FS_METHOD_LATTICE)
		return "unknown";
	return method_names[m];
}

int fs_method_parse(const char *name, fs_method *out)
{
	if (!name)
		return -1;
	for (int i = 0; i <= FS_METHOD_LATTICE; i++) {
		if (strcmp(name, method_names[i]) == 0) {
			*out = (fs_method)i;
			return 0;
		}
	}
	return -1;
}

const char *fs_graph_name(fs_graph g)
{
	if ((unsigned)g > FS_GRAPH_RNG)
		return "unknown";
	return graph_names[g];
}

int fs_graph_parse(const char *name, fs_graph *out)
{
	if (!name)
		return -1;
	for (int i = 0; i <= FS_GRAPH_RNG; i++) {
		if (strcmp(name, graph_names[i]) == 0) {
			*out = (fs_graph)i;
			return 0;
		}
	}
	return -1;
}

/* Strict number parsing: the whole string must be one finite number. */
static int parse_number(const char *s, double *out)
{
	char *end;
	if (!s || !*s)
		return -1;
	errno = 0;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_bool(const char *s, int *out)
{
	if (!s)
		return -1;
	if (!strcasecmp(s, "true") || !strcmp(s, "1") || !strcasecmp(s, "yes") ||
	    !strcasecmp(s, "on")) {
		*out = 1;
		return 0;
	}
	if (!strcasecmp(s, "false") || !strcmp(s, "0") || !strcasecmp(s, "no") ||
	    !strcasecmp(s, "off")) {
		*out = 0;
		return 0;
	}
	return -1;
}

int fs_params_set(fs_params *p, const char *name, const char *value, char *err, size_t errlen)
{
	if (!p || !name || !value) {
		snprintf(err, errlen, "missing parameter name or value");
		return -1;
	}
	if (!strcmp(name, "method")) {
		if (fs_method_parse(value, &p->method)) {
			snprintf(err, errlen, "method must be one of auto, log, dog, ellipse, lattice");
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "neighbor_graph")) {
		if (fs_graph_parse(value, &p->neighbor_graph)) {
			snprintf(err, errlen, "neighbor_graph must be one of delaunay, gabriel, rng");
			return -1;
		}
		return 0;
	}
	if (!strcmp(name, "cull_long_edges")) {
		if (parse_bool(value, &p->cull_long_edges)) {
			snprintf(err, errlen, "cull_long_edges must be true or false");
			return -1;
		}
		return 0;
	}
	for (int i = 0; i < P_COUNT; i++) {
		if (strcmp(name, ranges[i].name))
			continue;
		double v;
		if (parse_number(value, &v)) {
			snprintf(err, errlen, "%s: '%.40s' is not a number", name, value);
			return -1;
		}
		if (ranges[i].is_integer && v != floor(v)) {
			range_msg(i, err, errlen);
			return -1;
		}
		if (!value_ok(i, v)) {
			range_msg(i, err, errlen);
			return -1;
		}
		put(p, i, v);
		return 0;
	}
	snprintf(err, errlen, "unknown parameter '%.60s'", name);
	return -1;
}

/* ---- which method uses which parameter ---- */

#define M_AUTO (1u << FS_METHOD_AUTO)
#define M_LOG (1u << FS_METHOD_LOG)
#define M_DOG (1u << FS_METHOD_DOG)
#define M_ELLIPSE (1u << FS_METHOD_ELLIPSE)
#define M_LATTICE (1u << FS_METHOD_LATTICE)
#define M_ALL (M_AUTO | M_LOG | M_DOG | M_ELLIPSE | M_LATTICE)

/* Read from the code of each method (detect*.c): a parameter is used when
 * the method's result can depend on it. The sentence says why not. */
static const struct {
	const char *name;
	unsigned methods;
	const char *why_not;
} uses[] = {
	{"threshold", M_LOG | M_DOG,
	 "auto and lattice keep maxima by their prominence relative to the strong ones (auto_prominence); "
	 "ellipse thresholds by Otsu's method"},
	{"min_diameter_um", M_LOG | M_DOG | M_ELLIPSE,
	 "auto and lattice take the size from the lattice pitch they estimate"},
	{"max_diameter_um", M_LOG | M_DOG | M_ELLIPSE,
	 "auto and lattice take the size from the lattice pitch they estimate"},
	{"min_circularity", M_ALL, ""},
	{"clahe_clip", M_ALL, ""},
	{"clahe_kernel", M_LOG | M_DOG | M_ELLIPSE,
	 "auto and lattice set the CLAHE tile to 3 x the lattice pitch"},
	{"blur_sigma", M_ALL, ""},
	{"cull_factor", M_ALL, ""},
	{"edge_margin_px", M_ALL, ""},
	{"tophat_radius", M_ALL, ""},
	{"auto_prominence", M_AUTO | M_LATTICE, "only auto and lattice keep maxima by prominence"},
	{"auto_smoothing", M_AUTO | M_LATTICE, "only auto and lattice smooth at a fraction of the lattice pitch"},
	{"neighbor_graph", M_ALL, ""},
	{"cull_long_edges", M_ALL, ""},
};

/* What the dome rule (measurement.h) does not read although the method
 * does under the outline rule: its candidates are circle votes on edges
 * smoothed at 5 % of the pitch and the peaks of the image's own dome
 * template (detect_auto.c, dome_template.c), for auto and for lattice,
 * whose probes search that response; auto_smoothing is the outline rule's
 * smoothing of the brightness. */
static const struct {
	const char *name;
	const char *why_not;
} dome_unused[] = {
	{"auto_smoothing", "under the dome rule auto and lattice find candidates by circle votes on edges "
			   "smoothed at 5 % of the pitch and the image's own dome template, not by smoothing"},
};

int fs_param_used_by(fs_method m, const char *name, const char **why_not)
{
	if (why_not)
		*why_not = NULL;
	if (!name || (unsigned)m > FS_METHOD_LATTICE)
		return -1;
	if (fs_measurement_get_rule() == FS_RULE_DOME && (m == FS_METHOD_AUTO || m == FS_METHOD_LATTICE))
		for (size_t i = 0; i < sizeof dome_unused / sizeof dome_unused[0]; i++)
			if (!strcmp(dome_unused[i].name, name)) {
				if (why_not)
					*why_not = dome_unused[i].why_not;
				return 0;
			}
	for (size_t i = 0; i < sizeof uses / sizeof uses[0]; i++) {
		if (strcmp(uses[i].name, name))
			continue;
		if (uses[i].methods & (1u << m))
			return 1;
		if (why_not)
			*why_not = uses[i].why_not;
		return 0;
	}
	return -1;
}
