/*
 * cli_mcp_tools.c - the tools `fishscale mcp` adds to the agents' (see
 * cli_mcp_tools.h). Every change goes through sets_store.h as one journal
 * step of the MCP user, so undo and redo act on them like on a person's.
 */
#include "cli/cli_mcp_tools.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "store/store.h"

static double num(const cJSON *a, const char *k, double d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, k);
	return cJSON_IsNumber(v) ? v->valuedouble : d;
}

static int reloaded(fs_mcp_ctx *c, fs_tool_output *out)
{
	if (fs_agent_sess_reload(c->s, out->error, sizeof(out->error)))
		return FS_TOOL_CRITICAL;
	return FS_TOOL_OK;
}

static int store_rc(int rc, fs_tool_output *out, const char *what, const char *err)
{
	snprintf(out->error, sizeof(out->error), "%s: %s", what, err[0] ? err : "storage error");
	return rc == FS_DB_INVALID || rc == FS_DB_NOTFOUND ? FS_TOOL_ERROR : FS_TOOL_CRITICAL;
}

static void state_summary(fs_mcp_ctx *c, cJSON *o)
{
	cJSON_AddNumberToObject(o, "tubercle_count", (double)c->s->t.n);
	cJSON_AddNumberToObject(o, "edge_count", (double)c->s->e.n);
	cJSON_AddNumberToObject(o, "revision", (double)c->s->revision);
}

/* A change's answer: the store's refusal (what it was doing), or the set
 * reloaded and its summary */
static int set_changed(fs_mcp_ctx *c, int rc, const char *what, const char *err, fs_tool_output *out)
{
	if (rc)
		return store_rc(rc, out, what, err);
	if ((rc = reloaded(c, out)) != FS_TOOL_OK)
		return rc;
	out->data = cJSON_CreateObject();
	state_summary(c, out->data);
	return FS_TOOL_OK;
}

static int t_get_calibration(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	(void)args;
	out->data = cJSON_CreateObject();
	if (c->s->um_per_px > 0)
		cJSON_AddNumberToObject(out->data, "um_per_px", c->s->um_per_px);
	else
		cJSON_AddNullToObject(out->data, "um_per_px");
	cJSON_AddBoolToObject(out->data, "calibrated", c->s->um_per_px > 0);
	return FS_TOOL_OK;
}

static int t_set_calibration(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	double um = num(args, "um_per_px", 0), old = c->s->rec.um_per_px;
	char err[256] = "";
	int rc = fs_image_set_calibration(c->s->db, c->s->rec.id, um, "manual");
	if (!rc)
		rc = fs_sets_calibration_changed(c->s->db, c->s->rec.id, old, um, "manual", c->job->user_id, err,
						 sizeof(err));
	if (rc)
		return store_rc(rc, out, "setting the calibration", err);
	c->s->rec.um_per_px = um;
	c->s->um_per_px = um;
	c->s->um_for_detect = um;
	if (c->ws)
		c->ws->um_per_px = um;
	int r = reloaded(c, out);
	if (r != FS_TOOL_OK)
		return r;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "um_per_px", um);
	return FS_TOOL_OK;
}

static int t_get_tubercles(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	static const char *const src[] = {"extracted", "manual", "lattice", "agent"};
	(void)args;
	out->data = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(out->data, "tubercles");
	for (size_t i = 0; i < c->s->t.n; i++) {
		const fs_tubercle *t = &c->s->t.items[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id", t->id);
		cJSON_AddNumberToObject(o, "x", round(t->centroid_x * 10) / 10);
		cJSON_AddNumberToObject(o, "y", round(t->centroid_y * 10) / 10);
		cJSON_AddNumberToObject(o, "radius_px", round(t->radius_px * 10) / 10);
		cJSON_AddStringToObject(o, "source", (int)t->source >= 0 && t->source <= 3 ? src[t->source] : "extracted");
		cJSON_AddBoolToObject(o, "is_boundary", t->is_boundary);
		cJSON_AddItemToArray(a, o);
	}
	return FS_TOOL_OK;
}

static int t_get_edges(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	(void)args;
	out->data = cJSON_CreateObject();
	cJSON *a = cJSON_AddArrayToObject(out->data, "edges");
	for (size_t i = 0; i < c->s->e.n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "id1", c->s->e.items[i].id1);
		cJSON_AddNumberToObject(o, "id2", c->s->e.items[i].id2);
		cJSON_AddItemToArray(a, o);
	}
	return FS_TOOL_OK;
}

