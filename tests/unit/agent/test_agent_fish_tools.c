/* Unit tests of the agents' tools on a set: coordinate mapping, automatic
 * radius, errors the model can correct, journal marks, duplicate
 * parameter sets, range checks, screenshots, boundary cleanup, lattice fit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "agent/agent_fish_tools.h"
#include "agent/agent_jobs.h"
#include "base/config.h"
#include "store/db.h"
#include "analysis/graph.h"
#include "store/image_files.h"
#include "analysis/params.h"
#include "analysis/params_json.h"
#include "store/sets_store.h"
#include "synth.h"
#include "store/users.h"

#include "agent/agent_screenshot.h"
#define FX_NAME "tools"
#include "agent_fixture.h"

typedef struct tctx {
	fs_agent_job job;
	fs_agent_env env;
	fs_agent_sess s;
	fs_tool_registry *reg;
	seen seen;
} tctx;

static tctx *open_sess(fx *f, fs_agent_kind kind)
{
	tctx *c = calloc(1, sizeof(*c));
	char err[256] = "";
	assert_non_null(c);
	job_init(&c->job, f, kind);
	env_init(&c->env, f, &c->seen);
	if (fs_agent_sess_init(&c->s, &c->job, &c->env, err, sizeof err))
		fail_msg("%s", err);
	c->reg = fs_tools_new();
	if (kind == FS_AGENT_OPTIMIZE)
		assert_int_equal(fs_fish_tools_add_optimize(c->reg, &c->s, err, sizeof err), 0);
	else
		assert_int_equal(fs_fish_tools_add_edit(c->reg, &c->s, 1, err, sizeof err), 0);
	return c;
}

static void close_sess(tctx *c)
{
	fs_tools_free(c->reg);
	fs_agent_sess_free(&c->s);
	seen_free(&c->seen);
	free(c);
}

/* Runs a tool; returns ok and leaves the result in *res (caller deletes). */
static int call(tctx *c, const char *name, const char *args_json, cJSON **res)
{
	fs_tool_exec ex;
	cJSON *args = cJSON_Parse(args_json ? args_json : "{}");
	assert_non_null(args);
	assert_int_equal(fs_tools_execute(c->reg, name, args, NULL, &ex), 0);
	int ok = ex.ok;
	*res = cJSON_Duplicate(ex.result, 1);
	fs_tool_exec_free(&ex);
	cJSON_Delete(args);
	return ok;
}

static const fs_tubercle *find(const fs_agent_sess *s, int id)
{
	for (size_t i = 0; i < s->t.n; i++)
		if (s->t.items[i].id == id)
			return &s->t.items[i];
	return NULL;
}

static void add_maps_screenshot_pixels_to_image_pixels(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	c->s.shot_scale = 0.5;
	assert_true(call(c, "add_tubercle", "{\"x\":50,\"y\":40,\"radius\":3}", &r));
	int id = (int)jnum(cJSON_GetObjectItem(r, "data"), "id");
	const fs_tubercle *t = find(&c->s, id);
	assert_non_null(t);
	assert_true(fabs(t->centroid_x - 100) < 1e-9 && fabs(t->centroid_y - 80) < 1e-9);
	assert_true(fabs(t->radius_px - 6) < 1e-9);
	assert_int_equal(t->source, FS_SOURCE_AGENT);
	cJSON_Delete(r);
	close_sess(c);
}

static void add_outside_the_screenshot_is_an_error(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	size_t n = c->s.t.n;
	assert_false(call(c, "add_tubercle", "{\"x\":5000,\"y\":10}", &r));
	assert_non_null(strstr(jstr(r, "error"), "outside"));
	assert_int_equal(c->s.t.n, n);
	cJSON_Delete(r);
	close_sess(c);
}

