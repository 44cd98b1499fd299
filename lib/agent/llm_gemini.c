/* llm_gemini.c - Gemini generateContent request building and response parsing (see llm_wire.h). */
#include "agent/llm_wire_format.h"

#include <stdio.h>
#include <string.h>

/*
 * Gemini's function parameters take an OpenAPI subset and answer 400 to
 * keywords outside it, so the copy drops the ones our validator uses but
 * Gemini does not know (the validator still enforces them locally).
 */
static cJSON *gemini_schema(const cJSON *s)
{
	static const char *const drop[] = {"additionalProperties", "exclusiveMinimum",
					   "exclusiveMaximum", "$schema", NULL};
	if (!s)
		return cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
	cJSON *c = cJSON_Duplicate(s, 0);
	if (!c || !(cJSON_IsObject(s) || cJSON_IsArray(s)))
		return c ? c : cJSON_Duplicate(s, 1);
	const cJSON *it;
	cJSON_ArrayForEach(it, s) {
		int skip = 0;
		for (int i = 0; cJSON_IsObject(s) && drop[i]; i++)
			if (!strcmp(it->string, drop[i]))
				skip = 1;
		if (skip)
			continue;
		cJSON *sub = gemini_schema(it);
		if (cJSON_IsObject(s))
			cJSON_AddItemToObject(c, it->string, sub);
		else
			cJSON_AddItemToArray(c, sub);
	}
	return c;
}

static cJSON *inline_image(const char *b64, const char *media_type)
{
	cJSON *p = cJSON_CreateObject();
	cJSON *d = cJSON_AddObjectToObject(p, "inline_data");
	cJSON_AddStringToObject(d, "mime_type", media_type ? media_type : "image/png");
	cJSON_AddItemToObject(d, "data", cJSON_CreateStringReference(b64));
	return p;
}

static cJSON *text_part(const char *t)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "text", t);
	return p;
}

static cJSON *new_content(cJSON *contents, const char *role)
{
	cJSON *c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "role", role);
	cJSON_AddArrayToObject(c, "parts");
	cJSON_AddItemToArray(contents, c);
	return cJSON_GetObjectItemCaseSensitive(c, "parts");
}

static void add_user(cJSON *contents, const fs_msg *m)
{
	cJSON *parts = NULL, *extra = NULL;

	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		if (p->kind != FS_PART_TOOL_RESULT)
			continue;
		if (!parts)
			parts = new_content(contents, "user");
		cJSON *fr = cJSON_CreateObject();
		cJSON *body = cJSON_AddObjectToObject(fr, "functionResponse");
		cJSON_AddStringToObject(body, "name", p->name);
		/* the response must be an object: our results are; anything else is wrapped */
		cJSON *res = cJSON_Parse(p->text);
		if (!cJSON_IsObject(res)) {
			cJSON_Delete(res);
			res = cJSON_CreateObject();
			cJSON_AddStringToObject(res, p->is_error ? "error" : "result", p->text);
		}
		cJSON_AddItemToObject(body, "response", res);
		cJSON_AddItemToArray(parts, fr);
	}
	/* images cannot ride in a functionResponse: they follow in a user content */
	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		cJSON *item = NULL;
		if (p->kind == FS_PART_TOOL_RESULT && p->image_b64) {
			if (!extra)
				extra = new_content(contents, "user");
			char cap[160];
			snprintf(cap, sizeof(cap), "Image returned by %s:", p->name);
			cJSON_AddItemToArray(extra, text_part(cap));
			item = inline_image(p->image_b64, p->media_type);
		} else if (p->kind == FS_PART_TEXT) {
			item = text_part(p->text);
		} else if (p->kind == FS_PART_IMAGE) {
			item = inline_image(p->image_b64, p->media_type);
		}
		if (!item)
			continue;
		if (!extra)
			extra = new_content(contents, "user");
		cJSON_AddItemToArray(extra, item);
	}
}

static void add_model(cJSON *contents, const fs_msg *m)
{
	if (m->raw && !strcmp(m->raw_wire, "gemini")) {
		/* verbatim, so thoughtSignature fields go back exactly as received */
		cJSON_AddItemToArray(contents, cJSON_Duplicate(m->raw, 1));
		return;
	}
	cJSON *parts = new_content(contents, "model");
	for (size_t j = 0; j < m->n; j++) {
		const fs_part *p = &m->parts[j];
		if (p->kind == FS_PART_TEXT) {
			cJSON_AddItemToArray(parts, text_part(p->text));
		} else if (p->kind == FS_PART_TOOL_CALL) {
			cJSON *fc = cJSON_CreateObject();
			cJSON *b = cJSON_AddObjectToObject(fc, "functionCall");
			cJSON_AddStringToObject(b, "name", p->name);
			cJSON_AddItemToObject(b, "args", cJSON_Duplicate(p->args, 1));
			cJSON_AddItemToArray(parts, fc);
		}
	}
}

