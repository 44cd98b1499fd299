/*
 * annotation_write.c - writing an annotation document as the original's
 * v3.0 file (see annotation_json.h for the fields and the numbers' text,
 * annotation.h for ownership): as a cJSON tree (fs_annot_to_json), or as
 * the text cJSON_Print makes of that tree, written to a sink a tubercle at
 * a time (fs_annot_write), so a download of 70,000 tubercles never holds
 * the tree (issue 15: 466 MB) nor the text.
 */
#include "store/annotation_json.h"
#include "store/annot_id_index.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num_format.h"

/* Adds item under a literal key; frees item and returns -1 on failure. */
static int add(cJSON *obj, const char *literal_key, cJSON *item)
{
	if (!item)
		return -1;
	if (!cJSON_AddItemToObjectCS(obj, literal_key, item)) {
		cJSON_Delete(item);
		return -1;
	}
	return 0;
}

/* Lays out k significant digits d (value d.ddd x 10^e10) as printf's %g
 * would: fixed notation for -4 <= e10 < k, else d.ddde+XX. */
static void layout_digits(int neg, const char *d, int k, int e10, char *out)
{
	char *p = out;

	if (neg)
		*p++ = '-';
	if (e10 < -4 || e10 >= k) {
		*p++ = d[0];
		if (k > 1) {
			*p++ = '.';
			memcpy(p, d + 1, (size_t)k - 1);
			p += k - 1;
		}
		sprintf(p, "e%c%02d", e10 < 0 ? '-' : '+', e10 < 0 ? -e10 : e10);
		return;
	}
	if (e10 < 0) {
		*p++ = '0';
		*p++ = '.';
		for (int i = -1; i > e10; i--)
			*p++ = '0';
		memcpy(p, d, (size_t)k);
		p += k;
	} else {
		memcpy(p, d, (size_t)e10 + 1);
		p += e10 + 1;
		if (k > e10 + 1) {
			*p++ = '.';
			memcpy(p, d + e10 + 1, (size_t)(k - e10 - 1));
			p += k - e10 - 1;
		}
	}
	*p = '\0';
}

/*
 * The shortest text of 15, 16 or 17 significant digits that reads back as
 * v. One printf gives the 17 digits; the shorter candidates are rounded
 * from them in decimal and confirmed with strtod, which is several times
 * cheaper than a printf per candidate (a 200,000-tubercle set writes
 * millions of numbers). 17 digits always read back identical.
 */
static void exact_text(double v, char out[40])
{
	char e[40], dig[17], r[17];
	const char *p = e;
	int neg = 0, nd = 0;

	int e17;
	if (!fs_digits17(v, dig, &e17)) {
		/* printf's 17 digits without printf (num_format.h): its
		 * multi-precision work was most of an export's time */
		neg = v < 0;
		nd = 17;
	} else {
		snprintf(e, sizeof e, "%.16e", v);
		if (*p == '-') {
			neg = 1;
			p++;
		}
		for (; *p && *p != 'e' && nd < 17; p++)
			if (*p >= '0' && *p <= '9')
				dig[nd++] = *p;
		e17 = atoi(strchr(e, 'e') + 1);
	}
	for (int k = 15; k <= 17; k++) {
		int e10 = e17, n = k;
		memcpy(r, dig, sizeof r);
		if (k < 17 && r[k] >= '5') {
			int i = k - 1;
			while (i >= 0 && r[i] == '9')
				r[i--] = '0';
			if (i >= 0) {
				r[i]++;
			} else {
				memmove(r + 1, r, (size_t)k - 1);
				r[0] = '1';
				e10++;
			}
		}
		while (n > 1 && r[n - 1] == '0')
			n--;
		layout_digits(neg, r, n, e10, out);
		if (k == 17 || strtod(out, NULL) == v)
			return;
	}
}

/*
 * A number node that prints exactly: cJSON's printer falls back to 15
 * digits whenever they read back within an epsilon, which loses the last
 * bits (0.30000000000000004 prints as 0.3). Integers stay plain numbers;
 * any other finite value becomes a raw node with the shortest text that
 * reads back identical, and carries valuedouble for callers that inspect
 * the tree. Non-finite values, which JSON cannot hold, become null.
 */
