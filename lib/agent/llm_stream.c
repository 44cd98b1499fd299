/*
 * llm_stream.c - assemble a streamed (SSE) response into the JSON shape of
 * the non-streamed endpoint, passing text deltas on as they come (see
 * llm_wire.h).
 *
 * anthropic: content_block_start/delta/stop with text_delta and
 *            input_json_delta (tool input arrives as JSON text fragments);
 * openai:    chunks whose delta.tool_calls[index] carry id/name once and
 *            the arguments string in fragments; usage in a last chunk;
 * gemini:    each chunk is a whole response; parts are appended in order.
 */
#include "agent/llm_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define MAX_BLOCKS 64

struct fs_wire_stream {
	fs_wire wire;
	fs_text_delta_fn cb;
	void *user;
	cJSON *blocks;            /* anthropic content / openai tool_calls / gemini parts */
	fs_buf acc[MAX_BLOCKS];   /* per-index text or JSON fragments */
	fs_buf text;              /* openai message text */
	char *stop;
	long in_tokens, out_tokens, thought_tokens;
	int saw_usage;
};

fs_wire_stream *fs_wire_stream_new(fs_wire w, fs_text_delta_fn cb, void *user)
{
	fs_wire_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->wire = w;
	s->cb = cb;
	s->user = user;
	s->blocks = cJSON_CreateArray();
	if (!s->blocks) {
		free(s);
		return NULL;
	}
	return s;
}

void fs_wire_stream_free(fs_wire_stream *s)
{
	if (!s)
		return;
	cJSON_Delete(s->blocks);
	for (int i = 0; i < MAX_BLOCKS; i++)
		fs_buf_free(&s->acc[i]);
	fs_buf_free(&s->text);
	free(s->stop);
	free(s);
}

static void set_stop(fs_wire_stream *s, const cJSON *v)
{
	if (!cJSON_IsString(v))
		return;
	char *d = strdup(v->valuestring);
	if (d) {
		free(s->stop);
		s->stop = d;
	}
}

static void delta(fs_wire_stream *s, const char *t)
{
	if (s->cb && t && *t)
		s->cb(t, s->user);
}

static int block_index(const cJSON *ev, char *err, size_t errlen)
{
	const cJSON *ix = cJSON_GetObjectItemCaseSensitive(ev, "index");
	int i = cJSON_IsNumber(ix) ? ix->valueint : -1;
	if (i < 0 || i >= MAX_BLOCKS) {
		snprintf(err, errlen, "stream: content block index out of range");
		return -1;
	}
	return i;
}

static int anthropic_block_stop(fs_wire_stream *s, int i, char *err, size_t errlen)
{
	cJSON *b = cJSON_GetArrayItem(s->blocks, i);
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "type"));
	const char *acc = s->acc[i].data ? s->acc[i].data : "";
	if (!type)
		return 0;
	if (!strcmp(type, "text")) {
		cJSON_ReplaceItemInObjectCaseSensitive(b, "text", cJSON_CreateString(acc));
	} else if (!strcmp(type, "thinking")) {
		cJSON_ReplaceItemInObjectCaseSensitive(b, "thinking", cJSON_CreateString(acc));
	} else if (!strcmp(type, "tool_use")) {
		cJSON *in = *acc ? cJSON_Parse(acc) : cJSON_CreateObject();
		if (!in) {
			snprintf(err, errlen, "stream: tool input is not valid JSON");
			return -1;
		}
		cJSON_ReplaceItemInObjectCaseSensitive(b, "input", in);
	}
	fs_buf_reset(&s->acc[i]);
	return 0;
}

static int anthropic_event(fs_wire_stream *s, const char *event, const cJSON *ev, char *err, size_t errlen)
{
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "type"));
	if (!type)
		type = event;
	if (!strcmp(type, "error")) {
		const char *m = fs_wire_error_message(ev);
		snprintf(err, errlen, "anthropic stream error: %s", m ? m : "unknown");
		return -1;
	}
	if (!strcmp(type, "message_start")) {
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(ev, "message"), "usage");
		s->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "input_tokens"));
		s->saw_usage = 1;
	} else if (!strcmp(type, "content_block_start")) {
		int i = block_index(ev, err, errlen);
		if (i < 0)
			return -1;
		while (cJSON_GetArraySize(s->blocks) <= i)
			cJSON_AddItemToArray(s->blocks, cJSON_CreateObject());
		cJSON *cb = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(ev, "content_block"), 1);
		if (!cb || !cJSON_ReplaceItemInArray(s->blocks, i, cb)) {
			cJSON_Delete(cb);
			snprintf(err, errlen, "stream: bad content_block_start");
			return -1;
		}
		fs_buf_reset(&s->acc[i]);
	} else if (!strcmp(type, "content_block_delta")) {
		int i = block_index(ev, err, errlen);
		if (i < 0)
			return -1;
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(ev, "delta");
		const char *dt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "type"));
		const char *piece = NULL;
		if (dt && !strcmp(dt, "text_delta")) {
			piece = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "text"));
			delta(s, piece);
		} else if (dt && !strcmp(dt, "input_json_delta")) {
			piece = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "partial_json"));
		} else if (dt && !strcmp(dt, "thinking_delta")) {
			piece = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "thinking"));
		} else if (dt && !strcmp(dt, "signature_delta")) {
			cJSON *b = cJSON_GetArrayItem(s->blocks, i);
			const char *sig = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "signature"));
			if (b && sig)
				cJSON_ReplaceItemInObjectCaseSensitive(b, "signature", cJSON_CreateString(sig));
		}
		if (piece && fs_buf_puts(&s->acc[i], piece)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	} else if (!strcmp(type, "content_block_stop")) {
		int i = block_index(ev, err, errlen);
		if (i < 0 || anthropic_block_stop(s, i, err, errlen))
			return -1;
	} else if (!strcmp(type, "message_delta")) {
		set_stop(s, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "delta"),
							     "stop_reason"));
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(ev, "usage");
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(u, "output_tokens");
		if (cJSON_IsNumber(o))
			s->out_tokens = (long)o->valuedouble;
	}
	return 0;
}

