/*
 * llm_keys.h - where API keys come from, and keeping them (and megabytes
 * of base64) out of everything we record.
 *
 * Keys come only from the server's environment (variable name configurable,
 * defaults ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY,
 * GEMINI_API_KEY; ollama, vllm and local need none) or from a key file with
 * lines "provider = key" that must be a regular file not readable or
 * writable by group or others (0600). Never from a browser or argv.
 *
 * Everything handed to a step callback or log goes through
 * fs_llm_sanitize: strings have known secrets replaced by "[REDACTED]" and
 * runs of 200+ base64 characters cut to their first 50 and last 20 with
 * "...[N bytes base64 truncated]..." in between.
 *
 * Ownership: returned strings and cJSON trees belong to the caller (free /
 * cJSON_Delete). Keys are written into caller buffers.
 */
#ifndef FS_LLM_KEYS_H
#define FS_LLM_KEYS_H

#include <stddef.h>
#include <cJSON.h>

#include "base/buf.h"

/* Default variable name for a provider's key, or NULL if it needs none. */
const char *fs_llm_default_key_env(const char *provider);
/* 1 if the provider runs without a key (ollama, vllm, local). */
int fs_llm_key_optional(const char *provider);

/*
 * Finds the key: env_name (or the default) first, then key_file (may be
 * NULL). Returns 0 with the key in out (empty for a provider that needs
 * none and has none), -1 with err when a required key is missing, the key
 * file is group/other accessible, or unreadable. err never holds the key.
 */
int fs_llm_key_resolve(const char *provider, const char *env_name, const char *key_file,
		       char *out, size_t outlen, char *err, size_t errlen);

/* 1 if fs_llm_key_resolve would find a usable key (for the UI's provider list). */
int fs_llm_key_present(const char *provider, const char *env_name, const char *key_file);

/* Appends s to out with secrets redacted and long base64 runs truncated; -1 on OOM. */
int fs_llm_sanitize_text(const char *s, const char *const *secrets, fs_buf *out);

/* Deep copy of j with every string (and key) sanitized; NULL on out of memory. */
cJSON *fs_llm_sanitize(const cJSON *j, const char *const *secrets);

#endif