static int t_add_connection(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	char err[256] = "";
	long long rev;
	int rc = fs_set_add_edge(c->s->db, c->job->set_id, -1, c->job->user_id, (int)num(args, "id1", 0),
				 (int)num(args, "id2", 0), 0, &rev, NULL, err, sizeof(err));
	return set_changed(c, rc, "adding the connection", err, out);
}

static int t_delete_connection(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	char err[256] = "";
	long long rev;
	fs_edge e = {(int)num(args, "id1", 0), (int)num(args, "id2", 0)};
	int found = 0;
	for (size_t i = 0; i < c->s->e.n && !found; i++)
		found = (c->s->e.items[i].id1 == e.id1 && c->s->e.items[i].id2 == e.id2) ||
			(c->s->e.items[i].id1 == e.id2 && c->s->e.items[i].id2 == e.id1);
	if (!found) {
		snprintf(out->error, sizeof(out->error), "no connection %d-%d in the set", e.id1, e.id2);
		return FS_TOOL_ERROR;
	}
	int rc = fs_set_delete_items(c->s->db, c->job->set_id, -1, c->job->user_id, NULL, 0, &e, 1, "delete_connection",
				     0, &rev, NULL, err, sizeof(err));
	return set_changed(c, rc, "deleting the connection", err, out);
}

static int t_clear_connections(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	fs_edge_list none = {0};
	char err[256] = "";
	long long rev;
	(void)args;
	int rc = fs_set_replace_edges(c->s->db, c->job->set_id, -1, c->job->user_id, &none, "clear_connections", 0, &rev,
				      NULL, err, sizeof(err));
	return set_changed(c, rc, "clearing the connections", err, out);
}

static int undo_redo(fs_mcp_ctx *c, int redo, fs_tool_output *out)
{
	char err[256] = "";
	long long rev;
	int rc = redo ? fs_set_redo(c->s->db, c->job->set_id, -1, c->job->user_id, &rev, NULL, err, sizeof(err))
		      : fs_set_undo(c->s->db, c->job->set_id, -1, c->job->user_id, &rev, NULL, err, sizeof(err));
	return set_changed(c, rc, redo ? "redo" : "undo", err, out);
}

static int t_undo(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args;
	return undo_redo(user, 0, out);
}

static int t_redo(const cJSON *args, fs_tool_output *out, void *user)
{
	(void)args;
	return undo_redo(user, 1, out);
}

/* The annotations in the original's v3 JSON, to path or beside the image
 * (<image stem>_annotations.json). */
static int t_export(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "path"));
	char def[PATH_MAX + 64];
	fs_set_info info;
	fs_annot_doc doc;
	fs_annot_set set;
	if (!path || !*path) {
		if (!c->image_path[0]) {
			snprintf(out->error, sizeof(out->error), "give a path: this set's image is not a file here");
			return FS_TOOL_ERROR;
		}
		snprintf(def, sizeof(def), "%s", c->image_path);
		char *dot = strrchr(def, '.'), *slash = strrchr(def, '/');
		if (dot && (!slash || dot > slash))
			*dot = 0;
		strncat(def, "_annotations.json", sizeof(def) - strlen(def) - 1);
		path = def;
	}
	if (fs_set_get_info(c->s->db, c->job->set_id, &info)) {
		snprintf(out->error, sizeof(out->error), "cannot read the set");
		return FS_TOOL_CRITICAL;
	}
	memset(&doc, 0, sizeof(doc));
	memset(&set, 0, sizeof(set));
	snprintf(doc.image_name, sizeof(doc.image_name), "%s", c->s->rec.original_name);
	doc.um_per_px = c->s->um_per_px;
	snprintf(doc.calibration_method, sizeof(doc.calibration_method), "%s", c->s->um_per_px > 0 ? "manual" : "");
	snprintf(set.name, sizeof(set.name), "%.127s", info.name);
	set.tubercles = c->s->t;
	set.edges = c->s->e;
	set.has_params = info.has_params;
	set.params = info.params;
	set.calibration_um_per_px = c->s->um_per_px;
	doc.sets = &set;
	doc.n_sets = 1;
	time_t now = time(NULL);
	char iso[40];
	strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	cJSON *j = fs_annot_to_json(&doc, iso);
	char *text = j ? cJSON_Print(j) : NULL;
	cJSON_Delete(j);
	FILE *f = text ? fopen(path, "we") : NULL;
	int ok = f && fputs(text, f) >= 0;
	if (f && fclose(f))
		ok = 0;
	free(text);
	if (!ok) {
		snprintf(out->error, sizeof(out->error), "cannot write %s: %s", path, strerror(errno));
		return FS_TOOL_ERROR;
	}
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "path", path);
	state_summary(c, out->data);
	return FS_TOOL_OK;
}

