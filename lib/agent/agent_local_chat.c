/*
 * agent_local_chat.c - the offline provider's chat policy: a small English
 * grammar of instructions turned into the selection tools (agent_select.h),
 * and a reply that says exactly what was done and what was not understood.
 *
 * The grammar (case does not matter; documented in README "Chat with the
 * local provider"):
 *   actions     delete | remove | erase   -> delete_tubercles (needs a selection)
 *               fill | add | complete (+ missing | gaps | holes) -> fill_gaps
 *               reconnect | connect | regenerate (+ delaunay | gabriel | rng) -> auto_connect
 *               select | show | list | count | find | which -> select_tubercles
 *   where       left | right | top | bottom + edge | side | border | margin | band;
 *               "edges" / "borders" alone = any side; a width "15%" or "40 px"
 *               (default 10 %); top-left | top right | upper left ... corner,
 *               "corners" alone = any corner; near #ID [within N px]
 *   what        isolated | outliers | lonely; small | tiny; large | big;
 *               smaller / larger than N um|px; with at most | fewer than |
 *               less than N neighbours | connections (degree); manual |
 *               extracted | agent (source); #ID ... (ids); missing | gaps | holes
 *   filler      the, a, all, every, of, in, on, at, along, inside, and, please,
 *               tubercles, ones, ... (see filler[] below)
 * Any other word is "not understood": the policy then changes nothing and
 * says which words it did not understand, rather than doing something else.
 *
 * Turn 1: the calls; turn 2: the reply, built from the tools' results in the
 * conversation (the ids really deleted or added, the connections made).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_select.h"
#include "base/buf.h"

#define TOK_MAX 64

typedef struct chat_policy {
	int stage;
} chat_policy;

static void chat_free(void *p)
{
	free(p);
}

typedef struct parsed {
	int del, fill, connect, select;
	const char *method;
	cJSON *sel;       /* selection arguments */
	int has_area, has_what;
	fs_buf unknown;   /* words not understood, quoted */
} parsed;

static const char *const filler[] = {
	"the", "a", "an", "all", "every", "each", "of", "in", "on", "at", "along", "inside", "within", "and", "please",
	"tubercles", "tubercle", "ones", "one", "them", "those", "these", "that", "which", "are", "is", "with", "there",
	"lattice", "pattern", "image", "any", "to", "from", "near", "by", "side", "edge", "edges", "border", "borders",
	"margin", "margins", "band", "corner", "corners", "than", "px", "pixels", "pixel", "um", "µm", "micrometres",
	"micrometers", "%", "percent", "wide", "width", "neighbours", "neighbors", "neighbour", "neighbor",
	"connections", "connection", "it", "for", "me", "can", "you", "could", "would", "now", "then", "also", "id",
	"ids", "area", "region", "part", "only", "just", "graph", "again", "up", "set", "spots", "spot", NULL};

static int in_list(const char *w, const char *const *list)
{
	for (int i = 0; list[i]; i++)
		if (!strcmp(w, list[i]))
			return 1;
	return 0;
}

static int word_char(unsigned char c)
{
	return isalnum(c) || c == '#' || c == '.' || c == '-' || c == '<' || c == '=' || c >= 0x80;
}

/* Splits into lower-case words; "15%" gives "15" and "%", "#12" stays whole,
 * a sentence's full stop is dropped. */
static int tokenize(const char *q, char tok[][32], int max)
{
	int n = 0;
	for (const char *p = q; *p && n < max;) {
		unsigned char c = (unsigned char)*p;
		if (c == '%') {
			snprintf(tok[n++], 32, "%%");
			p++;
			continue;
		}
		if (!word_char(c)) {
			p++;
			continue;
		}
		int k = 0;
		while (*p && word_char((unsigned char)*p)) {
			if (k < 31)
				tok[n][k++] = (char)tolower((unsigned char)*p);
			p++;
		}
		tok[n][k] = 0;
		while (k > 0 && (tok[n][k - 1] == '.' || tok[n][k - 1] == '-'))
			tok[n][--k] = 0;
		if (k)
			n++;
	}
	return n;
}

static int is_num(const char *w, double *v)
{
	char *end;
	if (!*w || !(isdigit((unsigned char)w[0]) || w[0] == '.'))
		return 0;
	*v = strtod(w, &end);
	return *end == 0;
}

