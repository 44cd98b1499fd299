/* password.c - libxcrypt hashing and verification (see password.h). */
#include "store/password.h"

#include <crypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/token.h"

int fs_password_hash(const char *pw, char *out, size_t outlen, char *err, size_t errlen)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	/* NULL prefix and 0 count: the library's preferred method and cost */
	if (!crypt_gensalt_rn(NULL, 0, NULL, 0, salt, sizeof salt)) {
		snprintf(err, errlen, "cannot generate a salt");
		return -1;
	}
	struct crypt_data *cd = calloc(1, sizeof *cd);
	if (!cd) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	const char *h = crypt_r(pw, salt, cd);
	int rc = -1;
	if (!h || h[0] == '*')
		snprintf(err, errlen, "password hashing failed");
	else if (strlen(h) >= outlen)
		snprintf(err, errlen, "password hash too long");
	else {
		memcpy(out, h, strlen(h) + 1);
		rc = 0;
	}
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	return rc;
}

int fs_password_verify(const char *pw, const char *hash, int *needs_rehash)
{
	if (needs_rehash)
		*needs_rehash = 0;
	if (!pw || !hash || !*hash || hash[0] == '*' || hash[0] == '!')
		return 0;
	struct crypt_data *cd = calloc(1, sizeof *cd);
	if (!cd)
		return 0;
	const char *h = crypt_r(pw, hash, cd);
	int ok = h && h[0] != '*' && fs_token_equal(h, hash);
	explicit_bzero(cd, sizeof *cd);
	free(cd);
	if (ok && needs_rehash) {
		const char *pref = crypt_preferred_method();
		int legacy = crypt_checksalt(hash) != CRYPT_SALT_OK;
		*needs_rehash = legacy || (pref && strncmp(hash, pref, strlen(pref)) != 0);
	}
	return ok;
}

int fs_password_acceptable(const char *pw, char *err, size_t errlen)
{
	size_t n = pw ? strlen(pw) : 0;
	if (n < 8) {
		snprintf(err, errlen, "the password must have at least 8 characters");
		return -1;
	}
	if (n > 256) {
		snprintf(err, errlen, "the password may have at most 256 characters");
		return -1;
	}
	return 0;
}