static int t_get_user(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	(void)args;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "id", (double)c->job->user_id);
	cJSON_AddStringToObject(out->data, "login", c->login);
	return FS_TOOL_OK;
}

static int t_add_history_event(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "event_type"));
	cJSON *d = cJSON_CreateObject();
	const char *keys[] = {"phase", "summary", NULL};
	for (int i = 0; keys[i]; i++) {
		const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, keys[i]));
		if (v)
			cJSON_AddStringToObject(d, keys[i], v);
	}
	cJSON_AddNumberToObject(d, "n_tubercles", (double)c->s->t.n);
	cJSON_AddNumberToObject(d, "n_edges", (double)c->s->e.n);
	cJSON_AddStringToObject(d, "via", "mcp");
	int rc = fs_history_add(c->s->db, c->job->set_id, c->job->user_id, type && *type ? type : "agent_phase", d);
	cJSON_Delete(d);
	if (rc) {
		snprintf(out->error, sizeof(out->error), "cannot add the history event");
		return FS_TOOL_CRITICAL;
	}
	out->data = cJSON_CreateObject();
	cJSON_AddStringToObject(out->data, "event_type", type && *type ? type : "agent_phase");
	return FS_TOOL_OK;
}

/* accept_result: the best extraction of run_extraction goes into the set
 * (the agents' accept_result only ends a run, which has no meaning here). */
static int t_accept(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	fs_agent_sess *s = c->s;
	char err[256] = "";
	long long rev;
	(void)args;
	if (s->best < 0) {
		snprintf(out->error, sizeof(out->error), "no extraction to accept: call run_extraction first");
		return FS_TOOL_ERROR;
	}
	const fs_agent_trial *b = &s->trials[s->best];
	int rc = fs_set_replace_all(s->db, c->job->set_id, -1, c->job->user_id, &s->best_t, &s->best_e, &b->params,
				    "agent_best", 0, &rev, NULL, err, sizeof(err));
	if (rc)
		return store_rc(rc, out, "applying the best extraction", err);
	s->applied = s->best;
	s->params = b->params;
	s->accepted = 1;
	if ((rc = reloaded(c, out)) != FS_TOOL_OK)
		return rc;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "iteration", b->iteration);
	cJSON_AddNumberToObject(out->data, "hexagonalness", round(b->stats.hexagonalness_score * 1000) / 1000);
	state_summary(c, out->data);
	return FS_TOOL_OK;
}

/* load_image: another image file (standalone mode): a fresh set on it. */
static int t_load_image(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	const char *path = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "path"));
	char err[512] = "", old[PATH_MAX];
	if (!c->ws) {
		snprintf(out->error, sizeof(out->error),
			 "load_image works when the server was started on an image file (fishscale mcp IMAGE)");
		return FS_TOOL_ERROR;
	}
	if (!path || access(path, R_OK)) {
		snprintf(out->error, sizeof(out->error), "cannot read %s", path ? path : "(no path)");
		return FS_TOOL_ERROR;
	}
	snprintf(old, sizeof(old), "%s", c->image_path);
	for (int attempt = 0; attempt < 2; attempt++) {
		const char *p = attempt ? old : path;
		fs_agent_sess_free(c->s);
		fs_standalone_close(c->ws);
		memset(c->ws, 0, sizeof(*c->ws));
		if (fs_standalone_open(c->ws, c->root, p, 0, err, sizeof(err)) == 0) {
			c->job->user_id = c->ws->user_id;
			c->job->image_id = c->ws->image_id;
			c->job->set_id = c->ws->set_id;
			c->env->db = c->ws->app.db;
			c->env->cfg = &c->ws->app.cfg;
			fs_app_data_path(&c->ws->app, "", c->data, sizeof(c->data));
			if (fs_agent_sess_init(c->s, c->job, c->env, err, sizeof(err)) == 0) {
				if (attempt) {
					snprintf(out->error, sizeof(out->error), "cannot load %.200s; still on %.200s", path, old);
					return FS_TOOL_ERROR;
				}
				snprintf(c->image_path, sizeof(c->image_path), "%s", path);
				out->data = cJSON_CreateObject();
				cJSON_AddStringToObject(out->data, "image", c->ws->image_name);
				cJSON_AddNumberToObject(out->data, "width", c->s->img->width);
				cJSON_AddNumberToObject(out->data, "height", c->s->img->height);
				if (c->s->um_per_px > 0)
					cJSON_AddNumberToObject(out->data, "um_per_px", c->s->um_per_px);
				state_summary(c, out->data);
				return FS_TOOL_OK;
			}
		}
	}
	snprintf(out->error, sizeof(out->error), "cannot load %.200s and cannot go back: %.250s", path, err);
	return FS_TOOL_CRITICAL;
}

