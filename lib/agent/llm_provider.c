/* llm_provider.c - HTTP and local providers behind one interface (see llm_provider.h). */
#include "agent/llm_provider.h"

#include <stdio.h>
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
	const char *secrets[2];
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

int fs_llm_provider_known(const char *provider)
{
	return find_def(provider) != NULL || (provider && !strcmp(provider, "local"));
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
		fs_buf_printf(&b, "/v1beta/models/%s:%s", llm->model,
			      llm->wopts.stream ? "streamGenerateContent?alt=sse" : "generateContent");
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
	llm->secrets[0] = llm->key[0] ? llm->key : NULL;
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

static void stream_begin(void *user)
{
	stream_ctx *s = user;
	/* a retried attempt starts from scratch */
	fs_sse_free(&s->sse);
	fs_sse_init(&s->sse, on_event, s);
	fs_wire_stream_free(s->ws);
	s->ws = fs_wire_stream_new(s->llm->wire, s->llm->delta, s->llm->delta_user);
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

int fs_llm_turn(fs_llm *llm, const fs_conv *conv, const cJSON *tools, fs_llm_reply *out,
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
