/*
 * test_remeasure_rules.c - Re-measure across measurement rules (issue 13
 * §2): a set extracted with the outline rule (version 1), edited by hand,
 * then re-measured on a server configured for the dome rule (version 2)
 * keeps its centres, ids, sources, manual edits and connections, takes the
 * dome rule's diameters at those centres and version 2, in one step that
 * Undo reverts to the old diameters and version exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/graph.h"
#include "analysis/measurement.h"
#include "sem_scene.h"
#include "store/db.h"
#include "store/sets_store.h"
#include "test_db.h"

static char path[128];
static long long uid, image_id;

static int setup(void **state)
{
	fs_db *db = test_db_open_with_image("remeasure-rules", path, sizeof path, &uid, &image_id);
	*state = db;
	return db ? 0 : -1;
}

static int teardown(void **state)
{
	fs_measurement_set_rule(FS_MEASUREMENT_RULE_DEFAULT);
	fs_db_close(*state);
	test_db_remove(path);
	return 0;
}

static int version_of(fs_db *db, long long set_id)
{
	fs_set_info info;
	assert_int_equal(fs_set_get_info(db, set_id, &info), 0);
	return info.measurement_version;
}

static const fs_tubercle *find(const fs_tubercle_list *t, int id)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->items[i].id == id)
			return &t->items[i];
	return NULL;
}

/* Mean measured diameter of t's tubercles that are within 0.25 pitch of a
 * true dome counted in the scene, and the mean true diameter of those. */
static void means_vs_truth(const sem_truth *tr, const fs_tubercle_list *t, double *d, double *truth)
{
	double s = 0, st = 0;
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++) {
		const fs_tubercle *x = &t->items[i];
		if (!fs_tubercle_measured(x))
			continue;
		for (size_t k = 0; k < tr->n; k++)
			if (hypot(tr->x[k] - x->centroid_x, tr->y[k] - x->centroid_y) < 0.25 * tr->pitch &&
			    sem_counted(tr, tr->x[k], tr->y[k])) {
				s += 2 * x->radius_px;
				st += tr->d[k];
				n++;
				break;
			}
	}
	assert_true(n > 20);
	*d = s / n;
	*truth = st / n;
}

