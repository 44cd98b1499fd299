/* Unit tests for route matching and for the dispatcher with hand-made
 * requests (authentication, CSRF, body limits, content types). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app/app.h"
#include "fake_req.h"
#include "rm_tree.h"
#include "routes/router.h"
#include "store/sessions.h"
#include "web/template.h"

static int h_dummy(fs_req *r, fs_resp *w)
{
	(void)r;
	(void)w;
	return 0;
}

static const fs_route table[] = {
	{"GET", "/api/images", h_dummy, FS_MEMBER, 0},
	{"POST", "/api/images", h_dummy, FS_MEMBER, 0},
	{"GET", "/api/images/{id}", h_dummy, FS_MEMBER, 0},
	{"DELETE", "/api/images/{id}", h_dummy, FS_MEMBER, 0},
	{"GET", "/api/images/{image_id}/sets/{set_id}", h_dummy, FS_MEMBER, 0},
	{"GET", "/api/profiles/{name}", h_dummy, FS_MEMBER, 0},
	{"GET", "/", h_dummy, FS_MEMBER, 0},
};
#define NT (sizeof table / sizeof table[0])

static const fs_route *match(const char *m, const char *p, fs_req *r, int *status, char *allow)
{
	memset(r, 0, sizeof *r);
	return fs_route_match(table, NT, m, p, r, status, allow, 128);
}

static void literal_and_parameter_routes_match(void **state)
{
	(void)state;
	fs_req r;
	int st;
	char allow[128];
	const fs_route *rt = match("GET", "/api/images", &r, &st, allow);
	assert_ptr_equal(rt, &table[0]);
	rt = match("GET", "/api/images/42", &r, &st, allow);
	assert_ptr_equal(rt, &table[2]);
	assert_int_equal(r.nparams, 1);
	assert_int_equal(r.ids[0], 42);
	rt = match("GET", "/api/images/7/sets/9", &r, &st, allow);
	assert_ptr_equal(rt, &table[4]);
	assert_int_equal(r.ids[0], 7);
	assert_int_equal(r.ids[1], 9);
	rt = match("GET", "/api/profiles/high-contrast", &r, &st, allow);
	assert_ptr_equal(rt, &table[5]);
	assert_int_equal(strncmp(r.params[0], "high-contrast", 13), 0);
	rt = match("GET", "/", &r, &st, allow);
	assert_ptr_equal(rt, &table[6]);
	rt = match("HEAD", "/api/images", &r, &st, allow);
	assert_ptr_equal(rt, &table[0]);
}

static void ids_must_be_positive_integers(void **state)
{
	(void)state;
	fs_req r;
	int st;
	char allow[128];
	const char *bad[] = {"/api/images/abc", "/api/images/-1", "/api/images/0", "/api/images/01",
			     "/api/images/1.5", "/api/images/99999999999999999999", "/api/images/",
			     "/api/images/4/", "/api/images//4", "/api/images/4%20"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_null(match("GET", bad[i], &r, &st, allow));
		assert_int_equal(st, 404);
	}
}

static void unknown_path_is_404_and_wrong_method_405(void **state)
{
	(void)state;
	fs_req r;
	int st;
	char allow[128];
	assert_null(match("GET", "/api/nothing", &r, &st, allow));
	assert_int_equal(st, 404);
	assert_null(match("PUT", "/api/images/3", &r, &st, allow));
	assert_int_equal(st, 405);
	assert_string_equal(allow, "GET, DELETE");
	assert_null(match("PATCH", "/api/images", &r, &st, allow));
	assert_string_equal(allow, "GET, POST");
}

static void every_real_route_is_reachable(void **state)
{
	(void)state;
	size_t n;
	const fs_route *t = fs_routes(&n);
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) {
		char path[256];
		/* instantiate parameters with 1 */
		const char *p = t[i].pattern;
		size_t o = 0;
		while (*p && o + 2 < sizeof path) {
			if (*p == '{') {
				path[o++] = '1';
				while (*p && *p != '}')
					p++;
				if (*p)
					p++;
			} else {
				path[o++] = *p++;
			}
		}
		path[o] = 0;
		fs_req r;
		memset(&r, 0, sizeof r);
		int st;
		char allow[128];
		const fs_route *m = fs_route_match(t, n, t[i].method, path, &r, &st, allow, sizeof allow);
		assert_ptr_equal(m, &t[i]);
		assert_non_null(t[i].handler);
	}
}

/* --- dispatcher with a real database and the real templates --- */

static fs_app app;
static char dbdir[128];
static char session_token[65], session_csrf[65];

