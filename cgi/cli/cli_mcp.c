/*
 * cli_mcp.c - MCP over stdio (see cli_mcp.h): initialize, ping,
 * tools/list, tools/call on the tools of both agents, each result as text
 * content (the tool's JSON result) or, for screenshots, an image block.
 */
#include "cli/cli_mcp.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "app/app.h"
#include "cli/cli.h"
#include "cli/cli_agent.h"
#include "cli/cli_mcp_tools.h"
#include "store/store.h"
#include "base/base.h"

/* protocol versions spoken; a client asking another gets the newest */
static const char *const protocols[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};
#define MCP_LINE_MAX (16u << 20)

enum {
	RPC_PARSE = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL = -32603
};

struct fs_mcp {
	fs_tool_registry *extra; /* the server's own (cli_mcp_tools.h; first choice on a name) */
	fs_tool_registry *edit;  /* editing tools (next choice) */
	fs_tool_registry *opt;   /* optimiser tools */
	cJSON *tools;            /* merged tools/list answer */
};

static cJSON *rpc_error(const cJSON *id, int code, const char *msg)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON *e = cJSON_AddObjectToObject(o, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return o;
}

static cJSON *rpc_result(const cJSON *id, cJSON *result)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "jsonrpc", "2.0");
	cJSON_AddItemToObject(o, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(o, "result", result);
	return o;
}

static void add_defs(cJSON *out, const fs_tool_registry *r)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, fs_tools_definitions(r))
	{
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(d, "name"));
		const cJSON *x;
		int dup = 0;
		cJSON_ArrayForEach(x, out)
		if (name && !strcmp(name, cJSON_GetStringValue(cJSON_GetObjectItem(x, "name"))))
			dup = 1;
		if (!name || dup)
			continue;
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", name);
		const char *desc = cJSON_GetStringValue(cJSON_GetObjectItem(d, "description"));
		cJSON_AddStringToObject(t, "description", desc ? desc : "");
		const cJSON *schema = cJSON_GetObjectItem(d, "parameters");
		if (cJSON_IsObject(schema)) {
			cJSON_AddItemToObject(t, "inputSchema", cJSON_Duplicate(schema, 1));
		} else {
			cJSON *s = cJSON_AddObjectToObject(t, "inputSchema");
			cJSON_AddStringToObject(s, "type", "object");
			cJSON_AddObjectToObject(s, "properties");
		}
		cJSON_AddItemToObject(t, "annotations", fs_mcp_tool_annotations(name));
		cJSON_AddItemToArray(out, t);
	}
}

static int has_tool(const fs_tool_registry *r, const char *name)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, fs_tools_definitions(r))
	{
		const char *n = cJSON_GetStringValue(cJSON_GetObjectItem(d, "name"));
		if (n && !strcmp(n, name))
			return 1;
	}
	return 0;
}

static cJSON *tools_call(fs_mcp *m, const cJSON *id, const cJSON *params)
{
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(params, "name"));
	const cJSON *args = cJSON_GetObjectItem(params, "arguments");
	if (!name)
		return rpc_error(id, RPC_INVALID_PARAMS, "tools/call needs a tool name");
	if (args && !cJSON_IsObject(args))
		return rpc_error(id, RPC_INVALID_PARAMS, "arguments must be an object");
	fs_tool_registry *r = has_tool(m->extra, name) ? m->extra
			    : has_tool(m->edit, name) ? m->edit : has_tool(m->opt, name) ? m->opt : NULL;
	if (!r) {
		char msg[160];
		snprintf(msg, sizeof msg, "unknown tool '%.100s'", name);
		return rpc_error(id, RPC_INVALID_PARAMS, msg);
	}
	cJSON *empty = args ? NULL : cJSON_CreateObject();
	fs_tool_exec ex;
	memset(&ex, 0, sizeof ex);
	if (fs_tools_execute(r, name, args ? args : empty, NULL, &ex)) {
		cJSON_Delete(empty);
		return rpc_error(id, RPC_INTERNAL, "out of memory");
	}
	cJSON_Delete(empty);
	cJSON *res = cJSON_CreateObject();
	cJSON *content = cJSON_AddArrayToObject(res, "content");
	cJSON *t = cJSON_CreateObject();
	cJSON_AddStringToObject(t, "type", "text");
	cJSON_AddStringToObject(t, "text", ex.text ? ex.text : "");
	cJSON_AddItemToArray(content, t);
	if (ex.image_b64) {
		cJSON *img = cJSON_CreateObject();
		cJSON_AddStringToObject(img, "type", "image");
		cJSON_AddStringToObject(img, "data", ex.image_b64);
		cJSON_AddStringToObject(img, "mimeType", ex.media_type[0] ? ex.media_type : "image/png");
		cJSON_AddItemToArray(content, img);
	}
	cJSON_AddBoolToObject(res, "isError", !ex.ok);
	fs_tool_exec_free(&ex);
	return rpc_result(id, res);
}