static void add_measures_radius_on_a_blob(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	cJSON *r;
	char args[80];
	/* a lattice site the fixture left out */
	size_t i = 0;
	while (!(f->truth.x[i] > 100 && f->truth.x[i] < FX_W - 40 && f->truth.y[i] > 40 && f->truth.y[i] < FX_H - 40 &&
		 i % FX_MISSING_EVERY == 0))
		i++;
	snprintf(args, sizeof args, "{\"x\":%.1f,\"y\":%.1f}", f->truth.x[i], f->truth.y[i]);
	assert_true(call(c, "add_tubercle", args, &r));
	cJSON *d = cJSON_GetObjectItem(r, "data");
	assert_string_equal(jstr(d, "radius_from"), "auto");
	const fs_tubercle *t = find(&c->s, (int)jnum(d, "id"));
	assert_true(fabs(t->radius_px - f->truth.radius) < 0.35 * f->truth.radius);
	cJSON_Delete(r);
	/* on the dark band: outside the scale region, refused with the reason
	 * (nothing is ever added there, issue 16), and moving there too */
	size_t n = c->s.t.n;
	assert_false(call(c, "add_tubercle", "{\"x\":30,\"y\":30}", &r));
	assert_non_null(strstr(jstr(r, "error"), "outside the scale region"));
	assert_int_equal(c->s.t.n, n);
	cJSON_Delete(r);
	snprintf(args, sizeof args, "{\"id\":%d,\"x\":30,\"y\":30}", c->s.t.items[0].id);
	assert_false(call(c, "move_tubercle", args, &r));
	assert_non_null(strstr(jstr(r, "error"), "outside the scale region"));
	cJSON_Delete(r);
	close_sess(c);
}

static void delete_and_move_unknown_id_are_errors(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	assert_false(call(c, "delete_tubercle", "{\"id\":99999}", &r));
	assert_non_null(strstr(jstr(r, "error"), "99999"));
	cJSON_Delete(r);
	assert_false(call(c, "move_tubercle", "{\"id\":99999,\"x\":1,\"y\":1}", &r));
	cJSON_Delete(r);
	assert_false(call(c, "delete_tubercle", "{\"id\":\"seven\"}", &r)); /* schema */
	cJSON_Delete(r);
	close_sess(c);
}

static void move_and_delete_change_the_stored_set(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	int id = c->s.t.items[5].id;
	char a[80];
	long long rev0 = c->s.revision;
	snprintf(a, sizeof a, "{\"id\":%d,\"x\":200.5,\"y\":150.25}", id);
	assert_true(call(c, "move_tubercle", a, &r));
	cJSON_Delete(r);
	assert_true(fabs(find(&c->s, id)->centroid_x - 200.5) < 1e-9);
	snprintf(a, sizeof a, "{\"id\":%d}", id);
	assert_true(call(c, "delete_tubercle", a, &r));
	cJSON_Delete(r);
	assert_null(find(&c->s, id));
	assert_int_equal(c->s.revision, rev0 + 2);
	assert_int_equal(c->s.moved, 1);
	assert_int_equal(c->s.deleted, 1);
	close_sess(c);
}

static void cached_set_matches_a_fresh_load_after_edits(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	cJSON *r;
	char a[96];
	int inner = c->s.t.items[c->s.t.n / 2].id, outer = -1;
	for (size_t i = 0; i < c->s.t.n && outer < 0; i++)
		if (c->s.t.items[i].is_boundary && c->s.t.items[i].centroid_x > 100)
			outer = c->s.t.items[i].id;
	assert_true(call(c, "add_tubercle", "{\"x\":250,\"y\":180}", &r)); /* inside */
	cJSON_Delete(r);
	assert_true(call(c, "add_tubercle", "{\"x\":470,\"y\":355}", &r)); /* a corner: new hull */
	cJSON_Delete(r);
	snprintf(a, sizeof a, "{\"id\":%d}", outer);
	assert_true(call(c, "delete_tubercle", a, &r));
	cJSON_Delete(r);
	snprintf(a, sizeof a, "{\"id\":%d,\"x\":240,\"y\":170}", inner);
	assert_true(call(c, "move_tubercle", a, &r));
	cJSON_Delete(r);
	fs_tubercle_list t = {0};
	fs_edge_list e = {0};
	assert_int_equal(fs_set_load(f->db, f->set_id, &t, &e), 0);
	assert_int_equal(t.n, c->s.t.n);
	assert_int_equal(e.n, c->s.e.n);
	for (size_t i = 0; i < t.n; i++) {
		assert_int_equal(t.items[i].id, c->s.t.items[i].id);
		assert_true(fabs(t.items[i].centroid_x - c->s.t.items[i].centroid_x) < 1e-9);
		if (t.items[i].is_boundary != c->s.t.items[i].is_boundary)
			fail_msg("boundary flag of %d differs", t.items[i].id);
	}
	/* the editor measures the reconnected graph (issue 16): the same as
	 * connecting a fresh load with the auto-connect method */
	fs_stats st;
	fs_edge_list re = {0};
	char gerr[128];
	assert_int_equal(fs_graph_build(&t, FS_GRAPH_GABRIEL, c->s.params.cull_long_edges, c->s.params.cull_factor, &re,
					gerr, sizeof gerr), 0);
	assert_int_equal(fs_stats_compute(&t, &re, c->s.um_per_px, NULL, FX_W, FX_H, &st), 0);
	assert_true(fabs(st.hexagonalness_score - c->s.stats.hexagonalness_score) < 1e-12);
	fs_edge_list_free(&re);
	fs_set_revision(f->db, f->set_id, &c->s.revision);
	fs_tubercle_list_free(&t);
	fs_edge_list_free(&e);
	close_sess(c);
}

