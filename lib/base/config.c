/*
 * config.c - key = value configuration with environment overrides.
 *
 * Every key is declared once in the table below with its type, bounds and
 * help text; the file parser, the environment overrides and `fishscale
 * config` all go through that table, so a key cannot be read one way and
 * documented another.
 */
#include "base/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ktype { K_STR, K_INT, K_LONG, K_DOUBLE, K_BOOL };

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	size_t size; /* for strings */
	double min, max;
	const char *help;
};

#define S(f) K_STR, offsetof(fs_config, f), sizeof(((fs_config *)0)->f), 0, 0
#define I(f, lo, hi) K_INT, offsetof(fs_config, f), 0, lo, hi
#define L(f, lo, hi) K_LONG, offsetof(fs_config, f), 0, lo, hi
#define D(f, lo, hi) K_DOUBLE, offsetof(fs_config, f), 0, lo, hi
#define B(f) K_BOOL, offsetof(fs_config, f), 0, 0, 1

static const struct key keys[] = {
	{"data_dir", S(data_dir), "directory for the database, images and run files"},
	{"web_group", S(web_group), "group the web server (nginx) runs as: the data directory is given to it, mode 2750, so that it can serve images (empty = keep the directory's group)"},
	{"base_path", S(base_path), "URL path the site lives under, e.g. / or /fishscale/"},
	{"listen_address", S(listen_address), "address nginx listens on"},
	{"port", I(port, 1, 65535), "port nginx listens on"},
	{"fcgi_workers", I(fcgi_workers, 1, 64), "number of FastCGI worker processes"},
	{"trusted_proxies", S(trusted_proxies), "comma-separated proxy addresses whose X-Forwarded-* headers are believed"},
	{"session_idle_minutes", I(session_idle_minutes, 1, 525600), "a session ends after this long without a request"},
	{"session_absolute_hours", I(session_absolute_hours, 1, 8760), "a session ends this long after login, whatever happens"},
	{"upload_max_mb", I(upload_max_mb, 1, 4096), "largest request body (uploads) in MiB"},
	{"max_pixels", L(max_pixels, 1, 2000000000L), "largest image accepted, width x height"},
	{"sync_max_pixels", L(sync_max_pixels, 0, 2000000000L), "images with more pixels are extracted, and their sets re-measured, by a background job instead of in the request"},
	{"import_sync_max_pixels", L(import_sync_max_pixels, 0, 2000000000L), "uploads with more pixels are stored at once and decoded (working image, pyramid) by a background job"},
	{"tile_min_side", I(tile_min_side, 0, 1000000), "images whose larger side exceeds this get a display pyramid of 256-pixel tiles, and their display PNG becomes an overview this large (0 = never)"},
	{"jobs_max_running", I(jobs_max_running, 0, 256), "heavy background jobs running at once on the site (0 = number of cores - 1, at least 1)"},
	{"jobs_memory_mb", I(jobs_memory_mb, 0, 100000000), "memory the running background jobs may be expected to take, in MiB (0 = half the machine's memory)"},
	{"set_pack_min", I(set_pack_min, 1, 2000000000), "a set replaced with at least this many tubercles (an extraction) is stored as one packed record instead of a row each, so writing it holds SQLite's write lock for milliseconds"},
	{"set_stage_chunk_kb", I(set_stage_chunk_kb, 1, 1048576), "a large result (a packed set's record, its journal step) is written in chunks of this many KiB, one short transaction each, and made visible by one tiny transaction: an edit waits for one chunk at most"},
	{"user_quota_mb", I(user_quota_mb, 0, 100000000), "disk space one user's images may take in MiB: originals, working images, display copies (0 = no limit)"},
	{"login_max_failures", I(login_max_failures, 1, 1000), "failed logins of one account from one address before that pair waits (growing waits); 20x for the account from all addresses, 4x for one address over all accounts"},
	{"login_window_minutes", I(login_window_minutes, 1, 1440), "window over which failed logins are counted"},
	{"sso_header", S(sso_header), "header set by a trusted proxy naming the logged-in user (empty = off)"},
	{"sso_create_users", B(sso_create_users), "create a member account for an unknown single-sign-on user"},
	{"agent_max_runs_per_user", I(agent_max_runs_per_user, 0, 100), "concurrent agent runs per user"},
	{"agent_max_runs_total", I(agent_max_runs_total, 0, 1000), "concurrent agent runs on the site"},
	{"agent_max_iterations", I(agent_max_iterations, 1, 10000), "largest iteration limit a run may ask for"},
	{"agent_max_seconds", I(agent_max_seconds, 1, 86400), "wall-clock limit of one agent run"},
	{"agent_max_cost_usd", D(agent_max_cost_usd, 0, 10000), "cost limit of one agent run in USD"},
	{"agent_tabs", S(agent_tabs), "agent tabs shown: empty, 1/true/yes, extraction, editing, or both comma-separated"},
	{"anthropic_key_env", S(anthropic_key_env), "name of the environment variable holding the Anthropic API key"},
	{"openai_key_env", S(openai_key_env), "name of the environment variable holding the OpenAI API key"},
	{"openrouter_key_env", S(openrouter_key_env), "name of the environment variable holding the OpenRouter API key"},
	{"gemini_key_env", S(gemini_key_env), "name of the environment variable holding the Gemini API key"},
	{"key_file", S(key_file), "optional file (mode 0600) with lines 'provider = key'"},
	{"anthropic_base_url", S(anthropic_base_url), "base URL of the Anthropic API"},
	{"openai_base_url", S(openai_base_url), "base URL of the OpenAI API"},
	{"openrouter_base_url", S(openrouter_base_url), "base URL of the OpenRouter API"},
	{"gemini_base_url", S(gemini_base_url), "base URL of the Gemini API"},
	{"ollama_base_url", S(ollama_base_url), "base URL of an Ollama (OpenAI-compatible) server"},
	{"vllm_base_url", S(vllm_base_url), "base URL of a vLLM (OpenAI-compatible) server"},
	{"agent_no_approval_tools", S(agent_no_approval_tools), "comma-separated tools that run without asking when each step needs approval (read-only ones; 'get_*' = every get_ tool)"},
	{"agent_http_timeout_s", I(agent_http_timeout_s, 1, 3600), "longest wait for one provider request in seconds"},
	{"agent_http_connect_timeout_s", I(agent_http_connect_timeout_s, 1, 600), "longest wait for a connection to a provider in seconds"},
	{"agent_http_retries", I(agent_http_retries, 0, 20), "retries of a provider request that failed with 429, 5xx or a network error"},
	{"measurement_rule", S(measurement_rule), "the rule that measures tubercle diameters in extraction, Re-measure, the agents and the optimiser: outline (version 1, the half-level outline) or dome (version 2, the base of the SEM dome); empty = the build's default, which `fishscale measure --help` names"},
};

