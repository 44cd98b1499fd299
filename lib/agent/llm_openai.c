/* llm_openai.c - OpenAI-compatible chat completions request building and parsing (see llm_wire.h). */
#include "agent/llm_wire_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

static cJSON *image_url_part(const fs_part *p)
{
	fs_buf url = FS_BUF_INIT;
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "image_url");
	cJSON *iu = cJSON_AddObjectToObject(b, "image_url");
	fs_buf_printf(&url, "data:%s;base64,", p->media_type ? p->media_type : "image/png");
	fs_buf_puts(&url, p->image_b64);
	cJSON_AddStringToObject(iu, "url", url.data ? url.data : "");
	fs_buf_free(&url);
	return b;
}

static cJSON *text_part(const char *text)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static void add_assistant(cJSON *msgs, const fs_msg *m)
{
	cJSON *jm = cJSON_CreateObject();
	fs_buf text = FS_BUF_INIT;
	cJSON *calls = NULL;

	cJSON_AddItemToArray(msgs, jm);
	cJSON_AddStringToObject(jm, "role", "assistant");
	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		if (p->kind == FS_PART_TEXT) {
			fs_buf_puts(&text, p->text);
		} else if (p->kind == FS_PART_TOOL_CALL) {
			if (!calls)
				calls = cJSON_CreateArray();
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "id", p->id);
			cJSON_AddStringToObject(c, "type", "function");
			cJSON *f = cJSON_AddObjectToObject(c, "function");
			cJSON_AddStringToObject(f, "name", p->name);
			char *args = cJSON_PrintUnformatted(p->args);
			cJSON_AddStringToObject(f, "arguments", args ? args : "{}");
			cJSON_free(args);
			cJSON_AddItemToArray(calls, c);
		}
	}
	if (text.len)
		cJSON_AddStringToObject(jm, "content", text.data);
	else
		cJSON_AddNullToObject(jm, "content");
	if (calls)
		cJSON_AddItemToObject(jm, "tool_calls", calls);
	fs_buf_free(&text);
}

/*
 * One of our user messages can become several OpenAI messages: a "tool"
 * message per result first (they must directly follow the assistant's
 * tool_calls), then one user message with the other text and images,
 * including screenshots from tool results, which tool messages cannot hold.
 */
static void add_user(cJSON *msgs, const fs_msg *m)
{
	cJSON *content = cJSON_CreateArray();
	int has_image = 0;

	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		if (p->kind != FS_PART_TOOL_RESULT)
			continue;
		cJSON *tm = cJSON_CreateObject();
		cJSON_AddStringToObject(tm, "role", "tool");
		cJSON_AddStringToObject(tm, "tool_call_id", p->id);
		cJSON_AddStringToObject(tm, "content", p->text);
		cJSON_AddItemToArray(msgs, tm);
		if (p->image_b64) {
			fs_buf cap = FS_BUF_INIT;
			fs_buf_printf(&cap, "Image returned by %s (call %s):", p->name, p->id);
			cJSON_AddItemToArray(content, text_part(cap.data ? cap.data : ""));
			cJSON_AddItemToArray(content, image_url_part(p));
			fs_buf_free(&cap);
			has_image = 1;
		}
	}
	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		if (p->kind == FS_PART_TEXT) {
			cJSON_AddItemToArray(content, text_part(p->text));
		} else if (p->kind == FS_PART_IMAGE) {
			cJSON_AddItemToArray(content, image_url_part(p));
			has_image = 1;
		}
	}
	int n = cJSON_GetArraySize(content);
	if (n == 0) {
		cJSON_Delete(content);
		return;
	}
	cJSON *um = cJSON_CreateObject();
	cJSON_AddStringToObject(um, "role", "user");
	if (!has_image && n == 1) {
		/* plain string content: the widest-supported form (older Ollama/vLLM) */
		cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(content, 0), "text");
		cJSON_AddStringToObject(um, "content", cJSON_GetStringValue(t));
		cJSON_Delete(content);
	} else {
		cJSON_AddItemToObject(um, "content", content);
	}
	cJSON_AddItemToArray(msgs, um);
}

