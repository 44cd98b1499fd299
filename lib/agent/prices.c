/* prices.c - LLM price table parsing, lookup and cost (see prices.h). */
#include "agent/prices.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

void fs_prices_free(fs_prices *t)
{
	if (!t)
		return;
	free(t->items);
	t->items = NULL;
	t->n = 0;
}

static int parse_price(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

static int parse_line(char *line, fs_price *p, char *err, size_t errlen, int lineno)
{
	char *save = NULL;
	char *tok[8];
	int n = 0;
	for (char *t = strtok_r(line, " \t", &save); t && n < 8; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (n < 4) {
		snprintf(err, errlen, "prices line %d: expected provider model input output", lineno);
		return -1;
	}
	memset(p, 0, sizeof(*p));
	p->vision = 1;
	if (strlen(tok[0]) >= sizeof(p->provider) || strlen(tok[1]) >= sizeof(p->model)) {
		snprintf(err, errlen, "prices line %d: name too long", lineno);
		return -1;
	}
	strcpy(p->provider, tok[0]);
	strcpy(p->model, tok[1]);
	if (parse_price(tok[2], &p->in_per_mtok) || parse_price(tok[3], &p->out_per_mtok)) {
		snprintf(err, errlen, "prices line %d: prices must be non-negative numbers", lineno);
		return -1;
	}
	for (int i = 4; i < n; i++) {
		if (!strcmp(tok[i], "default")) {
			p->is_default = 1;
		} else if (!strcmp(tok[i], "novision")) {
			p->vision = 0;
		} else {
			snprintf(err, errlen, "prices line %d: unknown flag '%s'", lineno, tok[i]);
			return -1;
		}
	}
	return 0;
}

int fs_prices_parse(fs_prices *t, const char *text, char *err, size_t errlen)
{
	fs_prices out = {0};
	size_t cap = 0;
	char *copy = strdup(text);
	int rc = -1, lineno = 0;

	if (!copy) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* strtok_r on "\n" would skip blank lines and so miscount line numbers */
	for (char *l = copy, *next; l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char *hash = strchr(l, '#');
		if (hash)
			*hash = 0;
		if (strspn(l, " \t\r") == strlen(l))
			continue;
		l[strcspn(l, "\r")] = 0;
		if (out.n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			fs_price *np = realloc(out.items, ncap * sizeof(*np));
			if (!np) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			out.items = np;
			cap = ncap;
		}
		if (parse_line(l, &out.items[out.n], err, errlen, lineno))
			goto out;
		out.n++;
	}
	fs_prices_free(t);
	*t = out;
	out.items = NULL;
	rc = 0;
out:
	free(out.items);
	free(copy);
	return rc;
}

int fs_prices_load(fs_prices *t, const char *path, char *err, size_t errlen)
{
	fs_buf b = FS_BUF_INIT;
	char chunk[4096];
	int rc = -1;
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open price table %s: %s", path, strerror(errno));
		return -1;
	}
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (fs_buf_append(&b, chunk, n)) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "cannot read price table %s", path);
		goto out;
	}
	rc = fs_prices_parse(t, b.data ? b.data : "", err, errlen);
out:
	fclose(f);
	fs_buf_free(&b);
	return rc;
}

const fs_price *fs_prices_find(const fs_prices *t, const char *provider, const char *model)
{
	if (!t || !provider || !model)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->items[i].provider, provider) && !strcmp(t->items[i].model, model))
			return &t->items[i];
	return NULL;
}

int fs_prices_provider_is_free(const char *provider)
{
	return provider && (!strcmp(provider, "ollama") || !strcmp(provider, "vllm") ||
			    !strcmp(provider, "local"));
}

double fs_prices_cost(const fs_prices *t, const char *provider, const char *model, long in_tokens,
		      long out_tokens, int *estimated)
{
	double pin = FS_PRICE_FALLBACK_IN, pout = FS_PRICE_FALLBACK_OUT;
	int est = 1;
	const fs_price *p = fs_prices_find(t, provider, model);

	if (fs_prices_provider_is_free(provider)) {
		pin = pout = 0;
		est = 0;
	} else if (p) {
		pin = p->in_per_mtok;
		pout = p->out_per_mtok;
		est = 0;
	}
	if (estimated)
		*estimated = est;
	if (in_tokens < 0)
		in_tokens = 0;
	if (out_tokens < 0)
		out_tokens = 0;
	return (double)in_tokens / 1e6 * pin + (double)out_tokens / 1e6 * pout;
}

static cJSON *find_provider(cJSON *arr, const char *name)
{
	cJSON *it;
	cJSON_ArrayForEach(it, arr) {
		cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return it;
	}
	return NULL;
}

cJSON *fs_prices_providers_json(const fs_prices *t, fs_prices_configured_fn configured, void *user)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = root ? cJSON_AddArrayToObject(root, "providers") : NULL;
	if (!arr)
		goto err;
	for (size_t i = 0; i < t->n; i++) {
		const fs_price *p = &t->items[i];
		cJSON *prov = find_provider(arr, p->provider);
		if (!prov) {
			prov = cJSON_CreateObject();
			if (!prov)
				goto err;
			cJSON_AddItemToArray(arr, prov);
			if (!cJSON_AddStringToObject(prov, "name", p->provider) ||
			    !cJSON_AddBoolToObject(prov, "configured",
						   configured ? configured(p->provider, user) : 0) ||
			    !cJSON_AddNullToObject(prov, "default_model") ||
			    !cJSON_AddArrayToObject(prov, "models"))
				goto err;
		}
		if (!p->vision)
			continue;
		if (p->is_default &&
		    !cJSON_ReplaceItemInObjectCaseSensitive(prov, "default_model", cJSON_CreateString(p->model)))
			goto err;
		cJSON *m = cJSON_CreateObject();
		if (!m)
			goto err;
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(prov, "models"), m);
		if (!cJSON_AddStringToObject(m, "id", p->model) ||
		    !cJSON_AddNumberToObject(m, "input_per_mtok", p->in_per_mtok) ||
		    !cJSON_AddNumberToObject(m, "output_per_mtok", p->out_per_mtok))
			goto err;
	}
	return root;
err:
	cJSON_Delete(root);
	return NULL;
}
