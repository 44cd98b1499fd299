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
 * fs_llm_sanitize: strings redacted as fs_llm_redact_text says and
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

/*
 * Redaction, the one rule for everything that comes back from a provider
 * (fs_llm_turn applies it to errors, replies, tool calls and streamed
 * text): every secret, the start (8+ characters) of a secret that ends the
 * text (a copy cut off by a buffer), and anything shaped like a key
 * ("sk-" + 16, "AIza" + 30 key characters, the token after "Bearer ", or
 * 6+ of them at the very end) become "[REDACTED]". Nothing else changes.
 */
int fs_llm_redact_text(const char *s, const char *const *secrets, fs_buf *out);
/* The same into a new string (the caller frees it); NULL on out of memory. */
char *fs_llm_redact_dup(const char *s, const char *const *secrets);
/* The same in a caller's buffer of cap bytes (cut to fit; emptied on OOM). */
void fs_llm_redact_in_place(char *s, size_t cap, const char *const *secrets);
/* Deep copy of j with every string and key redacted; NULL on out of memory. */
cJSON *fs_llm_redact_json(const cJSON *j, const char *const *secrets);
/* The longest prefix of s[0..n) that ends outside a key-like run: streamed
 * text is passed on only that far, so no secret is ever split between two
 * pieces (each redacted alone). */
size_t fs_llm_redact_safe_len(const char *s, size_t n);

/* Appends s to out redacted (above) and with long base64 runs truncated; -1 on OOM. */
int fs_llm_sanitize_text(const char *s, const char *const *secrets, fs_buf *out);

/* Deep copy of j with every string (and key) sanitized; NULL on out of memory. */
cJSON *fs_llm_sanitize(const cJSON *j, const char *const *secrets);

#endif
