/* json_schema.c - JSON Schema subset validator for tool arguments (see json_schema.h). */
#include "agent/json_schema.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define PATH_MAX_LEN 256

static bool type_matches(const char *t, const cJSON *v)
{
	if (!strcmp(t, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(t, "array"))
		return cJSON_IsArray(v);
	if (!strcmp(t, "string"))
		return cJSON_IsString(v);
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(t, "integer"))
		return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		       floor(v->valuedouble) == v->valuedouble;
	if (!strcmp(t, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(t, "null"))
		return cJSON_IsNull(v);
	return false;
}

static int check_type(const cJSON *type, const cJSON *v, const char *path, char *err, size_t errlen)
{
	if (cJSON_IsString(type)) {
		if (type_matches(type->valuestring, v))
			return 0;
		snprintf(err, errlen, "%s: expected %s", path, type->valuestring);
		return -1;
	}
	if (cJSON_IsArray(type)) {
		const cJSON *t;
		cJSON_ArrayForEach(t, type)
			if (cJSON_IsString(t) && type_matches(t->valuestring, v))
				return 0;
		snprintf(err, errlen, "%s: value has none of the allowed types", path);
		return -1;
	}
	return 0;
}

/* UTF-8 code points, as JSON Schema counts string length in characters. */
static size_t utf8_len(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

static bool json_equal(const cJSON *a, const cJSON *b)
{
	return cJSON_Compare(a, b, true) != 0;
}

static int validate(const cJSON *s, const cJSON *v, const char *path, int depth, char *err, size_t errlen);

static int check_object(const cJSON *s, const cJSON *v, const char *path, int depth, char *err,
			size_t errlen)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
	const cJSON *addl = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	const cJSON *it;
	char sub[PATH_MAX_LEN];

	cJSON_ArrayForEach(it, req) {
		if (cJSON_IsString(it) && !cJSON_GetObjectItemCaseSensitive(v, it->valuestring)) {
			snprintf(err, errlen, "%s: missing required property '%s'", path, it->valuestring);
			return -1;
		}
	}
	cJSON_ArrayForEach(it, v) {
		snprintf(sub, sizeof(sub), "%s.%s", path, it->string);
		const cJSON *ps = props ? cJSON_GetObjectItemCaseSensitive(props, it->string) : NULL;
		if (ps) {
			if (validate(ps, it, sub, depth + 1, err, errlen))
				return -1;
		} else if (cJSON_IsObject(addl)) {
			if (validate(addl, it, sub, depth + 1, err, errlen))
				return -1;
		} else if (cJSON_IsFalse(addl) || (props && !cJSON_IsTrue(addl))) {
			snprintf(err, errlen, "%s: unknown property '%s'", path, it->string);
			return -1;
		}
	}
	return 0;
}

static int check_array(const cJSON *s, const cJSON *v, const char *path, int depth, char *err,
		       size_t errlen)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
	const cJSON *mn = cJSON_GetObjectItemCaseSensitive(s, "minItems");
	const cJSON *mx = cJSON_GetObjectItemCaseSensitive(s, "maxItems");
	int n = cJSON_GetArraySize(v);
	char sub[PATH_MAX_LEN];

	if (cJSON_IsNumber(mn) && n < mn->valuedouble) {
		snprintf(err, errlen, "%s: needs at least %g items", path, mn->valuedouble);
		return -1;
	}
	if (cJSON_IsNumber(mx) && n > mx->valuedouble) {
		snprintf(err, errlen, "%s: allows at most %g items", path, mx->valuedouble);
		return -1;
	}
	if (!cJSON_IsObject(items))
		return 0;
	int i = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, v) {
		snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
		if (validate(items, it, sub, depth + 1, err, errlen))
			return -1;
	}
	return 0;
}

static int check_number(const cJSON *s, const cJSON *v, const char *path, char *err, size_t errlen)
{
	const cJSON *k;
	double x = v->valuedouble;

	if ((k = cJSON_GetObjectItemCaseSensitive(s, "minimum")) && cJSON_IsNumber(k) && x < k->valuedouble)
		goto low;
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMinimum")) && cJSON_IsNumber(k) &&
	    x <= k->valuedouble)
		goto low;
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "maximum")) && cJSON_IsNumber(k) && x > k->valuedouble)
		goto high;
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "exclusiveMaximum")) && cJSON_IsNumber(k) &&
	    x >= k->valuedouble)
		goto high;
	return 0;
low:
	snprintf(err, errlen, "%s: %g is below the minimum %g", path, x, k->valuedouble);
	return -1;
high:
	snprintf(err, errlen, "%s: %g is above the maximum %g", path, x, k->valuedouble);
	return -1;
}

static int check_string(const cJSON *s, const cJSON *v, const char *path, char *err, size_t errlen)
{
	const cJSON *mn = cJSON_GetObjectItemCaseSensitive(s, "minLength");
	const cJSON *mx = cJSON_GetObjectItemCaseSensitive(s, "maxLength");
	size_t n = utf8_len(v->valuestring);

	if (cJSON_IsNumber(mn) && (double)n < mn->valuedouble) {
		snprintf(err, errlen, "%s: shorter than %g characters", path, mn->valuedouble);
		return -1;
	}
	if (cJSON_IsNumber(mx) && (double)n > mx->valuedouble) {
		snprintf(err, errlen, "%s: longer than %g characters", path, mx->valuedouble);
		return -1;
	}
	return 0;
}

static int validate(const cJSON *s, const cJSON *v, const char *path, int depth, char *err, size_t errlen)
{
	if (depth > 32) {
		snprintf(err, errlen, "%s: nested too deeply", path);
		return -1;
	}
	if (!cJSON_IsObject(s))
		return 0;
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type");
	if (type && check_type(type, v, path, err, errlen))
		return -1;
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	if (cJSON_IsArray(en)) {
		const cJSON *e;
		bool found = false;
		cJSON_ArrayForEach(e, en)
			if (json_equal(e, v))
				found = true;
		if (!found) {
			char *allowed = cJSON_PrintUnformatted(en);
			snprintf(err, errlen, "%s: must be one of %s", path, allowed ? allowed : "the enum");
			cJSON_free(allowed);
			return -1;
		}
	}
	if (cJSON_IsObject(v))
		return check_object(s, v, path, depth, err, errlen);
	if (cJSON_IsArray(v))
		return check_array(s, v, path, depth, err, errlen);
	if (cJSON_IsNumber(v))
		return check_number(s, v, path, err, errlen);
	if (cJSON_IsString(v))
		return check_string(s, v, path, err, errlen);
	return 0;
}

int fs_schema_validate(const cJSON *schema, const cJSON *value, char *err, size_t errlen)
{
	if (!value) {
		snprintf(err, errlen, "$: no arguments");
		return -1;
	}
	return validate(schema, value, "$", 0, err, errlen);
}
