/* validate.c - table-driven validation of JSON and form input (validate.h). */
#include "web/validate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/escape.h"

#define JSON_MAX_EXACT 9007199254740992.0 /* 2^53: larger doubles skip integers */

static int ranged(const fs_field *f)
{
	return f->min != 0 || f->max != 0;
}

static int bad(const fs_field *f, char *err, size_t errlen, const char *what)
{
	if (ranged(f) && (f->type == FS_FIELD_INT || f->type == FS_FIELD_DOUBLE ||
			  f->type == FS_FIELD_ID))
		snprintf(err, errlen, "field '%s' must be %s between %g and %g",
			 f->name, what, f->min, f->max);
	else
		snprintf(err, errlen, "field '%s' must be %s", f->name, what);
	return -1;
}

static const char *type_words(const fs_field *f)
{
	switch (f->type) {
	case FS_FIELD_INT:
		return "an integer";
	case FS_FIELD_DOUBLE:
		return "a number";
	case FS_FIELD_BOOL:
		return "true or false";
	case FS_FIELD_ID:
		return "a positive integer id";
	case FS_FIELD_OBJECT:
		return "an object";
	case FS_FIELD_ARRAY:
		return "an array";
	default:
		return "a string";
	}
}

static int check_range(const fs_field *f, double v, char *err, size_t errlen)
{
	if (ranged(f) && (v < f->min || v > f->max))
		return bad(f, err, errlen, type_words(f));
	return 0;
}

/* Checks a string value for STRING/ENUM and fills out. */
static int check_string(const fs_field *f, const char *s, size_t len,
			fs_value *out, char *err, size_t errlen)
{
	size_t max = f->max_len ? f->max_len : FS_FIELD_DEFAULT_MAX_LEN;

	if (!fs_utf8_valid(s, len))
		return bad(f, err, errlen, "valid UTF-8 text without NUL bytes");
	if (f->type == FS_FIELD_ENUM) {
		fs_buf b = FS_BUF_INIT;
		for (long long k = 0; f->choices && f->choices[k]; k++) {
			if (strlen(f->choices[k]) == len && memcmp(f->choices[k], s, len) == 0) {
				out->i = k;
				out->s = s;
				return 0;
			}
		}
		for (size_t k = 0; f->choices && f->choices[k]; k++)
			if (fs_buf_printf(&b, "%s%s", k ? ", " : "", f->choices[k]))
				break;
		snprintf(err, errlen, "field '%s' must be one of: %s", f->name,
			 b.data ? b.data : "");
		fs_buf_free(&b);
		return -1;
	}
	if (len > max) {
		snprintf(err, errlen, "field '%s' must be at most %zu bytes", f->name, max);
		return -1;
	}
	if (f->min > 0 && (double)len < f->min) {
		snprintf(err, errlen, "field '%s' must be at least %g bytes", f->name, f->min);
		return -1;
	}
	out->s = s;
	return 0;
}

static int set_integer(const fs_field *f, long long v, fs_value *out, char *err,
		       size_t errlen)
{
	if (f->type == FS_FIELD_ID && v <= 0)
		return bad(f, err, errlen, type_words(f));
	if (check_range(f, (double)v, err, errlen))
		return -1;
	out->i = v;
	out->d = (double)v;
	return 0;
}

static int check_json(const fs_field *f, const cJSON *v, fs_value *out,
		      char *err, size_t errlen)
{
	switch (f->type) {
	case FS_FIELD_STRING:
	case FS_FIELD_ENUM:
		if (!cJSON_IsString(v) || !v->valuestring)
			return bad(f, err, errlen, f->type == FS_FIELD_ENUM ? "a string" : "a string");
		return check_string(f, v->valuestring, strlen(v->valuestring), out, err, errlen);
	case FS_FIELD_INT:
	case FS_FIELD_ID: {
		double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
		if (!isfinite(d) || d != floor(d) || fabs(d) > JSON_MAX_EXACT)
			return bad(f, err, errlen, type_words(f));
		return set_integer(f, (long long)d, out, err, errlen);
	}
	case FS_FIELD_DOUBLE:
		if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
			return bad(f, err, errlen, type_words(f));
		if (check_range(f, v->valuedouble, err, errlen))
			return -1;
		out->d = v->valuedouble;
		return 0;
	case FS_FIELD_BOOL:
		if (!cJSON_IsBool(v))
			return bad(f, err, errlen, type_words(f));
		out->b = cJSON_IsTrue(v);
		return 0;
	case FS_FIELD_OBJECT:
		return cJSON_IsObject(v) ? 0 : bad(f, err, errlen, type_words(f));
	case FS_FIELD_ARRAY:
		return cJSON_IsArray(v) ? 0 : bad(f, err, errlen, type_words(f));
	}
	return bad(f, err, errlen, "of a known type");
}

