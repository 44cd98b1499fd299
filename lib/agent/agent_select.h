/*
 * agent_select.h - selections of tubercles for the agents' tools (issue 16):
 * "delete_tubercles where degree <= 1 inside the right edge band 15 %" is
 * one tool call with a selection, so a model (or the offline chat's small
 * grammar) can say where and what instead of naming ids one by one.
 *
 * A selection is a conjunction of criteria; every criterion given must hold:
 *   ids        listed ids
 *   region     rectangle {x0, y0, x1, y1} in screenshot pixels
 *   edge       band along an image side {side: left|right|top|bottom|any,
 *              width_percent (of the image's width or height, default 10)}
 *   corner     top-left|top-right|bottom-left|bottom-right|any: inside both
 *              bands that meet there (width_percent as for edge)
 *   near       {id, radius (screenshot px; default 1.5 lattice pitches)}
 *   min_degree / max_degree   connections in the set's graph
 *   diameter_above_um / diameter_below_um   (needs a calibration)
 *   diameter_above_px / diameter_below_px   (screenshot pixels)
 *   source     extracted|manual|lattice|agent
 *   isolated   true: at most one connection, or no tubercle within 1.5
 *              lattice pitches (the pitch: median nearest-neighbour distance)
 *   small / large   true: diameter below 0.6 x / above 1.6 x the median
 *
 * The schema (FS_AGENT_SELECTION_PROPS) is shared by the tools that take a
 * selection; fs_agent_select returns the matching ids in set order and a
 * one-line description of the criteria ("degree <= 1, right edge 15 %").
 *
 * Ownership: *ids is malloc'd for the caller; the session is borrowed.
 */
#ifndef FS_AGENT_SELECT_H
#define FS_AGENT_SELECT_H

#include <stddef.h>

#include <cJSON.h>

struct fs_agent_sess;

/* JSON Schema properties of a selection (without the enclosing braces). */
#define FS_AGENT_SELECTION_PROPS                                                                                     \
	"\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":1},\"maxItems\":5000},"             \
	"\"region\":{\"type\":\"object\",\"properties\":{\"x0\":{\"type\":\"number\"},\"y0\":{\"type\":\"number\"},"  \
	"\"x1\":{\"type\":\"number\"},\"y1\":{\"type\":\"number\"}},\"required\":[\"x0\",\"y0\",\"x1\",\"y1\"],"      \
	"\"description\":\"rectangle in screenshot pixels\"},"                                                        \
	"\"edge\":{\"type\":\"object\",\"properties\":{\"side\":{\"type\":\"string\",\"enum\":[\"left\",\"right\","   \
	"\"top\",\"bottom\",\"any\"]},\"width_percent\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":100}}," \
	"\"required\":[\"side\"],\"description\":\"band along an image side, width in percent of the image\"},"       \
	"\"corner\":{\"type\":\"object\",\"properties\":{\"which\":{\"type\":\"string\",\"enum\":[\"top-left\","      \
	"\"top-right\",\"bottom-left\",\"bottom-right\",\"any\"]},\"width_percent\":{\"type\":\"number\","            \
	"\"exclusiveMinimum\":0,\"maximum\":100}},\"required\":[\"which\"]},"                                         \
	"\"near\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\",\"minimum\":1},"                  \
	"\"radius\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"description\":\"screenshot pixels\"}},"           \
	"\"required\":[\"id\"]},"                                                                                    \
	"\"min_degree\":{\"type\":\"integer\",\"minimum\":0},\"max_degree\":{\"type\":\"integer\",\"minimum\":0},"    \
	"\"diameter_above_um\":{\"type\":\"number\",\"minimum\":0},\"diameter_below_um\":{\"type\":\"number\","       \
	"\"minimum\":0},\"diameter_above_px\":{\"type\":\"number\",\"minimum\":0},\"diameter_below_px\":{"           \
	"\"type\":\"number\",\"minimum\":0},"                                                                         \
	"\"source\":{\"type\":\"string\",\"enum\":[\"extracted\",\"manual\",\"lattice\",\"agent\"]},"                 \
	"\"isolated\":{\"type\":\"boolean\"},\"small\":{\"type\":\"boolean\"},\"large\":{\"type\":\"boolean\"}"

/* 1 when args hold at least one selection criterion. */
int fs_agent_selection_given(const cJSON *args);

/*
 * The ids of s's tubercles matching the selection in args (all of them when
 * it has no criterion). desc gets the criteria in words. 0, or -1 with err
 * (a criterion that cannot be applied: µm without calibration, an unknown
 * near id, out of memory).
 */
int fs_agent_select(const struct fs_agent_sess *s, const cJSON *args, int **ids, size_t *n, char *desc,
		    size_t desclen, char *err, size_t errlen);

/* 1 when image point (x, y) is inside the selection's area criteria
 * (region, edge, corner, near; the others are ignored). */
int fs_agent_point_in_area(const struct fs_agent_sess *s, const cJSON *args, double x, double y);

/* "#3, #5, #9" (at most max ids, then "and N more"). */
void fs_agent_ids_text(const int *ids, size_t n, size_t max, char *out, size_t outlen);

/* Median nearest-neighbour distance of s's tubercles (image px), 0 below 2. */
double fs_agent_pitch(const struct fs_agent_sess *s);

#endif