cJSON *fs_mcp_handle_line(fs_mcp *m, const char *line, size_t len)
{
	cJSON *req = cJSON_ParseWithLength(line, len), *resp = NULL;
	if (!req)
		return rpc_error(NULL, RPC_PARSE, "parse error: not JSON");
	const cJSON *id = cJSON_GetObjectItem(req, "id");
	const char *ver = cJSON_GetStringValue(cJSON_GetObjectItem(req, "jsonrpc"));
	const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(req, "method"));
	const cJSON *params = cJSON_GetObjectItem(req, "params");
	int valid_id = !id || cJSON_IsNumber(id) || cJSON_IsString(id);
	if (!cJSON_IsObject(req) || !ver || strcmp(ver, "2.0") || !method || !valid_id ||
	    (params && !cJSON_IsObject(params) && !cJSON_IsArray(params))) {
		resp = rpc_error(valid_id ? id : NULL, RPC_INVALID_REQUEST, "invalid request");
		goto out;
	}
	if (!id) /* a notification (notifications/initialized, ...): never answered */
		goto out;
	if (!strcmp(method, "initialize")) {
		cJSON *r = cJSON_CreateObject();
		/* version negotiation: the client's when we speak it, else our newest */
		const char *want = cJSON_GetStringValue(cJSON_GetObjectItem(params, "protocolVersion"));
		const char *ver = protocols[0];
		for (int i = 0; want && protocols[i]; i++)
			if (!strcmp(want, protocols[i]))
				ver = protocols[i];
		cJSON_AddStringToObject(r, "protocolVersion", ver);
		cJSON *caps = cJSON_AddObjectToObject(r, "capabilities");
		cJSON_AddObjectToObject(caps, "tools");
		cJSON *si = cJSON_AddObjectToObject(r, "serverInfo");
		cJSON_AddStringToObject(si, "name", "fishscale-mcp");
		cJSON_AddStringToObject(si, "version", fs_version_string());
		resp = rpc_result(id, r);
	} else if (!strcmp(method, "ping")) {
		resp = rpc_result(id, cJSON_CreateObject());
	} else if (!strcmp(method, "tools/list")) {
		cJSON *r = cJSON_CreateObject();
		cJSON_AddItemToObject(r, "tools", cJSON_Duplicate(m->tools, 1));
		resp = rpc_result(id, r);
	} else if (!strcmp(method, "tools/call")) {
		resp = tools_call(m, id, params);
	} else {
		char msg[160];
		snprintf(msg, sizeof msg, "method not found: %.100s", method);
		resp = rpc_error(id, RPC_METHOD_NOT_FOUND, msg);
	}
out:
	cJSON_Delete(req);
	return resp;
}

static int usage(FILE *f)
{
	fprintf(f, "usage: fishscale mcp --image ID --set ID --user LOGIN\n"
		   "       fishscale mcp IMAGE_FILE [--calibration UM]\n"
		   "Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one object per line)\n"
		   "with the editing and extraction tools of the fish-scale agents on one set.\n");
	return f == stdout ? 0 : 2;
}

static long long parse_id(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	return *end || v <= 0 ? -1 : v;
}

static void log_stderr(void *ud, const char *line)
{
	(void)ud;
	fprintf(stderr, "%s\n", line);
}

