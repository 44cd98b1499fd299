/* Unit tests for the fast JSON writer: numbers read back as written, strings escaped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "base/json_write.h"

static double through_json(double v)
{
	fs_buf b = FS_BUF_INIT;
	assert_int_equal(fs_jw_num(&b, v), 0);
	cJSON *j = cJSON_Parse(b.data);
	assert_non_null(j);
	double out = j->valuedouble;
	cJSON_Delete(j);
	fs_buf_free(&b);
	return out;
}

static void numbers_round_trip_within_a_nanounit(void **state)
{
	(void)state;
	const double vals[] = {0, 1, -1, 0.5, -0.5, 123.456789, 2047.999999999, 1e-10, 999999999.5, 1e9, 1e12,
			       -3.25e15, 6.02e23, 0.1 + 0.2, -0.000000001};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		double v = vals[i], got = through_json(v);
		if (fabs(v) < 1e9)
			assert_true(fabs(got - v) <= 5e-10);
		else
			assert_true(got == v);
	}
	srand(7);
	for (int i = 0; i < 20000; i++) {
		double v = ((double)rand() / RAND_MAX - 0.5) * 4096;
		assert_true(fabs(through_json(v) - v) <= 5e-10);
	}
}

static void integers_and_specials(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	fs_jw_int(&b, 0);
	fs_buf_putc(&b, ' ');
	fs_jw_int(&b, -9223372036854775807LL - 1);
	fs_buf_putc(&b, ' ');
	fs_jw_num(&b, NAN);
	fs_buf_putc(&b, ' ');
	fs_jw_num(&b, 42);
	fs_buf_putc(&b, ' ');
	fs_jw_num(&b, -0.0);
	assert_string_equal(b.data, "0 -9223372036854775808 null 42 0");
	fs_buf_free(&b);
}

static void strings_are_escaped(void **state)
{
	(void)state;
	fs_buf b = FS_BUF_INIT;
	fs_buf_putc(&b, '{');
	fs_jw_key(&b, "ab", 1);
	fs_jw_str(&b, "x\\y\n\"</script>\x01");
	fs_jw_key(&b, "n", 0);
	fs_jw_num(&b, 1.5);
	fs_buf_putc(&b, '}');
	cJSON *j = cJSON_Parse(b.data);
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "ab")->valuestring, "x\\y\n\"</script>\x01");
	assert_true(cJSON_GetObjectItem(j, "n")->valuedouble == 1.5);
	cJSON_Delete(j);
	fs_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_round_trip_within_a_nanounit),
		cmocka_unit_test(integers_and_specials),
		cmocka_unit_test(strings_are_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
