/*
 * The tests' scratch-directory removal (tests/unit/support/rm_tree.h): a
 * tree of files and directories goes whole, a link inside goes without
 * what it points to, a file or a missing path is fine, and a path that
 * cannot be there is a failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rm_tree.h"

static char root[64], outside[64];

static void put(const char *dir, const char *name)
{
	char p[256];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_true(fputs(name, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static int exists(const char *dir, const char *name)
{
	char p[256];
	struct stat sb;
	snprintf(p, sizeof p, "%s%s%s", dir, name ? "/" : "", name ? name : "");
	return lstat(p, &sb) == 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof root, "/tmp/fs-rm-tree-%d", (int)getpid());
	snprintf(outside, sizeof outside, "/tmp/fs-rm-tree-out-%d", (int)getpid());
	return mkdir(root, 0700) || mkdir(outside, 0700);
}

static int teardown(void **state)
{
	(void)state;
	char p[256];
	snprintf(p, sizeof p, "%s/kept", outside);
	unlink(p);
	rmdir(outside);
	return 0;
}

static void a_tree_goes_whole_and_links_are_not_followed(void **state)
{
	(void)state;
	char p[256], q[256];
	put(outside, "kept");
	put(root, "a.txt");
	snprintf(p, sizeof p, "%s/sub", root);
	assert_int_equal(mkdir(p, 0700), 0);
	put(p, "b.txt");
	snprintf(q, sizeof q, "%s/sub/deeper", root);
	assert_int_equal(mkdir(q, 0700), 0);
	put(q, "c.txt");
	snprintf(p, sizeof p, "%s/to-outside", root);
	assert_int_equal(symlink(outside, p), 0);
	snprintf(p, sizeof p, "%s/sub/to-kept", root);
	snprintf(q, sizeof q, "%s/kept", outside);
	assert_int_equal(symlink(q, p), 0);

	assert_int_equal(test_rm_tree(root), 0);
	assert_false(exists(root, NULL));
	assert_true(exists(outside, "kept"));
	/* gone already: nothing to do */
	assert_int_equal(test_rm_tree(root), 0);
}

static void a_file_goes_and_an_impossible_path_fails(void **state)
{
	(void)state;
	char p[256];
	put(root, "only.txt");
	snprintf(p, sizeof p, "%s/only.txt", root);
	assert_int_equal(test_rm_tree(p), 0);
	assert_false(exists(root, "only.txt"));
	assert_true(exists(root, NULL));
	/* below a file nothing can be */
	snprintf(p, sizeof p, "%s/x", "/dev/null");
	assert_int_equal(test_rm_tree(p), -1);
	assert_int_equal(test_rm_tree(root), 0);
	assert_false(exists(root, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_tree_goes_whole_and_links_are_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(a_file_goes_and_an_impossible_path_fails, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
