/*
 * annotation_json.c - reading any version of the original's annotation JSON
 * into an fs_annot_doc (see annotation_json.h for the rules, annotation.h
 * for ownership; writing v3.0 is annotation_write.c).
 *
 * The reader never trusts the file: every field is type-checked, every
 * repair is counted per set and reported once, and only out-of-memory or
 * input that is not an annotation file at all is fatal.
 */
#include "store/annotation_json.h"
#include "store/annot_id_index.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- report */

struct pctx {
	fs_buf *report;
	int oom;
	unsigned lines;      /* warnings written */
	unsigned suppressed; /* warnings over the budget */
};

static void vnote(struct pctx *c, int always, const char *fmt, va_list ap)
{
	if (!c->report)
		return;
	if (!always && c->lines >= FS_ANNOT_REPORT_MAX_LINES) {
		c->suppressed++;
		return;
	}
	if (!always)
		c->lines++;
	if (fs_buf_vprintf(c->report, fmt, ap) || fs_buf_putc(c->report, '\n'))
		c->oom = 1;
}

/* A warning: counts against the report budget. */
static void __attribute__((format(printf, 2, 3))) warn(struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vnote(c, 0, fmt, ap);
	va_end(ap);
}

/* A summary line: always written, so the report never loses its outline. */
static void __attribute__((format(printf, 2, 3))) info(struct pctx *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vnote(c, 1, fmt, ap);
	va_end(ap);
}

/*
 * Copies at most 60 bytes of s for a report line, control characters
 * replaced, cut at a character boundary, so a hostile name can neither
 * flood the report nor forge extra lines.
 */
static const char *shown(const char *s, char out[72])
{
	size_t n = 0;

	if (!s)
		s = "";
	while (s[n] && n < 60)
		n++;
	int cut = s[n] != '\0';
	if (cut) {
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		out[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	memcpy(out + n, cut ? "..." : "", cut ? 4 : 1);
	return out;
}

/* -------------------------------------------------------------- helpers */

/* Copies src into dst[cap] at a UTF-8 boundary; returns 1 when it was cut. */
static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);
	int cut = 0;
	if (n >= cap) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
			n--;
		cut = 1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return cut;
}

enum { V_MISSING, V_OK, V_TYPE, V_RANGE };

/* Reads a finite number; V_TYPE for a non-number, V_RANGE for inf/nan.
 * null counts as missing: the original writes it for "no value". */
static int get_num(const cJSON *it, double *v)
{
	if (!it || cJSON_IsNull(it))
		return V_MISSING;
	if (!cJSON_IsNumber(it))
		return V_TYPE;
	if (!isfinite(it->valuedouble))
		return V_RANGE;
	*v = it->valuedouble;
	return V_OK;
}

/* Reads an integer id in 1..INT_MAX. */
static int get_id(const cJSON *it, int *id)
{
	double v;
	int r = get_num(it, &v);
	if (r != V_OK)
		return r;
	if (v < 1 || v > INT_MAX || v != floor(v))
		return V_RANGE;
	*id = (int)v;
	return V_OK;
}

static const char *type_name(const cJSON *it)
{
	if (cJSON_IsString(it))
		return "string";
	if (cJSON_IsNumber(it))
		return "number";
	if (cJSON_IsBool(it))
		return "boolean";
	if (cJSON_IsNull(it))
		return "null";
	if (cJSON_IsArray(it))
		return "array";
	if (cJSON_IsObject(it))
		return "object";
	return "invalid";
}

/* Copies a string field; warns about the wrong type or a cut. */
static void read_str(struct pctx *c, const cJSON *it, char *dst, size_t cap, const char *where)
{
	char a[72];
	if (!it || cJSON_IsNull(it))
		return;
	if (!cJSON_IsString(it)) {
		warn(c, "%s: expected a string, got %s; ignored", where, type_name(it));
		return;
	}
	if (copy_str(dst, cap, it->valuestring))
		warn(c, "%s: cut to %zu bytes (\"%s\")", where, cap - 1, shown(it->valuestring, a));
}

/* ------------------------------------------------------------ per set */

/* Counters of everything repaired in one set, reported once at its end. */
struct set_stats {
	size_t not_object_tub, refused_coord, refused_radius, no_radius;
	size_t radius_from_dpx, radius_from_dum, unmeasured;
	size_t bad_id, dup_id, id_overflow;
	size_t debug_seed, unknown_source, missing_src_manual, missing_src_extracted;
	size_t circ_default, circ_clamped, ellipse_partial;
	size_t type_warn;
	char type_warn_field[32];
	size_t unknown_field;
	char unknown_field_name[40];
	char unknown_source_name[40];
	size_t not_object_edge, edge_bad_id, edge_missing, edge_self, edge_dup;
};

/* The raw fields of one tubercle before resolution. */
struct raw_tub {
	int id_state, id;
	int x_state, y_state;
	double x, y;
	int r_state, dpx_state, dum_state;
	double r, dpx, dum;
	int size_null; /* radius_px, diameter_px or diameter_um given as null: unmeasured */
	int q_state;
	double q; /* fit_quality */
	int circ_state;
	double circ;
	int maj_state, min_state, majum_state, minum_state, ori_state, ecc_state;
	double maj, min, majum, minum, ori, ecc;
	int boundary;
	const char *source; /* borrowed from the cJSON tree */
	int has_source;
};