#define NKEYS (sizeof keys / sizeof keys[0])

static fs_config_key public_keys[NKEYS];

const fs_config_key *fs_config_keys(size_t *count)
{
	for (size_t i = 0; i < NKEYS; i++) {
		public_keys[i].name = keys[i].name;
		public_keys[i].help = keys[i].help;
	}
	*count = NKEYS;
	return public_keys;
}

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

void fs_config_defaults(fs_config *c)
{
	memset(c, 0, sizeof *c);
	copy(c->data_dir, sizeof c->data_dir, "data");
	copy(c->base_path, sizeof c->base_path, "/");
	copy(c->listen_address, sizeof c->listen_address, "127.0.0.1");
	c->port = 8090;
	c->fcgi_workers = 4;
	copy(c->trusted_proxies, sizeof c->trusted_proxies, "127.0.0.1,::1");
	c->session_idle_minutes = 120;
	c->session_absolute_hours = 168;
	c->upload_max_mb = 100;
	c->max_pixels = 100000000L;
	c->user_quota_mb = 5120;
	c->sync_max_pixels = 8000000L;
	c->tile_min_side = 4096;
	c->set_pack_min = 5000;
	c->set_stage_chunk_kb = 256;
	c->import_sync_max_pixels = 8000000L;
	c->login_max_failures = 5;
	c->login_window_minutes = 15;
	c->sso_create_users = 0;
	c->agent_max_runs_per_user = 2;
	c->agent_max_runs_total = 4;
	c->agent_max_iterations = 50;
	c->agent_max_seconds = 1800;
	c->agent_max_cost_usd = 2.0;
	copy(c->anthropic_key_env, sizeof c->anthropic_key_env, "ANTHROPIC_API_KEY");
	copy(c->openai_key_env, sizeof c->openai_key_env, "OPENAI_API_KEY");
	copy(c->openrouter_key_env, sizeof c->openrouter_key_env, "OPENROUTER_API_KEY");
	copy(c->gemini_key_env, sizeof c->gemini_key_env, "GEMINI_API_KEY");
	copy(c->anthropic_base_url, sizeof c->anthropic_base_url, "https://api.anthropic.com");
	copy(c->openai_base_url, sizeof c->openai_base_url, "https://api.openai.com");
	copy(c->openrouter_base_url, sizeof c->openrouter_base_url, "https://openrouter.ai/api");
	copy(c->gemini_base_url, sizeof c->gemini_base_url, "https://generativelanguage.googleapis.com");
	copy(c->ollama_base_url, sizeof c->ollama_base_url, "http://127.0.0.1:11434");
	copy(c->vllm_base_url, sizeof c->vllm_base_url, "http://localhost:8000");
	copy(c->agent_no_approval_tools, sizeof c->agent_no_approval_tools, FS_NO_APPROVAL_DEFAULT);
	c->agent_http_timeout_s = 300;
	c->agent_http_connect_timeout_s = 30;
	c->agent_http_retries = 3;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

/* base_path must start and end with '/' and hold only URL path characters,
 * because it is pasted into nginx's config, cookies and every link. */
static int normalise_base_path(char *bp, size_t n, char *err, size_t errlen)
{
	char tmp[FS_CONF_STR];
	size_t len = strlen(bp);
	if (len + 3 > sizeof tmp) {
		snprintf(err, errlen, "base_path is too long");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)bp[i];
		if (!(isalnum(ch) || ch == '/' || ch == '-' || ch == '_' || ch == '.' || ch == '~')) {
			snprintf(err, errlen, "base_path may only contain letters, digits, / - _ . ~");
			return -1;
		}
	}
	if (strstr(bp, "..") || strstr(bp, "//")) {
		snprintf(err, errlen, "base_path may not contain '..' or '//'");
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s%s%s", bp[0] == '/' ? "" : "/", bp,
		 (len && bp[len - 1] == '/') ? "" : "/");
	if (!strcmp(tmp, "//"))
		copy(tmp, sizeof tmp, "/");
	copy(bp, n, tmp);
	return 0;
}

