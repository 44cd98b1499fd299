/*
 * test_stream_resp.c - the streamed answers (cgi/app/http.h) through the
 * router, as the FastCGI worker runs them: with an output (fs_resp.out)
 * the head goes first and the body in chunks of at most the sink's size
 * plus a row, the same bytes a response without an output keeps in its
 * body; a client that leaves after a few chunks stops the handler (no
 * write after the failed one) and the answer is marked cut; a HEAD writes
 * no body; an unknown set is still a plain 404 (checked before the head).
 * The set is packed (fs_packed_min is 5000): 5,000 tubercles, 15,000 edges.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fake_req.h"
#include "fake_site.h"
#include "routes/router.h"

#define N_TUB 5000

typedef struct world {
	fs_fake_site site;
	long long set_id;
} world;

/* The client: what arrived, and when it leaves (after fail_after bytes). */
typedef struct client {
	int heads;
	fs_buf body;
	size_t chunks, largest, fail_after, writes_after_leaving;
	int gone;
} client;

static int client_head(void *ctx, const struct fs_resp *w)
{
	client *c = ctx;
	assert_int_equal(c->body.len, 0); /* the head comes first */
	assert_int_equal(w->status, 200);
	c->heads++;
	return 0;
}

static int client_body(void *ctx, const char *p, size_t n)
{
	client *c = ctx;
	if (c->gone) {
		c->writes_after_leaving++;
		return -1;
	}
	c->chunks++;
	if (n > c->largest)
		c->largest = n;
	assert_int_equal(fs_buf_append(&c->body, p, n), 0);
	if (c->fail_after && c->body.len >= c->fail_after)
		c->gone = 1;
	return c->gone ? -1 : 0;
}

static int setup(void **state)
{
	world *x = calloc(1, sizeof *x);
	char err[256];
	fs_image_rec rec;
	if (!x || fs_fake_site_open(&x->site, "stream") ||
	    fs_fake_site_image(&x->site, 3, "scale.tif", 4000, 3000, &rec) ||
	    fs_set_create(x->site.app.db, rec.id, "Base", x->site.uid, &x->set_id, err, sizeof err))
		return -1;
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	for (int i = 0; i < N_TUB; i++) {
		fs_tubercle p;
		fs_tubercle_init(&p);
		p.id = i + 1;
		p.centroid_x = 20 + (i % 100) * 39.37;
		p.centroid_y = 20 + (i / 100) * 41.13;
		p.radius_px = i % 23 == 5 ? NAN : 9.5 + (i % 13) * 0.173;
		p.circularity = 0.93;
		p.fit_quality = (i % 10) / 10.0;
		fs_tubercle_list_append(&t, &p);
		for (int k = 1; k <= 3; k++) {
			fs_edge ed = {i + 1, (i + k * 97) % N_TUB + 1};
			fs_edge_list_append(&e, &ed);
		}
	}
	long long rev, cur;
	int rc = fs_set_replace_all(x->site.app.db, x->set_id, 0, x->site.uid, &t, &e, NULL, "extract", 0, &rev, &cur,
				    err, sizeof err);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	if (rc)
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	world *x = *state;
	fs_fake_site_close(&x->site);
	free(x);
	return 0;
}

/* method uri as ann, with the client as the output (NULL: none); *w is
 * the caller's to fs_resp_free. */
static void request(world *x, const char *method, const char *uri, client *c, fs_resp *w)
{
	char m[32], u[256], q[128] = "QUERY_STRING=";
	const char *qs = strchr(uri, '?');
	snprintf(m, sizeof m, "REQUEST_METHOD=%s", method);
	snprintf(u, sizeof u, "DOCUMENT_URI=%.*s", (int)(qs ? qs - uri : (long)strlen(uri)), uri);
	if (qs)
		snprintf(q, sizeof q, "QUERY_STRING=%s", qs + 1);
	const char *env[] = {m, u, q, "REMOTE_ADDR=127.0.0.1", x->site.cookie, NULL};
	fs_req r;
	fs_fake_io io;
	fs_resp_out out = {client_head, client_body, c};
	fs_fake_req(&r, &x->site.app, &io, env, NULL);
	fs_resp_init(w);
	if (c)
		w->out = &out;
	fs_dispatch(&r, w);
	w->out = NULL;
	fs_req_free(&r);
}