static void type_warning(struct set_stats *st, const char *field)
{
	if (!st->type_warn++)
		copy_str(st->type_warn_field, sizeof st->type_warn_field, field);
}

/* Reads a numeric tubercle field: a wrong type is a warning (counted). */
static int tub_num(struct set_stats *st, const cJSON *it, double *v)
{
	int r = get_num(it, v);
	if (r == V_TYPE || r == V_RANGE)
		type_warning(st, it->string);
	return r;
}

static void read_raw_tub(const cJSON *obj, struct raw_tub *t, struct set_stats *st)
{
	const cJSON *it;
	memset(t, 0, sizeof *t);
	cJSON_ArrayForEach(it, obj) {
		const char *k = it->string ? it->string : "";
		if (!strcmp(k, "id")) {
			t->id_state = get_id(it, &t->id);
		} else if (!strcmp(k, "centroid_x")) {
			t->x_state = get_num(it, &t->x);
		} else if (!strcmp(k, "centroid_y")) {
			t->y_state = get_num(it, &t->y);
		} else if (!strcmp(k, "radius_px")) {
			t->r_state = tub_num(st, it, &t->r);
			t->size_null |= cJSON_IsNull(it);
		} else if (!strcmp(k, "diameter_px")) {
			t->dpx_state = tub_num(st, it, &t->dpx);
			t->size_null |= cJSON_IsNull(it);
		} else if (!strcmp(k, "diameter_um")) {
			t->dum_state = tub_num(st, it, &t->dum);
			t->size_null |= cJSON_IsNull(it);
		} else if (!strcmp(k, "fit_quality")) {
			t->q_state = tub_num(st, it, &t->q);
		} else if (!strcmp(k, "circularity")) {
			t->circ_state = tub_num(st, it, &t->circ);
		} else if (!strcmp(k, "major_axis_px")) {
			t->maj_state = tub_num(st, it, &t->maj);
		} else if (!strcmp(k, "minor_axis_px")) {
			t->min_state = tub_num(st, it, &t->min);
		} else if (!strcmp(k, "major_axis_um")) {
			t->majum_state = tub_num(st, it, &t->majum);
		} else if (!strcmp(k, "minor_axis_um")) {
			t->minum_state = tub_num(st, it, &t->minum);
		} else if (!strcmp(k, "orientation")) {
			t->ori_state = tub_num(st, it, &t->ori);
		} else if (!strcmp(k, "eccentricity")) {
			t->ecc_state = tub_num(st, it, &t->ecc);
		} else if (!strcmp(k, "is_boundary")) {
			if (cJSON_IsBool(it))
				t->boundary = cJSON_IsTrue(it);
			else if (cJSON_IsNumber(it) && isfinite(it->valuedouble))
				t->boundary = it->valuedouble != 0;
			else if (!cJSON_IsNull(it))
				type_warning(st, k);
		} else if (!strcmp(k, "source")) {
			if (cJSON_IsString(it)) {
				t->source = it->valuestring;
				t->has_source = 1;
			} else if (!cJSON_IsNull(it)) {
				type_warning(st, k);
			}
		} else {
			if (!st->unknown_field++)
				copy_str(st->unknown_field_name, sizeof st->unknown_field_name, k);
		}
	}
}

static int coord_ok(int state, double v)
{
	return state == V_OK && fabs(v) <= FS_ANNOT_MAX_COORD;
}

static int len_ok(int state, double v)
{
	return state == V_OK && v >= 0 && v <= FS_ANNOT_MAX_COORD;
}

/*
 * Turns raw fields into a tubercle; cal is the calibration for µm
 * fallbacks (0 = none). Returns 0, or 1 when the tubercle is refused.
 * t->id is 0 when the file gave no usable id.
 */
