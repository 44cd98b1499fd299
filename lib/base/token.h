/*
 * token.h - random secrets: session tokens, CSRF tokens, first passwords.
 * Bytes come from getrandom(2); callers get hex or URL-safe strings.
 *
 * Ownership: nothing is allocated; every output is the caller's buffer of
 * the size given (fs_password_generate writes len characters and a NUL).
 */
#ifndef FS_TOKEN_H
#define FS_TOKEN_H

#include <stddef.h>

/* Fills buf with n random bytes; 0 or -1 (the kernel refused). */
int fs_random_bytes(void *buf, size_t n);
/* 32 random bytes as 64 hex characters + NUL into out[65]. */
int fs_token_new(char out[65]);
/* SHA-256 hex of a token: what the database stores instead of the token. */
void fs_token_hash(const char *token, char out[65]);
/* Constant-time comparison of two NUL-terminated strings (time depends on
 * the lengths only). 1 when equal. */
int fs_token_equal(const char *a, const char *b);
/* A random password of len characters from an unambiguous alphabet. */
int fs_password_generate(char *out, size_t len);

#endif