static void edits_are_journaled_with_the_run_id(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	cJSON *r;
	assert_true(call(c, "add_tubercle", "{\"x\":300,\"y\":200}", &r));
	cJSON_Delete(r);
	cJSON *j = fs_set_journal(f->db, f->set_id, 1);
	assert_int_equal((int)jnum(cJSON_GetArrayItem(j, 0), "agent_run_id"), 42);
	cJSON_Delete(j);
	close_sess(c);
}

static void auto_connect_rejects_unknown_method(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	assert_false(call(c, "auto_connect", "{\"method\":\"voronoi\"}", &r));
	cJSON_Delete(r);
	assert_true(call(c, "auto_connect", "{\"method\":\"rng\"}", &r));
	assert_int_equal((int)jnum(cJSON_GetObjectItem(r, "data"), "n_edges"), (int)c->s.e.n);
	cJSON_Delete(r);
	close_sess(c);
}

static void state_and_statistics_report_components(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	cJSON *r;
	assert_true(call(c, "get_state", NULL, &r));
	cJSON *d = cJSON_GetObjectItem(r, "data");
	assert_int_equal((int)jnum(d, "tubercle_count"), (int)c->s.t.n);
	assert_true(jnum(cJSON_GetObjectItem(d, "hexagonalness_components"), "degree_score") > 0);
	cJSON_Delete(r);
	assert_true(call(c, "get_statistics", NULL, &r));
	d = cJSON_GetObjectItem(r, "data");
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItem(d, "degree_histogram")) > 0);
	assert_true(jnum(d, "mean_diameter_um") > 0);
	cJSON_Delete(r);
	close_sess(c);
}

static void screenshot_is_png_and_sets_scale(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	fs_tool_exec ex;
	cJSON *args = cJSON_Parse("{\"numbers\":true}");
	assert_int_equal(fs_tools_execute(c->reg, "get_screenshot", args, NULL, &ex), 0);
	assert_true(ex.ok);
	assert_non_null(ex.image_b64);
	assert_memory_equal(ex.image_b64, "/9j/", 4); /* JPEG SOI marker in base64 */
	assert_string_equal(ex.media_type, "image/jpeg");
	assert_true(fabs(c->s.shot_scale - 1.0) < 1e-9);     /* 480 px: not downscaled */
	assert_int_equal(c->s.shot_w, FX_W);
	fs_tool_exec_free(&ex);
	cJSON_Delete(args);
	close_sess(c);
}

static void screenshot_downscales_to_max_side(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	fs_agent_shot shot;
	fs_agent_shot_opts o = {.overlay = 1, .max_side = 240};
	char err[128];
	assert_int_equal(fs_agent_screenshot(c->s.img, &c->s.t, &c->s.e, &o, &c->s.shots, &shot, err, sizeof err), 0);
	assert_int_equal(shot.width, 240);
	assert_int_equal(shot.height, 180);
	assert_true(fabs(shot.scale - 0.5) < 1e-9);
	assert_string_equal(shot.media_type, "image/jpeg");
	fs_agent_shot_free(&shot);
	o.png = 1;
	assert_int_equal(fs_agent_screenshot(c->s.img, &c->s.t, &c->s.e, &o, &c->s.shots, &shot, err, sizeof err), 0);
	assert_memory_equal(shot.b64, "iVBORw0KGgo", 11); /* PNG signature in base64 */
	assert_string_equal(shot.media_type, "image/png");
	fs_agent_shot_free(&shot);
	/* the cached small image serves the next one */
	assert_non_null(c->s.shots.small);
	assert_int_equal(fs_agent_screenshot(c->s.img, NULL, NULL, &o, &c->s.shots, &shot, err, sizeof err), 0);
	fs_agent_shot_free(&shot);
	close_sess(c);
}

static void base64_matches_rfc4648_vectors(void **state)
{
	(void)state;
	static const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (size_t i = 0; i < 7; i++) {
		char *b = fs_agent_b64_encode((const unsigned char *)in[i], strlen(in[i]));
		assert_string_equal(b, out[i]);
		free(b);
	}
}