int fs_config_set(fs_config *c, const char *name, const char *value, char *err, size_t errlen)
{
	const struct key *k = find_key(name);
	if (!k) {
		snprintf(err, errlen, "unknown key '%s'", name);
		return -1;
	}
	char *base = (char *)c;
	char *end = NULL;
	switch (k->type) {
	case K_STR:
		if (strlen(value) >= k->size) {
			snprintf(err, errlen, "value of '%s' is too long (at most %zu bytes)", name, k->size - 1);
			return -1;
		}
		copy(base + k->off, k->size, value);
		if (!strcmp(name, "trusted_proxies"))
			c->trusted_proxies_given = 1;
		/* base does not know the rules (analysis/measurement.h parses
		 * them); it only refuses a name that is none, so a typo fails
		 * at start-up instead of measuring with the default */
		if (!strcmp(name, "measurement_rule") && *value && strcmp(value, "outline") && strcmp(value, "dome")) {
			c->measurement_rule[0] = 0;
			snprintf(err, errlen, "'measurement_rule' must be outline or dome");
			return -1;
		}
		if (!strcmp(name, "base_path"))
			return normalise_base_path(c->base_path, sizeof c->base_path, err, errlen);
		return 0;
	case K_INT:
	case K_LONG: {
		errno = 0;
		long long v = strtoll(value, &end, 10);
		if (errno || end == value || *end || v < (long long)k->min || v > (long long)k->max) {
			snprintf(err, errlen, "'%s' must be an integer from %.0f to %.0f", name, k->min, k->max);
			return -1;
		}
		if (k->type == K_INT)
			*(int *)(base + k->off) = (int)v;
		else
			*(long *)(base + k->off) = (long)v;
		return 0;
	}
	case K_DOUBLE: {
		errno = 0;
		double v = strtod(value, &end);
		if (errno || end == value || *end || !(v >= k->min && v <= k->max)) {
			snprintf(err, errlen, "'%s' must be a number from %g to %g", name, k->min, k->max);
			return -1;
		}
		*(double *)(base + k->off) = v;
		return 0;
	}
	case K_BOOL: {
		int b;
		if (parse_bool(value, &b)) {
			snprintf(err, errlen, "'%s' must be true or false", name);
			return -1;
		}
		*(int *)(base + k->off) = b;
		return 0;
	}
	}
	return -1;
}

