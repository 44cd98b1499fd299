/* llm_provider.c - HTTP and local providers behind one interface (see llm_provider.h). */
#include "agent/llm_provider.h"

#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "agent/llm_keys.h"
#include "web/sse.h"

#define KEY_MAX 512

struct fs_llm {
	char *provider;
	char *model;
	char *url;
	int is_local;
	fs_wire wire;
	fs_wire_opts wopts;
	fs_http_opts http;
	char key[KEY_MAX];
	/* the other providers' configured keys: a gateway may echo any of them */
	char other_keys[4][KEY_MAX];
	const char *secrets[6];
	fs_buf held;          /* streamed text not yet passed on (see guarded_delta) */
	char *extra_headers[4];
	fs_text_delta_fn delta;
	void *delta_user;
	fs_local_policy_fn policy;
	void *policy_user;
	cJSON *last_request;
	size_t last_request_bytes;
	const char *last_error_kind;
	int last_attempts;
};

static const struct provider_def {
	const char *name;
	fs_wire wire;
	const char *base;
	const char *model;
} providers[] = {
	{"anthropic", FS_WIRE_ANTHROPIC, "https://api.anthropic.com", "claude-sonnet-4-20250514"},
	{"claude", FS_WIRE_ANTHROPIC, "https://api.anthropic.com", "claude-sonnet-4-20250514"},
	{"openai", FS_WIRE_OPENAI, "https://api.openai.com", "gpt-4o"},
	{"openrouter", FS_WIRE_OPENAI, "https://openrouter.ai/api", "anthropic/claude-sonnet-4"},
	{"ollama", FS_WIRE_OPENAI, "http://localhost:11434", "llama3.2-vision"},
	{"vllm", FS_WIRE_OPENAI, "http://localhost:8000", ""},
	{"gemini", FS_WIRE_GEMINI, "https://generativelanguage.googleapis.com", "gemini-2.0-flash"},
};

static const struct provider_def *find_def(const char *name)
{
	for (size_t i = 0; name && i < sizeof(providers) / sizeof(*providers); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}

int fs_llm_provider_configured(const char *provider, void *key_file)
{
	return fs_llm_key_present(provider, NULL, key_file);
}

void fs_llm_config_default(fs_llm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->max_tokens = 4096;
	fs_http_opts_default(&c->http);
}

void fs_llm_free(fs_llm *llm)
{
	if (!llm)
		return;
	explicit_bzero(llm->key, sizeof(llm->key));
	explicit_bzero(llm->other_keys, sizeof(llm->other_keys));
	if (llm->held.data)
		explicit_bzero(llm->held.data, llm->held.len);
	fs_buf_free(&llm->held);
	for (size_t i = 0; i < sizeof(llm->extra_headers) / sizeof(*llm->extra_headers); i++) {
		if (llm->extra_headers[i])
			explicit_bzero(llm->extra_headers[i], strlen(llm->extra_headers[i]));
		free(llm->extra_headers[i]);
	}
	free(llm->provider);
	free(llm->model);
	free(llm->url);
	cJSON_Delete(llm->last_request);
	free(llm);
}

/* OLLAMA_HOST is often "127.0.0.1:11434" without a scheme. */
static void ollama_base(fs_buf *b)
{
	const char *h = getenv("OLLAMA_HOST");
	if (!h || !*h) {
		fs_buf_puts(b, "http://localhost:11434");
		return;
	}
	if (!strstr(h, "://"))
		fs_buf_puts(b, "http://");
	fs_buf_puts(b, h);
}

int fs_llm_model_name_valid(const char *name)
{
	if (!name || !*name || strlen(name) > FS_LLM_MODEL_MAX || strstr(name, ".."))
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._:/-", *p))
			return 0;
	return 1;
}

/* One path segment, percent-escaped: everything but RFC 3986's unreserved
 * characters, so a ':' or '/' in a model name cannot pick another method or
 * resource of the provider's API. */
static void put_path_segment(fs_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (isalnum(*p) || strchr("-._~", *p))
			fs_buf_putc(b, (char)*p);
		else
			fs_buf_printf(b, "%%%02X", *p);
	}
}

