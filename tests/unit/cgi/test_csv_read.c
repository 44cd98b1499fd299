/*
 * Reading back fishscale measure's CSV files (cgi/cli/csv_read.h), the
 * reader `fishscale chart` takes them in with: the header's columns by
 * name, RFC 4180 quoting (commas and doubled quotes inside quotes), CRLF
 * line ends, empty lines told apart and still counted in the line
 * numbers, and why a file could not be read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/csv_read.h"

static char path[128];

static void write_file(const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/fs-csv-read-%d.csv", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void fields_columns_and_line_numbers(void **state)
{
	(void)state;
	write_file("id,name,\"centroid_x\"\r\n"
		   "1,\"a, \"\"quoted\"\" one\",12.5\r\n"
		   "\r\n"
		   "\n"
		   "2,plain,7\n"
		   "3,,\"8\"");
	fs_csv_reader r;
	char err[200] = "";
	char *v[FS_CSV_MAX_COLS];
	assert_int_equal(fs_csv_open(&r, path, err, sizeof err), 0);
	assert_int_equal(r.ln, 1);
	assert_int_equal(fs_csv_column(&r, "id"), 0);
	assert_int_equal(fs_csv_column(&r, "centroid_x"), 2);
	assert_int_equal(fs_csv_column(&r, "radius_px"), -1);
	double x;
	assert_int_equal(fs_csv_next(&r, v), 3);
	assert_string_equal(v[1], "a, \"quoted\" one");
	assert_int_equal(fs_csv_num(v[2], &x), 0);
	assert_true(x == 12.5);
	assert_int_equal(fs_csv_next(&r, v), 0);
	assert_int_equal(fs_csv_next(&r, v), 0);
	assert_int_equal(fs_csv_next(&r, v), 3);
	assert_int_equal(r.ln, 5);
	assert_string_equal(v[1], "plain");
	assert_string_equal(v[2], "7");
	/* the last line without its newline, an empty field, a quoted number */
	assert_int_equal(fs_csv_next(&r, v), 3);
	assert_string_equal(v[1], "");
	assert_int_equal(fs_csv_num(v[2], &x), 0);
	assert_true(x == 8);
	assert_int_equal(fs_csv_next(&r, v), -1);
	/* the header's fields outlive the lines */
	assert_string_equal(r.head[2], "centroid_x");
	fs_csv_close(&r);
}

static void a_line_of_more_fields_than_kept_is_cut(void **state)
{
	(void)state;
	char text[400] = "h\n";
	for (int i = 0; i < FS_CSV_MAX_COLS + 5; i++)
		strcat(text, i ? ",1" : "1");
	strcat(text, "\n");
	write_file(text);
	fs_csv_reader r;
	char err[200], *v[FS_CSV_MAX_COLS];
	assert_int_equal(fs_csv_open(&r, path, err, sizeof err), 0);
	assert_int_equal(fs_csv_next(&r, v), FS_CSV_MAX_COLS);
	fs_csv_close(&r);
}

static void why_a_file_could_not_be_read(void **state)
{
	(void)state;
	fs_csv_reader r;
	char err[200] = "";
	unlink(path);
	assert_int_equal(fs_csv_open(&r, path, err, sizeof err), -1);
	assert_int_equal(r.open_errno, ENOENT);
	assert_non_null(strstr(err, "No such file"));
	fs_csv_close(&r);
	write_file("");
	assert_int_equal(fs_csv_open(&r, path, err, sizeof err), -1);
	assert_int_equal(r.open_errno, 0);
	assert_non_null(strstr(err, ": empty file"));
	fs_csv_close(&r);
}

static void a_number_is_the_whole_field_and_finite(void **state)
{
	(void)state;
	double v;
	assert_int_equal(fs_csv_num("-3.25\r\n", &v), 0);
	assert_true(v == -3.25);
	assert_int_equal(fs_csv_num("1e3", &v), 0);
	assert_true(v == 1000);
	assert_int_equal(fs_csv_num("", &v), -1);
	assert_int_equal(fs_csv_num("12px", &v), -1);
	assert_int_equal(fs_csv_num("1e999", &v), -1);
	assert_int_equal(fs_csv_num("nan", &v), -1);
	assert_int_equal(fs_csv_num("inf", &v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(fields_columns_and_line_numbers, setup, teardown),
		cmocka_unit_test_setup_teardown(a_line_of_more_fields_than_kept_is_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(why_a_file_could_not_be_read, setup, teardown),
		cmocka_unit_test(a_number_is_the_whole_field_and_finite),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