static int app_setup(void **state)
{
	(void)state;
	char err[512];
	snprintf(dbdir, sizeof dbdir, "/tmp/fs-router-test-%d", (int)getpid());
	if (fs_app_config(&app, ".", "/nonexistent", err, sizeof err) == 0)
		return -1; /* a missing explicit config file must be an error */
	if (fs_app_config(&app, ".", NULL, err, sizeof err))
		return -1;
	snprintf(app.cfg.data_dir, sizeof app.cfg.data_dir, "%s", dbdir);
	if (fs_app_open(&app, 1, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	long long id;
	if (fs_user_create(app.db, "tester", "Tester", 0, "tester-password", &id, err, sizeof err))
		return -1;
	return fs_session_create(app.db, id, (long long)time(NULL), 3600, "127.0.0.1", session_token, session_csrf);
}

static int app_teardown(void **state)
{
	(void)state;
	fs_app_close(&app);
	return test_rm_tree(dbdir);
}

static int run(const char *const *env, const char *body, fs_resp *w)
{
	return fs_fake_dispatch(&app, env, body, w);
}

static char cookie_env[200], csrf_env[100];

static void build_auth_env(void)
{
	snprintf(cookie_env, sizeof cookie_env, "HTTP_COOKIE=fs_session=%s", session_token);
	snprintf(csrf_env, sizeof csrf_env, "HTTP_X_CSRF_TOKEN=%s", session_csrf);
}

static void dispatch_health_and_me(void **state)
{
	(void)state;
	build_auth_env();
	fs_resp w;
	const char *e1[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/api/health", "REMOTE_ADDR=127.0.0.1", NULL};
	assert_int_equal(run(e1, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"status\":\"ok\""));
	fs_resp_free(&w);
	const char *e2[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/api/me", "REMOTE_ADDR=127.0.0.1", NULL};
	assert_int_equal(run(e2, NULL, &w), 401);
	assert_string_equal(w.body.data, "{\"success\":false,\"error\":\"login required\"}");
	fs_resp_free(&w);
	const char *e3[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/api/me", "REMOTE_ADDR=127.0.0.1", cookie_env, NULL};
	assert_int_equal(run(e3, NULL, &w), 200);
	assert_non_null(strstr(w.body.data, "\"login\":\"tester\""));
	fs_resp_free(&w);
}

static void dispatch_csrf_rules(void **state)
{
	(void)state;
	build_auth_env();
	fs_resp w;
	const char *no_token[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1",
				  cookie_env, "CONTENT_LENGTH=0", NULL};
	assert_int_equal(run(no_token, NULL, &w), 403);
	fs_resp_free(&w);
	const char *cross[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1", cookie_env,
			       csrf_env, "HTTP_SEC_FETCH_SITE=cross-site", "CONTENT_LENGTH=0", NULL};
	assert_int_equal(run(cross, NULL, &w), 403);
	fs_resp_free(&w);
	const char *origin[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1", cookie_env,
				csrf_env, "HTTP_ORIGIN=http://evil.example", "HTTP_HOST=127.0.0.1:8090",
				"CONTENT_LENGTH=0", NULL};
	assert_int_equal(run(origin, NULL, &w), 403);
	fs_resp_free(&w);
	const char *login_no_cookie[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/login", "REMOTE_ADDR=127.0.0.1",
					 "CONTENT_TYPE=application/x-www-form-urlencoded", "CONTENT_LENGTH=44", NULL};
	assert_int_equal(run(login_no_cookie, "login=tester&password=tester-password&x=1234", &w), 403);
	fs_resp_free(&w);
}

static void dispatch_bodies(void **state)
{
	(void)state;
	build_auth_env();
	fs_resp w;
	const char *xml[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1", cookie_env,
			     csrf_env, "CONTENT_TYPE=application/xml", "CONTENT_LENGTH=4", NULL};
	assert_int_equal(run(xml, "<x/>", &w), 415);
	fs_resp_free(&w);
	const char *bad[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1", cookie_env,
			     csrf_env, "CONTENT_TYPE=application/json", "CONTENT_LENGTH=5", NULL};
	assert_int_equal(run(bad, "{nope", &w), 400);
	fs_resp_free(&w);
	const char *big[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1", cookie_env,
			     csrf_env, "CONTENT_TYPE=application/json", "CONTENT_LENGTH=999999999", NULL};
	assert_int_equal(run(big, "{}", &w), 413); /* refused before reading */
	fs_resp_free(&w);
	const char *short_body[] = {"REQUEST_METHOD=POST", "DOCUMENT_URI=/logout", "REMOTE_ADDR=127.0.0.1",
				    cookie_env, csrf_env, "CONTENT_TYPE=application/json", "CONTENT_LENGTH=50",
				    NULL};
	assert_int_equal(run(short_body, "{}", &w), 400);
	fs_resp_free(&w);
}

static void dispatch_outside_base_path_is_404(void **state)
{
	(void)state;
	fs_resp w;
	snprintf(app.cfg.base_path, sizeof app.cfg.base_path, "/fishscale/");
	const char *e[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/api/health", "REMOTE_ADDR=127.0.0.1", NULL};
	assert_int_equal(run(e, NULL, &w), 404);
	fs_resp_free(&w);
	const char *e2[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/fishscale/api/health", "REMOTE_ADDR=127.0.0.1",
			    NULL};
	assert_int_equal(run(e2, NULL, &w), 200);
	fs_resp_free(&w);
	const char *e3[] = {"REQUEST_METHOD=GET", "DOCUMENT_URI=/fishscale/../etc/passwd", "REMOTE_ADDR=127.0.0.1",
			    NULL};
	assert_int_equal(run(e3, NULL, &w), 404);
	fs_resp_free(&w);
	snprintf(app.cfg.base_path, sizeof app.cfg.base_path, "/");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(literal_and_parameter_routes_match),
		cmocka_unit_test(ids_must_be_positive_integers),
		cmocka_unit_test(unknown_path_is_404_and_wrong_method_405),
		cmocka_unit_test(every_real_route_is_reachable),
	};
	const struct CMUnitTest dispatch_tests[] = {
		cmocka_unit_test(dispatch_health_and_me),
		cmocka_unit_test(dispatch_csrf_rules),
		cmocka_unit_test(dispatch_bodies),
		cmocka_unit_test(dispatch_outside_base_path_is_404),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	rc |= cmocka_run_group_tests_name("dispatch", dispatch_tests, app_setup, app_teardown);
	return rc;
}
