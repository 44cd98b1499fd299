/* llm_conv.c - provider-neutral conversation and reply (see llm_conv.h). */
#include "agent/llm_conv.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s, int *fail)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*fail = 1;
	return d;
}

static void part_free(fs_part *p)
{
	free(p->text);
	free(p->image_b64);
	free(p->media_type);
	free(p->id);
	free(p->name);
	cJSON_Delete(p->args);
}

static void msg_free(fs_msg *m)
{
	for (size_t i = 0; i < m->n; i++)
		part_free(&m->parts[i]);
	free(m->parts);
	cJSON_Delete(m->raw);
}

void fs_conv_init(fs_conv *c)
{
	memset(c, 0, sizeof(*c));
}

void fs_conv_free(fs_conv *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		msg_free(&c->msgs[i]);
	free(c->msgs);
	free(c->system);
	memset(c, 0, sizeof(*c));
}

int fs_conv_set_system(fs_conv *c, const char *system)
{
	char *s = strdup(system ? system : "");
	if (!s)
		return -1;
	free(c->system);
	c->system = s;
	return 0;
}

fs_msg *fs_conv_add(fs_conv *c, fs_msg_role role)
{
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 8;
		fs_msg *nm = realloc(c->msgs, ncap * sizeof(*nm));
		if (!nm)
			return NULL;
		c->msgs = nm;
		c->cap = ncap;
	}
	fs_msg *m = &c->msgs[c->n++];
	memset(m, 0, sizeof(*m));
	m->role = role;
	return m;
}

static fs_part *msg_new_part(fs_msg *m, fs_part_kind kind)
{
	if (m->n == m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 4;
		fs_part *np = realloc(m->parts, ncap * sizeof(*np));
		if (!np)
			return NULL;
		m->parts = np;
		m->cap = ncap;
	}
	fs_part *p = &m->parts[m->n];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	return p;
}

const char *fs_strip_data_uri(const char *s)
{
	if (s && !strncmp(s, "data:", 5)) {
		const char *comma = strchr(s, ',');
		if (comma)
			return comma + 1;
	}
	return s;
}

/* Fills a part, then commits it only if every copy succeeded. */
static int commit(fs_msg *m, fs_part *p, int fail)
{
	if (fail) {
		part_free(p);
		return -1;
	}
	m->n++;
	return 0;
}

int fs_msg_add_text(fs_msg *m, const char *text)
{
	int fail = 0;
	fs_part *p = msg_new_part(m, FS_PART_TEXT);
	if (!p)
		return -1;
	p->text = dup_or_null(text ? text : "", &fail);
	return commit(m, p, fail);
}

int fs_msg_add_image(fs_msg *m, const char *b64, const char *media_type)
{
	int fail = 0;
	fs_part *p = msg_new_part(m, FS_PART_IMAGE);
	if (!p)
		return -1;
	p->image_b64 = dup_or_null(fs_strip_data_uri(b64 ? b64 : ""), &fail);
	p->media_type = dup_or_null(media_type ? media_type : "image/png", &fail);
	return commit(m, p, fail);
}

int fs_msg_add_tool_call(fs_msg *m, const char *id, const char *name, const cJSON *args)
{
	int fail = 0;
	fs_part *p = msg_new_part(m, FS_PART_TOOL_CALL);
	if (!p)
		return -1;
	p->id = dup_or_null(id ? id : "", &fail);
	p->name = dup_or_null(name ? name : "", &fail);
	p->args = args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject();
	if (!p->args)
		fail = 1;
	return commit(m, p, fail);
}

int fs_msg_add_tool_result(fs_msg *m, const char *id, const char *name, const char *text,
			   int is_error, const char *image_b64, const char *media_type)
{
	int fail = 0;
	fs_part *p = msg_new_part(m, FS_PART_TOOL_RESULT);
	if (!p)
		return -1;
	p->id = dup_or_null(id ? id : "", &fail);
	p->name = dup_or_null(name ? name : "", &fail);
	p->text = dup_or_null(text ? text : "", &fail);
	p->is_error = is_error;
	if (image_b64) {
		p->image_b64 = dup_or_null(fs_strip_data_uri(image_b64), &fail);
		p->media_type = dup_or_null(media_type ? media_type : "image/png", &fail);
	}
	return commit(m, p, fail);
}

int fs_conv_add_reply(fs_conv *c, fs_llm_reply *r)
{
	fs_msg *m = fs_conv_add(c, FS_ROLE_ASSISTANT);
	if (!m)
		return -1;
	if (r->text && *r->text && fs_msg_add_text(m, r->text))
		return -1;
	for (size_t i = 0; i < r->ncalls; i++) {
		if (r->calls[i].from_text)
			continue;
		if (fs_msg_add_tool_call(m, r->calls[i].id, r->calls[i].name, r->calls[i].args))
			return -1;
	}
	m->raw = r->raw;
	memcpy(m->raw_wire, r->raw_wire, sizeof(m->raw_wire));
	r->raw = NULL;
	return 0;
}

void fs_conv_prune_images(fs_conv *c, size_t keep)
{
	size_t seen = 0;
	for (size_t i = c->n; i-- > 0;) {
		fs_msg *m = &c->msgs[i];
		for (size_t j = m->n; j-- > 0;) {
			fs_part *p = &m->parts[j];
			if (!p->image_b64)
				continue;
			if (++seen <= keep)
				continue;
			free(p->image_b64);
			free(p->media_type);
			p->image_b64 = NULL;
			p->media_type = NULL;
			if (p->kind == FS_PART_IMAGE) {
				char *t = strdup("[screenshot omitted]");
				if (t) {
					p->kind = FS_PART_TEXT;
					p->text = t;
				}
			}
		}
	}
}

int fs_llm_reply_add_call(fs_llm_reply *r, const char *id, const char *name, cJSON *args,
			  const char *args_error)
{
	fs_tool_call *nc = realloc(r->calls, (r->ncalls + 1) * sizeof(*nc));
	if (!nc) {
		cJSON_Delete(args);
		return -1;
	}
	r->calls = nc;
	fs_tool_call *t = &r->calls[r->ncalls];
	int fail = 0;
	memset(t, 0, sizeof(*t));
	t->id = dup_or_null(id ? id : "", &fail);
	t->name = dup_or_null(name ? name : "", &fail);
	t->args_error = dup_or_null(args_error, &fail);
	t->args = args ? args : cJSON_CreateObject();
	if (!t->args)
		fail = 1;
	if (fail) {
		free(t->id);
		free(t->name);
		free(t->args_error);
		cJSON_Delete(t->args);
		return -1;
	}
	r->ncalls++;
	return 0;
}

int fs_llm_reply_append_text(fs_llm_reply *r, const char *text)
{
	size_t old = r->text ? strlen(r->text) : 0, add = strlen(text);
	char *n = realloc(r->text, old + add + 1);
	if (!n)
		return -1;
	memcpy(n + old, text, add + 1);
	r->text = n;
	return 0;
}

void fs_llm_reply_free(fs_llm_reply *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ncalls; i++) {
		free(r->calls[i].id);
		free(r->calls[i].name);
		free(r->calls[i].args_error);
		cJSON_Delete(r->calls[i].args);
	}
	free(r->calls);
	free(r->text);
	free(r->stop_reason);
	cJSON_Delete(r->raw);
	memset(r, 0, sizeof(*r));
}