static const char *const paths[] = {"/api/sets/%lld/export.json", "/api/sets/%lld/edges.csv",
				    "/api/sets/%lld/tubercles.csv", "/api/sets/%lld",
				    "/api/sets/%lld?layout=columns"};

static void uri_of(world *x, size_t k, char *uri, size_t n)
{
	snprintf(uri, n, paths[k], x->set_id);
}

/* The annotation file's document times are the download's: blanked. */
static void blank_times(fs_buf *b)
{
	static const char *const keys[] = {"\n\t\"created\":\t\"", "\n\t\"modified\":\t\""};
	for (int k = 0; k < 2; k++) {
		char *p = strstr(b->data, keys[k]);
		assert_non_null(p);
		for (p += strlen(keys[k]); *p && *p != '"'; p++)
			*p = 'T';
	}
}

static void streamed_equals_kept_and_comes_in_chunks(void **state)
{
	world *x = *state;
	for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
		char uri[160];
		uri_of(x, k, uri, sizeof uri);
		fs_resp kept, sent;
		request(x, "GET", uri, NULL, &kept);
		assert_int_equal(kept.status, 200);
		assert_true(kept.streaming && !kept.stream_failed);
		client c = {0, FS_BUF_INIT, 0, 0, 0, 0, 0};
		request(x, "GET", uri, &c, &sent);
		assert_int_equal(c.heads, 1);
		assert_false(sent.stream_failed);
		assert_int_equal(sent.body.len, 0); /* nothing kept: it went out */
		/* the same bytes (the export's document times are the download's) */
		if (k == 0) {
			blank_times(&c.body);
			blank_times(&kept.body);
		}
		assert_int_equal(c.body.len, kept.body.len);
		assert_memory_equal(c.body.data, kept.body.data, kept.body.len);
		assert_true(c.body.len > 2 * FS_SINK_CHUNK);
		assert_true(c.largest <= FS_SINK_CHUNK + 4096);
		fs_buf_free(&c.body);
		fs_resp_free(&kept);
		fs_resp_free(&sent);
	}
}

static void a_client_that_leaves_stops_the_handler(void **state)
{
	world *x = *state;
	for (size_t k = 0; k < sizeof paths / sizeof paths[0]; k++) {
		char uri[160];
		uri_of(x, k, uri, sizeof uri);
		client c = {0, FS_BUF_INIT, 0, 0, 2 * FS_SINK_CHUNK, 0, 0};
		fs_resp w;
		request(x, "GET", uri, &c, &w);
		assert_true(w.streaming);
		assert_true(w.stream_failed); /* the worker drops the connection */
		assert_int_equal(c.writes_after_leaving, 0);
		assert_true(c.body.len < 3 * FS_SINK_CHUNK + 4096);
		fs_buf_free(&c.body);
		fs_resp_free(&w);
	}
}

static void head_and_errors(void **state)
{
	world *x = *state;
	char uri[160];
	uri_of(x, 0, uri, sizeof uri);
	client c = {0, FS_BUF_INIT, 0, 0, 0, 0, 0};
	fs_resp w;
	request(x, "HEAD", uri, &c, &w);
	assert_int_equal(c.heads, 1);
	assert_int_equal(c.body.len, 0);
	assert_false(w.stream_failed);
	fs_resp_free(&w);
	/* an unknown set: a plain 404 answer, nothing streamed */
	client none = {0, FS_BUF_INIT, 0, 0, 0, 0, 0};
	request(x, "GET", "/api/sets/987654/export.json", &none, &w);
	assert_int_equal(w.status, 404);
	assert_false(w.streaming);
	assert_int_equal(none.heads, 0);
	assert_non_null(strstr(w.body.data, "no such set"));
	fs_resp_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(streamed_equals_kept_and_comes_in_chunks),
		cmocka_unit_test(a_client_that_leaves_stops_the_handler),
		cmocka_unit_test(head_and_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