static int resolve_tub(const struct raw_tub *r, double cal, fs_tubercle *t, struct set_stats *st)
{
	fs_tubercle_init(t);
	if (!coord_ok(r->x_state, r->x) || !coord_ok(r->y_state, r->y)) {
		st->refused_coord++;
		return 1;
	}
	if (r->r_state == V_OK && r->r < 0) {
		st->refused_radius++;
		return 1;
	}
	if (len_ok(r->r_state, r->r)) {
		t->radius_px = r->r;
	} else if (len_ok(r->dpx_state, r->dpx)) {
		t->radius_px = r->dpx / 2;
		st->radius_from_dpx++;
	} else if (cal > 0 && r->dum_state == V_OK && r->dum >= 0 &&
		   r->dum / cal <= FS_ANNOT_MAX_COORD) {
		t->radius_px = r->dum / cal / 2;
		st->radius_from_dum++;
	} else if (r->size_null) {
		/* the writer said so: a tubercle whose base was not measured */
		t->radius_px = NAN;
		st->unmeasured++;
	} else {
		st->no_radius++;
		return 1;
	}
	t->centroid_x = r->x;
	t->centroid_y = r->y;
	if (r->q_state == V_OK && r->q >= 0 && r->q <= 1)
		t->fit_quality = r->q;
	if (r->id_state == V_OK) {
		t->id = r->id;
	} else {
		st->bad_id++;
		t->id = 0;
	}

	t->circularity = 1;
	if (isnan(t->radius_px)) {
		/* unmeasured: no outline, no circularity (tubercle.h), written
		 * as null, so not missing */
		t->circularity = FS_UNMEASURED_CIRCULARITY;
	} else if (r->circ_state == V_OK) {
		t->circularity = r->circ;
		if (t->circularity < 0 || t->circularity > 1) {
			t->circularity = t->circularity < 0 ? 0 : 1;
			st->circ_clamped++;
		}
	} else {
		st->circ_default++;
	}

	double maj = 0, min = 0;
	int have_maj = 0, have_min = 0;
	if (len_ok(r->maj_state, r->maj)) {
		maj = r->maj;
		have_maj = 1;
	} else if (cal > 0 && r->majum_state == V_OK && r->majum >= 0 &&
		   r->majum / cal <= FS_ANNOT_MAX_COORD) {
		maj = r->majum / cal;
		have_maj = 1;
	}
	if (len_ok(r->min_state, r->min)) {
		min = r->min;
		have_min = 1;
	} else if (cal > 0 && r->minum_state == V_OK && r->minum >= 0 &&
		   r->minum / cal <= FS_ANNOT_MAX_COORD) {
		min = r->minum / cal;
		have_min = 1;
	}
	if (have_maj && have_min) {
		t->has_ellipse = 1;
		t->major_axis_px = maj;
		t->minor_axis_px = min;
		t->orientation = r->ori_state == V_OK ? r->ori : 0;
		if (r->ecc_state == V_OK) {
			t->eccentricity = r->ecc;
		} else if (maj > 0 && min <= maj) {
			double q = min / maj;
			t->eccentricity = sqrt(1 - q * q);
		}
	} else if (have_maj || have_min || r->ori_state == V_OK || r->ecc_state == V_OK) {
		st->ellipse_partial++;
	}

	t->is_boundary = r->boundary;
	if (!r->has_source) {
		/* the original's editor wrote neither source nor diameter_px */
		if (r->dpx_state == V_MISSING) {
			t->source = FS_SOURCE_MANUAL;
			st->missing_src_manual++;
		} else {
			t->source = FS_SOURCE_EXTRACTED;
			st->missing_src_extracted++;
		}
	} else if (!strcmp(r->source, "debug_seed")) {
		t->source = FS_SOURCE_MANUAL;
		st->debug_seed++;
	} else if (fs_source_parse(r->source, &t->source)) {
		t->source = FS_SOURCE_EXTRACTED;
		if (!st->unknown_source++)
			copy_str(st->unknown_source_name, sizeof st->unknown_source_name, r->source);
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/*
 * Clears (to 0) the id of every later holder of a duplicate id and returns
 * the sorted unique ids in *ids_out (caller frees). -1 on out of memory.
 */
static int dedupe_ids(fs_tubercle_list *tl, int **ids_out, size_t *n_out, struct set_stats *st)
{
	fs_annot_id_idx *v = NULL;
	int *ids = NULL;
	size_t n = 0, k = 0;
	int rc = -1;

	v = malloc((tl->n ? tl->n : 1) * sizeof *v);
	ids = malloc((tl->n ? tl->n : 1) * sizeof *ids);
	if (!v || !ids)
		goto out;
	for (size_t i = 0; i < tl->n; i++) {
		if (tl->items[i].id > 0) {
			v[n].id = tl->items[i].id;
			v[n].idx = i;
			n++;
		}
	}
	qsort(v, n, sizeof *v, fs_annot_cmp_id_idx);
	for (size_t i = 0; i < n; i++) {
		if (i > 0 && v[i].id == v[i - 1].id) {
			tl->items[v[i].idx].id = 0;
			st->dup_id++;
		} else {
			ids[k++] = v[i].id;
		}
	}
	*ids_out = ids;
	*n_out = k;
	ids = NULL;
	rc = 0;
out:
	free(v);
	free(ids);
	return rc;
}

/* Gives every tubercle with id 0 a new id above the maximum; drops those
 * that would overflow int. */
static void assign_new_ids(fs_tubercle_list *tl, int max_id, struct set_stats *st)
{
	long long next = (long long)max_id + 1;
	size_t w = 0;
	for (size_t i = 0; i < tl->n; i++) {
		if (tl->items[i].id == 0) {
			if (next > INT_MAX) {
				st->id_overflow++;
				continue;
			}
			tl->items[i].id = (int)next++;
		}
		tl->items[w++] = tl->items[i];
	}
	tl->n = w;
}

static int read_tubercles(const cJSON *arr, double cal, fs_tubercle_list *tl, int **ids,
			  size_t *n_ids, struct set_stats *st)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		struct raw_tub r;
		fs_tubercle t;
		if (!cJSON_IsObject(it)) {
			st->not_object_tub++;
			continue;
		}
		read_raw_tub(it, &r, st);
		if (resolve_tub(&r, cal, &t, st))
			continue;
		if (fs_tubercle_list_append(tl, &t))
			return -1;
	}
	return dedupe_ids(tl, ids, n_ids, st);
}

