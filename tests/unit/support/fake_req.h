/*
 * fake_req.h - builds fs_req objects by hand for handler and dispatcher
 * tests: CGI variables from a NULL-terminated list of "NAME=value" strings,
 * body from a string; and such a request run through the route table.
 *
 * Ownership: env and body are borrowed for the request's life; the answer
 * fs_fake_dispatch fills is the caller's to fs_resp_free.
 */
#ifndef FS_TEST_FAKE_REQ_H
#define FS_TEST_FAKE_REQ_H

#include <stddef.h>

#include "app/http.h"

typedef struct fs_fake_io {
	const char *const *env; /* "NAME=value", NULL-terminated */
	const char *body;
	size_t body_len, pos;
} fs_fake_io;

void fs_fake_req(fs_req *r, fs_app *app, fs_fake_io *io, const char *const *env, const char *body);

/* The request of env and body (NULL: none) dispatched through the route
 * table (fs_dispatch) into w, which it initialises: w->status. */
int fs_fake_dispatch(fs_app *app, const char *const *env, const char *body, fs_resp *w);

#endif
