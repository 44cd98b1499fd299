/* llm_keys.c - API key lookup and redaction (see llm_keys.h). */
#include "agent/llm_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define B64_MIN_RUN 200
#define B64_HEAD 50
#define B64_TAIL 20

const char *fs_llm_default_key_env(const char *provider)
{
	static const struct {
		const char *provider, *env;
	} map[] = {
		{"anthropic", "ANTHROPIC_API_KEY"}, {"claude", "ANTHROPIC_API_KEY"},
		{"openai", "OPENAI_API_KEY"},       {"openrouter", "OPENROUTER_API_KEY"},
		{"gemini", "GEMINI_API_KEY"},       {"ollama", "OLLAMA_API_KEY"},
		{"vllm", "VLLM_API_KEY"},
	};
	for (size_t i = 0; provider && i < sizeof(map) / sizeof(*map); i++)
		if (!strcmp(map[i].provider, provider))
			return map[i].env;
	return NULL;
}

int fs_llm_key_optional(const char *provider)
{
	return provider && (!strcmp(provider, "ollama") || !strcmp(provider, "vllm") ||
			    !strcmp(provider, "local"));
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
		s[--n] = 0;
	return s;
}

/* 0 found, 1 not in file, -1 error. */
static int key_from_file(const char *path, const char *provider, char *out, size_t outlen,
			 char *err, size_t errlen)
{
	struct stat st;
	char line[1024];
	int rc = -1;
	FILE *f = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open key file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "key file %s is not a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "key file %s is accessible by group or others (chmod 600 it)", path);
		goto out;
	}
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "cannot read key file %s", path);
		goto out;
	}
	fd = -1;
	rc = 1;
	while (fgets(line, sizeof(line), f)) {
		char *l = trim(line);
		char *eq = strchr(l, '=');
		if (*l == '#' || !eq)
			continue;
		*eq = 0;
		if (strcmp(trim(l), provider))
			continue;
		char *k = trim(eq + 1);
		if (strlen(k) >= outlen) {
			snprintf(err, errlen, "key for %s in %s is too long", provider, path);
			rc = -1;
			break;
		}
		strcpy(out, k);
		rc = 0;
		break;
	}
	explicit_bzero(line, sizeof(line));
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	return rc;
}

int fs_llm_key_resolve(const char *provider, const char *env_name, const char *key_file,
		       char *out, size_t outlen, char *err, size_t errlen)
{
	const char *env = env_name && *env_name ? env_name : fs_llm_default_key_env(provider);
	const char *v = env ? getenv(env) : NULL;

	if (outlen == 0)
		return -1;
	out[0] = 0;
	if (v && *v) {
		if (strlen(v) >= outlen) {
			snprintf(err, errlen, "key in %s is too long", env);
			return -1;
		}
		strcpy(out, v);
		return 0;
	}
	if (key_file && *key_file) {
		int r = key_from_file(key_file, provider, out, outlen, err, errlen);
		if (r <= 0)
			return r;
	}
	if (fs_llm_key_optional(provider))
		return 0;
	snprintf(err, errlen, "no API key for %s: set %s in the server's environment or add "
		 "\"%s = ...\" to the key file", provider, env ? env : "the key variable", provider);
	return -1;
}

int fs_llm_key_present(const char *provider, const char *env_name, const char *key_file)
{
	char key[512], err[256];
	int ok = fs_llm_key_resolve(provider, env_name, key_file, key, sizeof(key), err, sizeof(err)) == 0;
	explicit_bzero(key, sizeof(key));
	return ok;
}

static const unsigned char b64_chars[256] = {
	['A' ... 'Z'] = 1, ['a' ... 'z'] = 1, ['0' ... '9'] = 1, ['+'] = 1, ['/'] = 1, ['='] = 1,
};

static int is_b64(char c)
{
	return b64_chars[(unsigned char)c];
}

/* Characters a key or token is made of: a secret or a key-shaped run never
 * spans anything else, so text may be cut after any other character. */
static int is_key_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' ||
	       c == '/' || c == '=';
}

/* Length of the run of [A-Za-z0-9_-] at s. */
static size_t word_run(const char *s, size_t n)
{
	size_t j = 0;
	while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '-' || s[j] == '_'))
		j++;
	return j;
}

/*
 * Length of a key-shaped token starting at s[i] (0 if none): "sk-" + 16 or
 * more key characters (OpenAI, Anthropic "sk-ant-", OpenRouter "sk-or-"),
 * "AIza" + 30 or more (Google). A run cut short by the end of the text (a
 * message truncated by its buffer) counts from 6 characters on, so that a
 * cut-off key does not survive either. *skip = characters kept before it.
 */
static size_t key_shape(const char *s, size_t i, size_t n, size_t *skip)
{
	*skip = 0;
	if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '-' || s[i - 1] == '_'))
		return 0;
	static const struct { const char *prefix; size_t min; } shapes[] = {{"sk-", 16}, {"AIza", 30}};
	for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
		size_t pl = strlen(shapes[k].prefix);
		if (n - i < pl || memcmp(s + i, shapes[k].prefix, pl))
			continue;
		size_t run = word_run(s + i + pl, n - i - pl);
		if (run >= shapes[k].min || (i + pl + run == n && run >= 6))
			return pl + run;
	}
	/* "Bearer <token>": the token goes, the word stays */
	if (n - i > 7 && !strncasecmp(s + i, "bearer ", 7)) {
		size_t j = i + 7;
		while (j < n && is_key_char(s[j]))
			j++;
		if (j - i - 7 >= 16 || (j == n && j - i - 7 >= 6)) {
			*skip = 7;
			return j - i;
		}
	}
	return 0;
}