struct pair_idx {
	int lo, hi;
	size_t idx;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair_idx *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Drops later repeats of the same unordered pair, keeping file order. */
static int drop_dup_edges(fs_edge_list *el, struct set_stats *st)
{
	struct pair_idx *v = NULL;
	unsigned char *drop = NULL;
	int rc = -1;

	if (el->n < 2)
		return 0;
	v = malloc(el->n * sizeof *v);
	drop = calloc(el->n, 1);
	if (!v || !drop)
		goto out;
	for (size_t i = 0; i < el->n; i++) {
		int a = el->items[i].id1, b = el->items[i].id2;
		v[i].lo = a < b ? a : b;
		v[i].hi = a < b ? b : a;
		v[i].idx = i;
	}
	qsort(v, el->n, sizeof *v, cmp_pair);
	for (size_t i = 1; i < el->n; i++) {
		if (v[i].lo == v[i - 1].lo && v[i].hi == v[i - 1].hi) {
			drop[v[i].idx] = 1;
			st->edge_dup++;
		}
	}
	size_t w = 0;
	for (size_t i = 0; i < el->n; i++)
		if (!drop[i])
			el->items[w++] = el->items[i];
	el->n = w;
	rc = 0;
out:
	free(v);
	free(drop);
	return rc;
}

static int read_edges(const cJSON *arr, const int *ids, size_t n_ids, fs_edge_list *el,
		      struct set_stats *st)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		fs_edge e;
		if (!cJSON_IsObject(it)) {
			st->not_object_edge++;
			continue;
		}
		if (get_id(cJSON_GetObjectItemCaseSensitive(it, "id1"), &e.id1) != V_OK ||
		    get_id(cJSON_GetObjectItemCaseSensitive(it, "id2"), &e.id2) != V_OK) {
			st->edge_bad_id++;
			continue;
		}
		if (!bsearch(&e.id1, ids, n_ids, sizeof *ids, cmp_int) ||
		    !bsearch(&e.id2, ids, n_ids, sizeof *ids, cmp_int)) {
			st->edge_missing++;
			continue;
		}
		if (e.id1 == e.id2) {
			st->edge_self++;
			continue;
		}
		if (fs_edge_list_append(el, &e))
			return -1;
	}
	return drop_dup_edges(el, st);
}

/* Reads a parameters object into s->params through fs_params_set. */
static void read_params(struct pctx *c, const cJSON *obj, fs_annot_set *s, const char *where)
{
	const cJSON *it;
	char a[72], b[72], msg[160], val[64];

	if (!obj || cJSON_IsNull(obj))
		return;
	if (cJSON_IsObject(obj) && !obj->child)
		return; /* {} is what the original writes when it has none */
	if (!cJSON_IsObject(obj)) {
		warn(c, "%s: parameters is a %s, not an object; ignored", where, type_name(obj));
		return;
	}
	fs_params_default(&s->params);
	s->has_params = 1;
	cJSON_ArrayForEach(it, obj) {
		const char *name = it->string ? it->string : "";
		const char *text;
		if (!strcmp(name, "graph_type"))
			name = "neighbor_graph";
		if (cJSON_IsString(it)) {
			text = it->valuestring;
		} else if (cJSON_IsNumber(it)) {
			snprintf(val, sizeof val, "%.17g", it->valuedouble);
			text = val;
		} else if (cJSON_IsBool(it)) {
			text = cJSON_IsTrue(it) ? "true" : "false";
		} else {
			warn(c, "%s: parameter \"%s\" is a %s; ignored", where, shown(name, a),
			     type_name(it));
			continue;
		}
		if (fs_params_set(&s->params, name, text, msg, sizeof msg))
			warn(c, "%s: parameter \"%s\" = \"%s\" ignored (%s)", where, shown(name, a),
			     shown(text, b), msg);
	}
}