int fs_config_get(const fs_config *c, const char *name, char *out, size_t outlen)
{
	const struct key *k = find_key(name);
	if (!k)
		return -1;
	const char *base = (const char *)c;
	switch (k->type) {
	case K_STR:
		snprintf(out, outlen, "%s", base + k->off);
		break;
	case K_INT:
		snprintf(out, outlen, "%d", *(const int *)(base + k->off));
		break;
	case K_LONG:
		snprintf(out, outlen, "%ld", *(const long *)(base + k->off));
		break;
	case K_DOUBLE:
		snprintf(out, outlen, "%g", *(const double *)(base + k->off));
		break;
	case K_BOOL:
		snprintf(out, outlen, "%s", *(const int *)(base + k->off) ? "true" : "false");
		break;
	}
	return 0;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int load_file(fs_config *c, const char *path, int missing_ok, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	char line[2048];
	int lineno = 0, rc = 0;
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path, lineno);
			rc = -1;
			break;
		}
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
			rc = -1;
			break;
		}
		*eq = 0;
		char *key = trim(s), *val = trim(eq + 1);
		char msg[256];
		if (fs_config_set(c, key, val, msg, sizeof msg)) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
			rc = -1;
			break;
		}
	}
	fclose(f);
	return rc;
}

static int apply_env(fs_config *c, char *err, size_t errlen)
{
	for (size_t i = 0; i < NKEYS; i++) {
		char var[96] = "FISHSCALE_";
		size_t p = strlen(var);
		for (const char *s = keys[i].name; *s && p + 1 < sizeof var; s++)
			var[p++] = (char)toupper((unsigned char)*s);
		var[p] = 0;
		const char *v = getenv(var);
		if (!v)
			continue;
		char msg[256];
		if (fs_config_set(c, keys[i].name, v, msg, sizeof msg)) {
			snprintf(err, errlen, "environment %s: %s", var, msg);
			return -1;
		}
	}
	const char *tabs = getenv("FISH_SCALE_AGENT_TABS");
	if (tabs && !getenv("FISHSCALE_AGENT_TABS"))
		copy(c->agent_tabs, sizeof c->agent_tabs, tabs);
	return 0;
}

int fs_config_load(fs_config *c, const char *path, int missing_ok, char *err, size_t errlen)
{
	if (path && load_file(c, path, missing_ok, err, errlen))
		return -1;
	if (apply_env(c, err, errlen))
		return -1;
	/* the loopback default is for X-Forwarded-*, never for an identity header */
	if (c->sso_header[0] && !c->trusted_proxies_given)
		c->trusted_proxies[0] = 0;
	return 0;
}

