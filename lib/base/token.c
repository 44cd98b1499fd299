/* token.c - random secrets and their comparison (see token.h). */
#include "base/token.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "base/sha256.h"

int fs_random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	while (n) {
		ssize_t got = getrandom(p, n, 0);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int fs_token_new(char out[65])
{
	unsigned char raw[32];
	if (fs_random_bytes(raw, sizeof raw))
		return -1;
	fs_hex_encode(raw, sizeof raw, out);
	return 0;
}

void fs_token_hash(const char *token, char out[65])
{
	fs_sha256_hex(token, strlen(token), out);
}

int fs_token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t n = la > lb ? la : lb;
	unsigned diff = (unsigned)(la ^ lb);
	for (size_t i = 0; i < n; i++) {
		unsigned char ca = i < la ? (unsigned char)a[i] : 0;
		unsigned char cb = i < lb ? (unsigned char)b[i] : 0;
		diff |= (unsigned)(ca ^ cb);
	}
	return diff == 0;
}

int fs_password_generate(char *out, size_t len)
{
	/* no 0/O, 1/l/I: the first password is read off a terminal */
	static const char alphabet[] = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
	const size_t na = sizeof alphabet - 1;
	for (size_t i = 0; i < len; i++) {
		unsigned char b;
		do {
			if (fs_random_bytes(&b, 1))
				return -1;
		} while (b >= 256 - 256 % na); /* reject to stay uniform */
		out[i] = alphabet[b % na];
	}
	out[len] = 0;
	return 0;
}
