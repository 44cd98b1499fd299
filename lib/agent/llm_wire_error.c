/* llm_wire_error.c - the provider's own error text (see llm_wire_format.h). */
#include "agent/llm_wire_format.h"

const char *fs_wire_error_message(const cJSON *body)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(body, "error");
	/* all three providers nest it as {"error":{"message":...}}; some proxies send a string */
	if (cJSON_IsString(e))
		return e->valuestring;
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "message"));
}