int fs_config_check_sso(const fs_config *c, char *err, size_t errlen)
{
	if (!c->sso_header[0])
		return 0;
	const char *p = c->trusted_proxies;
	while (*p == ',' || isspace((unsigned char)*p))
		p++;
	if (!c->trusted_proxies_given || !*p) {
		snprintf(err, errlen, "sso_header = %s needs trusted_proxies set explicitly to the addresses of the "
				      "proxies that set it (the default would believe any local process)", c->sso_header);
		return -1;
	}
	return 0;
}

void fs_config_sso_warning(const fs_config *c, char *out, size_t outlen)
{
	out[0] = 0;
	if (!c->sso_header[0])
		return;
	const char *p = c->trusted_proxies;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		const char *e = p;
		while (*e && *e != ',' && !isspace((unsigned char)*e))
			e++;
		if ((e - p >= 4 && !strncmp(p, "127.", 4)) || (e - p == 3 && !strncmp(p, "::1", 3)) ||
		    (e - p == 9 && !strncmp(p, "localhost", 9))) {
			snprintf(out, outlen, "warning: single sign-on (%s) trusts the loopback address %.*s: any "
					      "process on this machine can log in as anyone; list only the proxy's own "
					      "address if you can", c->sso_header, (int)(e - p), p);
			return;
		}
		p = e;
	}
}

int fs_config_is_trusted_proxy(const fs_config *c, const char *addr)
{
	if (!addr || !*addr)
		return 0;
	size_t alen = strlen(addr);
	const char *p = c->trusted_proxies;
	while (*p) {
		while (*p == ',' || isspace((unsigned char)*p))
			p++;
		const char *e = p;
		while (*e && *e != ',' && !isspace((unsigned char)*e))
			e++;
		if ((size_t)(e - p) == alen && !strncmp(p, addr, alen))
			return 1;
		p = e;
	}
	return 0;
}

int fs_config_agent_tabs(const fs_config *c)
{
	const char *v = c->agent_tabs;
	if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes"))
		return 3;
	int bits = 0;
	if (strstr(v, "extraction"))
		bits |= 1;
	if (strstr(v, "editing"))
		bits |= 2;
	return bits;
}

/* The provider switchboard, in one place for the worker, the API and the CLI. */
static const struct provider_keys {
	const char *name;
	size_t key_env, base_url; /* offsets into fs_config; (size_t)-1 = none */
} providers[] = {
	{"anthropic", offsetof(fs_config, anthropic_key_env), offsetof(fs_config, anthropic_base_url)},
	{"claude", offsetof(fs_config, anthropic_key_env), offsetof(fs_config, anthropic_base_url)},
	{"openai", offsetof(fs_config, openai_key_env), offsetof(fs_config, openai_base_url)},
	{"openrouter", offsetof(fs_config, openrouter_key_env), offsetof(fs_config, openrouter_base_url)},
	{"gemini", offsetof(fs_config, gemini_key_env), offsetof(fs_config, gemini_base_url)},
	{"ollama", (size_t)-1, offsetof(fs_config, ollama_base_url)},
	{"vllm", (size_t)-1, offsetof(fs_config, vllm_base_url)},
};

static const char *provider_field(const fs_config *c, const char *provider, int want_url)
{
	if (!c || !provider)
		return NULL;
	for (size_t i = 0; i < sizeof providers / sizeof providers[0]; i++) {
		if (strcmp(providers[i].name, provider))
			continue;
		size_t off = want_url ? providers[i].base_url : providers[i].key_env;
		if (off == (size_t)-1)
			return NULL;
		const char *v = (const char *)c + off;
		return *v ? v : NULL;
	}
	return NULL;
}

const char *fs_config_provider_key_env(const fs_config *c, const char *provider)
{
	return provider_field(c, provider, 0);
}

const char *fs_config_provider_base_url(const fs_config *c, const char *provider)
{
	return provider_field(c, provider, 1);
}
