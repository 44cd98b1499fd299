/* Unit tests for the tool-argument schema validator. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "agent/json_schema.h"

static const char *SCHEMA =
	"{\"type\":\"object\",\"properties\":{"
	"\"x\":{\"type\":\"number\",\"minimum\":0,\"maximum\":100},"
	"\"n\":{\"type\":\"integer\"},"
	"\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"slow\"]},"
	"\"name\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":4},"
	"\"ids\":{\"type\":\"array\",\"items\":{\"type\":\"integer\",\"minimum\":1},\"maxItems\":3},"
	"\"flag\":{\"type\":\"boolean\"}},"
	"\"required\":[\"x\"]}";

static int check(const char *schema, const char *value, char *err, size_t errlen)
{
	cJSON *s = cJSON_Parse(schema);
	cJSON *v = cJSON_Parse(value);
	assert_non_null(s);
	assert_non_null(v);
	int rc = fs_schema_validate(s, v, err, errlen);
	cJSON_Delete(s);
	cJSON_Delete(v);
	return rc;
}

static void valid_arguments_pass(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":5,\"n\":3,\"mode\":\"fast\",\"name\":\"abc\","
				       "\"ids\":[1,2],\"flag\":true}", err, sizeof(err)), 0);
}

static void missing_required_is_rejected(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"n\":3}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "missing required property 'x'"));
}

static void wrong_type_is_rejected_with_path(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":\"5\"}", err, sizeof(err)), -1);
	assert_string_equal(err, "$.x: expected number");
}

static void integer_rejects_fraction(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"n\":2.5}", err, sizeof(err)), -1);
	assert_string_equal(err, "$.n: expected integer");
}

static void enum_outside_is_rejected(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"mode\":\"medium\"}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "$.mode: must be one of"));
}

static void minimum_and_maximum_are_enforced(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":-1}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "below the minimum"));
	assert_int_equal(check(SCHEMA, "{\"x\":100.5}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "above the maximum"));
	assert_int_equal(check(SCHEMA, "{\"x\":100}", err, sizeof(err)), 0);
}

static void exclusive_bounds_are_enforced(void **state)
{
	(void)state;
	char err[256] = "";
	const char *s = "{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}";
	assert_int_equal(check(s, "0", err, sizeof(err)), -1);
	assert_int_equal(check(s, "1", err, sizeof(err)), -1);
	assert_int_equal(check(s, "0.5", err, sizeof(err)), 0);
}

static void string_length_counts_characters(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"name\":\"a\"}", err, sizeof(err)), -1);
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"name\":\"abcde\"}", err, sizeof(err)), -1);
	/* four characters, eight bytes: must pass */
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"name\":\"\\u00b5\\u00b5\\u00b5\\u00b5\"}", err,
			       sizeof(err)), 0);
}

static void array_items_are_validated_with_index(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"ids\":[1,0]}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "$.ids[1]:"));
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"ids\":[1,2,3,4]}", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at most 3 items"));
}

static void unknown_property_is_rejected_by_default(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "{\"x\":1,\"y\":2}", err, sizeof(err)), -1);
	assert_string_equal(err, "$: unknown property 'y'");
}

static void additional_properties_true_allows_unknown(void **state)
{
	(void)state;
	char err[256] = "";
	const char *s = "{\"type\":\"object\",\"properties\":{\"a\":{}},\"additionalProperties\":true}";
	assert_int_equal(check(s, "{\"a\":1,\"b\":2}", err, sizeof(err)), 0);
}

static void additional_properties_schema_validates_extras(void **state)
{
	(void)state;
	char err[256] = "";
	const char *s = "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"}}";
	assert_int_equal(check(s, "{\"a\":1,\"b\":2}", err, sizeof(err)), 0);
	assert_int_equal(check(s, "{\"a\":1,\"b\":\"x\"}", err, sizeof(err)), -1);
	assert_string_equal(err, "$.b: expected number");
}

static void type_list_accepts_any_listed(void **state)
{
	(void)state;
	char err[256] = "";
	const char *s = "{\"type\":[\"string\",\"null\"]}";
	assert_int_equal(check(s, "null", err, sizeof(err)), 0);
	assert_int_equal(check(s, "\"a\"", err, sizeof(err)), 0);
	assert_int_equal(check(s, "3", err, sizeof(err)), -1);
}

static void arguments_not_an_object_are_rejected(void **state)
{
	(void)state;
	char err[256] = "";
	assert_int_equal(check(SCHEMA, "[1]", err, sizeof(err)), -1);
	assert_string_equal(err, "$: expected object");
	assert_int_equal(fs_schema_validate(NULL, NULL, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid_arguments_pass),
		cmocka_unit_test(missing_required_is_rejected),
		cmocka_unit_test(wrong_type_is_rejected_with_path),
		cmocka_unit_test(integer_rejects_fraction),
		cmocka_unit_test(enum_outside_is_rejected),
		cmocka_unit_test(minimum_and_maximum_are_enforced),
		cmocka_unit_test(exclusive_bounds_are_enforced),
		cmocka_unit_test(string_length_counts_characters),
		cmocka_unit_test(array_items_are_validated_with_index),
		cmocka_unit_test(unknown_property_is_rejected_by_default),
		cmocka_unit_test(additional_properties_true_allows_unknown),
		cmocka_unit_test(additional_properties_schema_validates_extras),
		cmocka_unit_test(type_list_accepts_any_listed),
		cmocka_unit_test(arguments_not_an_object_are_rejected),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