static void report_set(struct pctx *c, const char *w, const struct set_stats *st)
{
	char a[72];
	if (st->not_object_tub)
		warn(c, "%s: %zu tubercle entries are not objects; dropped", w, st->not_object_tub);
	if (st->refused_coord)
		warn(c, "%s: %zu tubercles refused: centroid_x/centroid_y missing, not a number "
		     "or beyond %g px", w, st->refused_coord, FS_ANNOT_MAX_COORD);
	if (st->refused_radius)
		warn(c, "%s: %zu tubercles refused: negative radius_px", w, st->refused_radius);
	if (st->no_radius)
		warn(c, "%s: %zu tubercles refused: no usable radius_px, diameter_px or "
		     "calibrated diameter_um", w, st->no_radius);
	if (st->unmeasured)
		warn(c, "%s: %zu tubercles without a measured diameter (null): kept with their centres, "
		     "left out of the diameter and space statistics", w, st->unmeasured);
	if (st->radius_from_dpx)
		warn(c, "%s: %zu tubercles without radius_px: radius taken from diameter_px", w,
		     st->radius_from_dpx);
	if (st->radius_from_dum)
		warn(c, "%s: %zu tubercles without radius_px: radius taken from diameter_um and "
		     "the calibration", w, st->radius_from_dum);
	if (st->bad_id)
		warn(c, "%s: %zu tubercles with a missing or invalid id got new ids", w, st->bad_id);
	if (st->dup_id)
		warn(c, "%s: %zu tubercles repeat an id already used; they got new ids (edges "
		     "keep the first)", w, st->dup_id);
	if (st->id_overflow)
		warn(c, "%s: %zu tubercles dropped: no id left below %d", w, st->id_overflow,
		     INT_MAX);
	if (st->debug_seed)
		warn(c, "%s: %zu tubercles with source \"debug_seed\" read as manual", w,
		     st->debug_seed);
	if (st->unknown_source)
		warn(c, "%s: %zu tubercles with an unknown source (first \"%s\") read as extracted",
		     w, st->unknown_source, shown(st->unknown_source_name, a));
	if (st->missing_src_manual)
		warn(c, "%s: %zu tubercles without source or diameter_px read as manual", w,
		     st->missing_src_manual);
	if (st->missing_src_extracted)
		warn(c, "%s: %zu tubercles without source read as extracted", w,
		     st->missing_src_extracted);
	if (st->circ_default)
		warn(c, "%s: %zu tubercles without a numeric circularity: set to 1", w,
		     st->circ_default);
	if (st->circ_clamped)
		warn(c, "%s: %zu circularities outside 0..1 clamped", w, st->circ_clamped);
	if (st->ellipse_partial)
		warn(c, "%s: %zu incomplete ellipses (need major and minor axis) ignored", w,
		     st->ellipse_partial);
	if (st->type_warn)
		warn(c, "%s: %zu tubercle fields of the wrong type or not finite ignored (first "
		     "\"%s\")", w, st->type_warn, shown(st->type_warn_field, a));
	if (st->unknown_field)
		warn(c, "%s: %zu unknown tubercle fields ignored (first \"%s\")", w,
		     st->unknown_field, shown(st->unknown_field_name, a));
	if (st->not_object_edge)
		warn(c, "%s: %zu edge entries are not objects; dropped", w, st->not_object_edge);
	if (st->edge_bad_id)
		warn(c, "%s: %zu edges without integer id1/id2 dropped", w, st->edge_bad_id);
	if (st->edge_missing)
		warn(c, "%s: %zu edges referencing missing tubercle ids dropped", w,
		     st->edge_missing);
	if (st->edge_self)
		warn(c, "%s: %zu edges joining a tubercle to itself dropped", w, st->edge_self);
	if (st->edge_dup)
		warn(c, "%s: %zu repeated edges dropped", w, st->edge_dup);
}

/*
 * Reads the tubercles and edges arrays (either may be NULL) into s and
 * reports. cal is the calibration for µm fallbacks. Returns 0, -1 on out of
 * memory or over a limit (message in err).
 */
static int read_content(struct pctx *c, const cJSON *tubs, const cJSON *edges, double cal,
			fs_annot_set *s, const char *w, char *err, size_t errlen)
{
	struct set_stats st;
	int *ids = NULL;
	size_t n_ids = 0;
	int rc = -1;

	memset(&st, 0, sizeof st);
	if (tubs && !cJSON_IsArray(tubs)) {
		warn(c, "%s: tubercles is a %s, not an array; ignored", w, type_name(tubs));
		tubs = NULL;
	}
	if (edges && !cJSON_IsArray(edges) && !cJSON_IsNull(edges)) {
		warn(c, "%s: edges is a %s, not an array; ignored", w, type_name(edges));
		edges = NULL;
	}
	if (tubs && cJSON_GetArraySize(tubs) > FS_ANNOT_MAX_TUBERCLES) {
		snprintf(err, errlen, "%s has %d tubercles; at most %d are supported", w,
			 cJSON_GetArraySize(tubs), FS_ANNOT_MAX_TUBERCLES);
		goto out;
	}
	if (edges && cJSON_GetArraySize(edges) > FS_ANNOT_MAX_EDGES) {
		snprintf(err, errlen, "%s has %d edges; at most %d are supported", w,
			 cJSON_GetArraySize(edges), FS_ANNOT_MAX_EDGES);
		goto out;
	}
	if (read_tubercles(tubs, cal, &s->tubercles, &ids, &n_ids, &st) ||
	    read_edges(edges, ids, n_ids, &s->edges, &st)) {
		snprintf(err, errlen, "out of memory reading %s", w);
		goto out;
	}
	assign_new_ids(&s->tubercles, n_ids ? ids[n_ids - 1] : 0, &st);
	report_set(c, w, &st);
	rc = 0;
out:
	free(ids);
	return rc;
}

static const char *const set_keys[] = {
	"id", "name", "createdAt", "modifiedAt", "calibration_um_per_pixel",
	"tubercles", "edges", "parameters", "history", "measurement_version",
};

static int known_key(const char *k, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, keys[i]))
			return 1;
	return 0;
}

static void read_history(struct pctx *c, cJSON *set_obj, fs_annot_set *s, const char *w)
{
	cJSON *h = cJSON_GetObjectItemCaseSensitive(set_obj, "history");
	if (!h || cJSON_IsNull(h))
		return;
	if (!cJSON_IsArray(h)) {
		warn(c, "%s: history is a %s, not an array; ignored", w, type_name(h));
		return;
	}
	if (!h->child)
		return;
	s->history = cJSON_DetachItemViaPointer(set_obj, h);
}

