/* llm_wire.c - the table of wire formats and dispatch over it, and the
 * fast serialiser of requests (see llm_wire.h). */
#include "agent/llm_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fs_wire_format *const formats[] = {
	[FS_WIRE_ANTHROPIC] = &fs_wire_format_anthropic,
	[FS_WIRE_OPENAI] = &fs_wire_format_openai,
	[FS_WIRE_GEMINI] = &fs_wire_format_gemini,
};

const fs_wire_format *fs_wire_format_of(fs_wire w)
{
	if ((unsigned)w >= sizeof formats / sizeof formats[0])
		return NULL;
	return formats[w];
}

const char *fs_wire_name(fs_wire w)
{
	const fs_wire_format *f = fs_wire_format_of(w);
	return f ? f->name : "unknown";
}

cJSON *fs_wire_build(fs_wire w, const fs_wire_opts *o, const fs_conv *c, const cJSON *tools)
{
	const fs_wire_format *f = fs_wire_format_of(w);
	return f ? f->build(o, c, tools) : NULL;
}

int fs_wire_parse(fs_wire w, const cJSON *resp, fs_llm_reply *out, char *err, size_t errlen)
{
	const fs_wire_format *f = fs_wire_format_of(w);
	if (!f) {
		snprintf(err, errlen, "unknown wire format");
		return -1;
	}
	return f->parse(resp, out, err, errlen);
}

#define BLOB_MIN 4096

typedef struct blob {
	cJSON *item;
	char *orig;
	size_t len;
	char mark[32];
} blob;

typedef struct blobs {
	blob *v;
	size_t n, cap;
	int oom;
	int clash;  /* some other string could be mistaken for a mark */
} blobs;

/* JSON-safe characters of base64 text and data: URIs, as a lookup table: this
 * scan runs over every megabyte of every screenshot on every turn. */
static int base64_only(const char *s, size_t n)
{
	static const unsigned char ok[256] = {
		['A' ... 'Z'] = 1, ['a' ... 'z'] = 1, ['0' ... '9'] = 1, ['+'] = 1, ['/'] = 1,
		['='] = 1, [':'] = 1, [';'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1,
	};
	unsigned char all = 1;
	for (size_t i = 0; i < n; i++)
		all &= ok[(unsigned char)s[i]];
	return all;
}

static void collect(cJSON *j, blobs *b)
{
	for (cJSON *it = j; it; it = it->next) {
		if (cJSON_IsString(it) && it->valuestring) {
			size_t n = strlen(it->valuestring);
			if (n < BLOB_MIN || !base64_only(it->valuestring, n)) {
				if (it->valuestring[0] == '\001')
					b->clash = 1;
				continue;
			}
			if (b->n == b->cap) {
				size_t nc = b->cap ? b->cap * 2 : 8;
				blob *nv = realloc(b->v, nc * sizeof(*nv));
				if (!nv) {
					b->oom = 1;
					return;
				}
				b->v = nv;
				b->cap = nc;
			}
			blob *x = &b->v[b->n];
			x->item = it;
			x->orig = it->valuestring;
			x->len = n;
			/* a raw 0x01 in JSON text is always escaped, so the mark is unambiguous */
			snprintf(x->mark, sizeof(x->mark), "\001fsblob%zu\001", b->n);
			it->valuestring = x->mark;
			b->n++;
		} else if (it->child) {
			collect(it->child, b);
		}
	}
}

char *fs_wire_serialize(cJSON *req, size_t *len)
{
	blobs b = {0};
	char *printed = NULL, *out = NULL;

	if (req)
		collect(req, &b);
	if (b.clash) {
		for (size_t i = 0; i < b.n; i++)
			b.v[i].item->valuestring = b.v[i].orig;
		b.n = 0;
	}
	if (!b.oom)
		printed = cJSON_PrintUnformatted(req);
	for (size_t i = 0; i < b.n; i++)
		b.v[i].item->valuestring = b.v[i].orig;
	if (!printed)
		goto done;
	size_t plen = strlen(printed), total = plen;
	for (size_t i = 0; i < b.n; i++)
		total += b.v[i].len;
	out = malloc(total + 1);
	if (!out)
		goto done;
	size_t o = 0;
	const char *p = printed;
	for (size_t i = 0; i < b.n; i++) {
		char esc[64];
		/* cJSON writes 0x01 as \u0001 */
		snprintf(esc, sizeof(esc), "\"\\u0001fsblob%zu\\u0001\"", i);
		const char *hit = strstr(p, esc);
		if (!hit) {
			free(out);
			out = NULL;
			goto done;
		}
		memcpy(out + o, p, (size_t)(hit - p) + 1);
		o += (size_t)(hit - p) + 1;
		memcpy(out + o, b.v[i].orig, b.v[i].len);
		o += b.v[i].len;
		p = hit + strlen(esc) - 1;
	}
	memcpy(out + o, p, strlen(p) + 1);
	o += strlen(p);
	if (len)
		*len = o;
done:
	cJSON_free(printed);
	free(b.v);
	return out;
}