int fs_cli_mcp(const char *root, int argc, char **argv)
{
	static const struct option opts[] = {
		{"image", required_argument, NULL, 'i'}, {"set", required_argument, NULL, 's'},
		{"user", required_argument, NULL, 'u'},  {"calibration", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
	};
	long long image_id = 0, set_id = 0;
	const char *login = NULL;
	double cal = 0;
	char err[1024] = "", data[1200];
	fs_standalone ws;
	fs_app app;
	fs_agent_sess sess;
	fs_mcp m = {0};
	fs_mcp_ctx mc;
	int have_sess = 0, site = 0, rc = 1;
	char *line = NULL;
	size_t cap = 0;

	memset(&ws, 0, sizeof ws);
	memset(&app, 0, sizeof app);
	memset(&sess, 0, sizeof sess);
	memset(&mc, 0, sizeof mc);
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			image_id = parse_id(optarg);
			break;
		case 's':
			set_id = parse_id(optarg);
			break;
		case 'u':
			login = optarg;
			break;
		case 'c':
			cal = strtod(optarg, NULL);
			if (!(cal > 0 && isfinite(cal)))
				return usage(stderr);
			break;
		case 'h':
			return usage(stdout);
		default:
			return usage(stderr);
		}
	}
	fs_agent_job job;
	fs_agent_job_default(&job, FS_AGENT_EDIT);
	fs_agent_env env = {0};
	fs_db *db;
	if (optind == argc - 1 && !image_id && !set_id) {
		if (fs_standalone_open(&ws, root, argv[optind], cal, err, sizeof err)) {
			fprintf(stderr, "fishscale mcp: %s\n", err);
			return 1;
		}
		db = ws.app.db;
		job.user_id = ws.user_id;
		job.image_id = ws.image_id;
		job.set_id = ws.set_id;
		env.cfg = &ws.app.cfg;
		fs_app_data_path(&ws.app, "", data, sizeof data);
	} else if (optind == argc && image_id > 0 && set_id > 0 && login) {
		site = 1;
		if (fs_app_config(&app, root, NULL, err, sizeof err) || fs_app_open(&app, 0, err, sizeof err)) {
			fprintf(stderr, "fishscale mcp: %s\n", err);
			return 1;
		}
		db = app.db;
		fs_user u;
		if (fs_user_get_by_login(db, login, &u) || u.disabled) {
			fprintf(stderr, "fishscale mcp: no active user '%s'\n", login);
			goto out;
		}
		if (fs_image_check_access(db, image_id, &u, FS_ACCESS_READ, NULL)) {
			fprintf(stderr, "fishscale mcp: image %lld does not exist or %s may not see it\n", image_id, login);
			goto out;
		}
		job.user_id = u.id;
		job.image_id = image_id;
		job.set_id = set_id;
		env.cfg = &app.cfg;
		fs_app_data_path(&app, "", data, sizeof data);
	} else {
		return usage(stderr);
	}
	env.db = db;
	snprintf(mc.data, sizeof mc.data, "%s", data);
	env.data_dir = mc.data;
	env.on_log = log_stderr;
	mc.s = &sess;
	mc.job = &job;
	mc.env = &env;
	mc.ws = site ? NULL : &ws;
	mc.root = root;
	if (!site && !realpath(argv[optind], mc.image_path))
		snprintf(mc.image_path, sizeof mc.image_path, "%s", argv[optind]);
	snprintf(mc.login, sizeof mc.login, "%s", site ? login : "standalone");
	if (fs_agent_sess_init(&sess, &job, &env, err, sizeof err)) {
		fprintf(stderr, "fishscale mcp: %s\n", err);
		goto out;
	}
	have_sess = 1;
	m.extra = fs_tools_new();
	m.edit = fs_tools_new();
	m.opt = fs_tools_new();
	m.tools = cJSON_CreateArray();
	if (!m.extra || !m.edit || !m.opt || !m.tools || fs_mcp_tools_add(m.extra, &mc, err, sizeof err) ||
	    fs_fish_tools_add_edit(m.edit, &sess, 0, err, sizeof err) ||
	    fs_fish_tools_add_optimize(m.opt, &sess, err, sizeof err)) {
		fprintf(stderr, "fishscale mcp: cannot build the tools: %s\n", err);
		goto out;
	}
	add_defs(m.tools, m.extra);
	add_defs(m.tools, m.edit);
	add_defs(m.tools, m.opt);
	fprintf(stderr, "fishscale mcp: serving set %lld of image %lld (%d tools)\n", job.set_id, job.image_id,
		cJSON_GetArraySize(m.tools));

	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		if (n == 0)
			continue;
		cJSON *resp = (size_t)n > MCP_LINE_MAX ? rpc_error(NULL, RPC_INVALID_REQUEST, "request too large")
						     : fs_mcp_handle_line(&m, line, (size_t)n);
		/* a request's writes that did not fail it (app.h), as the site's */
		if (site)
			(void)fs_app_log_skipped(&app, stderr);
		if (!resp)
			continue;
		char *s = cJSON_PrintUnformatted(resp);
		cJSON_Delete(resp);
		if (s) {
			fputs(s, stdout);
			fputc('\n', stdout);
			fflush(stdout);
		}
		cJSON_free(s);
	}
	rc = 0;
out:
	free(line);
	cJSON_Delete(m.tools);
	fs_tools_free(m.extra);
	fs_tools_free(m.edit);
	fs_tools_free(m.opt);
	if (have_sess)
		fs_agent_sess_free(&sess);
	if (site)
		fs_app_close(&app);
	fs_standalone_close(&ws);
	return rc;
}
