/* text_protocol.c - tool calls parsed out of prose (see text_protocol.h). */
#include "agent/text_protocol.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int add(fs_llm_reply *out, const char *name, size_t namelen, cJSON *args, const char *bad)
{
	char id[32], nm[128];
	int nth = 0;
	for (size_t i = 0; i < out->ncalls; i++)
		nth += out->calls[i].from_text;
	if (namelen >= sizeof(nm))
		namelen = sizeof(nm) - 1;
	memcpy(nm, name, namelen);
	nm[namelen] = 0;
	snprintf(id, sizeof(id), "text_call_%d", nth + 1);
	if (fs_llm_reply_add_call(out, id, nm, args, bad))
		return -1;
	out->calls[out->ncalls - 1].from_text = 1;
	return 0;
}

/* Parses the JSON value starting at p; *end is set past it. */
static cJSON *parse_at(const char *p, const char **end)
{
	return cJSON_ParseWithOpts(p, end, 0);
}

static int tool_call_lines(const char *text, fs_llm_reply *out, int *found)
{
	static const char kw[] = "TOOL_CALL:";
	const char *p = text;
	while ((p = strstr(p, kw))) {
		p += sizeof(kw) - 1;
		while (*p == ' ' || *p == '\t')
			p++;
		const char *name = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'))
			p++;
		size_t namelen = (size_t)(p - name);
		if (!namelen)
			continue;
		const char *params = strstr(p, "PARAMETERS:");
		const char *next = strstr(p, kw);
		cJSON *args = NULL;
		const char *bad = NULL;
		if (params && (!next || params < next)) {
			const char *brace = strchr(params, '{');
			const char *end = NULL;
			if (brace && (!next || brace < next))
				args = parse_at(brace, &end);
			if (!cJSON_IsObject(args)) {
				cJSON_Delete(args);
				args = NULL;
				bad = "PARAMETERS is not a valid JSON object";
			} else {
				p = end;
			}
		}
		if (add(out, name, namelen, args, bad))
			return -1;
		(*found)++;
	}
	return 0;
}

static int fenced_object(const cJSON *o, fs_llm_reply *out, int *found)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "tool");
	if (!cJSON_IsString(name))
		name = cJSON_GetObjectItemCaseSensitive(o, "name");
	if (!cJSON_IsString(name))
		return 0;
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "parameters");
	if (!a)
		a = cJSON_GetObjectItemCaseSensitive(o, "arguments");
	cJSON *args = NULL;
	const char *bad = NULL;
	if (cJSON_IsObject(a)) {
		args = cJSON_Duplicate(a, 1);
	} else if (cJSON_IsString(a)) {
		args = cJSON_Parse(a->valuestring);
		if (!cJSON_IsObject(args)) {
			cJSON_Delete(args);
			args = NULL;
			bad = "arguments are not a valid JSON object";
		}
	} else if (a) {
		bad = "arguments are not a JSON object";
	}
	if (add(out, name->valuestring, strlen(name->valuestring), args, bad))
		return -1;
	(*found)++;
	return 0;
}

static int code_fences(const char *text, fs_llm_reply *out, int *found)
{
	const char *p = text;
	while ((p = strstr(p, "```"))) {
		const char *body = strchr(p + 3, '\n');
		if (!body)
			break;
		body++;
		const char *close = strstr(body, "```");
		if (!close)
			break;
		char *copy = strndup(body, (size_t)(close - body));
		if (!copy)
			return -1;
		cJSON *j = cJSON_Parse(copy);
		free(copy);
		int rc = 0;
		if (cJSON_IsObject(j)) {
			rc = fenced_object(j, out, found);
		} else if (cJSON_IsArray(j)) {
			const cJSON *it;
			cJSON_ArrayForEach(it, j)
				if (!rc && cJSON_IsObject(it))
					rc = fenced_object(it, out, found);
		}
		cJSON_Delete(j);
		if (rc)
			return -1;
		p = close + 3;
	}
	return 0;
}

int fs_text_protocol_parse(const char *text, fs_llm_reply *out, char *err, size_t errlen)
{
	int found = 0;
	if (!text)
		return 0;
	if (tool_call_lines(text, out, &found) || code_fences(text, out, &found)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return found;
}
