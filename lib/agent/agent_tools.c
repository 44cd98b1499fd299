/* agent_tools.c - tool registry, validated execution, results, system prompt (see agent_tools.h). */
#include "agent/agent_tools.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "agent/json_schema.h"

typedef struct tool {
	char *name;
	cJSON *schema;
	fs_tool_fn fn;
	void *user;
	unsigned flags;
} tool;

struct fs_tool_registry {
	tool *tools;
	size_t n;
	cJSON *defs;
};

fs_tool_registry *fs_tools_new(void)
{
	fs_tool_registry *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->defs = cJSON_CreateArray();
	if (!r->defs) {
		free(r);
		return NULL;
	}
	return r;
}

void fs_tools_free(fs_tool_registry *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->tools[i].name);
	free(r->tools);
	cJSON_Delete(r->defs);
	free(r);
}

static const tool *find(const fs_tool_registry *r, const char *name)
{
	for (size_t i = 0; name && i < r->n; i++)
		if (!strcmp(r->tools[i].name, name))
			return &r->tools[i];
	return NULL;
}

static int valid_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n < 1 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

int fs_tools_add(fs_tool_registry *r, const char *name, const char *description,
		 const char *schema_json, fs_tool_fn fn, void *user, unsigned flags, char *err,
		 size_t errlen)
{
	cJSON *def = NULL, *schema = NULL;
	char *nm = NULL;

	if (!valid_name(name) || !fn) {
		snprintf(err, errlen, "tool name must be 1-64 of [A-Za-z0-9_-] with a handler");
		return -1;
	}
	if (find(r, name)) {
		snprintf(err, errlen, "tool '%s' is already registered", name);
		return -1;
	}
	schema = cJSON_Parse(schema_json ? schema_json : "{\"type\":\"object\",\"properties\":{}}");
	if (!cJSON_IsObject(schema)) {
		snprintf(err, errlen, "tool '%s': schema is not a JSON object", name);
		goto fail;
	}
	tool *nt = realloc(r->tools, (r->n + 1) * sizeof(*nt));
	if (!nt)
		goto oom;
	r->tools = nt;
	def = cJSON_CreateObject();
	nm = strdup(name);
	if (!def || !nm || !cJSON_AddStringToObject(def, "name", name) ||
	    !cJSON_AddStringToObject(def, "description", description ? description : ""))
		goto oom;
	/* the definition list owns the schema; the tool keeps a borrowed pointer */
	cJSON_AddItemToObject(def, "parameters", schema);
	r->tools[r->n] = (tool){nm, schema, fn, user, flags};
	schema = NULL;
	cJSON_AddItemToArray(r->defs, def);
	r->n++;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(nm);
	cJSON_Delete(def);
	cJSON_Delete(schema);
	return -1;
}

size_t fs_tools_count(const fs_tool_registry *r)
{
	return r->n;
}

const cJSON *fs_tools_definitions(const fs_tool_registry *r)
{
	return r->defs;
}

int fs_tools_is_finishing(const fs_tool_registry *r, const char *name)
{
	const tool *t = find(r, name);
	return t && (t->flags & FS_TOOL_FINISHING);
}

int fs_tools_has_finishing(const fs_tool_registry *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->tools[i].flags & FS_TOOL_FINISHING)
			return 1;
	return 0;
}

char *fs_tools_names(const fs_tool_registry *r, unsigned only_flags)
{
	fs_buf b = FS_BUF_INIT;
	if (fs_buf_reserve(&b, 0))
		return NULL;
	for (size_t i = 0; i < r->n; i++) {
		if (only_flags && !(r->tools[i].flags & only_flags))
			continue;
		if ((b.len && fs_buf_puts(&b, ", ")) || fs_buf_puts(&b, r->tools[i].name)) {
			fs_buf_free(&b);
			return NULL;
		}
	}
	return fs_buf_steal(&b);
}

static void iso_now(char *out, size_t n)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t l = strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + l, n - l, ".%03ldZ", ts.tv_nsec / 1000000L);
}

