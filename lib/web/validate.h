/*
 * validate.h - input validation declared per field (in the manner of kcgi's
 * kvalid): a handler lists its fields once in a table and reads only the
 * typed, checked values.
 *
 * Per type:
 *   STRING  valid UTF-8 without NUL, at most max_len bytes (0 = 4096); when
 *           min > 0, at least min bytes. s = the string.
 *   INT     JSON: an integral number; form: [+-]digits. i (and d) set;
 *           [min, max] checked unless both are 0.
 *   DOUBLE  JSON: a number; form: a decimal number (no hex, NaN, inf,
 *           spaces or trailing junk). d set; [min, max] as for INT.
 *   BOOL    JSON: true/false; form: 1/0/true/false/on/off. b set.
 *   ENUM    a string equal to one of choices (NULL-terminated); i = its
 *           index, s = the string.
 *   ID      a positive 64-bit integer (JSON number up to 2^53; form: digits
 *           without sign). i set; [min, max] as for INT.
 * A JSON null counts as absent. A missing required field, a field given
 * twice, and (unless allow_unknown) a field not in the table are errors.
 *
 * Ownership: the caller owns fields and out (n entries, zeroed here); out[k].s
 * points into obj / kv and is valid while the source lives. Errors name the
 * field: "field 'threshold' must be a number between 0.01 and 0.5".
 */
#ifndef FS_VALIDATE_H
#define FS_VALIDATE_H

#include <stddef.h>

#include <cJSON.h>

#include "web/urlenc.h"

#define FS_FIELD_DEFAULT_MAX_LEN 4096

typedef enum {
	FS_FIELD_STRING,
	FS_FIELD_INT,
	FS_FIELD_DOUBLE,
	FS_FIELD_BOOL,
	FS_FIELD_ENUM,
	FS_FIELD_ID,
	FS_FIELD_OBJECT, /* a JSON object, checked but not copied (read it from
			  * the body); form input cannot carry one */
	FS_FIELD_ARRAY,	 /* a JSON array, likewise: declared so that a body's
			  * every key is known, its items read by the handler */
} fs_field_type;

typedef struct fs_field {
	const char *name;
	fs_field_type type;
	int required;
	double min, max;	/* ignored when both are 0 */
	size_t max_len;		/* 0 = FS_FIELD_DEFAULT_MAX_LEN */
	const char *const *choices; /* ENUM: NULL-terminated */
} fs_field;

typedef struct fs_value {
	int present;
	long long i;
	double d;
	int b;
	const char *s;
} fs_value;

/* Validates a JSON object. 0, or -1 with a message naming the field. */
int fs_validate_json(const cJSON *obj, const fs_field *fields, size_t n,
		     fs_value *out, int allow_unknown, char *err, size_t errlen);

/* Validates form or query pairs. 0, or -1 with a message naming the field. */
int fs_validate_kv(const fs_kvlist *kv, const fs_field *fields, size_t n,
		   fs_value *out, int allow_unknown, char *err, size_t errlen);

#endif
