/*
 * prices.h - the LLM price table (conf/prices.conf) and cost arithmetic.
 *
 * One table serves the workers (cost of each step, budget checks) and the
 * UI (the model list per provider). Line format, '#' starts a comment:
 *     provider  model  input_usd_per_Mtok  output_usd_per_Mtok  [default] [novision]
 * Cost = in/1e6*input + out/1e6*output. A model not in the table costs the
 * fallback 3/15 and is flagged estimated; self-hosted providers (ollama,
 * vllm, local) cost 0 whatever the model.
 *
 * Ownership: fs_prices owns its array; fs_prices_free releases it
 * (tolerates NULL). JSON returned by fs_prices_providers_json belongs to
 * the caller (cJSON_Delete).
 */
#ifndef FS_PRICES_H
#define FS_PRICES_H

#include <stddef.h>
#include <cJSON.h>

#define FS_PRICE_FALLBACK_IN 3.0
#define FS_PRICE_FALLBACK_OUT 15.0

typedef struct fs_price {
	char provider[32];
	char model[128];
	double in_per_mtok;
	double out_per_mtok;
	int is_default;
	int vision;
} fs_price;

typedef struct fs_prices {
	fs_price *items;
	size_t n;
} fs_prices;

int fs_prices_parse(fs_prices *t, const char *text, char *err, size_t errlen);
int fs_prices_load(fs_prices *t, const char *path, char *err, size_t errlen);
void fs_prices_free(fs_prices *t);

const fs_price *fs_prices_find(const fs_prices *t, const char *provider, const char *model);

/* USD for the tokens; *estimated (may be NULL) is set when the fallback price was used. */
double fs_prices_cost(const fs_prices *t, const char *provider, const char *model, long in_tokens,
		      long out_tokens, int *estimated);

/* 1 for providers that run on our own hardware and never cost money. */
int fs_prices_provider_is_free(const char *provider);

/* Is a key available for this provider? Supplied by the caller (see llm_keys.h). */
typedef int (*fs_prices_configured_fn)(const char *provider, void *user);

/*
 * {"providers":[{"name","configured","default_model",
 *   "models":[{"id","input_per_mtok","output_per_mtok"}]}]} listing, in table
 * order, every provider and its vision models. NULL on out of memory.
 */
cJSON *fs_prices_providers_json(const fs_prices *t, fs_prices_configured_fn configured, void *user);

#endif
