/* fake_req.c - hand-made requests for tests (see fake_req.h). */
#include "fake_req.h"

#include <string.h>

#include "routes/router.h"

static const char *fake_env(void *ctx, const char *name)
{
	fs_fake_io *io = ctx;
	size_t n = strlen(name);
	for (const char *const *e = io->env; e && *e; e++)
		if (!strncmp(*e, name, n) && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static long fake_body(void *ctx, char *buf, size_t n)
{
	fs_fake_io *io = ctx;
	size_t left = io->body_len - io->pos;
	if (n > left)
		n = left;
	memcpy(buf, io->body + io->pos, n);
	io->pos += n;
	return (long)n;
}

void fs_fake_req(fs_req *r, fs_app *app, fs_fake_io *io, const char *const *env, const char *body)
{
	io->env = env;
	io->body = body ? body : "";
	io->body_len = strlen(io->body);
	io->pos = 0;
	fs_req_init(r, app, fake_env, fake_body, io);
}

int fs_fake_dispatch(fs_app *app, const char *const *env, const char *body, fs_resp *w)
{
	fs_req r;
	fs_fake_io io;
	fs_fake_req(&r, app, &io, env, body);
	fs_resp_init(w);
	fs_dispatch(&r, w);
	fs_req_free(&r);
	return w->status;
}
