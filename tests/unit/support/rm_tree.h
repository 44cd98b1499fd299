/*
 * rm_tree.h - a test's scratch directory removed with everything below
 * it, as `rm -rf` would, without a shell: the tests' and benches' one way
 * to clean up the data directories, sites and image folders they make.
 *
 * Ownership: path is only read.
 */
#ifndef FS_TEST_RM_TREE_H
#define FS_TEST_RM_TREE_H

/* Removes path: a file or link, or a directory with all it holds (links
 * inside are removed, never followed). 0 when path is gone (or was never
 * there), -1 when something could not be removed. */
int test_rm_tree(const char *path);

#endif