cJSON *fs_tool_result_new(const char *tool, int success, cJSON *data, const char *error)
{
	char ts[40];
	cJSON *r = cJSON_CreateObject();
	if (!r) {
		cJSON_Delete(data);
		return NULL;
	}
	iso_now(ts, sizeof(ts));
	cJSON_AddBoolToObject(r, "success", success);
	if (success)
		cJSON_AddItemToObject(r, "data", data ? data : cJSON_CreateNull());
	else {
		cJSON_Delete(data);
		cJSON_AddStringToObject(r, "error", error ? error : "failed");
	}
	cJSON_AddStringToObject(r, "tool", tool ? tool : "");
	cJSON_AddStringToObject(r, "timestamp", ts);
	return r;
}

void fs_tool_exec_free(fs_tool_exec *ex)
{
	if (!ex)
		return;
	cJSON_Delete(ex->result);
	free(ex->text);
	free(ex->image_b64);
	memset(ex, 0, sizeof(*ex));
}

static int finish_exec(fs_tool_exec *ex, cJSON *result)
{
	ex->result = result;
	ex->text = result ? cJSON_PrintUnformatted(result) : NULL;
	if (!ex->text) {
		fs_tool_exec_free(ex);
		return -1;
	}
	return 0;
}

int fs_tools_execute(fs_tool_registry *r, const char *name, const cJSON *args,
		     const char *args_error, fs_tool_exec *ex)
{
	char msg[700];
	const tool *t = find(r, name);
	fs_tool_output out;

	memset(ex, 0, sizeof(*ex));
	if (!t) {
		char *names = fs_tools_names(r, 0);
		snprintf(msg, sizeof(msg), "unknown tool '%.64s'; available tools: %.500s", name ? name : "",
			 names ? names : "");
		free(names);
		return finish_exec(ex, fs_tool_result_new(name, 0, NULL, msg));
	}
	if (args_error) {
		snprintf(msg, sizeof(msg), "invalid arguments: %.600s", args_error);
		return finish_exec(ex, fs_tool_result_new(name, 0, NULL, msg));
	}
	char verr[512];
	if (fs_schema_validate(t->schema, args, verr, sizeof(verr))) {
		snprintf(msg, sizeof(msg), "invalid arguments: %s", verr);
		return finish_exec(ex, fs_tool_result_new(name, 0, NULL, msg));
	}
	memset(&out, 0, sizeof(out));
	int rc = t->fn(args, &out, t->user);
	if (rc == FS_TOOL_OK) {
		ex->ok = 1;
		if (out.image_b64) {
			ex->image_b64 = out.image_b64;
			snprintf(ex->media_type, sizeof(ex->media_type), "%s",
				 out.media_type[0] ? out.media_type : "image/png");
			/* the model should know what it is looking at */
			if (!out.data)
				out.data = cJSON_CreateObject();
			if (cJSON_IsObject(out.data) && out.width > 0) {
				cJSON_AddNumberToObject(out.data, "image_width", out.width);
				cJSON_AddNumberToObject(out.data, "image_height", out.height);
			}
		}
		return finish_exec(ex, fs_tool_result_new(name, 1, out.data, NULL));
	}
	free(out.image_b64);
	ex->critical = rc == FS_TOOL_CRITICAL;
	return finish_exec(ex, fs_tool_result_new(name, 0, out.data,
						   out.error[0] ? out.error : "tool failed"));
}

int fs_tools_check(const fs_tool_registry *r, const char *name, const cJSON *args,
		   const char *args_error, char *err, size_t errlen)
{
	const tool *t = find(r, name);
	if (!t) {
		snprintf(err, errlen, "unknown tool '%.64s'", name ? name : "");
		return -1;
	}
	if (args_error) {
		snprintf(err, errlen, "invalid arguments: %s", args_error);
		return -1;
	}
	return fs_schema_validate(t->schema, args, err, errlen);
}