/* Reads one element of "sets" (v2 and v3). */
static int read_set(struct pctx *c, cJSON *o, int version, double doc_cal, size_t index,
		    fs_annot_set *s, char *err, size_t errlen)
{
	char w[96], a[72];
	const cJSON *it;
	double v;

	snprintf(w, sizeof w, "set %zu", index + 1);
	read_str(c, cJSON_GetObjectItemCaseSensitive(o, "name"), s->name, sizeof s->name, w);
	if (!s->name[0]) {
		snprintf(s->name, sizeof s->name, index == 0 ? "Base" : "Set %zu", index + 1);
		warn(c, "%s: no name; named \"%s\"", w, s->name);
	}
	snprintf(w, sizeof w, "set %zu \"%s\"", index + 1, shown(s->name, a));
	read_str(c, cJSON_GetObjectItemCaseSensitive(o, "id"), s->id, sizeof s->id, w);
	read_str(c, cJSON_GetObjectItemCaseSensitive(o, "createdAt"), s->created,
		 sizeof s->created, w);
	read_str(c, cJSON_GetObjectItemCaseSensitive(o, "modifiedAt"), s->modified,
		 sizeof s->modified, w);

	it = cJSON_GetObjectItemCaseSensitive(o, "calibration_um_per_pixel");
	switch (get_num(it, &v)) {
	case V_OK:
		if (v > 0)
			s->calibration_um_per_px = v;
		else
			warn(c, "%s: calibration_um_per_pixel %g is not positive; ignored", w, v);
		break;
	case V_MISSING:
		if (version == 2)
			s->calibration_um_per_px = doc_cal;
		break;
	default:
		if (!cJSON_IsNull(it))
			warn(c, "%s: calibration_um_per_pixel is a %s; ignored", w, type_name(it));
		break;
	}

	it = cJSON_GetObjectItemCaseSensitive(o, "measurement_version");
	if (get_num(it, &v) == V_OK && v >= 0 && v <= 1000 && v == floor(v))
		s->measurement_version = (int)v;
	else if (it && !cJSON_IsNull(it))
		warn(c, "%s: measurement_version is not a version number; ignored", w);

	read_params(c, cJSON_GetObjectItemCaseSensitive(o, "parameters"), s, w);
	read_history(c, o, s, w);
	cJSON_ArrayForEach(it, o) {
		if (it->string && !known_key(it->string, set_keys,
					     sizeof set_keys / sizeof set_keys[0]))
			warn(c, "%s: unknown field \"%s\" ignored", w, shown(it->string, a));
	}
	double cal = doc_cal > 0 ? doc_cal : s->calibration_um_per_px;
	return read_content(c, cJSON_GetObjectItemCaseSensitive(o, "tubercles"),
			    cJSON_GetObjectItemCaseSensitive(o, "edges"), cal, s, w, err, errlen);
}

/* ---------------------------------------------------------- top level */

/* The version a "version" field claims: 1, 2, 3, or 0 when unusable. */
static int claimed_version(const cJSON *it)
{
	double v;
	if (cJSON_IsNumber(it)) {
		v = it->valuedouble;
	} else if (cJSON_IsString(it)) {
		char *end;
		v = strtod(it->valuestring, &end);
		if (end == it->valuestring || *end)
			return 0;
	} else {
		return 0;
	}
	if (v == 1 || v == 2 || v == 3)
		return (int)v;
	return 0;
}

static int format_version(const cJSON *it)
{
	if (!cJSON_IsString(it))
		return 0;
	if (!strcmp(it->valuestring, "annotations-v1"))
		return 1;
	if (!strcmp(it->valuestring, "annotations-v2"))
		return 2;
	if (!strcmp(it->valuestring, FS_ANNOT_FORMAT))
		return 3;
	return 0;
}

static int detect_version(struct pctx *c, const cJSON *root)
{
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
	const cJSON *sets = cJSON_GetObjectItemCaseSensitive(root, "sets");
	const cJSON *tubs = cJSON_GetObjectItemCaseSensitive(root, "tubercles");
	int has_sets = cJSON_IsArray(sets), has_tubs = cJSON_IsArray(tubs);
	char a[72];
	int v;
	const char *why;

	if ((v = claimed_version(ver))) {
		why = "the version field";
	} else if ((v = format_version(fmt))) {
		why = "the format field";
	} else if (has_sets) {
		const cJSON *s0 = cJSON_GetArrayItem(sets, 0);
		v = cJSON_GetObjectItemCaseSensitive(s0, "calibration_um_per_pixel") ? 3 : 2;
		why = v == 3 ? "sets[0] has calibration_um_per_pixel"
			     : "sets without calibration_um_per_pixel";
	} else {
		v = 1;
		why = "no sets";
	}
	if (ver && !claimed_version(ver)) {
		if (cJSON_IsString(ver))
			warn(c, "unsupported version \"%s\" ignored", shown(ver->valuestring, a));
		else
			warn(c, "unsupported version (a %s) ignored", type_name(ver));
	}
	if (fmt && !format_version(fmt)) {
		if (cJSON_IsString(fmt))
			warn(c, "unknown format \"%s\" ignored", shown(fmt->valuestring, a));
		else
			warn(c, "format is a %s; ignored", type_name(fmt));
	}
	if (v == 1 && !has_tubs && has_sets) {
		const cJSON *s0 = cJSON_GetArrayItem(sets, 0);
		v = cJSON_GetObjectItemCaseSensitive(s0, "calibration_um_per_pixel") ? 3 : 2;
		warn(c, "the file claims version 1 but has sets and no root tubercles; read as "
		     "version %d", v);
	} else if (v != 1 && !has_sets && has_tubs) {
		warn(c, "the file claims version %d but has root tubercles and no sets; read as "
		     "version 1", v);
		v = 1;
	}
	info(c, "detected version %d (%s)", v, why);
	return v;
}