/* Debug rectangles (the original's add_debug_rectangle): drawn on every
 * later screenshot until clear_debug_shapes. Image pixels. */
static int t_add_debug_rect(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	fs_agent_sess *s = c->s;
	static const struct {
		const char *name;
		unsigned char rgb[3];
	} colours[] = {{"magenta", {255, 0, 255}}, {"red", {255, 0, 0}},    {"green", {0, 255, 0}},
		       {"blue", {0, 0, 255}},      {"yellow", {255, 255, 0}}, {"cyan", {0, 255, 255}},
		       {"white", {255, 255, 255}}, {"orange", {255, 165, 0}}};
	const char *col = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "color"));
	const char *label = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "label"));
	if (s->n_dbg >= 200) {
		snprintf(out->error, sizeof(out->error), "at most 200 debug shapes: clear_debug_shapes first");
		return FS_TOOL_ERROR;
	}
	fs_agent_debug_rect *n = realloc(s->dbg, (s->n_dbg + 1) * sizeof(*n));
	if (!n) {
		snprintf(out->error, sizeof(out->error), "out of memory");
		return FS_TOOL_CRITICAL;
	}
	s->dbg = n;
	fs_agent_debug_rect *r = &s->dbg[s->n_dbg++];
	memset(r, 0, sizeof(*r));
	r->x = num(args, "x", 0);
	r->y = num(args, "y", 0);
	r->w = num(args, "width", 0);
	r->h = num(args, "height", 0);
	memcpy(r->rgb, colours[0].rgb, 3); /* unknown names are magenta, as in the original */
	for (size_t i = 0; col && i < sizeof(colours) / sizeof(colours[0]); i++)
		if (!strcmp(col, colours[i].name))
			memcpy(r->rgb, colours[i].rgb, 3);
	snprintf(r->label, sizeof(r->label), "%s", label ? label : "");
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "shapes", (double)s->n_dbg);
	return FS_TOOL_OK;
}

static int t_clear_debug(const cJSON *args, fs_tool_output *out, void *user)
{
	fs_mcp_ctx *c = user;
	(void)args;
	free(c->s->dbg);
	c->s->dbg = NULL;
	c->s->n_dbg = 0;
	out->data = cJSON_CreateObject();
	cJSON_AddNumberToObject(out->data, "shapes", 0);
	return FS_TOOL_OK;
}

