/* Unit tests for table-driven input validation (validate.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "web/validate.h"

static const char *const methods[] = {"log", "dog", "blob", NULL};

static const fs_field fields[] = {
	{.name = "threshold", .type = FS_FIELD_DOUBLE, .required = 1, .min = 0.01, .max = 0.5},
	{.name = "count", .type = FS_FIELD_INT, .min = -5, .max = 100},
	{.name = "name", .type = FS_FIELD_STRING, .max_len = 8},
	{.name = "refine", .type = FS_FIELD_BOOL},
	{.name = "method", .type = FS_FIELD_ENUM, .choices = methods},
	{.name = "id", .type = FS_FIELD_ID},
	{.name = "any", .type = FS_FIELD_INT},
};
#define NF (sizeof(fields) / sizeof(*fields))
enum { THRESHOLD, COUNT, NAME, REFINE, METHOD, ID, ANY };

static char err[256];
static fs_value out[NF];

static int json(const char *text, int allow_unknown)
{
	cJSON *o = cJSON_Parse(text);
	assert_non_null(o);
	err[0] = 0;
	int rc = fs_validate_json(o, fields, NF, out, allow_unknown, err, sizeof(err));
	cJSON_Delete(o);
	return rc;
}

static int form(const char *text, int allow_unknown)
{
	fs_kvlist kv;
	assert_int_equal(fs_urlenc_parse(text, strlen(text), &kv), 0);
	err[0] = 0;
	int rc = fs_validate_kv(&kv, fields, NF, out, allow_unknown, err, sizeof(err));
	fs_kvlist_free(&kv);
	return rc;
}

static void json_valid_object_fills_typed_values(void **state)
{
	(void)state;
	cJSON *o = cJSON_Parse("{\"threshold\":0.2,\"count\":-5,\"name\":\"écaille\",\"refine\":true,"
			       "\"method\":\"dog\",\"id\":9007199254740992,\"any\":1e3}");
	assert_int_equal(fs_validate_json(o, fields, NF, out, 0, err, sizeof(err)), 0);
	assert_true(out[THRESHOLD].present);
	assert_true(out[THRESHOLD].d == 0.2);
	assert_int_equal(out[COUNT].i, -5);
	assert_string_equal(out[NAME].s, "écaille");
	assert_int_equal(out[REFINE].b, 1);
	assert_int_equal(out[METHOD].i, 1);
	assert_string_equal(out[METHOD].s, "dog");
	assert_int_equal(out[ID].i, 9007199254740992LL);
	assert_int_equal(out[ANY].i, 1000);
	cJSON_Delete(o);
}

static void range_error_names_field_and_bounds(void **state)
{
	(void)state;
	assert_int_equal(json("{\"threshold\":0.6}", 0), -1);
	assert_string_equal(err, "field 'threshold' must be a number between 0.01 and 0.5");
	assert_int_equal(form("threshold=0.001", 0), -1);
	assert_string_equal(err, "field 'threshold' must be a number between 0.01 and 0.5");
	assert_int_equal(json("{\"threshold\":0.1,\"count\":101}", 0), -1);
	assert_string_equal(err, "field 'count' must be an integer between -5 and 100");
}

static void missing_required_field_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(json("{\"count\":1}", 0), -1);
	assert_string_equal(err, "field 'threshold' is required");
	assert_int_equal(json("{\"threshold\":null}", 0), -1);
	assert_string_equal(err, "field 'threshold' is required");
	assert_int_equal(form("", 0), -1);
}

static void optional_fields_may_be_absent(void **state)
{
	(void)state;
	assert_int_equal(json("{\"threshold\":0.5,\"name\":null}", 0), 0);
	assert_false(out[NAME].present);
	assert_null(out[NAME].s);
	assert_false(out[COUNT].present);
}

static void unknown_fields_follow_allow_unknown(void **state)
{
	(void)state;
	assert_int_equal(json("{\"threshold\":0.1,\"bogus\":1}", 0), -1);
	assert_string_equal(err, "unknown field 'bogus'");
	assert_int_equal(json("{\"threshold\":0.1,\"bogus\":1}", 1), 0);
	assert_int_equal(form("threshold=0.1&csrf=x", 0), -1);
	assert_string_equal(err, "unknown field 'csrf'");
	assert_int_equal(form("threshold=0.1&csrf=x", 1), 0);
}

/* An object field is checked, not copied; a form cannot carry one. */
static void object_field_accepts_objects_only(void **state)
{
	(void)state;
	static const fs_field of[] = {{"details", FS_FIELD_OBJECT, 1, 0, 0, 0, NULL}};
	fs_value ov[1];
	const char *ok[] = {"{\"details\":{}}", "{\"details\":{\"a\":[1]}}"};
	for (size_t i = 0; i < 2; i++) {
		cJSON *o = cJSON_Parse(ok[i]);
		assert_int_equal(fs_validate_json(o, of, 1, ov, 0, err, sizeof err), 0);
		assert_true(ov[0].present);
		cJSON_Delete(o);
	}
	cJSON *o = cJSON_Parse("{\"details\":[1]}");
	assert_int_equal(fs_validate_json(o, of, 1, ov, 0, err, sizeof err), -1);
	assert_string_equal(err, "field 'details' must be an object");
	cJSON_Delete(o);
	o = cJSON_Parse("{\"details\":null}");
	assert_int_equal(fs_validate_json(o, of, 1, ov, 0, err, sizeof err), -1);
	assert_string_equal(err, "field 'details' is required");
	cJSON_Delete(o);
	fs_kvlist kv;
	assert_int_equal(fs_urlenc_parse("details=x", 9, &kv), 0);
	assert_int_equal(fs_validate_kv(&kv, of, 1, ov, 0, err, sizeof err), -1);
	assert_string_equal(err, "field 'details' must be an object");
	fs_kvlist_free(&kv);
}