static int openai_event(fs_wire_stream *s, const cJSON *ev, char *err, size_t errlen)
{
	const char *em = fs_wire_error_message(ev);
	if (em) {
		snprintf(err, errlen, "openai stream error: %s", em);
		return -1;
	}
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(ev, "usage");
	if (cJSON_IsObject(u)) {
		s->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "prompt_tokens"));
		s->out_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(u, "completion_tokens"));
		s->saw_usage = 1;
	}
	const cJSON *ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ev, "choices"), 0);
	if (!ch)
		return 0;
	set_stop(s, cJSON_GetObjectItemCaseSensitive(ch, "finish_reason"));
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(ch, "delta");
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d, "content"));
	if (t) {
		delta(s, t);
		if (fs_buf_puts(&s->text, t))
			goto oom;
	}
	const cJSON *tc;
	cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(d, "tool_calls")) {
		const cJSON *ix = cJSON_GetObjectItemCaseSensitive(tc, "index");
		int i = cJSON_IsNumber(ix) ? ix->valueint : cJSON_GetArraySize(s->blocks);
		if (i < 0 || i >= MAX_BLOCKS) {
			snprintf(err, errlen, "stream: tool call index out of range");
			return -1;
		}
		while (cJSON_GetArraySize(s->blocks) <= i) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "id", "");
			cJSON_AddStringToObject(c, "type", "function");
			cJSON *f = cJSON_AddObjectToObject(c, "function");
			cJSON_AddStringToObject(f, "name", "");
			cJSON_AddItemToArray(s->blocks, c);
		}
		cJSON *call = cJSON_GetArrayItem(s->blocks, i);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(tc, "function");
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "id"));
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "name"));
		const char *args = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(f, "arguments"));
		if (id && *id)
			cJSON_ReplaceItemInObjectCaseSensitive(call, "id", cJSON_CreateString(id));
		if (name && *name)
			cJSON_ReplaceItemInObjectCaseSensitive(cJSON_GetObjectItemCaseSensitive(call, "function"),
							       "name", cJSON_CreateString(name));
		if (args && fs_buf_puts(&s->acc[i], args))
			goto oom;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Plain text pieces are one part split by the stream: join them again so the
 * echoed content looks like the non-streamed answer. Parts carrying anything
 * else (thoughtSignature, thought) are kept exactly as received. */
static int merge_text(fs_wire_stream *s, const cJSON *p)
{
	cJSON *last = cJSON_GetArrayItem(s->blocks, cJSON_GetArraySize(s->blocks) - 1);
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "text");
	const cJSON *lt = cJSON_GetObjectItemCaseSensitive(last, "text");
	if (!cJSON_IsString(t) || !cJSON_IsString(lt) || cJSON_GetArraySize(p) != 1 ||
	    cJSON_GetArraySize(last) != 1)
		return 0;
	size_t a = strlen(lt->valuestring), b = strlen(t->valuestring);
	char *joined = malloc(a + b + 1);
	if (!joined)
		return 0;
	memcpy(joined, lt->valuestring, a);
	memcpy(joined + a, t->valuestring, b + 1);
	cJSON *ns = cJSON_CreateString(joined);
	free(joined);
	if (!ns)
		return 0;
	cJSON_ReplaceItemInObjectCaseSensitive(last, "text", ns);
	return 1;
}