static void describe_param(fs_buf *b, const char *name, const cJSON *s, int required)
{
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "type"));
	const char *desc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(s, "description"));
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	const cJSON *mn = cJSON_GetObjectItemCaseSensitive(s, "minimum");
	const cJSON *mx = cJSON_GetObjectItemCaseSensitive(s, "maximum");

	fs_buf_printf(b, "    - %s (%s%s)", name, type ? type : "any", required ? ", required" : "");
	if (desc)
		fs_buf_printf(b, ": %s", desc);
	if (cJSON_IsArray(en)) {
		char *e = cJSON_PrintUnformatted(en);
		fs_buf_printf(b, " one of %s", e ? e : "");
		cJSON_free(e);
	}
	if (cJSON_IsNumber(mn) || cJSON_IsNumber(mx)) {
		fs_buf_puts(b, " [");
		if (cJSON_IsNumber(mn))
			fs_buf_printf(b, "min %g", mn->valuedouble);
		if (cJSON_IsNumber(mn) && cJSON_IsNumber(mx))
			fs_buf_puts(b, ", ");
		if (cJSON_IsNumber(mx))
			fs_buf_printf(b, "max %g", mx->valuedouble);
		fs_buf_puts(b, "]");
	}
	fs_buf_putc(b, '\n');
}

static int is_required(const cJSON *schema, const char *name)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(schema, "required"))
		if (cJSON_IsString(it) && !strcmp(it->valuestring, name))
			return 1;
	return 0;
}

static void tool_list(const fs_tool_registry *r, fs_buf *b)
{
	for (size_t i = 0; i < r->n; i++) {
		const tool *t = &r->tools[i];
		const cJSON *def = cJSON_GetArrayItem(r->defs, (int)i);
		fs_buf_printf(b, "- %s%s: %s\n", t->name,
			      (t->flags & FS_TOOL_FINISHING) ? " (ends the run)" : "",
			      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "description")));
		const cJSON *props = cJSON_GetObjectItemCaseSensitive(t->schema, "properties");
		if (cJSON_GetArraySize(props) == 0) {
			fs_buf_puts(b, "  parameters: none\n");
			continue;
		}
		fs_buf_puts(b, "  parameters:\n");
		const cJSON *p;
		cJSON_ArrayForEach(p, props)
			describe_param(b, p->string, p, is_required(t->schema, p->string));
	}
}

static const char *ctx_lookup(const char *const *ctx, const char *key, size_t klen)
{
	for (size_t i = 0; ctx && ctx[i] && ctx[i + 1]; i += 2)
		if (strlen(ctx[i]) == klen && !memcmp(ctx[i], key, klen))
			return ctx[i + 1];
	return NULL;
}

char *fs_tools_system_prompt(const fs_tool_registry *r, const char *tmpl,
			     const char *const *ctx, char *err, size_t errlen)
{
	fs_buf b = FS_BUF_INIT;
	const char *p = tmpl ? tmpl : "";

	if (fs_buf_reserve(&b, strlen(p) + 1024))
		goto oom;
	while (*p) {
		size_t id = 0;
		if (*p == '{' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
			id = 1;
			while (isalnum((unsigned char)p[id]) || p[id] == '_')
				id++;
			if (p[id] != '}')
				id = 0;
		}
		if (!id) {
			fs_buf_putc(&b, *p++);
			continue;
		}
		const char *key = p + 1;
		size_t klen = id - 1;
		const char *v = ctx_lookup(ctx, key, klen);
		if (v) {
			fs_buf_puts(&b, v);
		} else if (klen == 5 && !memcmp(key, "tools", 5)) {
			tool_list(r, &b);
		} else {
			snprintf(err, errlen, "system prompt: unknown placeholder {%.*s}", (int)klen, key);
			fs_buf_free(&b);
			return NULL;
		}
		p += id + 1;
	}
	/* appends above only fail on OOM; check once via the terminator */
	if (!b.data)
		goto oom;
	return fs_buf_steal(&b);
oom:
	snprintf(err, errlen, "out of memory");
	fs_buf_free(&b);
	return NULL;
}
