/*
 * agent_tools.h - the tool registry an agent run offers the model: name,
 * description, JSON Schema of the arguments, C handler with user data, and
 * a "finishing" flag for tools that end the run when they succeed.
 *
 * Every call goes through fs_tools_execute, which checks the name and
 * validates the arguments against the schema (json_schema.h) before the
 * handler runs; a bad call becomes an error result the model can correct.
 * Every result has one shape:
 *     {"success": true,  "data": {...},      "tool": name, "timestamp": ISO-8601}
 *     {"success": false, "error": "message", "tool": name, "timestamp": ISO-8601}
 * A handler returning FS_TOOL_CRITICAL (storage failure, lost image, ...)
 * marks the execution critical: the loop stops the run instead of handing
 * the error to the model.
 *
 * The system prompt comes from a template: {tools} becomes the tool list
 * with parameters, {name} any key of the run's context (key/value list).
 * Only {identifier} forms are placeholders, so JSON examples in a prompt
 * are left alone; an unknown placeholder is an error (catches typos).
 *
 * Ownership: the registry copies names, descriptions and parses the schema;
 * user data stays the caller's. A handler's out->data and out->image_b64
 * (malloc) pass to the execution record; fs_tool_exec_free releases it.
 * Strings and JSON returned by the functions below belong to the caller.
 */
#ifndef FS_AGENT_TOOLS_H
#define FS_AGENT_TOOLS_H

#include <stddef.h>
#include <cJSON.h>

#define FS_TOOL_FINISHING 1u

enum { FS_TOOL_OK = 0, FS_TOOL_ERROR = -1, FS_TOOL_CRITICAL = -2 };

typedef struct fs_tool_output {
	cJSON *data;        /* success payload (object or any JSON), may stay NULL */
	char error[512];    /* failure message */
	char *image_b64;    /* optional screenshot (malloc'd PNG base64) */
	char media_type[32];/* defaults to image/png */
	int width, height;  /* of the image, mentioned to the model */
} fs_tool_output;

/* Returns FS_TOOL_OK, FS_TOOL_ERROR or FS_TOOL_CRITICAL. */
typedef int (*fs_tool_fn)(const cJSON *args, fs_tool_output *out, void *user);

typedef struct fs_tool_registry fs_tool_registry;

typedef struct fs_tool_exec {
	int ok;             /* success */
	int critical;       /* handler said critical: stop the run */
	cJSON *result;      /* the {success, data|error, tool, timestamp} object */
	char *text;         /* result serialised for the model */
	char *image_b64;
	char media_type[32];
} fs_tool_exec;

fs_tool_registry *fs_tools_new(void);
void fs_tools_free(fs_tool_registry *r);

/* name: 1-64 of [A-Za-z0-9_-]; schema_json: NULL means no arguments. */
int fs_tools_add(fs_tool_registry *r, const char *name, const char *description,
		 const char *schema_json, fs_tool_fn fn, void *user, unsigned flags, char *err,
		 size_t errlen);

size_t fs_tools_count(const fs_tool_registry *r);
/* [{name, description, parameters}] - owned by the registry. */
const cJSON *fs_tools_definitions(const fs_tool_registry *r);
int fs_tools_is_finishing(const fs_tool_registry *r, const char *name);
int fs_tools_has_finishing(const fs_tool_registry *r);
/* Comma-separated names, for messages; caller frees. */
char *fs_tools_names(const fs_tool_registry *r, unsigned only_flags);

/*
 * Runs one call: unknown tool, malformed arguments (args_error) and schema
 * failures become error results without calling the handler. Returns 0, or
 * -1 on out of memory (ex is then empty).
 */
int fs_tools_execute(fs_tool_registry *r, const char *name, const cJSON *args,
		     const char *args_error, fs_tool_exec *ex);
void fs_tool_exec_free(fs_tool_exec *ex);

/*
 * The checks fs_tools_execute makes before the handler (known tool, JSON
 * object, schema); 0 if the call would reach its handler, -1 with why in
 * err. Lets an approval step skip calls that would be refused anyway.
 */
int fs_tools_check(const fs_tool_registry *r, const char *name, const cJSON *args,
		   const char *args_error, char *err, size_t errlen);

/* A result object in the common shape; data is taken over (may be NULL). */
cJSON *fs_tool_result_new(const char *tool, int success, cJSON *data, const char *error);

/*
 * Fills the template. ctx is a NULL-terminated list of key, value pairs.
 * Returns a malloc'd string, or NULL with err (unknown placeholder, OOM).
 */
char *fs_tools_system_prompt(const fs_tool_registry *r, const char *tmpl,
			     const char *const *ctx, char *err, size_t errlen);

#endif