static cJSON *exact_number(double v)
{
	char text[40];
	cJSON *n;

	if (!isfinite(v))
		return cJSON_CreateNull();
	if (v == floor(v) && fabs(v) < 1e15)
		return cJSON_CreateNumber(v);
	exact_text(v, text);
	n = cJSON_CreateRaw(text);
	if (n) {
		n->valuedouble = v;
		n->valueint = v >= INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
	}
	return n;
}

/*
 * Turns every non-integral number under it into an exact raw node, so a
 * history copied from a file keeps its values bit for bit. Returns -1 on
 * out of memory (the tree stays valid).
 */
static int exact_tree(cJSON *it)
{
	for (; it; it = it->next) {
		if (cJSON_IsNumber(it) && isfinite(it->valuedouble) &&
		    !(it->valuedouble == floor(it->valuedouble) && fabs(it->valuedouble) < 1e15)) {
			cJSON *raw = exact_number(it->valuedouble);
			if (!raw)
				return -1;
			/* take the text allocated by cJSON's own allocator */
			it->valuestring = raw->valuestring;
			raw->valuestring = NULL;
			cJSON_Delete(raw);
			it->type = (it->type & ~0xFF) | cJSON_Raw;
		} else if ((cJSON_IsArray(it) || cJSON_IsObject(it)) && exact_tree(it->child)) {
			return -1;
		}
	}
	return 0;
}

static int add_num(cJSON *obj, const char *k, double v)
{
	return add(obj, k, exact_number(v));
}

static int add_str(cJSON *obj, const char *k, const char *v)
{
	return add(obj, k, cJSON_CreateString(v));
}

static int add_bool(cJSON *obj, const char *k, int v)
{
	return add(obj, k, cJSON_CreateBool(v));
}

