/* params_json.c - parameters <-> JSON (see params_json.h). */
#include "analysis/params_json.h"

#include <stdio.h>
#include <string.h>

cJSON *fs_params_to_json(const fs_params *p)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	int bad = !cJSON_AddStringToObject(o, "method", fs_method_name(p->method)) ||
		  !cJSON_AddNumberToObject(o, "threshold", p->threshold) ||
		  !cJSON_AddNumberToObject(o, "min_diameter_um", p->min_diameter_um) ||
		  !cJSON_AddNumberToObject(o, "max_diameter_um", p->max_diameter_um) ||
		  !cJSON_AddNumberToObject(o, "min_circularity", p->min_circularity) ||
		  !cJSON_AddNumberToObject(o, "clahe_clip", p->clahe_clip) ||
		  !cJSON_AddNumberToObject(o, "clahe_kernel", p->clahe_kernel) ||
		  !cJSON_AddNumberToObject(o, "blur_sigma", p->blur_sigma) ||
		  !cJSON_AddStringToObject(o, "neighbor_graph", fs_graph_name(p->neighbor_graph)) ||
		  !cJSON_AddBoolToObject(o, "cull_long_edges", p->cull_long_edges) ||
		  !cJSON_AddNumberToObject(o, "cull_factor", p->cull_factor) ||
		  !cJSON_AddNumberToObject(o, "edge_margin_px", p->edge_margin_px) ||
		  !cJSON_AddNumberToObject(o, "tophat_radius", p->tophat_radius) ||
		  !cJSON_AddNumberToObject(o, "auto_prominence", p->auto_prominence) ||
		  !cJSON_AddNumberToObject(o, "auto_smoothing", p->auto_smoothing);
	if (bad) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

int fs_params_from_json(fs_params *p, const cJSON *obj, int allow_unknown, char *err, size_t errlen)
{
	if (!cJSON_IsObject(obj)) {
		snprintf(err, errlen, "parameters must be an object");
		return -1;
	}
	fs_params tmp = *p;
	const cJSON *it;
	cJSON_ArrayForEach(it, obj)
	{
		const char *name = it->string;
		if (!strcmp(name, "graph_type"))
			name = "neighbor_graph";
		char val[64];
		if (cJSON_IsString(it)) {
			if (strlen(it->valuestring) >= sizeof val) {
				snprintf(err, errlen, "parameter '%s' is too long", name);
				return -1;
			}
			snprintf(val, sizeof val, "%s", it->valuestring);
		} else if (cJSON_IsBool(it)) {
			snprintf(val, sizeof val, "%s", cJSON_IsTrue(it) ? "true" : "false");
		} else if (cJSON_IsNumber(it)) {
			snprintf(val, sizeof val, "%.17g", it->valuedouble);
		} else {
			snprintf(err, errlen, "parameter '%s' must be a number, string or boolean", name);
			return -1;
		}
		char msg[256];
		if (fs_params_set(&tmp, name, val, msg, sizeof msg)) {
			if (allow_unknown && strstr(msg, "unknown"))
				continue;
			snprintf(err, errlen, "%s", msg);
			return -1;
		}
	}
	if (fs_params_validate(&tmp, err, errlen))
		return -1;
	*p = tmp;
	return 0;
}
