/* Unit tests for the atomic status file: round trip, missing and bad
 * files, no temporary left behind, and a reader polling while another
 * process rewrites the file never parsing a partial one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/status_file.h"

static char dir[128], path[192];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/fs-status-test-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/status.json", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	return 0;
}

static int count_entries(void)
{
	int n = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n;
}

static void write_then_read_returns_the_same_object(void **state)
{
	(void)state;
	char err[256];
	cJSON *o = cJSON_CreateObject(), *back = NULL;
	cJSON_AddStringToObject(o, "state", "running");
	cJSON_AddNumberToObject(o, "iteration", 3);
	assert_int_equal(fs_status_file_write(path, o, err, sizeof err), 0);
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), 0);
	assert_true(cJSON_Compare(o, back, 1));
	cJSON_Delete(o);
	cJSON_Delete(back);
}

static void rewrite_replaces_and_leaves_no_temp_file(void **state)
{
	(void)state;
	char err[256];
	cJSON *back = NULL;
	assert_int_equal(fs_status_file_write_text(path, "{\"a\":1}", 7, err, sizeof err), 0);
	assert_int_equal(fs_status_file_write_text(path, "{\"a\":2}", 7, err, sizeof err), 0);
	assert_int_equal(count_entries(), 1);
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), 0);
	assert_int_equal(cJSON_GetObjectItem(back, "a")->valueint, 2);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	cJSON_Delete(back);
}

static void read_missing_file_returns_1(void **state)
{
	(void)state;
	char err[256];
	cJSON *back = (cJSON *)1;
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), 1);
	assert_null(back);
}

static void read_non_object_fails(void **state)
{
	(void)state;
	char err[256];
	cJSON *back = NULL;
	assert_int_equal(fs_status_file_write_text(path, "[1,2]", 5, err, sizeof err), 0);
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), -1);
	assert_null(back);
	assert_non_null(strstr(err, "JSON object"));
	assert_int_equal(fs_status_file_write_text(path, "{\"a\":", 5, err, sizeof err), 0);
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), -1);
}

static void read_refuses_a_symlink(void **state)
{
	(void)state;
	char err[256], target[256];
	cJSON *back = NULL;
	snprintf(target, sizeof target, "%s/real.json", dir);
	assert_int_equal(fs_status_file_write_text(target, "{}", 2, err, sizeof err), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(fs_status_file_read(path, &back, err, sizeof err), -1);
	assert_null(back);
}

static void write_into_missing_directory_fails_cleanly(void **state)
{
	(void)state;
	char err[256], p[256];
	snprintf(p, sizeof p, "%s/nope/status.json", dir);
	assert_int_equal(fs_status_file_write_text(p, "{}", 2, err, sizeof err), -1);
	assert_non_null(strstr(err, "cannot create"));
	assert_int_equal(count_entries(), 0);
}

#define N_WRITES 150
#define N_ITEMS 4000

/* The writer process: each version is an object whose "items" are all
 * equal to its "seq", large enough that a torn read would show. */
static void writer_child(void)
{
	char err[256];
	for (int seq = 1; seq <= N_WRITES; seq++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", seq);
		cJSON *a = cJSON_AddArrayToObject(o, "items");
		for (int i = 0; i < N_ITEMS; i++)
			cJSON_AddItemToArray(a, cJSON_CreateNumber(seq));
		int rc = fs_status_file_write(path, o, err, sizeof err);
		cJSON_Delete(o);
		if (rc)
			_exit(1);
	}
	_exit(0);
}

static void polling_reader_never_sees_a_partial_file(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		writer_child();
	int last = 0, reads = 0, bad = 0, status = 0;
	char err[256];
	for (;;) {
		int done = waitpid(pid, &status, WNOHANG) == pid;
		cJSON *o = NULL;
		int rc = fs_status_file_read(path, &o, err, sizeof err);
		if (rc == 0) {
			int seq = cJSON_GetObjectItem(o, "seq")->valueint;
			const cJSON *a = cJSON_GetObjectItem(o, "items"), *it;
			int n = 0;
			cJSON_ArrayForEach(it, a)
			{
				if (it->valueint != seq)
					bad++;
				n++;
			}
			if (n != N_ITEMS || seq < last)
				bad++;
			last = seq;
			reads++;
		} else if (rc < 0) {
			bad++;
		}
		cJSON_Delete(o);
		if (done)
			break;
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(bad, 0);
	assert_int_equal(last, N_WRITES);
	assert_true(reads > 1);
	assert_int_equal(count_entries(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(write_then_read_returns_the_same_object, setup, teardown),
		cmocka_unit_test_setup_teardown(rewrite_replaces_and_leaves_no_temp_file, setup, teardown),
		cmocka_unit_test_setup_teardown(read_missing_file_returns_1, setup, teardown),
		cmocka_unit_test_setup_teardown(read_non_object_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(read_refuses_a_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(write_into_missing_directory_fails_cleanly, setup, teardown),
		cmocka_unit_test_setup_teardown(polling_reader_never_sees_a_partial_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