static void run_extraction_twice_returns_recorded_result(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_OPTIMIZE);
	cJSON *r;
	assert_true(call(c, "run_extraction", NULL, &r));
	cJSON_Delete(r);
	assert_int_equal(c->s.iteration, 1);
	long long rev = c->s.revision;
	assert_true(call(c, "run_extraction", NULL, &r));
	cJSON *d = cJSON_GetObjectItem(r, "data");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(d, "duplicate")));
	assert_int_equal((int)jnum(d, "iteration"), 1);
	assert_int_equal(c->s.iteration, 1);  /* no second extraction */
	assert_int_equal(c->s.revision, rev); /* the set is untouched */
	assert_int_equal((int)c->s.n_trials, 1);
	cJSON_Delete(r);
	close_sess(c);
}

static void set_params_checks_ranges_and_names(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_OPTIMIZE);
	cJSON *r;
	fs_params before = c->s.params;
	assert_false(call(c, "set_params", "{\"threshold\":7}", &r));
	assert_non_null(strstr(jstr(r, "error"), "threshold"));
	cJSON_Delete(r);
	assert_false(call(c, "set_params", "{\"thresh\":0.1}", &r));
	cJSON_Delete(r);
	assert_false(call(c, "set_params", "{}", &r));
	cJSON_Delete(r);
	assert_true(fs_agent_params_equal(&before, &c->s.params));
	/* threshold is not auto's parameter: refused, with the reason */
	assert_int_equal(c->s.params.method, FS_METHOD_AUTO);
	assert_false(call(c, "set_params", "{\"threshold\":0.07}", &r));
	assert_non_null(strstr(jstr(r, "error"), "not used by method auto"));
	cJSON_Delete(r);
	assert_true(fs_agent_params_equal(&before, &c->s.params));
	assert_true(call(c, "set_params", "{\"auto_prominence\":0.25,\"neighbor_graph\":\"rng\"}", &r));
	cJSON_Delete(r);
	assert_true(fabs(c->s.params.auto_prominence - 0.25) < 1e-12);
	assert_int_equal(c->s.params.neighbor_graph, FS_GRAPH_RNG);
	assert_string_equal(c->s.phase, "fine_tuning");
	/* with the method that uses it, it is a parameter */
	assert_true(call(c, "set_params", "{\"method\":\"log\",\"threshold\":0.07}", &r));
	cJSON_Delete(r);
	assert_true(fabs(c->s.params.threshold - 0.07) < 1e-12);
	close_sess(c);
}

static void load_profile_unknown_lists_known_ones(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_OPTIMIZE);
	cJSON *r;
	assert_false(call(c, "load_profile", "{\"profile_name\":\"salmon\"}", &r));
	assert_non_null(strstr(jstr(r, "error"), "lepisosteus"));
	cJSON_Delete(r);
	assert_true(call(c, "load_profile", "{\"profile_name\":\"high-contrast\"}", &r));
	cJSON_Delete(r);
	assert_true(fs_agent_params_equal(&c->s.params, &fs_profile_find("high-contrast")->params));
	close_sess(c);
}

static void run_extraction_refuses_beyond_max_iterations(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_OPTIMIZE);
	cJSON *r;
	c->job.max_iterations = 1;
	c->job.target_score = 0.999;
	assert_true(call(c, "run_extraction", NULL, &r));
	cJSON_Delete(r);
	assert_string_equal(c->s.stop_reason, "max_iterations");
	assert_true(call(c, "set_params", "{\"auto_prominence\":0.35}", &r));
	cJSON_Delete(r);
	assert_false(call(c, "run_extraction", NULL, &r));
	cJSON_Delete(r);
	close_sess(c);
}

static void cleanup_deletes_tubercles_below_two_neighbours(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	char err[256];
	int n = -1;
	int *deg = fs_agent_degrees(&c->s);
	int expect = 0;
	for (size_t i = 0; i < c->s.t.n; i++)
		expect += deg[i] < 2;
	free(deg);
	assert_true(expect >= 2); /* the fixture's false positives at least */
	assert_int_equal(fs_agent_cleanup_boundary(&c->s, &n, err, sizeof err), 0);
	assert_int_equal(n, expect);
	assert_int_equal(c->s.deleted, expect);
	close_sess(c);
}

static void lattice_plan_finds_missing_sites_and_false_positives(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	fs_lattice_plan p;
	assert_int_equal(fs_agent_lattice_plan(&c->s, NULL, NULL, 0, 1000, &p), 0);
	assert_true(fabs(p.pitch - FX_PITCH) < 1.5);
	assert_int_equal((int)p.n_del, 2);
	assert_true(p.n_add >= f->n_missing);
	/* nothing proposed on the dark band */
	for (size_t i = 0; i < p.n_add; i++)
		assert_true(p.ax[i] > 55);
	fs_lattice_plan_free(&p);
	close_sess(c);
}