static int build_url(fs_llm *llm, const struct provider_def *d, const char *base, char *err, size_t errlen)
{
	fs_buf b = FS_BUF_INIT;
	if (base && *base)
		fs_buf_puts(&b, base);
	else if (!strcmp(d->name, "ollama"))
		ollama_base(&b);
	else
		fs_buf_puts(&b, d->base);
	while (b.len && b.data[b.len - 1] == '/')
		b.data[--b.len] = 0;
	if (!b.data || (strncmp(b.data, "http://", 7) && strncmp(b.data, "https://", 8))) {
		snprintf(err, errlen, "base URL must start with http:// or https://");
		fs_buf_free(&b);
		return -1;
	}
	switch (d->wire) {
	case FS_WIRE_ANTHROPIC:
		fs_buf_puts(&b, "/v1/messages");
		break;
	case FS_WIRE_OPENAI:
		fs_buf_puts(&b, "/v1/chat/completions");
		break;
	case FS_WIRE_GEMINI:
		fs_buf_puts(&b, "/v1beta/models/");
		put_path_segment(&b, llm->model);
		fs_buf_printf(&b, ":%s", llm->wopts.stream ? "streamGenerateContent?alt=sse" : "generateContent");
		break;
	}
	llm->url = fs_buf_steal(&b);
	return 0;
}

static int set_headers(fs_llm *llm, const struct provider_def *d)
{
	fs_buf h = FS_BUF_INIT;
	int n = 0;
	switch (d->wire) {
	case FS_WIRE_ANTHROPIC:
		fs_buf_printf(&h, "x-api-key: %s", llm->key);
		llm->extra_headers[n++] = fs_buf_steal(&h);
		llm->extra_headers[n++] = strdup("anthropic-version: 2023-06-01");
		break;
	case FS_WIRE_OPENAI:
		if (llm->key[0]) {
			fs_buf_printf(&h, "Authorization: Bearer %s", llm->key);
			llm->extra_headers[n++] = fs_buf_steal(&h);
		}
		if (!strcmp(d->name, "openrouter")) {
			llm->extra_headers[n++] = strdup("HTTP-Referer: https://github.com/fish-scale-analysis");
			llm->extra_headers[n++] = strdup("X-Title: fishscale");
		}
		break;
	case FS_WIRE_GEMINI:
		fs_buf_printf(&h, "x-goog-api-key: %s", llm->key);
		llm->extra_headers[n++] = fs_buf_steal(&h);
		break;
	}
	for (int i = 0; i < n; i++)
		if (!llm->extra_headers[i])
			return -1;
	return 0;
}