static int gemini_event(fs_wire_stream *s, const cJSON *ev, char *err, size_t errlen)
{
	const char *em = fs_wire_error_message(ev);
	if (em) {
		snprintf(err, errlen, "gemini stream error: %s", em);
		return -1;
	}
	const cJSON *um = cJSON_GetObjectItemCaseSensitive(ev, "usageMetadata");
	if (cJSON_IsObject(um)) {
		s->in_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "promptTokenCount"));
		s->out_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "candidatesTokenCount"));
		s->thought_tokens = (long)cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(um, "thoughtsTokenCount"));
		s->saw_usage = 1;
	}
	const cJSON *cand = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ev, "candidates"), 0);
	set_stop(s, cJSON_GetObjectItemCaseSensitive(cand, "finishReason"));
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cand, "content"), "parts")) {
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "thought")))
			delta(s, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "text")));
		if (merge_text(s, p))
			continue;
		cJSON *dup = cJSON_Duplicate(p, 1);
		if (!dup || !cJSON_AddItemToArray(s->blocks, dup)) {
			cJSON_Delete(dup);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

int fs_wire_stream_event(fs_wire_stream *s, const char *event, const char *data, size_t len,
			 char *err, size_t errlen)
{
	if (s->wire == FS_WIRE_OPENAI && len == 6 && !memcmp(data, "[DONE]", 6))
		return 0;
	if (!strcmp(event, "ping"))
		return 0;
	cJSON *ev = cJSON_ParseWithLength(data, len);
	int rc = -1;
	if (!ev) {
		snprintf(err, errlen, "%s stream: event data is not JSON", fs_wire_name(s->wire));
		return -1;
	}
	switch (s->wire) {
	case FS_WIRE_ANTHROPIC:
		rc = anthropic_event(s, event, ev, err, errlen);
		break;
	case FS_WIRE_OPENAI:
		rc = openai_event(s, ev, err, errlen);
		break;
	case FS_WIRE_GEMINI:
		rc = gemini_event(s, ev, err, errlen);
		break;
	}
	cJSON_Delete(ev);
	return rc;
}

static cJSON *result_anthropic(fs_wire_stream *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "content", s->blocks);
	s->blocks = NULL;
	if (s->stop)
		cJSON_AddStringToObject(r, "stop_reason", s->stop);
	cJSON *u = cJSON_AddObjectToObject(r, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", s->in_tokens);
	cJSON_AddNumberToObject(u, "output_tokens", s->out_tokens);
	return r;
}

static cJSON *result_openai(fs_wire_stream *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *choices = cJSON_AddArrayToObject(r, "choices");
	cJSON *ch = cJSON_CreateObject();
	cJSON_AddItemToArray(choices, ch);
	cJSON *m = cJSON_AddObjectToObject(ch, "message");
	cJSON_AddStringToObject(m, "role", "assistant");
	if (s->text.len)
		cJSON_AddStringToObject(m, "content", s->text.data);
	else
		cJSON_AddNullToObject(m, "content");
	int i = 0;
	cJSON *c;
	cJSON_ArrayForEach(c, s->blocks) {
		cJSON *f = cJSON_GetObjectItemCaseSensitive(c, "function");
		cJSON_AddStringToObject(f, "arguments", s->acc[i].data ? s->acc[i].data : "");
		i++;
	}
	if (cJSON_GetArraySize(s->blocks) > 0) {
		cJSON_AddItemToObject(m, "tool_calls", s->blocks);
		s->blocks = NULL;
	}
	if (s->stop)
		cJSON_AddStringToObject(ch, "finish_reason", s->stop);
	cJSON *u = cJSON_AddObjectToObject(r, "usage");
	cJSON_AddNumberToObject(u, "prompt_tokens", s->in_tokens);
	cJSON_AddNumberToObject(u, "completion_tokens", s->out_tokens);
	return r;
}

static cJSON *result_gemini(fs_wire_stream *s)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *cands = cJSON_AddArrayToObject(r, "candidates");
	cJSON *cand = cJSON_CreateObject();
	cJSON_AddItemToArray(cands, cand);
	cJSON *content = cJSON_AddObjectToObject(cand, "content");
	cJSON_AddStringToObject(content, "role", "model");
	cJSON_AddItemToObject(content, "parts", s->blocks);
	s->blocks = NULL;
	if (s->stop)
		cJSON_AddStringToObject(cand, "finishReason", s->stop);
	cJSON *u = cJSON_AddObjectToObject(r, "usageMetadata");
	cJSON_AddNumberToObject(u, "promptTokenCount", s->in_tokens);
	cJSON_AddNumberToObject(u, "candidatesTokenCount", s->out_tokens);
	if (s->thought_tokens > 0)
		cJSON_AddNumberToObject(u, "thoughtsTokenCount", s->thought_tokens);
	return r;
}

cJSON *fs_wire_stream_result(fs_wire_stream *s, char *err, size_t errlen)
{
	cJSON *r = NULL;
	if (!s->blocks) {
		snprintf(err, errlen, "stream result already taken");
		return NULL;
	}
	switch (s->wire) {
	case FS_WIRE_ANTHROPIC:
		r = result_anthropic(s);
		break;
	case FS_WIRE_OPENAI:
		r = result_openai(s);
		break;
	case FS_WIRE_GEMINI:
		r = result_gemini(s);
		break;
	}
	if (!r)
		snprintf(err, errlen, "out of memory");
	return r;
}
