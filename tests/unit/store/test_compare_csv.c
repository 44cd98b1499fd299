/*
 * test_compare_csv.c - the Compare table as CSV: a row per set with its
 * numbers (empty when unknown), quoting, the unit of uncalibrated sets, and
 * a row per group mean.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "store/compare_csv.h"

static void test_rows_and_group_means(void **state)
{
	(void)state;
	fs_chart_set s[3];
	memset(s, 0, sizeof s);
	s[0] = (fs_chart_set){.id = 5, .name = "scale 1, left", .group = "Specimen \"A\"", .calibrated = 1,
			      .n_tubercles = 40, .n_edges = 100, .d_mean = 4.25, .d_sd = 0.5, .s_mean = 3,
			      .s_sd = 0.25, .fill_ratio = 0.586207, .hexagonalness = 0.81, .genus = "Lepisosteus",
			      .confidence = "high"};
	s[1] = (fs_chart_set){.id = 6, .name = "scale 2", .group = "Specimen \"A\"", .calibrated = 1,
			      .n_tubercles = 30, .n_edges = 70, .d_mean = 4.75, .d_sd = 0.5, .s_mean = 4,
			      .s_sd = 0.25, .fill_ratio = 0.5, .hexagonalness = 0.79, .genus = "Lepidotes",
			      .confidence = "high"};
	s[2] = (fs_chart_set){.id = 9, .name = "fig", .group = NULL, .calibrated = 0, .n_tubercles = 12,
			      .n_edges = 0, .d_mean = 20, .d_sd = 2, .s_mean = NAN, .s_sd = NAN,
			      .fill_ratio = NAN, .hexagonalness = 0, .genus = "Unknown", .confidence = "none"};
	const char *versions[] = {"2", "1", NULL};
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_csv_compare(&b, s, 3, versions), 0);
	const char *want =
		"kind,set_id,name,group,calibrated,unit,n_tubercles,n_edges,mean_diameter,sd_diameter,mean_space,"
		"sd_space,fill_ratio,hexagonalness,suggested_genus,classification_confidence,measurement_version\n"
		"set,5,\"scale 1, left\",\"Specimen \"\"A\"\"\",1,um,40,100,4.25,0.5,3,0.25,0.586207,0.81,Lepisosteus,"
		"high,2\n"
		"set,6,scale 2,\"Specimen \"\"A\"\"\",1,um,30,70,4.75,0.5,4,0.25,0.5,0.79,Lepidotes,high,1\n"
		"set,9,fig,,0,px,12,0,20,2,,,,0,Unknown,none,\n"
		"group_mean,,\"Specimen \"\"A\"\"\",\"Specimen \"\"A\"\"\",1,um,70,170,4.5,0.353553,3.5,0.707107,"
		"0.543103,0.8,,,\n";
	assert_string_equal(b.data, want);
	fs_buf_free(&b);
	/* without versions there is no such column */
	assert_int_equal(fs_csv_compare(&b, s, 1, NULL), 0);
	assert_string_equal(b.data,
			    "kind,set_id,name,group,calibrated,unit,n_tubercles,n_edges,mean_diameter,sd_diameter,"
			    "mean_space,sd_space,fill_ratio,hexagonalness,suggested_genus,classification_confidence\n"
			    "set,5,\"scale 1, left\",\"Specimen \"\"A\"\"\",1,um,40,100,4.25,0.5,3,0.25,0.586207,0.81,"
			    "Lepisosteus,high\n"
			    "group_mean,,\"Specimen \"\"A\"\"\",\"Specimen \"\"A\"\"\",1,um,40,100,4.25,0,3,0,0.586207,0.81,,\n");
	fs_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_group_means),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
