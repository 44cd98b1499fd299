/*
 * sha256.h - SHA-256 (FIPS 180-4), for content-addressed image files and for
 * storing session tokens hashed. Streaming: init, update any number of
 * times, final. No allocation.
 *
 * Ownership: the caller's fs_sha256 and output buffers (of the sizes
 * given); the input is only read.
 */
#ifndef FS_SHA256_H
#define FS_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct fs_sha256 {
	uint32_t h[8];
	uint64_t total;
	unsigned char block[64];
	size_t used;
} fs_sha256;

void fs_sha256_init(fs_sha256 *s);
void fs_sha256_update(fs_sha256 *s, const void *data, size_t len);
void fs_sha256_final(fs_sha256 *s, unsigned char out[32]);
/* One-shot digest as 64 lowercase hex characters + NUL. */
void fs_sha256_hex(const void *data, size_t len, char out[65]);
/* Lowercase hex of n bytes into out (2n + 1 bytes). */
void fs_hex_encode(const unsigned char *in, size_t n, char *out);

#endif