static void unknown(parsed *p, const char *w)
{
	fs_buf_printf(&p->unknown, "%s\"%s\"", p->unknown.len ? ", " : "", w);
}

/* A number then a unit: "15 %", "40 px", "3 um"; *unit 'p' px, '%' percent, 'u' um. */
static int number_unit(char tok[][32], int n, int i, double *v, char *unit)
{
	if (i >= n || !is_num(tok[i], v))
		return 0;
	*unit = 0;
	if (i + 1 < n) {
		const char *u = tok[i + 1];
		if (!strcmp(u, "%") || !strcmp(u, "percent"))
			*unit = '%';
		else if (!strcmp(u, "px") || !strcmp(u, "pixels") || !strcmp(u, "pixel"))
			*unit = 'p';
		else if (!strcmp(u, "um") || !strcmp(u, "µm") || !strcmp(u, "micrometres") || !strcmp(u, "micrometers"))
			*unit = 'u';
	}
	return *unit ? 2 : 1;
}

static void parse(const fs_agent_sess *s, const char *q, parsed *p)
{
	char tok[TOK_MAX][32];
	int n = tokenize(q, tok, TOK_MAX);
	double sc = s->shot_scale > 0 ? s->shot_scale : 1.0;
	cJSON *ids = NULL;
	const char *side = NULL, *corner = NULL;
	int any_edge = 0, any_corner = 0;
	double width_pct = -1;

	memset(p, 0, sizeof(*p));
	p->sel = cJSON_CreateObject();
	for (int i = 0; i < n; i++) {
		const char *w = tok[i];
		double v;
		char unit;
		int k;
		if (!strcmp(w, "delete") || !strcmp(w, "remove") || !strcmp(w, "erase") || !strcmp(w, "drop")) {
			p->del = 1;
		} else if (!strcmp(w, "fill") || !strcmp(w, "add") || !strcmp(w, "complete")) {
			p->fill = 1;
		} else if (!strcmp(w, "missing") || !strcmp(w, "gaps") || !strcmp(w, "gap") || !strcmp(w, "holes")) {
			p->fill = 1;
		} else if (!strcmp(w, "reconnect") || !strcmp(w, "connect") || !strcmp(w, "regenerate")) {
			p->connect = 1;
		} else if (!strcmp(w, "delaunay") || !strcmp(w, "gabriel") || !strcmp(w, "rng")) {
			p->method = !strcmp(w, "delaunay") ? "delaunay" : !strcmp(w, "rng") ? "rng" : "gabriel";
		} else if (!strcmp(w, "select") || !strcmp(w, "show") || !strcmp(w, "list") || !strcmp(w, "count") ||
			   !strcmp(w, "find") || !strcmp(w, "which") || !strcmp(w, "how") || !strcmp(w, "many")) {
			p->select = 1;
		} else if (!strcmp(w, "left") || !strcmp(w, "right") || !strcmp(w, "top") || !strcmp(w, "bottom") ||
			   !strcmp(w, "upper") || !strcmp(w, "lower") || !strcmp(w, "top-left") || !strcmp(w, "top-right") ||
			   !strcmp(w, "bottom-left") || !strcmp(w, "bottom-right") || !strcmp(w, "upper-left") ||
			   !strcmp(w, "upper-right") || !strcmp(w, "lower-left") || !strcmp(w, "lower-right")) {
			/* "top left corner", "top-left", "upper right" */
			const char *v1 = !strncmp(w, "top", 3) || !strncmp(w, "upper", 5) ? "top"
				: !strncmp(w, "bottom", 6) || !strncmp(w, "lower", 5) ? "bottom" : NULL;
			const char *h1 = strstr(w, "left") ? "left" : strstr(w, "right") ? "right" : NULL;
			if (v1 && !h1 && i + 1 < n && (!strcmp(tok[i + 1], "left") || !strcmp(tok[i + 1], "right"))) {
				h1 = tok[i + 1];
				i++;
			}
			if (v1 && h1) {
				static char cbuf[16];
				snprintf(cbuf, sizeof(cbuf), "%s-%s", v1, h1);
				corner = cbuf;
			} else {
				side = v1 ? v1 : h1;
			}
		} else if (!strcmp(w, "edges") || !strcmp(w, "borders") || !strcmp(w, "margins")) {
			any_edge = 1;
		} else if (!strcmp(w, "corners")) {
			any_corner = 1;
		} else if (!strcmp(w, "isolated") || !strcmp(w, "outliers") || !strcmp(w, "outlier") ||
			   !strcmp(w, "lonely")) {
			cJSON_AddBoolToObject(p->sel, "isolated", 1);
			p->has_what = 1;
		} else if (!strcmp(w, "small") || !strcmp(w, "tiny") || !strcmp(w, "smaller") || !strcmp(w, "large") ||
			   !strcmp(w, "big") || !strcmp(w, "larger") || !strcmp(w, "bigger")) {
			int big = w[0] == 'l' || w[0] == 'b';
			if (i + 1 < n && !strcmp(tok[i + 1], "than") && (k = number_unit(tok, n, i + 2, &v, &unit)) &&
			    (unit == 'u' || unit == 'p')) {
				char key[32];
				snprintf(key, sizeof(key), "diameter_%s_%s", big ? "above" : "below", unit == 'u' ? "um" : "px");
				cJSON_AddNumberToObject(p->sel, key, unit == 'p' ? v * sc : v);
				i += 1 + k;
			} else {
				cJSON_AddBoolToObject(p->sel, big ? "large" : "small", 1);
			}
			p->has_what = 1;
		} else if ((!strcmp(w, "most") || !strcmp(w, "fewer") || !strcmp(w, "less") || !strcmp(w, "<=") ||
			    !strcmp(w, "<") || !strcmp(w, "degree")) &&
			   i + 1 < n) {
			/* "at most 1 neighbour", "fewer than 2 connections", "degree <= 1" */
			int strict = !strcmp(w, "fewer") || !strcmp(w, "less") || !strcmp(w, "<");
			int j = i + 1;
			if (j < n && (!strcmp(tok[j], "than") || !strcmp(tok[j], "<=") || !strcmp(tok[j], "<"))) {
				strict |= !strcmp(tok[j], "than") || !strcmp(tok[j], "<");
				j++;
			}
			if (j < n && is_num(tok[j], &v)) {
				cJSON_AddNumberToObject(p->sel, "max_degree", strict ? v - 1 : v);
				p->has_what = 1;
				i = j;
			} else {
				unknown(p, w);
			}
		} else if (!strcmp(w, "at") && i + 1 < n && !strcmp(tok[i + 1], "most")) {
			continue; /* "at most": the next word does the work */
		} else if (!strcmp(w, "manual") || !strcmp(w, "extracted") || !strcmp(w, "agent")) {
			cJSON_AddStringToObject(p->sel, "source", w);
			p->has_what = 1;
		} else if (w[0] == '#' && is_num(w + 1, &v)) {
			int near = i > 0 && (!strcmp(tok[i - 1], "near") || !strcmp(tok[i - 1], "around"));
			if (near) {
				cJSON *nr = cJSON_AddObjectToObject(p->sel, "near");
				cJSON_AddNumberToObject(nr, "id", v);
				if (i + 2 < n && !strcmp(tok[i + 1], "within") && (k = number_unit(tok, n, i + 2, &v, &unit)) &&
				    unit == 'p') {
					cJSON_AddNumberToObject(nr, "radius", v * sc);
					i += 1 + k;
				}
				p->has_area = 1;
			} else {
				if (!ids)
					ids = cJSON_AddArrayToObject(p->sel, "ids");
				cJSON_AddItemToArray(ids, cJSON_CreateNumber(v));
				p->has_what = 1;
			}
		} else if ((k = number_unit(tok, n, i, &v, &unit)) && (unit == '%' || unit == 'p')) {
			/* a band's width */
			if (unit == '%')
				width_pct = v;
			else
				width_pct = -2 - v; /* pixels, converted once the side is known */
			i += k - 1;
		} else if (in_list(w, filler)) {
			continue;
		} else {
			unknown(p, w);
		}
	}
	if (side || any_edge) {
		cJSON *e = cJSON_AddObjectToObject(p->sel, "edge");
		cJSON_AddStringToObject(e, "side", side ? side : "any");
		double pct = width_pct;
		if (pct <= -2) {
			int ext = side && (!strcmp(side, "top") || !strcmp(side, "bottom")) ? s->img->height : s->img->width;
			pct = 100.0 * (-2 - pct) / ext;
		}
		if (pct > 0)
			cJSON_AddNumberToObject(e, "width_percent", pct > 100 ? 100 : pct);
		p->has_area = 1;
	}
	if (corner || any_corner) {
		cJSON *c = cJSON_AddObjectToObject(p->sel, "corner");
		cJSON_AddStringToObject(c, "which", corner ? corner : "any");
		if (width_pct > 0)
			cJSON_AddNumberToObject(c, "width_percent", width_pct);
		p->has_area = 1;
	}
}