static int strict_integer(const char *s, int allow_sign, long long *out)
{
	const char *p = s;
	char *end;

	if (allow_sign && (*p == '-' || *p == '+'))
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	for (const char *q = p; *q; q++)
		if (*q < '0' || *q > '9')
			return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno || *end ? -1 : 0;
}

static int strict_double(const char *s, double *out)
{
	char *end;

	/* strtod also takes hex, "nan", "inf" and leading spaces: allow only
	 * the characters of a plain decimal number */
	if (!*s || strspn(s, "0123456789+-.eE") != strlen(s) ||
	    strcspn(s, "0123456789") == strlen(s))
		return -1;
	errno = 0;
	*out = strtod(s, &end);
	return errno || *end || !isfinite(*out) ? -1 : 0;
}

static int check_text(const fs_field *f, const char *s, size_t len, fs_value *out,
		      char *err, size_t errlen)
{
	long long i;
	double d;

	if (f->type == FS_FIELD_STRING || f->type == FS_FIELD_ENUM)
		return check_string(f, s, len, out, err, errlen);
	if (strlen(s) != len)
		return bad(f, err, errlen, type_words(f));
	switch (f->type) {
	case FS_FIELD_INT:
	case FS_FIELD_ID:
		if (strict_integer(s, f->type == FS_FIELD_INT, &i))
			return bad(f, err, errlen, type_words(f));
		return set_integer(f, i, out, err, errlen);
	case FS_FIELD_DOUBLE:
		if (strict_double(s, &d))
			return bad(f, err, errlen, type_words(f));
		if (check_range(f, d, err, errlen))
			return -1;
		out->d = d;
		return 0;
	case FS_FIELD_BOOL:
		if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "on"))
			out->b = 1;
		else if (!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "off"))
			out->b = 0;
		else
			return bad(f, err, errlen, type_words(f));
		return 0;
	case FS_FIELD_OBJECT:
	case FS_FIELD_ARRAY:
		return bad(f, err, errlen, type_words(f));
	default:
		return bad(f, err, errlen, "of a known type");
	}
}

static const fs_field *find_field(const fs_field *fields, size_t n, const char *name,
				  size_t *idx)
{
	for (size_t k = 0; k < n; k++)
		if (strcmp(fields[k].name, name) == 0) {
			*idx = k;
			return &fields[k];
		}
	return NULL;
}

static int check_required(const fs_field *fields, size_t n, const fs_value *out,
			  char *err, size_t errlen)
{
	for (size_t k = 0; k < n; k++)
		if (fields[k].required && !out[k].present) {
			snprintf(err, errlen, "field '%s' is required", fields[k].name);
			return -1;
		}
	return 0;
}

static int seen_before(const fs_field *f, fs_value *v, char *err, size_t errlen)
{
	if (v->present) {
		snprintf(err, errlen, "field '%s' is given more than once", f->name);
		return -1;
	}
	v->present = 1;
	return 0;
}

int fs_validate_json(const cJSON *obj, const fs_field *fields, size_t n,
		     fs_value *out, int allow_unknown, char *err, size_t errlen)
{
	memset(out, 0, n * sizeof(*out));
	if (!cJSON_IsObject(obj)) {
		snprintf(err, errlen, "expected a JSON object");
		return -1;
	}
	for (const cJSON *it = obj->child; it; it = it->next) {
		size_t k;
		const fs_field *f = it->string ? find_field(fields, n, it->string, &k) : NULL;
		if (!f) {
			if (allow_unknown)
				continue;
			snprintf(err, errlen, "unknown field '%.64s'", it->string ? it->string : "");
			return -1;
		}
		if (seen_before(f, &out[k], err, errlen))
			return -1;
		if (cJSON_IsNull(it)) {
			out[k].present = 0;
			continue;
		}
		if (check_json(f, it, &out[k], err, errlen))
			return -1;
	}
	return check_required(fields, n, out, err, errlen);
}

int fs_validate_kv(const fs_kvlist *kv, const fs_field *fields, size_t n,
		   fs_value *out, int allow_unknown, char *err, size_t errlen)
{
	memset(out, 0, n * sizeof(*out));
	for (size_t j = 0; kv && j < kv->n; j++) {
		const fs_kv *it = &kv->items[j];
		size_t k;
		const fs_field *f = find_field(fields, n, it->key, &k);
		if (!f) {
			if (allow_unknown)
				continue;
			snprintf(err, errlen, "unknown field '%.64s'", it->key);
			return -1;
		}
		if (seen_before(f, &out[k], err, errlen))
			return -1;
		if (check_text(f, it->value, it->value_len, &out[k], err, errlen))
			return -1;
	}
	return check_required(fields, n, out, err, errlen);
}