cJSON *fs_openai_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools)
{
	cJSON *req = cJSON_CreateObject();
	if (!req)
		return NULL;
	cJSON_AddStringToObject(req, "model", o->model);
	cJSON *msgs = cJSON_AddArrayToObject(req, "messages");
	if (c->system && *c->system) {
		cJSON *sm = cJSON_CreateObject();
		cJSON_AddStringToObject(sm, "role", "system");
		cJSON_AddStringToObject(sm, "content", c->system);
		cJSON_AddItemToArray(msgs, sm);
	}
	for (size_t i = 0; i < c->n; i++) {
		if (c->msgs[i].role == FS_ROLE_ASSISTANT)
			add_assistant(msgs, &c->msgs[i]);
		else
			add_user(msgs, &c->msgs[i]);
	}
	if (cJSON_GetArraySize(tools) > 0) {
		cJSON *arr = cJSON_AddArrayToObject(req, "tools");
		const cJSON *t;
		cJSON_ArrayForEach(t, tools) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "type", "function");
			cJSON *f = cJSON_AddObjectToObject(d, "function");
			const cJSON *params = cJSON_GetObjectItemCaseSensitive(t, "parameters");
			cJSON_AddStringToObject(f, "name", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")));
			cJSON_AddStringToObject(f, "description",
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "description")));
			cJSON_AddItemToObject(f, "parameters", params ? cJSON_Duplicate(params, 1)
					      : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}"));
			cJSON_AddItemToArray(arr, d);
		}
		if (o->force_tool)
			cJSON_AddStringToObject(req, "tool_choice", "required");
	}
	if (o->max_tokens > 0)
		cJSON_AddNumberToObject(req, "max_tokens", o->max_tokens);
	if (o->stream) {
		cJSON_AddBoolToObject(req, "stream", 1);
		cJSON_AddItemToObject(req, "stream_options", cJSON_Parse("{\"include_usage\":true}"));
	} else {
		cJSON_AddBoolToObject(req, "stream", 0);
	}
	return req;
}

static int parse_call(const cJSON *tc, size_t idx, fs_llm_reply *out)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(tc, "function");
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "id"));
	const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "name"));
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(f, "arguments");
	cJSON *args = NULL;
	const char *bad = NULL;
	char gen[32];

	if (!id || !*id) {
		/* some OpenAI-compatible servers omit ids; results still need one */
		snprintf(gen, sizeof(gen), "call_%zu", idx);
		id = gen;
	}
	if (cJSON_IsString(a)) {
		const char *s = a->valuestring;
		if (s[strspn(s, " \t\r\n")] == 0) {
			args = cJSON_CreateObject();
		} else {
			args = cJSON_Parse(s);
			if (!cJSON_IsObject(args)) {
				cJSON_Delete(args);
				args = NULL;
				bad = "arguments are not a valid JSON object";
			}
		}
	} else if (cJSON_IsObject(a)) {
		args = cJSON_Duplicate(a, 1);
	} else if (a && !cJSON_IsNull(a)) {
		bad = "arguments are not a valid JSON object";
	}
	return fs_llm_reply_add_call(out, id, name, args, bad);
}

int fs_openai_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen)
{
	const cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(resp, "choices"), 0);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
	const cJSON *usage = cJSON_GetObjectItemCaseSensitive(resp, "usage");
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
	const cJSON *content, *tc;

	if (!cJSON_IsObject(msg)) {
		const char *m = fs_wire_error_message(resp);
		snprintf(err, errlen, "openai: response has no choices%s%s", m ? ": " : "", m ? m : "");
		return -1;
	}
	content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (cJSON_IsString(content) && *content->valuestring) {
		if (fs_llm_reply_append_text(out, content->valuestring))
			goto oom;
	} else if (cJSON_IsArray(content)) {
		const cJSON *p;
		cJSON_ArrayForEach(p, content) {
			const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "text"));
			if (t && fs_llm_reply_append_text(out, t))
				goto oom;
		}
	}
	size_t idx = 0;
	cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
		if (parse_call(tc, idx++, out))
			goto oom;
	}
	if (cJSON_IsString(fr) && !(out->stop_reason = strdup(fr->valuestring)))
		goto oom;
	out->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens"));
	out->out_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(usage, "completion_tokens"));
	if (out->in_tokens < 0)
		out->in_tokens = 0;
	if (out->out_tokens < 0)
		out->out_tokens = 0;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

const fs_wire_format fs_wire_format_openai = {
	.name = "openai",
	.build = fs_openai_build,
	.parse = fs_openai_parse,
};