cJSON *fs_gemini_build(const fs_wire_opts *o, const fs_conv *c, const cJSON *tools)
{
	cJSON *req = cJSON_CreateObject();
	if (!req)
		return NULL;
	if (c->system && *c->system) {
		cJSON *si = cJSON_AddObjectToObject(req, "systemInstruction");
		cJSON *parts = cJSON_AddArrayToObject(si, "parts");
		cJSON_AddItemToArray(parts, text_part(c->system));
	}
	cJSON *contents = cJSON_AddArrayToObject(req, "contents");
	for (size_t i = 0; i < c->n; i++) {
		if (c->msgs[i].role == FS_ROLE_ASSISTANT)
			add_model(contents, &c->msgs[i]);
		else
			add_user(contents, &c->msgs[i]);
	}
	if (cJSON_GetArraySize(tools) > 0) {
		cJSON *tarr = cJSON_AddArrayToObject(req, "tools");
		cJSON *tool = cJSON_CreateObject();
		cJSON *decls = cJSON_AddArrayToObject(tool, "functionDeclarations");
		cJSON_AddItemToArray(tarr, tool);
		const cJSON *t;
		cJSON_ArrayForEach(t, tools) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "name", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "name")));
			cJSON_AddStringToObject(d, "description",
				cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(t, "description")));
			cJSON_AddItemToObject(d, "parameters",
				gemini_schema(cJSON_GetObjectItemCaseSensitive(t, "parameters")));
			cJSON_AddItemToArray(decls, d);
		}
		if (o->force_tool)
			cJSON_AddItemToObject(req, "toolConfig",
				cJSON_Parse("{\"functionCallingConfig\":{\"mode\":\"ANY\"}}"));
	}
	if (o->max_tokens > 0) {
		cJSON *gc = cJSON_AddObjectToObject(req, "generationConfig");
		cJSON_AddNumberToObject(gc, "maxOutputTokens", o->max_tokens);
	}
	return req;
}

int fs_gemini_parse(const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen)
{
	const cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(resp, "candidates"), 0);
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(cand, "content");
	const cJSON *fr = cJSON_GetObjectItemCaseSensitive(cand, "finishReason");
	const cJSON *um = cJSON_GetObjectItemCaseSensitive(resp, "usageMetadata");
	const cJSON *p;
	size_t k = 0;

	if (!cand) {
		const char *m = fs_wire_error_message(resp);
		const char *block = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(resp, "promptFeedback"), "blockReason"));
		snprintf(err, errlen, "gemini: response has no candidates%s%s%s%s", m ? ": " : "",
			 m ? m : "", block ? " (blocked: " : "", block ? block : "");
		if (block)
			strncat(err, ")", errlen - strlen(err) - 1);
		return -1;
	}
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(content, "parts")) {
		const cJSON *fc = cJSON_GetObjectItemCaseSensitive(p, "functionCall");
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "text"));
		if (fc) {
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(fc, "args");
			const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fc, "id"));
			char gen[32];
			if (!id) {
				/* Gemini matches responses by name and order; the id is ours */
				snprintf(gen, sizeof(gen), "gemini_call_%zu", k);
				id = gen;
			}
			k++;
			int bad = args && !cJSON_IsObject(args);
			if (fs_llm_reply_add_call(out, id,
					cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fc, "name")),
					args && !bad ? cJSON_Duplicate(args, 1) : NULL,
					bad ? "args is not a JSON object" : NULL))
				goto oom;
		} else if (t && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought"))) {
			if (fs_llm_reply_append_text(out, t))
				goto oom;
		}
	}
	if (cJSON_IsString(fr) && !(out->stop_reason = strdup(fr->valuestring)))
		goto oom;
	out->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "promptTokenCount"));
	long cand_t = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "candidatesTokenCount"));
	long thought = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "thoughtsTokenCount"));
	/* thinking tokens are billed as output */
	out->out_tokens = (cand_t > 0 ? cand_t : 0) + (thought > 0 ? thought : 0);
	if (out->in_tokens < 0)
		out->in_tokens = 0;
	if (content) {
		if (!(out->raw = cJSON_Duplicate(content, 1)))
			goto oom;
		if (!cJSON_GetObjectItemCaseSensitive(out->raw, "role"))
			cJSON_AddStringToObject(out->raw, "role", "model");
		snprintf(out->raw_wire, sizeof(out->raw_wire), "gemini");
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

const fs_wire_format fs_wire_format_gemini = {
	.name = "gemini",
	.build = fs_gemini_build,
	.parse = fs_gemini_parse,
};