fs_llm *fs_llm_new(const fs_llm_config *c, char *err, size_t errlen)
{
	const struct provider_def *d = find_def(c->provider);
	fs_llm *llm = NULL;

	if (!d) {
		snprintf(err, errlen, "unknown provider '%s'", c->provider ? c->provider : "(none)");
		return NULL;
	}
	llm = calloc(1, sizeof(*llm));
	if (!llm)
		goto oom;
	llm->wire = d->wire;
	llm->http = c->http;
	llm->provider = strdup(!strcmp(d->name, "claude") ? "anthropic" : d->name);
	llm->model = strdup(c->model && *c->model ? c->model : d->model);
	if (!llm->provider || !llm->model)
		goto oom;
	if (!*llm->model) {
		snprintf(err, errlen, "provider %s needs a model name", d->name);
		goto fail;
	}
	if (!fs_llm_model_name_valid(llm->model)) {
		snprintf(err, errlen, "invalid model name (1 to %d characters of A-Z a-z 0-9 . _ : / -)", FS_LLM_MODEL_MAX);
		goto fail;
	}
	llm->wopts.model = llm->model;
	llm->wopts.max_tokens = c->max_tokens;
	llm->wopts.stream = c->stream;
	llm->wopts.force_tool = c->force_tool;
	if (c->api_key && *c->api_key) {
		if (strlen(c->api_key) >= sizeof(llm->key)) {
			snprintf(err, errlen, "API key too long");
			goto fail;
		}
		strcpy(llm->key, c->api_key);
	} else if (fs_llm_key_resolve(llm->provider, c->key_env, c->key_file, llm->key,
				      sizeof(llm->key), err, errlen)) {
		goto fail;
	}
	size_t ns = 0;
	if (llm->key[0])
		llm->secrets[ns++] = llm->key;
	static const char *const keyed[] = {"anthropic", "openai", "openrouter", "gemini"};
	for (size_t i = 0; i < 4; i++) {
		char kerr[256];
		if (fs_llm_key_resolve(keyed[i], NULL, c->key_file, llm->other_keys[i], KEY_MAX, kerr, sizeof kerr) ||
		    !llm->other_keys[i][0] || !strcmp(llm->other_keys[i], llm->key))
			continue;
		llm->secrets[ns++] = llm->other_keys[i];
	}
	llm->secrets[ns] = NULL;
	if (build_url(llm, d, c->base_url, err, errlen))
		goto fail;
	if (set_headers(llm, d))
		goto oom;
	return llm;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	fs_llm_free(llm);
	return NULL;
}

fs_llm *fs_llm_new_local(const char *model, fs_local_policy_fn policy, void *user, char *err,
			 size_t errlen)
{
	fs_llm *llm = calloc(1, sizeof(*llm));
	if (!llm || !policy || !(llm->provider = strdup("local")) ||
	    !(llm->model = strdup(model ? model : "policy")) || !(llm->url = strdup("local:"))) {
		snprintf(err, errlen, policy ? "out of memory" : "local provider needs a policy");
		fs_llm_free(llm);
		return NULL;
	}
	llm->is_local = 1;
	llm->policy = policy;
	llm->policy_user = user;
	return llm;
}

void fs_llm_set_text_delta(fs_llm *llm, fs_text_delta_fn cb, void *user)
{
	llm->delta = cb;
	llm->delta_user = user;
}

void fs_llm_set_cancel(fs_llm *llm, fs_cancel_fn cb, void *user)
{
	llm->http.cancel = cb;
	llm->http.cancel_user = user;
}

const char *fs_llm_provider(const fs_llm *llm) { return llm->provider; }
const char *fs_llm_model(const fs_llm *llm) { return llm->model; }
const char *fs_llm_url(const fs_llm *llm) { return llm->url; }
const cJSON *fs_llm_last_request(const fs_llm *llm) { return llm->last_request; }
size_t fs_llm_last_request_bytes(const fs_llm *llm) { return llm->last_request_bytes; }
const char *fs_llm_last_error_kind(const fs_llm *llm) { return llm->last_error_kind; }
int fs_llm_last_attempts(const fs_llm *llm) { return llm->last_attempts; }
int fs_llm_max_tokens(const fs_llm *llm) { return llm->is_local ? 0 : llm->wopts.max_tokens; }
const char *const *fs_llm_secrets(const fs_llm *llm) { return llm->secrets; }

/* Streaming: SSE bytes -> events -> assembled response. */
typedef struct stream_ctx {
	fs_llm *llm;
	fs_sse sse;
	fs_wire_stream *ws;
	char err[256];
	int failed;
} stream_ctx;

static int on_event(const char *event, const char *data, size_t len, void *user)
{
	stream_ctx *s = user;
	if (fs_wire_stream_event(s->ws, event, data, len, s->err, sizeof(s->err))) {
		s->failed = 1;
		return 1;
	}
	return 0;
}

/*
 * Streamed text passes through here on its way to the caller's callback:
 * it is held back to the last character that cannot be part of a key, and
 * what is let through is redacted, so a key split between two events of the
 * stream never reaches a reply file whole.
 */