int fs_mcp_tools_add(fs_tool_registry *reg, fs_mcp_ctx *c, char *err, size_t errlen)
{
	static const char pair[] = "{\"type\":\"object\",\"properties\":{\"id1\":{\"type\":\"integer\",\"minimum\":1},"
				   "\"id2\":{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"id1\",\"id2\"]}";
	static const char pathopt[] = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
				      "\"maxLength\":4000,\"description\":\"file to write (default: beside the image, "
				      "<image>_annotations.json)\"}}}";
	return fs_tools_add(reg, "get_calibration", "The image's calibration (micrometres per pixel, null when none).",
			    NULL, t_get_calibration, c, 0, err, errlen) ||
	       fs_tools_add(reg, "set_calibration", "Set the image's calibration in micrometres per pixel.",
			    "{\"type\":\"object\",\"properties\":{\"um_per_px\":{\"type\":\"number\",\"exclusiveMinimum\":0,"
			    "\"maximum\":1000000}},\"required\":[\"um_per_px\"]}",
			    t_set_calibration, c, 0, err, errlen) ||
	       fs_tools_add(reg, "get_tubercles", "Every tubercle: id, x, y (image pixels), radius, source, boundary.",
			    NULL, t_get_tubercles, c, 0, err, errlen) ||
	       fs_tools_add(reg, "get_edges", "Every connection (id1, id2).", NULL, t_get_edges, c, 0, err, errlen) ||
	       fs_tools_add(reg, "add_connection", "Connect two tubercles.", pair, t_add_connection, c, 0, err,
			    errlen) ||
	       fs_tools_add(reg, "delete_connection", "Remove the connection between two tubercles.", pair,
			    t_delete_connection, c, 0, err, errlen) ||
	       fs_tools_add(reg, "clear_connections", "Remove every connection (tubercles stay).", NULL,
			    t_clear_connections, c, 0, err, errlen) ||
	       fs_tools_add(reg, "undo", "Undo the last change made through this server (one step).", NULL, t_undo, c,
			    0, err, errlen) ||
	       fs_tools_add(reg, "redo", "Redo the last undone change.", NULL, t_redo, c, 0, err, errlen) ||
	       fs_tools_add(reg, "export", "Write the annotations (JSON v3) to a file, by default beside the image.",
			    pathopt, t_export, c, 0, err, errlen) ||
	       fs_tools_add(reg, "save_annotations", "Same as export: keep the work in a file.", pathopt, t_export, c,
			    0, err, errlen) ||
	       fs_tools_add(reg, "get_user", "The user this server acts for.", NULL, t_get_user, c, 0, err, errlen) ||
	       fs_tools_add(reg, "add_history_event", "Record an event (e.g. an agent phase) in the set's history.",
			    "{\"type\":\"object\",\"properties\":{\"event_type\":{\"type\":\"string\",\"maxLength\":64},"
			    "\"phase\":{\"type\":\"string\",\"maxLength\":200},\"summary\":{\"type\":\"string\","
			    "\"maxLength\":2000}}}",
			    t_add_history_event, c, 0, err, errlen) ||
	       fs_tools_add(reg, "accept_result",
			    "Put the best extraction found by run_extraction (by hexagonalness) into the set.", NULL,
			    t_accept, c, 0, err, errlen) ||
	       fs_tools_add(reg, "add_debug_rectangle",
			    "Draw a rectangle (image pixels) with an optional label on later screenshots.",
			    "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"number\"},\"y\":{\"type\":\"number\"},"
			    "\"width\":{\"type\":\"number\",\"exclusiveMinimum\":0},\"height\":{\"type\":\"number\","
			    "\"exclusiveMinimum\":0},\"label\":{\"type\":\"string\",\"maxLength\":63},\"color\":{"
			    "\"type\":\"string\",\"maxLength\":16}},\"required\":[\"x\",\"y\",\"width\",\"height\"]}",
			    t_add_debug_rect, c, 0, err, errlen) ||
	       fs_tools_add(reg, "clear_debug_shapes", "Remove every debug rectangle.", NULL, t_clear_debug, c, 0, err,
			    errlen) ||
	       fs_tools_add(reg, "load_image", "Open another image file (standalone mode) with a fresh set.",
			    "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\",\"minLength\":1,"
			    "\"maxLength\":4000}},\"required\":[\"path\"]}",
			    t_load_image, c, 0, err, errlen)
		? -1 : 0;
}

cJSON *fs_mcp_tool_annotations(const char *name)
{
	static const char *const read_only[] = {"get_", "select_tubercles", NULL};
	static const char *const additive[] = {"add_tubercle", "add_connection", "fill_gaps", "set_params",
					       "add_debug_rectangle", "clear_debug_shapes",
					       "load_profile", "export", "save_annotations", "add_history_event",
					       NULL};
	static const char *const idempotent[] = {"set_calibration", "set_params", "load_profile", "export",
						 "save_annotations", "clear_connections", "auto_connect", NULL};
	int ro = 0, add = 0, idem = 0;
	for (int i = 0; read_only[i]; i++)
		ro |= !strncmp(name, read_only[i], strlen(read_only[i]));
	for (int i = 0; additive[i]; i++)
		add |= !strcmp(name, additive[i]);
	for (int i = 0; idempotent[i]; i++)
		idem |= !strcmp(name, idempotent[i]);
	cJSON *a = cJSON_CreateObject();
	cJSON_AddBoolToObject(a, "readOnlyHint", ro);
	if (!ro) {
		cJSON_AddBoolToObject(a, "destructiveHint", !add);
		cJSON_AddBoolToObject(a, "idempotentHint", idem);
	}
	cJSON_AddBoolToObject(a, "openWorldHint", 0);
	return a;
}
