/*
 * json_schema.h - validate tool arguments (cJSON) against a JSON Schema subset.
 *
 * Supported keywords: type (string or array of strings: object, array,
 * string, number, integer, boolean, null), properties, required,
 * additionalProperties (false, true or a schema), enum, minimum, maximum,
 * exclusiveMinimum, exclusiveMaximum (numbers), minLength, maxLength,
 * items, minItems, maxItems. Unknown keywords (description, default, ...)
 * are ignored.
 *
 * One deliberate difference from JSON Schema: an object schema that has
 * "properties" rejects properties it does not name unless
 * additionalProperties says otherwise. A model that invents an argument
 * gets told so instead of having it silently ignored.
 *
 * Ownership: nothing is retained; schema and value stay the caller's.
 */
#ifndef FS_JSON_SCHEMA_H
#define FS_JSON_SCHEMA_H

#include <stddef.h>
#include <cJSON.h>

/*
 * Returns 0 if value conforms to schema, -1 otherwise with a message naming
 * the first offending location ("$.points[2].x: expected number") in err.
 */
int fs_schema_validate(const cJSON *schema, const cJSON *value, char *err, size_t errlen);

#endif