/* Tool results of the last turn, as parsed JSON (caller deletes). */
static cJSON *last_results(const fs_conv *conv)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = conv->n; arr && i-- > 0;) {
		const fs_msg *m = &conv->msgs[i];
		int any = 0;
		for (size_t k = 0; k < m->n; k++)
			if (m->parts[k].kind == FS_PART_TOOL_RESULT) {
				cJSON *r = cJSON_Parse(m->parts[k].text ? m->parts[k].text : "null");
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "name", m->parts[k].name ? m->parts[k].name : "");
				cJSON_AddItemToObject(o, "result", r ? r : cJSON_CreateNull());
				cJSON_AddItemToArray(arr, o);
				any = 1;
			}
		if (any || m->role == FS_ROLE_ASSISTANT)
			break;
	}
	return arr;
}

static void ids_text_json(const cJSON *ids, fs_buf *b)
{
	int n = cJSON_GetArraySize(ids), i = 0;
	const cJSON *v;
	cJSON_ArrayForEach(v, ids)
	{
		if (i == 40) {
			fs_buf_printf(b, " and %d more", n - 40);
			break;
		}
		fs_buf_printf(b, "%s#%d", i++ ? ", " : "", v->valueint);
	}
}

static char *reply_text(const fs_agent_sess *s, const fs_conv *conv)
{
	fs_buf b = FS_BUF_INIT;
	cJSON *res = last_results(conv), *r;
	(void)s;
	cJSON_ArrayForEach(r, res)
	{
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(r, "name"));
		const cJSON *o = cJSON_GetObjectItem(r, "result");
		const char *e = cJSON_GetStringValue(cJSON_GetObjectItem(o, "error"));
		const cJSON *data = cJSON_HasObjectItem(o, "data") ? cJSON_GetObjectItem(o, "data") : o;
		const char *crit = cJSON_GetStringValue(cJSON_GetObjectItem(data, "criteria"));
		if (b.len)
			fs_buf_puts(&b, " ");
		if (e) {
			fs_buf_printf(&b, "%s failed: %s.", name, e);
		} else if (!strcmp(name, "delete_tubercles")) {
			const cJSON *ids = cJSON_GetObjectItem(data, "deleted_ids");
			int n = cJSON_GetArraySize(ids);
			fs_buf_printf(&b, "Deleted %d tubercle%s (%s)", n, n == 1 ? "" : "s", crit ? crit : "");
			if (n) {
				fs_buf_puts(&b, ": ");
				ids_text_json(ids, &b);
			}
			fs_buf_puts(&b, ".");
		} else if (!strcmp(name, "select_tubercles")) {
			const cJSON *ids = cJSON_GetObjectItem(data, "ids");
			int n = cJSON_GetArraySize(ids);
			fs_buf_printf(&b, "%d tubercle%s match (%s)", n, n == 1 ? "" : "s", crit ? crit : "");
			if (n) {
				fs_buf_puts(&b, ": ");
				ids_text_json(ids, &b);
			}
			fs_buf_puts(&b, ". Nothing was changed.");
		} else if (!strcmp(name, "fill_gaps")) {
			const cJSON *ids = cJSON_GetObjectItem(data, "added_ids");
			int n = cJSON_GetArraySize(ids);
			fs_buf_printf(&b, "Added %d tubercle%s at empty bright lattice sites", n, n == 1 ? "" : "s");
			if (n) {
				fs_buf_puts(&b, ": ");
				ids_text_json(ids, &b);
			}
			fs_buf_puts(&b, ".");
			int left = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(data, "sites_left"));
			if (left > 0)
				fs_buf_printf(&b, " %d more site%s left: I stopped at the limit of %d changes; ask again for more.",
					      left, left == 1 ? "" : "s",
					      (int)cJSON_GetNumberValue(cJSON_GetObjectItem(data, "max_add")));
		} else if (!strcmp(name, "auto_connect")) {
			fs_buf_printf(&b, "Regenerated the connections (%s): %d.",
				      cJSON_GetStringValue(cJSON_GetObjectItem(data, "method")) ?: "gabriel",
				      (int)cJSON_GetNumberValue(cJSON_GetObjectItem(data, "n_edges")));
		}
	}
	cJSON_Delete(res);
	if (!b.len)
		fs_buf_puts(&b, "Nothing was changed.");
	return b.data ? fs_buf_steal(&b) : NULL;
}

