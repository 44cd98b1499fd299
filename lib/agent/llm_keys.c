/* llm_keys.c - API key lookup and redaction (see llm_keys.h). */
#include "agent/llm_keys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int append_redacted(fs_buf *out, const char *s, size_t n, const char *const *secrets)
{
	size_t i = 0;
	while (i < n) {
		size_t best = 0;
		for (size_t k = 0; secrets && secrets[k]; k++) {
			size_t sl = strlen(secrets[k]);
			if (sl >= 4 && sl <= n - i && !memcmp(s + i, secrets[k], sl) && sl > best)
				best = sl;
		}
		if (best) {
			if (fs_buf_puts(out, "[REDACTED]"))
				return -1;
			i += best;
		} else if (fs_buf_putc(out, s[i++])) {
			return -1;
		}
	}
	return 0;
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
	int found = 0;
	for (size_t k = 0; secrets && secrets[k]; k++)
		if (strlen(secrets[k]) >= 4 && strstr(s, secrets[k]))
			found = 1;
	if (!found)
		return truncate_base64(s, out);
	/* redact first: a key may sit inside a base64-looking run */
	fs_buf tmp = FS_BUF_INIT;
	int rc = -1;
	if (fs_buf_reserve(&tmp, 0) == 0 && append_redacted(&tmp, s, strlen(s), secrets) == 0)
		rc = truncate_base64(tmp.data, out);
	fs_buf_free(&tmp);
	return rc;
}

static char *sanitize_string(const char *s, const char *const *secrets)
{
	fs_buf b = FS_BUF_INIT;
	if (fs_buf_reserve(&b, 0) || fs_llm_sanitize_text(s, secrets, &b)) {
		fs_buf_free(&b);
		return NULL;
	}
	return fs_buf_steal(&b);
}

cJSON *fs_llm_sanitize(const cJSON *j, const char *const *secrets)
{
	cJSON *c = NULL;
	if (!j)
		return NULL;
	if (cJSON_IsString(j)) {
		char *s = sanitize_string(j->valuestring, secrets);
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
		cJSON *sub = fs_llm_sanitize(it, secrets);
		if (!sub)
			goto err;
		if (cJSON_IsObject(j)) {
			char *k = sanitize_string(it->string, secrets);
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
