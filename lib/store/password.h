/*
 * password.h - password hashing with libxcrypt's preferred method
 * (crypt_gensalt with a NULL prefix, then crypt_r), and verification that
 * tells the caller when a stored hash should be upgraded (rehash on login).
 *
 * Ownership: nothing is allocated or kept; passwords and hashes are only
 * read, out and err are the caller's buffers.
 */
#ifndef FS_PASSWORD_H
#define FS_PASSWORD_H

#include <stddef.h>

#define FS_PASSWORD_HASH_MAX 256

/* Hashes pw into out (at least FS_PASSWORD_HASH_MAX bytes). 0 or -1 + message. */
int fs_password_hash(const char *pw, char *out, size_t outlen, char *err, size_t errlen);

/*
 * 1 when pw matches hash, 0 when not (also for an unusable hash). When it
 * matches, *needs_rehash is set if the hash was made with a method or cost
 * other than the preferred one.
 */
int fs_password_verify(const char *pw, const char *hash, int *needs_rehash);

/* A password policy check: 0 when acceptable, else -1 with the reason. */
int fs_password_acceptable(const char *pw, char *err, size_t errlen);

#endif