/* An array field likewise: declared so that a body has no unknown key. */
static void array_field_accepts_arrays_only(void **state)
{
	(void)state;
	static const fs_field af[] = {{"tubercles", FS_FIELD_ARRAY, 1, 0, 0, 0, NULL}};
	fs_value av[1];
	cJSON *o = cJSON_Parse("{\"tubercles\":[3,4]}");
	assert_int_equal(fs_validate_json(o, af, 1, av, 0, err, sizeof err), 0);
	assert_true(av[0].present);
	cJSON_Delete(o);
	o = cJSON_Parse("{\"tubercles\":{\"3\":1}}");
	assert_int_equal(fs_validate_json(o, af, 1, av, 0, err, sizeof err), -1);
	assert_string_equal(err, "field 'tubercles' must be an array");
	cJSON_Delete(o);
	o = cJSON_Parse("{\"tubercles\":[3],\"tubercle\":[4]}");
	assert_int_equal(fs_validate_json(o, af, 1, av, 0, err, sizeof err), -1);
	assert_string_equal(err, "unknown field 'tubercle'");
	cJSON_Delete(o);
}

static void repeated_field_is_an_error(void **state)
{
	(void)state;
	assert_int_equal(form("threshold=0.1&threshold=0.2", 0), -1);
	assert_string_equal(err, "field 'threshold' is given more than once");
	assert_int_equal(json("{\"threshold\":0.1,\"threshold\":0.2}", 0), -1);
}

static void json_int_must_be_integral(void **state)
{
	(void)state;
	assert_int_equal(json("{\"threshold\":0.1,\"any\":1.5}", 0), -1);
	assert_string_equal(err, "field 'any' must be an integer");
	assert_int_equal(json("{\"threshold\":0.1,\"any\":\"3\"}", 0), -1);
	assert_int_equal(json("{\"threshold\":0.1,\"any\":1e300}", 0), -1);
	assert_int_equal(json("{\"threshold\":0.1,\"any\":true}", 0), -1);
}

static void json_types_must_match(void **state)
{
	(void)state;
	assert_int_equal(json("{\"threshold\":\"0.1\"}", 0), -1);
	assert_string_equal(err, "field 'threshold' must be a number between 0.01 and 0.5");
	assert_int_equal(json("{\"threshold\":0.1,\"name\":5}", 0), -1);
	assert_string_equal(err, "field 'name' must be a string");
	assert_int_equal(json("{\"threshold\":0.1,\"refine\":1}", 0), -1);
	assert_string_equal(err, "field 'refine' must be true or false");
	assert_int_equal(json("[1]", 0), -1);
	assert_string_equal(err, "expected a JSON object");
}

static void form_numbers_are_parsed_strictly(void **state)
{
	(void)state;
	const char *bad[] = {"threshold=0.1x", "threshold=+", "threshold=nan", "threshold=inf",
			     "threshold=0x1p-3", "threshold=+0.1+", "threshold=%200.1", "threshold=",
			     "threshold=.", "threshold=0.1%00"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(form(bad[i], 0), -1);
		assert_non_null(strstr(err, "field 'threshold' must be a number"));
	}
	assert_int_equal(form("threshold=1e-1&count=-3&any=%2B7", 0), 0);
	assert_true(out[THRESHOLD].d == 0.1);
	assert_int_equal(out[COUNT].i, -3);
	assert_int_equal(out[ANY].i, 7);
	assert_int_equal(form("threshold=0.1&any=99999999999999999999", 0), -1);
	assert_int_equal(form("threshold=0.1&any=1.0", 0), -1);
	assert_int_equal(form("threshold=0.1&any=1+", 0), -1);
}

static void ids_must_be_positive(void **state)
{
	(void)state;
	assert_int_equal(form("threshold=0.1&id=12", 0), 0);
	assert_int_equal(out[ID].i, 12);
	const char *bad[] = {"threshold=0.1&id=0", "threshold=0.1&id=-1", "threshold=0.1&id=%2B1",
			     "threshold=0.1&id=9223372036854775808", "threshold=0.1&id=1a"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(form(bad[i], 0), -1);
		assert_string_equal(err, "field 'id' must be a positive integer id");
	}
	assert_int_equal(json("{\"threshold\":0.1,\"id\":0}", 0), -1);
	assert_int_equal(json("{\"threshold\":0.1,\"id\":2.5}", 0), -1);
	assert_int_equal(form("threshold=0.1&id=9223372036854775807", 0), 0);
	assert_int_equal(out[ID].i, 9223372036854775807LL);
}