static void guarded_delta(const char *text, void *user)
{
	fs_llm *llm = user;
	if (!llm->delta || fs_buf_puts(&llm->held, text))
		return;
	size_t safe = fs_llm_redact_safe_len(llm->held.data, llm->held.len);
	if (!safe)
		return;
	char save = llm->held.data[safe];
	llm->held.data[safe] = 0;
	char *r = fs_llm_redact_dup(llm->held.data, llm->secrets);
	llm->held.data[safe] = save;
	if (r && *r)
		llm->delta(r, llm->delta_user);
	free(r);
	memmove(llm->held.data, llm->held.data + safe, llm->held.len - safe);
	llm->held.len -= safe;
	llm->held.data[llm->held.len] = 0;
}

/* The held tail at the end of a turn. */
static void flush_delta(fs_llm *llm)
{
	if (llm->held.len && llm->delta) {
		char *r = fs_llm_redact_dup(llm->held.data, llm->secrets);
		if (r && *r)
			llm->delta(r, llm->delta_user);
		free(r);
	}
	fs_buf_reset(&llm->held);
}

/* Everything of a reply that came from the provider, redacted in place. */
static int redact_string(char **p, const char *const *secrets)
{
	if (!*p)
		return 0;
	char *r = fs_llm_redact_dup(*p, secrets);
	if (!r)
		return -1;
	free(*p);
	*p = r;
	return 0;
}

static int redact_json(cJSON **p, const char *const *secrets)
{
	if (!*p)
		return 0;
	cJSON *r = fs_llm_redact_json(*p, secrets);
	if (!r)
		return -1;
	cJSON_Delete(*p);
	*p = r;
	return 0;
}

static int redact_reply(fs_llm_reply *out, const char *const *secrets)
{
	int bad = redact_string(&out->text, secrets) || redact_string(&out->stop_reason, secrets) ||
		  redact_json(&out->raw, secrets);
	for (size_t i = 0; i < out->ncalls && !bad; i++) {
		fs_tool_call *c = &out->calls[i];
		bad = redact_string(&c->id, secrets) || redact_string(&c->name, secrets) ||
		      redact_string(&c->args_error, secrets) || redact_json(&c->args, secrets);
	}
	return bad ? -1 : 0;
}

static void stream_begin(void *user)
{
	stream_ctx *s = user;
	/* a retried attempt starts from scratch */
	fs_sse_free(&s->sse);
	fs_sse_init(&s->sse, on_event, s);
	fs_wire_stream_free(s->ws);
	s->ws = fs_wire_stream_new(s->llm->wire, s->llm->delta ? guarded_delta : NULL, s->llm);
	fs_buf_reset(&s->llm->held);
	s->failed = 0;
	s->err[0] = 0;
}

static int stream_data(const char *p, size_t n, void *user)
{
	stream_ctx *s = user;
	if (!s->ws) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		return -1;
	}
	char perr[256];
	if (fs_sse_feed(&s->sse, p, n, perr, sizeof(perr))) {
		/* keep the event consumer's own message (e.g. the provider's stream error) */
		if (!s->err[0])
			snprintf(s->err, sizeof(s->err), "%s", perr);
		return -1;
	}
	return 0;
}

static const char *stream_error(void *user)
{
	return ((stream_ctx *)user)->err;
}

static int local_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
		      char *err, size_t errlen)
{
	cJSON_Delete(llm->last_request);
	llm->last_request = cJSON_CreateObject();
	if (llm->last_request) {
		cJSON_AddStringToObject(llm->last_request, "provider", "local");
		cJSON_AddNumberToObject(llm->last_request, "messages", (double)conv->n);
	}
	llm->last_request_bytes = 0;
	llm->last_attempts = 1;
	if (llm->http.cancel && llm->http.cancel(llm->http.cancel_user)) {
		snprintf(err, errlen, "cancelled");
		llm->last_error_kind = "cancelled";
		return -1;
	}
	if (llm->policy(conv, tools, out, llm->policy_user, err, errlen)) {
		llm->last_error_kind = "local_policy";
		return -1;
	}
	if (llm->delta && out->text)
		llm->delta(out->text, llm->delta_user);
	return 0;
}

