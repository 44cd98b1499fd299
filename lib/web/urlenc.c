/* urlenc.c - query string, form body and Cookie header parsing (urlenc.h). */
#include "web/urlenc.h"

#include <stdlib.h>
#include <string.h>

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int fs_url_decode(const char *s, size_t len, int plus_is_space, fs_buf *out)
{
	if (fs_buf_reserve(out, len))
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '%') {
			if (len - i < 3)
				return -1;
			int hi = hexval((unsigned char)s[i + 1]);
			int lo = hexval((unsigned char)s[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = (unsigned char)(hi * 16 + lo);
			i += 2;
		} else if (c == '+' && plus_is_space) {
			c = ' ';
		}
		/* cannot fail: reserved above, decoding only shrinks */
		out->data[out->len++] = (char)c;
	}
	out->data[out->len] = 0;
	return 0;
}

int fs_kvlist_add(fs_kvlist *l, const char *key, size_t key_len,
		  const char *value, size_t value_len)
{
	char *k = NULL, *v = NULL;

	if (memchr(key, 0, key_len) || l->n >= FS_KV_MAX_PAIRS)
		return -1;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 8;
		fs_kv *p = realloc(l->items, ncap * sizeof(*p));
		if (!p)
			return -1;
		l->items = p;
		l->cap = ncap;
	}
	k = malloc(key_len + 1);
	v = malloc(value_len + 1);
	if (!k || !v)
		goto err;
	memcpy(k, key, key_len);
	k[key_len] = 0;
	if (value_len)
		memcpy(v, value, value_len);
	v[value_len] = 0;
	l->items[l->n].key = k;
	l->items[l->n].value = v;
	l->items[l->n].value_len = value_len;
	l->n++;
	return 0;
err:
	free(k);
	free(v);
	return -1;
}

void fs_kvlist_free(fs_kvlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	l->items = NULL;
	l->n = l->cap = 0;
}

int fs_urlenc_parse(const char *s, size_t len, fs_kvlist *out)
{
	fs_buf key = FS_BUF_INIT, val = FS_BUF_INIT;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (len && !s)
		goto err;
	if (len && memchr(s, 0, len))
		goto err;
	while (i < len) {
		size_t end = i;
		while (end < len && s[end] != '&')
			end++;
		if (end > i) {
			const char *eq = memchr(s + i, '=', end - i);
			size_t klen = eq ? (size_t)(eq - (s + i)) : end - i;
			fs_buf_reset(&key);
			fs_buf_reset(&val);
			if (fs_buf_reserve(&key, 1) || fs_buf_reserve(&val, 1))
				goto err;
			if (fs_url_decode(s + i, klen, 1, &key))
				goto err;
			if (eq && fs_url_decode(eq + 1, (size_t)(s + end - eq - 1), 1, &val))
				goto err;
			if (fs_kvlist_add(out, key.data, key.len, val.data, val.len))
				goto err;
		}
		i = end + 1;
	}
	fs_buf_free(&key);
	fs_buf_free(&val);
	return 0;
err:
	fs_buf_free(&key);
	fs_buf_free(&val);
	fs_kvlist_free(out);
	return -1;
}

static int is_ows(char c)
{
	return c == ' ' || c == '\t';
}

int fs_cookie_parse(const char *header, fs_kvlist *out)
{
	memset(out, 0, sizeof(*out));
	if (!header)
		return -1;
	const char *p = header;
	while (*p) {
		const char *end = strchr(p, ';');
		if (!end)
			end = p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (eq) {
			const char *ks = p, *ke = eq, *vs = eq + 1, *ve = end;
			while (ks < ke && is_ows(*ks))
				ks++;
			while (ke > ks && is_ows(ke[-1]))
				ke--;
			while (vs < ve && is_ows(*vs))
				vs++;
			while (ve > vs && is_ows(ve[-1]))
				ve--;
			if (ve - vs >= 2 && *vs == '"' && ve[-1] == '"') {
				vs++;
				ve--;
			}
			if (ke > ks && fs_kvlist_add(out, ks, (size_t)(ke - ks), vs,
						     (size_t)(ve - vs))) {
				fs_kvlist_free(out);
				return -1;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

const fs_kv *fs_kv_find(const fs_kvlist *l, const char *key)
{
	if (!l || !key)
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return &l->items[i];
	return NULL;
}

const char *fs_kv_get(const fs_kvlist *l, const char *key)
{
	const fs_kv *kv = fs_kv_find(l, key);
	return kv ? kv->value : NULL;
}