static void form_bools_accept_the_usual_spellings(void **state)
{
	(void)state;
	const char *yes[] = {"1", "true", "on"}, *no[] = {"0", "false", "off"};
	char q[64];
	for (int i = 0; i < 3; i++) {
		snprintf(q, sizeof(q), "threshold=0.1&refine=%s", yes[i]);
		assert_int_equal(form(q, 0), 0);
		assert_int_equal(out[REFINE].b, 1);
		snprintf(q, sizeof(q), "threshold=0.1&refine=%s", no[i]);
		assert_int_equal(form(q, 0), 0);
		assert_int_equal(out[REFINE].b, 0);
	}
	assert_int_equal(form("threshold=0.1&refine=yes", 0), -1);
	assert_string_equal(err, "field 'refine' must be true or false");
	assert_int_equal(form("threshold=0.1&refine=TRUE", 0), -1);
}

static void enum_must_be_a_listed_choice(void **state)
{
	(void)state;
	assert_int_equal(form("threshold=0.1&method=blob", 0), 0);
	assert_int_equal(out[METHOD].i, 2);
	assert_int_equal(form("threshold=0.1&method=Blob", 0), -1);
	assert_string_equal(err, "field 'method' must be one of: log, dog, blob");
	assert_int_equal(json("{\"threshold\":0.1,\"method\":1}", 0), -1);
}

static void strings_are_limited_and_clean(void **state)
{
	(void)state;
	assert_int_equal(form("threshold=0.1&name=12345678", 0), 0);
	assert_int_equal(form("threshold=0.1&name=123456789", 0), -1);
	assert_string_equal(err, "field 'name' must be at most 8 bytes");
	assert_int_equal(form("threshold=0.1&name=a%00b", 0), -1);
	assert_string_equal(err, "field 'name' must be valid UTF-8 text without NUL bytes");
	assert_int_equal(form("threshold=0.1&name=%C3", 0), -1);
	assert_int_equal(form("threshold=0.1&name=%ED%A0%80", 0), -1);
	assert_int_equal(form("threshold=0.1&name=%C0%AF", 0), -1);
	assert_int_equal(json("{\"threshold\":0.1,\"name\":\"\xFFx\"}", 0), -1);
}

static void default_max_len_is_4096(void **state)
{
	(void)state;
	static const fs_field f[] = {{.name = "s", .type = FS_FIELD_STRING, .min = 2}};
	fs_value v[1];
	fs_kvlist kv = {0};
	char big[FS_FIELD_DEFAULT_MAX_LEN + 1];
	memset(big, 'a', sizeof(big));
	assert_int_equal(fs_kvlist_add(&kv, "s", 1, big, sizeof(big) - 1), 0);
	assert_int_equal(fs_validate_kv(&kv, f, 1, v, 0, err, sizeof(err)), 0);
	fs_kvlist_free(&kv);
	assert_int_equal(fs_kvlist_add(&kv, "s", 1, big, sizeof(big)), 0);
	assert_int_equal(fs_validate_kv(&kv, f, 1, v, 0, err, sizeof(err)), -1);
	fs_kvlist_free(&kv);
	assert_int_equal(fs_kvlist_add(&kv, "s", 1, "a", 1), 0);
	assert_int_equal(fs_validate_kv(&kv, f, 1, v, 0, err, sizeof(err)), -1);
	assert_string_equal(err, "field 's' must be at least 2 bytes");
	fs_kvlist_free(&kv);
	assert_int_equal(fs_validate_kv(NULL, f, 1, v, 0, err, sizeof(err)), 0);
	assert_false(v[0].present);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_valid_object_fills_typed_values),
		cmocka_unit_test(range_error_names_field_and_bounds),
		cmocka_unit_test(missing_required_field_is_an_error),
		cmocka_unit_test(object_field_accepts_objects_only),
		cmocka_unit_test(optional_fields_may_be_absent),
		cmocka_unit_test(unknown_fields_follow_allow_unknown),
		cmocka_unit_test(repeated_field_is_an_error),
		cmocka_unit_test(json_int_must_be_integral),
		cmocka_unit_test(json_types_must_match),
		cmocka_unit_test(form_numbers_are_parsed_strictly),
		cmocka_unit_test(ids_must_be_positive),
		cmocka_unit_test(form_bools_accept_the_usual_spellings),
		cmocka_unit_test(enum_must_be_a_listed_choice),
		cmocka_unit_test(strings_are_limited_and_clean),
		cmocka_unit_test(default_max_len_is_4096),
		cmocka_unit_test(array_field_accepts_arrays_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