static void outline_set_remeasured_with_the_dome_rule(void **state)
{
	fs_db *db = *state;
	char err[256];
	/* low domes lit from the side: the outline rule reads them small */
	sem_opts o;
	sem_low_domes(&o);
	o.width = 384;
	o.height = 320;
	sem_truth tr;
	fs_image *img = sem_make(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);

	/* a server measuring with the outline rule extracts: version 1 */
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	fs_detect_result dr;
	assert_int_equal(fs_detect(img, &p, 0, &dr, err, sizeof err), 0);
	fs_edge_list e = {0};
	assert_int_equal(fs_graph_build(&dr.tubercles, p.neighbor_graph, p.cull_long_edges, p.cull_factor, &e, err,
					sizeof err),
			 0);
	long long set_id, rev, cur;
	assert_int_equal(fs_set_create(db, image_id, "Outline", uid, &set_id, err, sizeof err), 0);
	assert_int_equal(fs_set_replace_all(db, set_id, -1, uid, &dr.tubercles, &e, &p, "extraction", 0, &rev, &cur,
					    err, sizeof err),
			 0);
	assert_int_equal(version_of(db, set_id), 1);
	fs_detect_result_free(&dr);
	fs_edge_list_free(&e);

	/* edits by hand: a tubercle added at a true dome's centre, one moved
	 * onto its true centre, one deleted */
	fs_tubercle_list t0 = {0};
	fs_edge_list e0 = {0};
	assert_int_equal(fs_set_load(db, set_id, &t0, &e0), 0);
	assert_true(t0.n > 40);
	fs_tubercle add;
	fs_tubercle_init(&add);
	add.centroid_x = tr.x[tr.n / 2] + 0.5; /* near a dome detection found too: a person's click */
	add.centroid_y = tr.y[tr.n / 2];
	add.radius_px = 3;
	add.source = FS_SOURCE_MANUAL;
	int added;
	assert_int_equal(fs_set_add_tubercle(db, set_id, rev, uid, &add, 0, &added, &rev, &cur, err, sizeof err), 0);
	fs_tubercle moved = t0.items[3];
	moved.centroid_x += 1.25;
	moved.centroid_y -= 0.75;
	int moved_id = moved.id;
	assert_int_equal(fs_set_update_tubercle(db, set_id, rev, uid, moved_id, &moved, "move_tubercle", 0, &rev, &cur,
						err, sizeof err),
			 0);
	int gone = t0.items[5].id;
	assert_int_equal(fs_set_delete_items(db, set_id, rev, uid, &gone, 1, NULL, 0, "delete", 0, &rev, &cur, err,
					     sizeof err),
			 0);
	fs_tubercle_list_free(&t0);
	fs_edge_list_free(&e0);

	fs_tubercle_list before = {0};
	fs_edge_list eb = {0};
	assert_int_equal(fs_set_load(db, set_id, &before, &eb), 0);
	assert_int_equal(version_of(db, set_id), 1);

	/* the same site restarted with measurement_rule = dome */
	fs_measurement_set_rule(FS_RULE_DOME);
	assert_int_equal(FS_MEASUREMENT_VERSION, 2);
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, set_id, &t, NULL), 0);
	assert_int_equal(fs_measure_centres(img, &p, 0, &t, err, sizeof err), 0);
	int changed = 0, unmeasured = 0;
	assert_int_equal(fs_set_remeasure(db, set_id, rev, uid, &t, FS_MEASUREMENT_VERSION, &changed, &unmeasured, &rev,
					  &cur, err, sizeof err),
			 0);
	fs_tubercle_list_free(&t);
	assert_int_equal(version_of(db, set_id), 2);
	print_message("re-measured %zu tubercles: %d changed, %d unmeasured\n", before.n, changed, unmeasured);
	assert_true(changed > (int)before.n / 2);

	fs_tubercle_list after = {0};
	fs_edge_list ea = {0};
	assert_int_equal(fs_set_load(db, set_id, &after, &ea), 0);
	assert_int_equal(after.n, before.n);
	assert_int_equal(ea.n, eb.n);
	for (size_t i = 0; i < before.n; i++) {
		const fs_tubercle *b = &before.items[i], *a = find(&after, b->id);
		assert_non_null(a);
		assert_true(a->centroid_x == b->centroid_x && a->centroid_y == b->centroid_y);
		assert_int_equal(a->source, b->source);
	}
	assert_null(find(&after, gone));
	assert_int_equal(find(&after, added)->source, FS_SOURCE_MANUAL);
	assert_true(find(&after, moved_id)->centroid_x == moved.centroid_x);
	/* the stored diameters are the dome rule's at the kept centres (its
	 * accuracy: test_measurement_rule; at these centres, which the side
	 * detector pulled off the domes' own, printed here) */
	fs_tubercle_list dome = {0};
	assert_int_equal(fs_set_load(db, set_id, &dome, NULL), 0);
	assert_int_equal(fs_measure_centres_rule(img, &p, 0, FS_RULE_DOME, &dome, err, sizeof err), 0);
	for (size_t i = 0; i < after.n; i++)
		assert_true(fabs(after.items[i].radius_px - dome.items[i].radius_px) < 1e-9 ||
			    (isnan(after.items[i].radius_px) && isnan(dome.items[i].radius_px)));
	fs_tubercle_list_free(&dome);
	double d_old, t_old, d_new, t_new;
	means_vs_truth(&tr, &before, &d_old, &t_old);
	means_vs_truth(&tr, &after, &d_new, &t_new);
	print_message("mean D: outline (v1) %.2f px, re-measured with the dome rule (v2) %.2f px; truth %.2f px\n",
		      d_old, d_new, t_new);
	/* the two rules measure different things, tubercle by tubercle (their
	 * means may come close: at these off-centre centres the dome rule's
	 * blur-corrected bases average about the outline's bright parts) */
	double dev = 0;
	size_t ndev = 0;
	for (size_t i = 0; i < before.n; i++) {
		const fs_tubercle *b = &before.items[i], *a = find(&after, b->id);
		if (a && isfinite(a->radius_px) && isfinite(b->radius_px) && b->radius_px > 0) {
			dev += fabs(a->radius_px - b->radius_px) / b->radius_px;
			ndev++;
		}
	}
	print_message("mean |D change| per tubercle: %.1f %% (%zu tubercles)\n", 100 * dev / ndev, ndev);
	assert_true(ndev > before.n / 2 && dev / ndev > 0.02);

	/* one step: Undo gives back the outline diameters and version 1 */
	assert_int_equal(fs_set_undo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(version_of(db, set_id), 1);
	fs_tubercle_list undone = {0};
	fs_edge_list eu = {0};
	assert_int_equal(fs_set_load(db, set_id, &undone, &eu), 0);
	assert_int_equal(undone.n, before.n);
	for (size_t i = 0; i < before.n; i++)
		assert_true(fs_tubercle_same(&undone.items[i], &before.items[i]));
	/* and the edits before it are still undoable one by one: the
	 * deletion comes back */
	assert_int_equal(fs_set_undo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	fs_tubercle_list_free(&undone);
	fs_edge_list_free(&eu);
	assert_int_equal(fs_set_load(db, set_id, &undone, &eu), 0);
	assert_non_null(find(&undone, gone));
	assert_int_equal(version_of(db, set_id), 1);

	fs_tubercle_list_free(&undone);
	fs_edge_list_free(&eu);
	fs_tubercle_list_free(&after);
	fs_edge_list_free(&ea);
	fs_tubercle_list_free(&before);
	fs_edge_list_free(&eb);
	sem_truth_free(&tr);
	fs_image_free(img);
}

/* A set measured by the dome rule on a server back at the outline rule:
 * Re-measure goes to version 1 as well (the server's rule decides). */
static void dome_set_remeasured_on_an_outline_server(void **state)
{
	fs_db *db = *state;
	char err[256];
	sem_opts o;
	sem_low_domes(&o);
	sem_truth tr;
	fs_image *img = sem_make(&o, &tr);
	assert_non_null(img);
	fs_params p;
	fs_params_default(&p);
	fs_measurement_set_rule(FS_RULE_DOME);
	fs_detect_result dr;
	assert_int_equal(fs_detect(img, &p, 0, &dr, err, sizeof err), 0);
	long long set_id, rev, cur;
	fs_edge_list none = {0};
	assert_int_equal(fs_set_create(db, image_id, "Dome", uid, &set_id, err, sizeof err), 0);
	assert_int_equal(fs_set_replace_all(db, set_id, -1, uid, &dr.tubercles, &none, &p, "extraction", 0, &rev, &cur,
					    err, sizeof err),
			 0);
	fs_detect_result_free(&dr);
	assert_int_equal(version_of(db, set_id), 2);
	fs_measurement_set_rule(FS_RULE_OUTLINE);
	fs_tubercle_list t = {0};
	assert_int_equal(fs_set_load(db, set_id, &t, NULL), 0);
	assert_int_equal(fs_measure_centres(img, &p, 0, &t, err, sizeof err), 0);
	assert_int_equal(fs_set_remeasure(db, set_id, rev, uid, &t, FS_MEASUREMENT_VERSION, NULL, NULL, &rev, &cur, err,
					  sizeof err),
			 0);
	assert_int_equal(version_of(db, set_id), 1);
	assert_int_equal(fs_set_undo(db, set_id, rev, uid, &rev, &cur, err, sizeof err), 0);
	assert_int_equal(version_of(db, set_id), 2);
	fs_tubercle_list_free(&t);
	sem_truth_free(&tr);
	fs_image_free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(outline_set_remeasured_with_the_dome_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(dome_set_remeasured_on_an_outline_server, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