static void read_calibration(struct pctx *c, const cJSON *cal, fs_annot_doc *d)
{
	const cJSON *um, *m;
	double v;

	if (!cal || cJSON_IsNull(cal))
		return;
	if (cJSON_IsNumber(cal)) {
		um = cal;
		m = NULL;
	} else if (cJSON_IsObject(cal)) {
		um = cJSON_GetObjectItemCaseSensitive(cal, "um_per_px");
		if (!um) {
			um = cJSON_GetObjectItemCaseSensitive(cal, "um_per_pixel");
			if (um)
				warn(c, "calibration: um_per_pixel read as um_per_px");
		}
		m = cJSON_GetObjectItemCaseSensitive(cal, "method");
		if (!m)
			m = cJSON_GetObjectItemCaseSensitive(cal, "source");
	} else {
		warn(c, "calibration is a %s; ignored", type_name(cal));
		return;
	}
	if (get_num(um, &v) != V_OK || v <= 0 || v > 1e6) {
		warn(c, "calibration: um_per_px missing, not a number or not positive; the "
		     "document is uncalibrated");
		return;
	}
	d->um_per_px = v;
	read_str(c, m, d->calibration_method, sizeof d->calibration_method, "calibration method");
}

static const char *const top_keys[] = {
	"format", "version", "purpose", "image_name", "created", "modified", "calibration",
	"parameters", "activeSetId", "sets", "defaultTubercleDiameterUm", "tubercles",
	"edges", "statistics", "_detected_version",
};

static void read_top_fields(struct pctx *c, const cJSON *root, int version, fs_annot_doc *d)
{
	const cJSON *it;
	char a[72];
	double v;

	read_str(c, cJSON_GetObjectItemCaseSensitive(root, "image_name"), d->image_name,
		 sizeof d->image_name, "image_name");
	read_str(c, cJSON_GetObjectItemCaseSensitive(root, "created"), d->created,
		 sizeof d->created, "created");
	read_calibration(c, cJSON_GetObjectItemCaseSensitive(root, "calibration"), d);

	it = cJSON_GetObjectItemCaseSensitive(root, "defaultTubercleDiameterUm");
	switch (get_num(it, &v)) {
	case V_MISSING:
		break;
	case V_OK:
		if (v > 0 && v <= 1e6) {
			d->default_tubercle_diameter_um = v;
			break;
		}
		/* fall through */
	default:
		if (!cJSON_IsNull(it))
			warn(c, "defaultTubercleDiameterUm is not a positive number; ignored");
		break;
	}
	if (cJSON_GetObjectItemCaseSensitive(root, "statistics"))
		warn(c, "statistics ignored (recomputed from the tubercles)");
	it = cJSON_GetObjectItemCaseSensitive(root, "parameters");
	if (version != 1 && it && !(cJSON_IsObject(it) && !it->child) && !cJSON_IsNull(it))
		warn(c, "top-level parameters ignored (each set has its own)");
	if (version != 1 && cJSON_GetObjectItemCaseSensitive(root, "tubercles"))
		warn(c, "root tubercles/edges ignored in a version %d file", version);
	cJSON_ArrayForEach(it, root) {
		if (it->string && !known_key(it->string, top_keys,
					     sizeof top_keys / sizeof top_keys[0]))
			warn(c, "unknown field \"%s\" ignored", shown(it->string, a));
	}
}

static void summarise(struct pctx *c, const fs_annot_doc *d)
{
	char a[72], b[72];
	for (size_t i = 0; i < d->n_sets; i++) {
		const fs_annot_set *s = &d->sets[i];
		info(c, "set %zu \"%s\" (id \"%s\"): %zu tubercles, %zu edges, parameters %s, "
		     "calibration %.6g um/px, %d history events%s", i + 1, shown(s->name, a),
		     shown(s->id, b), s->tubercles.n, s->edges.n, s->has_params ? "yes" : "no",
		     s->calibration_um_per_px, s->history ? cJSON_GetArraySize(s->history) : 0,
		     (int)i == d->active_set ? " (active)" : "");
	}
}