static const char help_text[] =
	" I understand: delete | fill missing/gaps | reconnect [delaunay|gabriel|rng] | select/count, with where "
	"(left/right/top/bottom edge [N% or N px], edges, top-left ... corner, corners, near #ID [within N px]) "
	"and what (isolated, small, large, smaller/larger than N um|px, with at most N neighbours, manual, "
	"extracted, agent, #ID).";

int fs_agent_local_chat(const fs_conv *conv, const cJSON *tools, fs_llm_reply *out, void *user, char *err,
			size_t errlen)
{
	fs_agent_sess *s = user;
	chat_policy *c = s->policy;
	parsed p;
	char *txt = NULL;
	int rc = -1;
	(void)tools;

	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			goto oom;
		s->policy = c;
		s->policy_free = chat_free;
	}
	if (c->stage == 1) {
		/* second turn: what the tools really did, no more calls (ends the turn) */
		c->stage = 2;
		txt = reply_text(s, conv);
		if (!txt || fs_llm_reply_append_text(out, txt))
			goto oom;
		free(txt);
		return 0;
	}
	c->stage = 2;
	parse(s, s->job->instruction, &p);
	if (!p.sel)
		goto oom;
	fs_buf b = FS_BUF_INIT;
	if (p.unknown.len) {
		fs_buf_printf(&b, "I did not understand %s, so nothing was changed.%s", p.unknown.data, help_text);
	} else if (!p.del && !p.fill && !p.connect && !p.select) {
		fs_buf_printf(&b, "I found no action (delete, fill, reconnect, select) in that, so nothing was changed.%s",
			      help_text);
	} else if (p.del && !p.has_what && !p.has_area) {
		fs_buf_printf(&b, "Which tubercles should I delete? Name them (isolated, small, #ID ...) or where they "
				  "are; nothing was changed.%s", help_text);
	}
	if (b.len) {
		rc = fs_llm_reply_append_text(out, b.data) ? -1 : 0;
		fs_buf_free(&b);
		cJSON_Delete(p.sel);
		fs_buf_free(&p.unknown);
		if (rc)
			goto oom;
		return 0;
	}
	c->stage = 1;
	if (p.select && !p.del && fs_agent_local_call(out, &s->call_seq, "select_tubercles", cJSON_Duplicate(p.sel, 1)))
		goto oom_p;
	if (p.del && fs_agent_local_call(out, &s->call_seq, "delete_tubercles", cJSON_Duplicate(p.sel, 1)))
		goto oom_p;
	if (p.fill) {
		cJSON *a = cJSON_CreateObject();
		static const char *const area[] = {"region", "edge", "corner", "near", NULL};
		for (int i = 0; a && area[i]; i++)
			if (cJSON_HasObjectItem(p.sel, area[i]))
				cJSON_AddItemToObject(a, area[i], cJSON_Duplicate(cJSON_GetObjectItem(p.sel, area[i]), 1));
		int max = s->job->max_tool_calls > 0 ? s->job->max_tool_calls : 20;
		if (!a)
			goto oom_p;
		/* the instruction's limit of changes, as a model's tool calls would be */
		cJSON_AddNumberToObject(a, "max_add", max);
		if (fs_agent_local_call(out, &s->call_seq, "fill_gaps", a))
			goto oom_p;
	}
	if (p.connect) {
		cJSON *a = cJSON_CreateObject();
		if (!a)
			goto oom_p;
		cJSON_AddStringToObject(a, "method", p.method ? p.method : "gabriel");
		if (fs_agent_local_call(out, &s->call_seq, "auto_connect", a))
			goto oom_p;
	}
	/* the turn's text ends with a space: the reply of the next turn follows it */
	fs_llm_reply_append_text(out, "Working on it.");
	rc = 0;
oom_p:
	cJSON_Delete(p.sel);
	fs_buf_free(&p.unknown);
	if (!rc)
		return 0;
oom:
	free(txt);
	snprintf(err, errlen, "out of memory");
	return -1;
}