static void lattice_plan_needs_three_tubercles(void **state)
{
	tctx *c = open_sess(*state, FS_AGENT_EDIT);
	fs_lattice_plan p;
	c->s.t.n = 2;
	assert_int_equal(fs_agent_lattice_plan(&c->s, NULL, NULL, 0, 10, &p), 0);
	assert_int_equal((int)(p.n_add + p.n_del), 0);
	fs_lattice_plan_free(&p);
	close_sess(c);
}

static void session_for_unknown_set_fails(void **state)
{
	fx *f = *state;
	fs_agent_job job;
	fs_agent_env env;
	fs_agent_sess s;
	seen sn = {0};
	char err[256] = "";
	job_init(&job, f, FS_AGENT_EDIT);
	job.set_id = 9999;
	env_init(&env, f, &sn);
	assert_int_equal(fs_agent_sess_init(&s, &job, &env, err, sizeof err), -1);
	assert_non_null(strstr(err, "9999"));
	fs_agent_sess_free(&s);
	job.set_id = f->set_id;
	job.image_id = f->image_id + 1;
	assert_int_equal(fs_agent_sess_init(&s, &job, &env, err, sizeof err), -1);
	assert_non_null(strstr(err, "does not belong"));
	fs_agent_sess_free(&s);
}

/* Issue 16 item 1: the image's evidence is what the editor goes by - a
 * missing lattice site shows a tubercle, the middle between two neighbours
 * does not (a neighbour's blob is centred away from it), and add_tubercle
 * reports which. */
static void evidence_tells_a_missing_site_from_a_gap(void **state)
{
	fx *f = *state;
	tctx *c = open_sess(f, FS_AGENT_EDIT);
	fs_agent_evidence ev;
	size_t site = 0;
	int found = 0;
	for (size_t i = 0; i < f->truth.n && !found; i++) {
		int interior = f->truth.x[i] > 100 && f->truth.x[i] < FX_W - 40 && f->truth.y[i] > 40 &&
			       f->truth.y[i] < FX_H - 40;
		if (interior && i % FX_MISSING_EVERY == 0) {
			site = i;
			found = 1;
		}
	}
	assert_true(found);
	assert_int_equal(fs_agent_evidence_at(&c->s, f->truth.x[site], f->truth.y[site], &ev), 0);
	if (!ev.ok)
		fail_msg("missing site not shown: %s", ev.why);
	assert_true(hypot(ev.x - f->truth.x[site], ev.y - f->truth.y[site]) < 0.2 * FX_PITCH);
	/* halfway between the site and its right-hand neighbour */
	assert_int_equal(fs_agent_evidence_at(&c->s, f->truth.x[site] + FX_PITCH / 2, f->truth.y[site], &ev), 0);
	if (ev.ok)
		fail_msg("a gap taken for a tubercle: %s", ev.why);
	assert_true(ev.why[0] != 0);
	cJSON *r;
	char a[96];
	snprintf(a, sizeof a, "{\"x\":%.1f,\"y\":%.1f}", f->truth.x[site], f->truth.y[site]);
	assert_true(call(c, "add_tubercle", a, &r));
	cJSON *evj = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "data") ? cJSON_GetObjectItem(r, "data") : r, "evidence");
	assert_non_null(evj);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(evj, "tubercle_in_image")));
	cJSON_Delete(r);
	close_sess(c);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(add_maps_screenshot_pixels_to_image_pixels),
		T(add_outside_the_screenshot_is_an_error),
		T(add_measures_radius_on_a_blob),
		T(delete_and_move_unknown_id_are_errors),
		T(move_and_delete_change_the_stored_set),
		T(cached_set_matches_a_fresh_load_after_edits),
		T(edits_are_journaled_with_the_run_id),
		T(auto_connect_rejects_unknown_method),
		T(state_and_statistics_report_components),
		T(screenshot_is_png_and_sets_scale),
		T(screenshot_downscales_to_max_side),
		cmocka_unit_test(base64_matches_rfc4648_vectors),
		T(run_extraction_twice_returns_recorded_result),
		T(set_params_checks_ranges_and_names),
		T(load_profile_unknown_lists_known_ones),
		T(run_extraction_refuses_beyond_max_iterations),
		T(cleanup_deletes_tubercles_below_two_neighbours),
		T(lattice_plan_finds_missing_sites_and_false_positives),
		T(evidence_tells_a_missing_site_from_a_gap),
		T(lattice_plan_needs_three_tubercles),
		T(session_for_unknown_set_fails),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