static int append_redacted(fs_buf *out, const char *s, size_t n, const char *const *secrets)
{
	size_t i = 0;
	while (i < n) {
		size_t best = 0, skip = 0;
		for (size_t k = 0; secrets && secrets[k]; k++) {
			size_t sl = strlen(secrets[k]);
			if (sl < 4)
				continue;
			if (sl <= n - i && !memcmp(s + i, secrets[k], sl) && sl > best)
				best = sl;
			/* the start of a secret ending the text: a copy cut off by a buffer */
			else if (sl > n - i && n - i >= 8 && !memcmp(s + i, secrets[k], n - i) && n - i > best)
				best = n - i;
		}
		if (!best)
			best = key_shape(s, i, n, &skip);
		if (best) {
			if (fs_buf_append(out, s + i, skip) || fs_buf_puts(out, "[REDACTED]"))
				return -1;
			i += best;
		} else if (fs_buf_putc(out, s[i++])) {
			return -1;
		}
	}
	return 0;
}

int fs_llm_redact_text(const char *s, const char *const *secrets, fs_buf *out)
{
	if (fs_buf_reserve(out, 0))
		return -1;
	return s ? append_redacted(out, s, strlen(s), secrets) : 0;
}

char *fs_llm_redact_dup(const char *s, const char *const *secrets)
{
	fs_buf b = FS_BUF_INIT;
	if (!s || fs_llm_redact_text(s, secrets, &b)) {
		fs_buf_free(&b);
		return NULL;
	}
	return fs_buf_steal(&b);
}

void fs_llm_redact_in_place(char *s, size_t cap, const char *const *secrets)
{
	if (!s || !cap)
		return;
	char *r = fs_llm_redact_dup(s, secrets);
	if (r) {
		snprintf(s, cap, "%s", r);
		free(r);
	} else {
		s[0] = 0; /* out of memory: say nothing rather than maybe a key */
	}
}

size_t fs_llm_redact_safe_len(const char *s, size_t n)
{
	while (n && is_key_char(s[n - 1]))
		n--;
	return n;
}

static int truncate_base64(const char *s, fs_buf *out)
{
	size_t i = 0, n = strlen(s);
	while (i < n) {
		size_t j = i;
		while (j < n && is_b64(s[j]))
			j++;
		size_t run = j - i;
		if (run >= B64_MIN_RUN) {
			if (fs_buf_append(out, s + i, B64_HEAD) ||
			    fs_buf_printf(out, "...[%zu bytes base64 truncated]...", run) ||
			    fs_buf_append(out, s + j - B64_TAIL, B64_TAIL))
				return -1;
		} else if (fs_buf_append(out, s + i, run)) {
			return -1;
		}
		size_t k = j;
		while (k < n && !is_b64(s[k]))
			k++;
		if (fs_buf_append(out, s + j, k - j))
			return -1;
		i = k;
	}
	return 0;
}

int fs_llm_sanitize_text(const char *s, const char *const *secrets, fs_buf *out)
{
	/* redact first: a key may sit inside a base64-looking run */
	fs_buf tmp = FS_BUF_INIT;
	int rc = -1;
	if (fs_buf_reserve(&tmp, 0) == 0 && append_redacted(&tmp, s, strlen(s), secrets) == 0)
		rc = truncate_base64(tmp.data, out);
	fs_buf_free(&tmp);
	return rc;
}

static char *sanitize_string(const char *s, const char *const *secrets, int truncate)
{
	fs_buf b = FS_BUF_INIT;
	if (fs_buf_reserve(&b, 0) ||
	    (truncate ? fs_llm_sanitize_text(s, secrets, &b) : fs_llm_redact_text(s, secrets, &b))) {
		fs_buf_free(&b);
		return NULL;
	}
	return fs_buf_steal(&b);
}

static cJSON *sanitize_tree(const cJSON *j, const char *const *secrets, int truncate)
{
	cJSON *c = NULL;
	if (!j)
		return NULL;
	if (cJSON_IsString(j)) {
		char *s = sanitize_string(j->valuestring, secrets, truncate);
		c = s ? cJSON_CreateString(s) : NULL;
		free(s);
		return c;
	}
	if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
		return cJSON_Duplicate(j, 0);
	c = cJSON_IsObject(j) ? cJSON_CreateObject() : cJSON_CreateArray();
	if (!c)
		return NULL;
	const cJSON *it;
	cJSON_ArrayForEach(it, j) {
		cJSON *sub = sanitize_tree(it, secrets, truncate);
		if (!sub)
			goto err;
		if (cJSON_IsObject(j)) {
			char *k = sanitize_string(it->string, secrets, truncate);
			int ok = k && cJSON_AddItemToObject(c, k, sub);
			free(k);
			if (!ok) {
				cJSON_Delete(sub);
				goto err;
			}
		} else if (!cJSON_AddItemToArray(c, sub)) {
			cJSON_Delete(sub);
			goto err;
		}
	}
	return c;
err:
	cJSON_Delete(c);
	return NULL;
}

cJSON *fs_llm_sanitize(const cJSON *j, const char *const *secrets)
{
	return sanitize_tree(j, secrets, 1);
}

cJSON *fs_llm_redact_json(const cJSON *j, const char *const *secrets)
{
	return sanitize_tree(j, secrets, 0);
}
