/*
 * test_comparisons.c - saved comparisons: create, read, update, delete;
 * who sees and who may change them (private, shared, admin); the sets a
 * comparison may hold (each visible to its owner, once); names and labels;
 * a deleted set leaving its comparisons; the first set of each of a user's
 * images.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "store/store.h"
#include "test_db.h"

typedef struct fixture {
	fs_db *db;
	char path[256];
	fs_user alice, bob, admin;
	long long img_a_shared, img_a_private, img_b;
	long long set_a1, set_a2, set_p, set_b;
} fixture;

static long long image(fixture *f, const fs_user *owner, const char *sha, int shared)
{
	fs_image_rec rec;
	memset(&rec, 0, sizeof rec);
	rec.owner_id = owner->id;
	snprintf(rec.file_sha256, sizeof rec.file_sha256, "%s", sha);
	fs_work_key_initial(sha, 0, rec.work_key);
	snprintf(rec.original_name, sizeof rec.original_name, "img-%c", sha[0]);
	snprintf(rec.format, sizeof rec.format, "png");
	rec.width = 10, rec.height = 8, rec.bit_depth = 8, rec.channels = 1, rec.n_pages = 1;
	rec.shared = shared;
	assert_int_equal(fs_image_insert(f->db, &rec, 123), 0);
	return rec.id;
}

static long long set(fixture *f, long long image_id, const char *name, long long user)
{
	long long id;
	char err[128];
	assert_int_equal(fs_set_create(f->db, image_id, name, user, &id, err, sizeof err), 0);
	return id;
}

static void user(fixture *f, const char *login, int admin, fs_user *u)
{
	long long id;
	char err[128];
	assert_int_equal(fs_user_create(f->db, login, login, admin, NULL, &id, err, sizeof err), 0);
	assert_int_equal(fs_user_get(f->db, id, u), 0);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	f->db = test_db_open("comparisons", f->path, sizeof f->path);
	assert_non_null(f->db);
	user(f, "alice", 0, &f->alice);
	user(f, "bob", 0, &f->bob);
	user(f, "root", 1, &f->admin);
	f->img_a_shared = image(f, &f->alice, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 1);
	f->img_a_private = image(f, &f->alice, "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc", 0);
	f->img_b = image(f, &f->bob, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", 1);
	f->set_a1 = set(f, f->img_a_shared, "Base", f->alice.id);
	f->set_a2 = set(f, f->img_a_shared, "Manual", f->alice.id);
	f->set_p = set(f, f->img_a_private, "Base", f->alice.id);
	f->set_b = set(f, f->img_b, "Base", f->bob.id);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	fs_db_close(f->db);
	test_db_remove(f->path);
	free(f);
	return 0;
}

static fs_comparison_item item(long long set_id, const char *label)
{
	fs_comparison_item it;
	memset(&it, 0, sizeof it);
	it.set_id = set_id;
	snprintf(it.label, sizeof it.label, "%s", label);
	return it;
}

static void test_create_read_and_share(void **state)
{
	fixture *f = *state;
	char err[256];
	fs_comparison_item items[] = {item(f->set_a1, " Specimen A "), item(f->set_p, "Specimen A"),
				      item(f->set_b, "")};
	long long id;
	/* alice may hold her private set and bob's shared one */
	assert_int_equal(fs_comparison_create(f->db, &f->alice, "  Gars  ", 0, items, 3, &id, err, sizeof err), 0);
	fs_comparison c;
	assert_int_equal(fs_comparison_get(f->db, id, &f->alice, &c), 0);
	assert_string_equal(c.name, "Gars");
	assert_string_equal(c.owner_login, "alice");
	assert_int_equal(c.shared, 0);
	assert_int_equal(c.n_sets, 3);
	assert_true(c.items[0].set_id == f->set_a1 && !strcmp(c.items[0].label, "Specimen A"));
	assert_true(c.items[1].set_id == f->set_p);
	assert_true(c.items[2].set_id == f->set_b && c.items[2].label[0] == 0);
	fs_comparison_free(&c);
	/* private: bob does not see it, the admin does */
	assert_int_equal(fs_comparison_get(f->db, id, &f->bob, &c), FS_DB_NOTFOUND);
	assert_int_equal(fs_comparison_get(f->db, id, &f->admin, &c), 0);
	fs_comparison_free(&c);
	fs_comparison *list;
	size_t n;
	assert_int_equal(fs_comparison_list(f->db, &f->bob, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	/* shared: bob sees it (all three ids; the reader leaves out what he cannot
	 * see) but may not change or delete it */
	assert_int_equal(fs_comparison_update(f->db, id, &f->alice, NULL, 1, NULL, 0, err, sizeof err), 0);
	assert_int_equal(fs_comparison_get(f->db, id, &f->bob, &c), 0);
	assert_int_equal(c.n_sets, 3);
	fs_comparison_free(&c);
	assert_int_equal(fs_comparison_list(f->db, &f->bob, &list, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(list[0].n_sets, 3);
	assert_null(list[0].items);
	free(list);
	assert_int_equal(fs_comparison_update(f->db, id, &f->bob, "Mine now", -1, NULL, 0, err, sizeof err),
			 FS_DB_FORBIDDEN);
	assert_int_equal(fs_comparison_delete(f->db, id, &f->bob), FS_DB_FORBIDDEN);
	/* the owner renames and replaces the sets */
	fs_comparison_item two[] = {item(f->set_a2, "B"), item(f->set_a1, "A")};
	assert_int_equal(fs_comparison_update(f->db, id, &f->alice, "Renamed", -1, two, 2, err, sizeof err), 0);
	assert_int_equal(fs_comparison_get(f->db, id, &f->alice, &c), 0);
	assert_string_equal(c.name, "Renamed");
	assert_int_equal(c.shared, 1);
	assert_int_equal(c.n_sets, 2);
	assert_true(c.items[0].set_id == f->set_a2 && !strcmp(c.items[0].label, "B"));
	fs_comparison_free(&c);
	/* a deleted set leaves it */
	long long rev;
	assert_int_equal(fs_set_delete(f->db, f->set_a2, -1, &rev, err, sizeof err), 0);
	assert_int_equal(fs_comparison_get(f->db, id, &f->alice, &c), 0);
	assert_int_equal(c.n_sets, 1);
	fs_comparison_free(&c);
	assert_int_equal(fs_comparison_delete(f->db, id, &f->admin), 0);
	assert_int_equal(fs_comparison_get(f->db, id, &f->alice, &c), FS_DB_NOTFOUND);
}

static void test_sets_must_be_visible_once_and_labels_clean(void **state)
{
	fixture *f = *state;
	char err[256] = "";
	long long id = 0;
	/* bob cannot add alice's private set: as if it did not exist */
	fs_comparison_item p[] = {item(f->set_b, ""), item(f->set_p, "x")};
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Try", 1, p, 2, &id, err, sizeof err), FS_DB_NOTFOUND);
	assert_non_null(strstr(err, "no such set"));
	fs_comparison_item missing[] = {item(999999, "")};
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Try", 1, missing, 1, &id, err, sizeof err),
			 FS_DB_NOTFOUND);
	fs_comparison_item twice[] = {item(f->set_b, "a"), item(f->set_b, "b")};
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Try", 1, twice, 2, &id, err, sizeof err),
			 FS_DB_INVALID);
	assert_non_null(strstr(err, "twice"));
	fs_comparison_item bad[] = {item(f->set_b, "tab\there")};
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Try", 1, bad, 1, &id, err, sizeof err), FS_DB_INVALID);
	fs_comparison_item ok[] = {item(f->set_b, "")};
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "   ", 1, ok, 1, &id, err, sizeof err), FS_DB_INVALID);
	char longname[100];
	memset(longname, 'x', 65);
	longname[65] = 0;
	assert_int_equal(fs_comparison_create(f->db, &f->bob, longname, 1, ok, 1, &id, err, sizeof err),
			 FS_DB_INVALID);
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Empty", 1, ok, 0, &id, err, sizeof err), FS_DB_INVALID);
	/* nothing was written by the refused calls */
	fs_comparison *list;
	size_t n;
	assert_int_equal(fs_comparison_list(f->db, &f->admin, &list, &n), 0);
	assert_int_equal(n, 0);
	free(list);
	/* an update with an invisible set changes nothing */
	assert_int_equal(fs_comparison_create(f->db, &f->bob, "Mine", 0, ok, 1, &id, err, sizeof err), 0);
	assert_int_equal(fs_comparison_update(f->db, id, &f->bob, "Other", -1, p, 2, err, sizeof err), FS_DB_NOTFOUND);
	fs_comparison c;
	assert_int_equal(fs_comparison_get(f->db, id, &f->bob, &c), 0);
	assert_string_equal(c.name, "Mine");
	assert_int_equal(c.n_sets, 1);
	fs_comparison_free(&c);
	/* alice does not see bob's private comparison: 404, not 403 */
	assert_int_equal(fs_comparison_update(f->db, id, &f->alice, "x", -1, NULL, 0, err, sizeof err), FS_DB_NOTFOUND);
	assert_int_equal(fs_comparison_delete(f->db, id, &f->alice), FS_DB_NOTFOUND);
}