static int provider_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
			 char *err, size_t errlen);

/*
 * The one choke point for what comes back from a provider: the error, the
 * reply's text, tool calls and native JSON, and (in guarded_delta) the
 * streamed text are redacted here, before any caller can record them. The
 * error is written into a large buffer first so that a key is redacted
 * whole before the message is cut to the caller's size.
 */
int fs_llm_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
		char *err, size_t errlen)
{
	char big[4096] = "";
	int rc = provider_turn(llm, conv, tools, out, big, sizeof big);
	flush_delta(llm);
	if (!rc && redact_reply(out, llm->secrets)) {
		snprintf(big, sizeof big, "out of memory redacting the reply");
		llm->last_error_kind = "internal";
		rc = -1;
	}
	if (rc) {
		fs_llm_redact_in_place(big, sizeof big, llm->secrets);
		snprintf(err, errlen, "%s", big);
	}
	return rc;
}

static int provider_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
			 char *err, size_t errlen)
{
	fs_http_result r = {0};
	stream_ctx sc = {.llm = llm};
	fs_http_sink sink = {stream_begin, stream_data, stream_error, &sc};
	char *body = NULL;
	cJSON *resp = NULL;
	int rc = -1;
	const char *headers[8];
	int nh = 0;

	llm->last_error_kind = NULL;
	if (llm->is_local)
		return local_turn(llm, conv, tools, out, err, errlen);
	cJSON_Delete(llm->last_request);
	llm->last_request = fs_wire_build(llm->wire, &llm->wopts, conv, tools);
	body = llm->last_request ? fs_wire_serialize(llm->last_request, &llm->last_request_bytes) : NULL;
	if (!body) {
		snprintf(err, errlen, "out of memory building the request");
		llm->last_error_kind = "internal";
		goto out;
	}
	headers[nh++] = "Content-Type: application/json";
	headers[nh++] = llm->wopts.stream ? "Accept: text/event-stream" : "Accept: application/json";
	for (size_t i = 0; i < 4 && llm->extra_headers[i]; i++)
		headers[nh++] = llm->extra_headers[i];
	headers[nh] = NULL;
	fs_sse_init(&sc.sse, on_event, &sc);
	if (fs_http_post(&llm->http, llm->url, headers, body, llm->last_request_bytes,
			 llm->wopts.stream ? &sink : NULL, &r, err, errlen)) {
		llm->last_error_kind = r.error_kind;
		goto out;
	}
	if (llm->wopts.stream) {
		if (!sc.ws || fs_sse_finish(&sc.sse, sc.err, sizeof(sc.err)) || sc.failed) {
			snprintf(err, errlen, "stream: %s", sc.err[0] ? sc.err : "empty event stream");
			llm->last_error_kind = "stream";
			goto out;
		}
		resp = fs_wire_stream_result(sc.ws, err, errlen);
	} else {
		resp = cJSON_ParseWithLength(r.body.data ? r.body.data : "", r.body.len);
		if (!resp)
			snprintf(err, errlen, "%s: response is not valid JSON (HTTP %ld, %zu bytes)",
				 llm->provider, r.status, r.body.len);
	}
	if (!resp) {
		llm->last_error_kind = "provider_response";
		goto out;
	}
	if (fs_wire_parse(llm->wire, resp, out, err, errlen)) {
		llm->last_error_kind = "provider_response";
		goto out;
	}
	rc = 0;
out:
	llm->last_attempts = r.attempts;
	cJSON_Delete(resp);
	fs_sse_free(&sc.sse);
	fs_wire_stream_free(sc.ws);
	fs_http_result_free(&r);
	free(body);
	return rc;
}
