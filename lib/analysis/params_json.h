/*
 * params_json.h - extraction parameters to and from JSON objects with the
 * original tool's field names (method, threshold, min_diameter_um, ...).
 */
#ifndef FS_PARAMS_JSON_H
#define FS_PARAMS_JSON_H

#include <stddef.h>

#include <cJSON.h>

#include "analysis/params.h"

/* A new object with every field (caller deletes); NULL on out of memory. */
cJSON *fs_params_to_json(const fs_params *p);

/*
 * Sets the fields present in obj over *p (absent fields keep their value),
 * each through fs_params_set, then validates the whole. Unknown keys are an
 * error unless allow_unknown. The original's "graph_type" is accepted for
 * neighbor_graph. Returns 0, or -1 with a message naming the field.
 */
int fs_params_from_json(fs_params *p, const cJSON *obj, int allow_unknown, char *err, size_t errlen);

#endif