static void test_first_set_of_each_own_image(void **state)
{
	fixture *f = *state;
	long long *ids;
	size_t n;
	assert_int_equal(fs_compare_first_sets_of_owner(f->db, f->alice.id, &ids, &n), 0);
	assert_int_equal(n, 2);
	assert_true(ids[0] == f->set_a1 && ids[1] == f->set_p);
	free(ids);
	/* the first set goes: the next one in display order takes its place */
	long long rev;
	char err[128];
	assert_int_equal(fs_set_delete(f->db, f->set_a1, -1, &rev, err, sizeof err), 0);
	assert_int_equal(fs_compare_first_sets_of_owner(f->db, f->alice.id, &ids, &n), 0);
	assert_true(n == 2 && ids[0] == f->set_a2);
	free(ids);
	assert_int_equal(fs_compare_first_sets_of_owner(f->db, f->admin.id, &ids, &n), 0);
	assert_int_equal(n, 0);
	free(ids);
}

static void test_candidates_the_picker_offers(void **state)
{
	fixture *f = *state;
	fs_compare_candidate *c;
	size_t n;
	int more;
	/* bob: his own set and alice's shared image's two sets, never her private one */
	assert_int_equal(fs_compare_candidates(f->db, &f->bob, NULL, 0, 0, 0, 100, &c, &n, &more), 0);
	assert_int_equal(n, 3);
	assert_int_equal(more, 0);
	for (size_t i = 0; i < n; i++)
		assert_true(c[i].set_id != f->set_p);
	assert_true(c[0].set_id == f->set_b && c[0].first && !strcmp(c[0].owner_login, "bob"));
	free(c);
	/* alice, by search (image or set name, case-insensitive), mine, first only, one image */
	assert_int_equal(fs_compare_candidates(f->db, &f->alice, "MANU", 0, 0, 0, 100, &c, &n, &more), 0);
	assert_true(n == 1 && c[0].set_id == f->set_a2 && !c[0].first);
	free(c);
	assert_int_equal(fs_compare_candidates(f->db, &f->alice, "img-", 0, 1, 1, 100, &c, &n, &more), 0);
	assert_int_equal(n, 2);
	assert_true(c[0].set_id == f->set_p && c[1].set_id == f->set_a1);
	free(c);
	assert_int_equal(fs_compare_candidates(f->db, &f->alice, "%", 0, 0, 0, 100, &c, &n, &more), 0);
	assert_int_equal(n, 0); /* % is not a wildcard */
	free(c);
	assert_int_equal(fs_compare_candidates(f->db, &f->alice, "", f->img_a_shared, 0, 0, 1, &c, &n, &more), 0);
	assert_true(n == 1 && more == 1 && c[0].set_id == f->set_a1);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_read_and_share, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sets_must_be_visible_once_and_labels_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_set_of_each_own_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_candidates_the_picker_offers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
