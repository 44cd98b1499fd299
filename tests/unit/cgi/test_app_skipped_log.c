/*
 * Best-effort writes that were skipped (db.h) are logged by every process
 * through one function (app.h): one line naming the program, how many
 * and the last one's reason, after which they are forgotten; and
 * fs_app_close - the end of a job, of a CLI command - logs what is left,
 * so that fishscale-job and the command-line tool report them as the
 * FastCGI workers do after each request.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "store/db.h"
#include "test_db.h"

static char path[128];

static void logged_once_with_the_last_reason(void **state)
{
	(void)state;
	fs_app app;
	memset(&app, 0, sizeof app);
	app.db = test_db_open("skipped_log", path, sizeof path);
	assert_non_null(app.db);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	/* nothing skipped: nothing written */
	assert_int_equal(fs_app_log_skipped(&app, f), 0);
	fs_db_note_skipped(app.db, "recording a session's last use", SQLITE_BUSY);
	fs_db_note_skipped(app.db, "recording a login's time", SQLITE_BUSY);
	assert_int_equal(fs_app_log_skipped(&app, f), 2);
	/* forgotten once logged */
	assert_int_equal(fs_app_log_skipped(&app, f), 0);
	assert_int_equal(fclose(f), 0);
	/* one line: the program, how many, the last one and its reason */
	char want[300];
	snprintf(want, sizeof want, "%s: 2 best-effort write(s) skipped, the last recording a login's time: ",
		 program_invocation_short_name);
	assert_int_equal(strncmp(text, want, strlen(want)), 0);
	assert_true(len > strlen(want) + 1 && text[len - 1] == '\n' && !strchr(text, '\n')[1]);
	free(text);
	fs_db_close(app.db);
	test_db_remove(path);
}

static void closing_logs_what_is_left(void **state)
{
	(void)state;
	fs_app app;
	memset(&app, 0, sizeof app);
	app.db = test_db_open("skipped_close", path, sizeof path);
	assert_non_null(app.db);
	fs_db_note_skipped(app.db, "caching an automatic scale region", SQLITE_BUSY);
	/* stderr into a file while the app closes */
	char log[160];
	snprintf(log, sizeof log, "/tmp/fs-skipped-close-%d.log", (int)getpid());
	FILE *f = fopen(log, "w+");
	assert_non_null(f);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fileno(f), 2), 2);
	fs_app_close(&app);
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	assert_null(app.db);
	char line[300] = "";
	rewind(f);
	assert_non_null(fgets(line, sizeof line, f));
	fclose(f);
	unlink(log);
	assert_non_null(strstr(line, ": 1 best-effort write(s) skipped, the last caching an automatic scale region"));
	assert_int_equal(strncmp(line, program_invocation_short_name, strlen(program_invocation_short_name)), 0);
	test_db_remove(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(logged_once_with_the_last_reason),
		cmocka_unit_test(closing_logs_what_is_left),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