static cJSON *tubercle_json(const fs_tubercle *t, double cal)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (add_num(o, "id", t->id) || add_num(o, "centroid_x", t->centroid_x) ||
	    add_num(o, "centroid_y", t->centroid_y) || add_num(o, "radius_px", t->radius_px) ||
	    add_num(o, "diameter_px", 2 * t->radius_px))
		goto fail;
	if (cal > 0 && add_num(o, "diameter_um", 2 * t->radius_px * cal))
		goto fail;
	if (add_num(o, "circularity", fs_tubercle_circularity(t)) || add_num(o, "fit_quality", t->fit_quality) ||
	    add_bool(o, "is_boundary", t->is_boundary) ||
	    add_str(o, "source", fs_source_name(t->source)))
		goto fail;
	if (t->has_ellipse) {
		if (add_num(o, "major_axis_px", t->major_axis_px) ||
		    add_num(o, "minor_axis_px", t->minor_axis_px))
			goto fail;
		if (cal > 0 && (add_num(o, "major_axis_um", t->major_axis_px * cal) ||
				add_num(o, "minor_axis_um", t->minor_axis_px * cal)))
			goto fail;
		if (add_num(o, "orientation", t->orientation) ||
		    add_num(o, "eccentricity", t->eccentricity))
			goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static const fs_tubercle *find_tub(const fs_annot_id_idx *v, size_t n, const fs_tubercle_list *tl,
				   int id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == id ? &tl->items[v[lo].idx] : NULL;
}

static cJSON *edge_json(const fs_edge *e, const fs_tubercle *a, const fs_tubercle *b, double cal)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (add_num(o, "id1", e->id1) || add_num(o, "id2", e->id2))
		goto fail;
	/* an edge naming a missing tubercle keeps its ids so nothing is lost */
	if (a && b) {
		double d = hypot(b->centroid_x - a->centroid_x, b->centroid_y - a->centroid_y);
		double gap = d - a->radius_px - b->radius_px;
		if (add_num(o, "x1", a->centroid_x) || add_num(o, "y1", a->centroid_y) ||
		    add_num(o, "x2", b->centroid_x) || add_num(o, "y2", b->centroid_y))
			goto fail;
		if (cal > 0 && (add_num(o, "center_distance_um", d * cal) ||
				add_num(o, "edge_distance_um", isfinite(gap) ? (gap > 0 ? gap : 0) * cal : NAN)))
			goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *params_json(const fs_params *p)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (add_str(o, "method", fs_method_name(p->method)) ||
	    add_num(o, "threshold", p->threshold) ||
	    add_num(o, "min_diameter_um", p->min_diameter_um) ||
	    add_num(o, "max_diameter_um", p->max_diameter_um) ||
	    add_num(o, "min_circularity", p->min_circularity) ||
	    add_num(o, "clahe_clip", p->clahe_clip) ||
	    add_num(o, "clahe_kernel", p->clahe_kernel) ||
	    add_num(o, "blur_sigma", p->blur_sigma) ||
	    add_str(o, "neighbor_graph", fs_graph_name(p->neighbor_graph)) ||
	    add_bool(o, "cull_long_edges", p->cull_long_edges) ||
	    add_num(o, "cull_factor", p->cull_factor) ||
	    add_num(o, "edge_margin_px", p->edge_margin_px) ||
	    add_num(o, "tophat_radius", p->tophat_radius) ||
	    add_num(o, "auto_prominence", p->auto_prominence) ||
	    add_num(o, "auto_smoothing", p->auto_smoothing)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* The tubercles' ids sorted (for the edges' lookups); NULL on out of memory. */
static fs_annot_id_idx *id_index(const fs_tubercle_list *tl)
{
	fs_annot_id_idx *v = malloc((tl->n ? tl->n : 1) * sizeof *v);
	if (!v)
		return NULL;
	for (size_t i = 0; i < tl->n; i++) {
		v[i].id = tl->items[i].id;
		v[i].idx = i;
	}
	qsort(v, tl->n, sizeof *v, fs_annot_cmp_id_idx);
	return v;
}

static cJSON *edge_of(const fs_annot_set *s, const fs_annot_id_idx *v, size_t i, double cal)
{
	const fs_tubercle_list *tl = &s->tubercles;
	const fs_edge *e = &s->edges.items[i];
	return edge_json(e, find_tub(v, tl->n, tl, e->id1), find_tub(v, tl->n, tl, e->id2), cal);
}

/* A set's fields before its tubercles: id .. measurement_version. */
static cJSON *set_head_json(const fs_annot_set *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (add_str(o, "id", s->id) || add_str(o, "name", s->name))
		goto fail;
	if (s->created[0] && add_str(o, "createdAt", s->created))
		goto fail;
	if (s->modified[0] && add_str(o, "modifiedAt", s->modified))
		goto fail;
	if (add(o, "calibration_um_per_pixel", s->calibration_um_per_px > 0 ?
			   exact_number(s->calibration_um_per_px) : cJSON_CreateNull()))
		goto fail;
	if (s->measurement_version > 0 && add_num(o, "measurement_version", s->measurement_version))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* A set's fields after its edges: parameters, history. */
static cJSON *set_tail_json(const fs_annot_set *s)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	if (!o)
		return NULL;
	if (add(o, "parameters", s->has_params ? params_json(&s->params) : cJSON_CreateNull()))
		goto fail;
	if (add(o, "history", arr = s->history ? cJSON_Duplicate(s->history, 1) :
						     cJSON_CreateArray()) ||
	    exact_tree(arr->child))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* Moves every member of from to the end of to; deletes from. */
static void move_members(cJSON *to, cJSON *from)
{
	cJSON *it;
	while ((it = from->child)) {
		cJSON_DetachItemViaPointer(from, it);
		cJSON_AddItemToObjectCS(to, it->string, it);
	}
	cJSON_Delete(from);
}

static cJSON *set_json(const fs_annot_set *s, double doc_cal)
{
	double cal = doc_cal > 0 ? doc_cal : s->calibration_um_per_px;
	const fs_tubercle_list *tl = &s->tubercles;
	fs_annot_id_idx *v = id_index(tl);
	cJSON *o = set_head_json(s), *tail = NULL, *arr, *item;

	if (!v || !o)
		goto fail;
	if (add(o, "tubercles", arr = cJSON_CreateArray()))
		goto fail;
	for (size_t i = 0; i < tl->n; i++) {
		item = tubercle_json(&tl->items[i], cal);
		if (!item || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			goto fail;
		}
	}
	if (add(o, "edges", arr = cJSON_CreateArray()))
		goto fail;
	for (size_t i = 0; i < s->edges.n; i++) {
		item = edge_of(s, v, i, cal);
		if (!item || !cJSON_AddItemToArray(arr, item)) {
			cJSON_Delete(item);
			goto fail;
		}
	}
	if (!(tail = set_tail_json(s)))
		goto fail;
	move_members(o, tail);
	free(v);
	return o;
fail:
	free(v);
	cJSON_Delete(o);
	return NULL;
}

/* The document's fields before its sets: format .. activeSetId. */
static cJSON *doc_head_json(const fs_annot_doc *d, const char *modified_iso)
{
	cJSON *o = cJSON_CreateObject(), *cal;
	const char *active = "";

	if (!o)
		return NULL;
	if (d->n_sets > 0) {
		size_t a = d->active_set >= 0 && (size_t)d->active_set < d->n_sets ?
				   (size_t)d->active_set : 0;
		active = d->sets[a].id;
	}
	if (add_str(o, "format", FS_ANNOT_FORMAT) || add_str(o, "version", "3.0") ||
	    add_str(o, "purpose", FS_ANNOT_PURPOSE) || add_str(o, "image_name", d->image_name) ||
	    add_str(o, "created", d->created[0] ? d->created : modified_iso) ||
	    add_str(o, "modified", modified_iso))
		goto fail;
	if (d->um_per_px > 0) {
		if (add(o, "calibration", cal = cJSON_CreateObject()) ||
		    add_num(cal, "um_per_px", d->um_per_px) ||
		    add_str(cal, "method", d->calibration_method))
			goto fail;
	} else if (add(o, "calibration", cJSON_CreateNull())) {
		goto fail;
	}
	if (add(o, "parameters", cJSON_CreateObject()) || add_str(o, "activeSetId", active))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

cJSON *fs_annot_to_json(const fs_annot_doc *d, const char *modified_iso)
{
	cJSON *o = NULL, *sets;

	if (!d)
		return NULL;
	if (!modified_iso)
		modified_iso = "";
	if (!(o = doc_head_json(d, modified_iso)) || add(o, "sets", sets = cJSON_CreateArray()))
		goto fail;
	for (size_t i = 0; i < d->n_sets; i++) {
		cJSON *s = set_json(&d->sets[i], d->um_per_px);
		if (!s || !cJSON_AddItemToArray(sets, s)) {
			cJSON_Delete(s);
			goto fail;
		}
	}
	if (d->default_tubercle_diameter_um > 0 &&
	    add_num(o, "defaultTubercleDiameterUm", d->default_tubercle_diameter_um))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* ---- the same text, streamed ----
 *
 * cJSON_Print's layout: an object is "{\n", its members each on a line
 * indented by the nesting depth ("\"key\":\t" value, "," between), then
 * "\n" (when it has members), depth - 1 tabs and "}"; an array is "["
 * values joined by ", " "]"; both count one level of depth. Every newline
 * of a printed value is layout (strings escape theirs), so a value printed
 * alone is the same text as inside the tree once depth tabs follow each of
 * its newlines. The skeleton (document, sets, the two large arrays) is
 * written here by that layout; everything in it is printed by cJSON, one
 * tubercle or edge at a time. */
struct pretty {
	fs_sink *out;
	int depth;
	size_t count[8]; /* members or items written at each depth */
};

static int pr_raw(struct pretty *p, const char *s, size_t n)
{
	return fs_buf_append(p->out->buf, s, n);
}

static int pr_tabs(struct pretty *p, int n)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t";
	for (; n > 0; n -= 8)
		if (pr_raw(p, tabs, (size_t)(n < 8 ? n : 8)))
			return -1;
	return 0;
}

static int pr_open(struct pretty *p, char c)
{
	p->depth++;
	p->count[p->depth] = 0;
	return c == '{' ? pr_raw(p, "{\n", 2) : pr_raw(p, "[", 1);
}

static int pr_close(struct pretty *p, char c)
{
	int rc = 0;
	if (c == '}')
		rc = (p->count[p->depth] && pr_raw(p, "\n", 1)) || pr_tabs(p, p->depth - 1) ||
		     pr_raw(p, "}", 1);
	else
		rc = pr_raw(p, "]", 1);
	p->depth--;
	return rc;
}

/* The member's key (one of ours: not escaped), before its value. */
static int pr_key(struct pretty *p, const char *key)
{
	return (p->count[p->depth]++ && pr_raw(p, ",\n", 2)) || pr_tabs(p, p->depth) ||
	       pr_raw(p, "\"", 1) || pr_raw(p, key, strlen(key)) || pr_raw(p, "\":\t", 3);
}

static int pr_item(struct pretty *p)
{
	return p->count[p->depth]++ ? pr_raw(p, ", ", 2) : 0;
}

/* it printed by cJSON at the current depth; it is deleted. */
static int pr_value(struct pretty *p, cJSON *it)
{
	char *text = it ? cJSON_Print(it) : NULL;
	cJSON_Delete(it);
	if (!text)
		return -1;
	int rc = 0;
	const char *s = text;
	for (const char *nl; !rc && (nl = strchr(s, '\n')); s = nl + 1)
		rc = pr_raw(p, s, (size_t)(nl - s + 1)) || pr_tabs(p, p->depth);
	rc = rc || pr_raw(p, s, strlen(s));
	cJSON_free(text);
	return rc || fs_sink_tick(p->out);
}

/* Every member of o (deleted) as members of the open object. */
static int pr_members(struct pretty *p, cJSON *o)
{
	int rc = o ? 0 : -1;
	for (cJSON *it; !rc && (it = o->child);) {
		cJSON_DetachItemViaPointer(o, it);
		rc = pr_key(p, it->string) || pr_value(p, it);
	}
	cJSON_Delete(o);
	return rc;
}

static int pr_set(struct pretty *p, const fs_annot_set *s, double doc_cal)
{
	double cal = doc_cal > 0 ? doc_cal : s->calibration_um_per_px;
	const fs_tubercle_list *tl = &s->tubercles;
	fs_annot_id_idx *v = id_index(tl);
	int rc = !v || pr_open(p, '{') || pr_members(p, set_head_json(s)) ||
		 pr_key(p, "tubercles") || pr_open(p, '[');
	for (size_t i = 0; !rc && i < tl->n; i++)
		rc = pr_item(p) || pr_value(p, tubercle_json(&tl->items[i], cal));
	rc = rc || pr_close(p, ']') || pr_key(p, "edges") || pr_open(p, '[');
	for (size_t i = 0; !rc && i < s->edges.n; i++)
		rc = pr_item(p) || pr_value(p, edge_of(s, v, i, cal));
	rc = rc || pr_close(p, ']') || pr_members(p, set_tail_json(s)) || pr_close(p, '}');
	free(v);
	return rc;
}

/* Frees what a loader filled, keeping the set's other fields. */
static void unload(fs_annot_set *s)
{
	fs_tubercle_list_free(&s->tubercles);
	fs_edge_list_free(&s->edges);
	cJSON_Delete(s->history);
	s->history = NULL;
}

static int write_doc(const fs_annot_doc *d, fs_annot_set *sets, const char *modified_iso,
		     fs_annot_load_fn load, void *ctx, fs_sink *out)
{
	struct pretty p = {out, 0, {0}};
	if (!modified_iso)
		modified_iso = "";
	int rc = pr_open(&p, '{') || pr_members(&p, doc_head_json(d, modified_iso)) ||
		 pr_key(&p, "sets") || pr_open(&p, '[') ? -1 : 0;
	for (size_t i = 0; !rc && i < d->n_sets; i++) {
		if (load && (rc = load(ctx, i, &sets[i])) != 0)
			break;
		rc = pr_item(&p) || pr_set(&p, &d->sets[i], d->um_per_px) ? -1 : 0;
		if (load)
			unload(&sets[i]);
	}
	if (!rc && pr_close(&p, ']'))
		rc = -1;
	if (!rc && d->default_tubercle_diameter_um > 0 &&
	    (pr_key(&p, "defaultTubercleDiameterUm") ||
	     pr_value(&p, exact_number(d->default_tubercle_diameter_um))))
		rc = -1;
	if (!rc && (pr_close(&p, '}') || fs_sink_end(out)))
		rc = -1;
	if (rc)
		out->failed = 1;
	return rc;
}

int fs_annot_write(const fs_annot_doc *d, const char *modified_iso, fs_sink *out)
{
	if (!d)
		return -1;
	return write_doc(d, NULL, modified_iso, NULL, NULL, out);
}

int fs_annot_write_sets(fs_annot_doc *d, const char *modified_iso, fs_annot_load_fn load, void *ctx,
			fs_sink *out)
{
	if (!d)
		return -1;
	return write_doc(d, d->sets, modified_iso, load, ctx, out);
}