/* Picks the active set from activeSetId (or an index, as some files have). */
static void read_active(struct pctx *c, const cJSON *root, fs_annot_doc *d)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "activeSetId");
	char a[72];

	d->active_set = 0;
	if (!it || cJSON_IsNull(it))
		return;
	if (cJSON_IsString(it)) {
		if (!it->valuestring[0])
			return; /* what a file of sets without ids says */
		for (size_t i = 0; i < d->n_sets; i++) {
			if (d->sets[i].id[0] && !strcmp(d->sets[i].id, it->valuestring)) {
				d->active_set = (int)i;
				return;
			}
		}
		warn(c, "activeSetId \"%s\" names no set; the first set is active",
		     shown(it->valuestring, a));
		return;
	}
	if (cJSON_IsNumber(it) && it->valuedouble >= 0 &&
	    it->valuedouble < (double)d->n_sets && it->valuedouble == floor(it->valuedouble)) {
		d->active_set = (int)it->valuedouble;
		warn(c, "activeSetId is an index (%d)", d->active_set);
		return;
	}
	warn(c, "activeSetId is not a set id; the first set is active");
}

/* Clears later repeats of a set id so activeSetId stays unambiguous. */
static void dedupe_set_ids(struct pctx *c, fs_annot_doc *d)
{
	char a[72];
	for (size_t i = 1; i < d->n_sets; i++) {
		if (!d->sets[i].id[0])
			continue;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(d->sets[i].id, d->sets[j].id)) {
				warn(c, "set %zu repeats the id \"%s\" of set %zu; its id was cleared",
				     i + 1, shown(d->sets[i].id, a), j + 1);
				d->sets[i].id[0] = '\0';
				break;
			}
		}
	}
}

static int read_sets(struct pctx *c, cJSON *sets, int version, fs_annot_doc *d, char *err,
		     size_t errlen)
{
	int n = cJSON_GetArraySize(sets);
	cJSON *it;
	size_t i = 0;

	if (n > FS_ANNOT_MAX_SETS) {
		snprintf(err, errlen, "the file has %d sets; at most %d are supported", n,
			 FS_ANNOT_MAX_SETS);
		return -1;
	}
	d->sets = calloc((size_t)n, sizeof *d->sets);
	if (!d->sets) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(it, sets) {
		if (!cJSON_IsObject(it)) {
			warn(c, "sets[%zu] is a %s, not an object; skipped", i, type_name(it));
			i++;
			continue;
		}
		fs_annot_set *s = &d->sets[d->n_sets];
		d->n_sets++;
		if (read_set(c, it, version, d->um_per_px, i, s, err, errlen))
			return -1;
		i++;
	}
	if (!d->n_sets) {
		snprintf(err, errlen, "not an annotation file: no usable set");
		return -1;
	}
	return 0;
}

static int read_v1(struct pctx *c, const cJSON *root, fs_annot_doc *d, char *err, size_t errlen)
{
	fs_annot_set *s;

	d->sets = calloc(1, sizeof *d->sets);
	if (!d->sets) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	d->n_sets = 1;
	s = &d->sets[0];
	snprintf(s->name, sizeof s->name, "Base");
	s->calibration_um_per_px = d->um_per_px;
	read_params(c, cJSON_GetObjectItemCaseSensitive(root, "parameters"), s, "set 1 \"Base\"");
	return read_content(c, cJSON_GetObjectItemCaseSensitive(root, "tubercles"),
			    cJSON_GetObjectItemCaseSensitive(root, "edges"), d->um_per_px, s,
			    "set 1 \"Base\"", err, errlen);
}

int fs_annot_parse(const char *json, size_t len, fs_annot_doc *out, fs_buf *report,
		   char *err, size_t errlen)
{
	struct pctx c = {report, 0, 0, 0};
	cJSON *root = NULL;
	cJSON *sets;
	int version, rc = -1;
	size_t report_start = report ? report->len : 0;

	memset(out, 0, sizeof *out);
	if (!json) {
		snprintf(err, errlen, "no input");
		return -1;
	}
	root = cJSON_ParseWithLength(json, len);
	if (!root) {
		snprintf(err, errlen, "not an annotation file: not valid JSON (or nested too "
			 "deeply)");
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		snprintf(err, errlen, "not an annotation file: the JSON is a %s, not an object",
			 type_name(root));
		goto out;
	}
	sets = cJSON_GetObjectItemCaseSensitive(root, "sets");
	if (!cJSON_IsArray(sets) && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "tubercles"))) {
		snprintf(err, errlen, "not an annotation file: no sets or tubercles array");
		goto out;
	}
	version = detect_version(&c, root);
	out->detected_version = version;
	read_top_fields(&c, root, version, out);
	if (version == 1 ? read_v1(&c, root, out, err, errlen)
			 : read_sets(&c, sets, version, out, err, errlen))
		goto out;
	dedupe_set_ids(&c, out);
	if (version != 1)
		read_active(&c, root, out);
	summarise(&c, out);
	if (c.suppressed)
		info(&c, "%u further warnings not shown", c.suppressed);
	if (c.oom) {
		snprintf(err, errlen, "out of memory writing the report");
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc) {
		fs_annot_doc_free(out);
		if (report && report->len > report_start) {
			report->len = report_start;
			report->data[report_start] = '\0';
		}
	}
	return rc;
}
