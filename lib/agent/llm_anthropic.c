/* llm_anthropic.c - Anthropic Messages API request building and response parsing (see llm_wire.h). */
#include "agent/llm_wire_format.h"

#include <stdio.h>
#include <string.h>

static cJSON *image_block(const fs_part *p)
{
	cJSON *b = cJSON_CreateObject();
	cJSON *src = cJSON_AddObjectToObject(b, "source");
	cJSON_AddStringToObject(b, "type", "image");
	cJSON_AddStringToObject(src, "type", "base64");
	cJSON_AddStringToObject(src, "media_type", p->media_type ? p->media_type : "image/png");
	/* a reference, not a copy: the conversation outlives the request */
	cJSON_AddItemToObject(src, "data", cJSON_CreateStringReference(p->image_b64));
	return b;
}

static cJSON *text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static cJSON *part_block(const fs_part *p)
{
	cJSON *b;
	switch (p->kind) {
	case FS_PART_TEXT:
		return text_block(p->text);
	case FS_PART_IMAGE:
		return image_block(p);
	case FS_PART_TOOL_CALL:
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "tool_use");
		cJSON_AddStringToObject(b, "id", p->id);
		cJSON_AddStringToObject(b, "name", p->name);
		cJSON_AddItemToObject(b, "input", cJSON_Duplicate(p->args, 1));
		return b;
	case FS_PART_TOOL_RESULT:
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "tool_result");
		cJSON_AddStringToObject(b, "tool_use_id", p->id);
		if (p->image_b64) {
			/* Anthropic is the one wire that takes images inside a tool result */
			cJSON *content = cJSON_AddArrayToObject(b, "content");
			cJSON_AddItemToArray(content, image_block(p));
			cJSON_AddItemToArray(content, text_block(p->text));
		} else {
			cJSON_AddStringToObject(b, "content", p->text);
		}
		if (p->is_error)
			cJSON_AddBoolToObject(b, "is_error", 1);
		return b;
	}
	return NULL;
}

cJSON *fs_anthropic_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools)
{
	cJSON *req = cJSON_CreateObject();
	if (!req)
		return NULL;
	cJSON_AddStringToObject(req, "model", o->model);
	cJSON_AddNumberToObject(req, "max_tokens", o->max_tokens > 0 ? o->max_tokens : 4096);
	if (c->system && *c->system)
		cJSON_AddStringToObject(req, "system", c->system);
	if (cJSON_GetArraySize(tools) > 0) {
		cJSON *arr = cJSON_AddArrayToObject(req, "tools");
		const cJSON *t;
		cJSON_ArrayForEach(t, tools) {
			cJSON *d = cJSON_CreateObject();
			const cJSON *params = cJSON_GetObjectItemCaseSensitive(t, "parameters");
			cJSON_AddStringToObject(d, "name", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")));
			cJSON_AddStringToObject(d, "description",
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "description")));
			cJSON_AddItemToObject(d, "input_schema", params ? cJSON_Duplicate(params, 1)
					      : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
			cJSON_AddItemToArray(arr, d);
		}
		if (o->force_tool)
			cJSON_AddItemToObject(req, "tool_choice", cJSON_Parse("{\"type\":\"any\"}"));
	}
	cJSON *msgs = cJSON_AddArrayToObject(req, "messages");
	for (size_t i = 0; i < c->n; i++) {
		const fs_msg *m = &c->msgs[i];
		cJSON *jm = cJSON_CreateObject();
		cJSON_AddItemToArray(msgs, jm);
		cJSON_AddStringToObject(jm, "role", m->role == FS_ROLE_USER ? "user" : "assistant");
		if (m->raw && !strcmp(m->raw_wire, "anthropic")) {
			cJSON_AddItemToObject(jm, "content", cJSON_Duplicate(m->raw, 1));
			continue;
		}
		cJSON *content = cJSON_AddArrayToObject(jm, "content");
		for (size_t j = 0; j < m->n; j++)
			cJSON_AddItemToArray(content, part_block(&m->parts[j]));
	}
	if (o->stream)
		cJSON_AddBoolToObject(req, "stream", 1);
	return req;
}

int fs_anthropic_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(resp, "content");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(resp, "usage");
	const cJSON *sr = cJSON_GetObjectItemCaseSensitive(resp, "stop_reason");
	const cJSON *b;

	if (!cJSON_IsArray(content)) {
		const char *m = fs_wire_error_message(resp);
		snprintf(err, errlen, "anthropic: response has no content%s%s", m ? ": " : "", m ? m : "");
		return -1;
	}
	cJSON_ArrayForEach(b, content) {
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
		if (!type)
			continue;
		if (!strcmp(type, "text")) {
			const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "text"));
			if (t && fs_llm_reply_append_text(out, t))
				goto oom;
		} else if (!strcmp(type, "tool_use")) {
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
			int bad = in && !cJSON_IsObject(in);
			if (fs_llm_reply_add_call(out,
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "id")),
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "name")),
					in && !bad ? cJSON_Duplicate(in, 1) : NULL,
					bad ? "tool input is not a JSON object" : NULL))
				goto oom;
		}
	}
	if (cJSON_IsString(sr) && !(out->stop_reason = strdup(sr->valuestring)))
		goto oom;
	out->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "input_tokens"));
	out->out_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "output_tokens"));
	if (out->in_tokens < 0)
		out->in_tokens = 0;
	if (out->out_tokens < 0)
		out->out_tokens = 0;
	if (!(out->raw = cJSON_Duplicate(content, 1)))
		goto oom;
	snprintf(out->raw_wire, sizeof(out->raw_wire), "anthropic");
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

const fs_wire_format fs_wire_format_anthropic = {
	.name = "anthropic",
	.build = fs_anthropic_build,
	.parse = fs_anthropic_parse,
};
