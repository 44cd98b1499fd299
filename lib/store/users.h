/*
 * users.h - accounts: login name, display name, role (admin/member),
 * disabled flag, password hash; and login throttling.
 *
 * All functions take an open fs_db and return an fs_db_rc (0 = ok;
 * FS_DB_NOTFOUND, FS_DB_CONSTRAINT for a duplicate login, FS_DB_BUSY, ...).
 * fs_user is plain data (no pointers).
 */
#ifndef FS_USERS_H
#define FS_USERS_H

#include <stddef.h>

#include "store/db.h"

typedef struct fs_user {
	long long id;
	char login[65];
	char display_name[129];
	int is_admin;
	int disabled;
	long long created_at;
	long long last_login_at;
} fs_user;

/* 1 when login is 1..64 characters of [A-Za-z0-9._@-], starting with a letter or digit. */
int fs_login_valid(const char *login);

int fs_user_create(fs_db *db, const char *login, const char *display_name, int is_admin,
		   const char *password, long long *id_out, char *err, size_t errlen);
int fs_user_get(fs_db *db, long long id, fs_user *u);
int fs_user_get_by_login(fs_db *db, const char *login, fs_user *u);
int fs_user_set_password(fs_db *db, long long id, const char *password, char *err, size_t errlen);
/* Disabling also ends the user's sessions. */
int fs_user_set_disabled(fs_db *db, long long id, int disabled);
int fs_user_set_display_name(fs_db *db, long long id, const char *name);
int fs_user_count(fs_db *db, long long *n);
/* Calls fn for each user ordered by login; stops early when fn returns non-zero. */
int fs_user_each(fs_db *db, int (*fn)(const fs_user *u, void *ud), void *ud);

/*
 * Checks a login and password. Returns 0 and fills u on success (the hash is
 * upgraded when libxcrypt prefers another method); FS_DB_NOTFOUND for a
 * wrong login or password (indistinguishable on purpose) and for a disabled
 * account; another fs_db_rc on a storage error.
 */
int fs_user_authenticate(fs_db *db, const char *login, const char *password, long long now, fs_user *u);

/*
 * Login throttling, so that wrong passwords cannot be used to lock someone
 * out: failures are counted per (account, client address) within window_s.
 * After max_failures of them that pair waits window_s/30 seconds after its
 * latest failure, twice as long after each further one (up to window_s);
 * other addresses are not affected, so the owner can still log in. The
 * account as a whole is refused only after FS_THROTTLE_ACCOUNT_FACTOR x
 * max_failures failures from all addresses, and one address after
 * FS_THROTTLE_ADDRESS_FACTOR x max_failures over all accounts (a lab may sit
 * behind one NAT). fs_throttle_check returns 1 with the seconds to wait
 * (Retry-After) when the attempt must be refused, 0 when it may go ahead,
 * negative on a storage error; it never sleeps. fs_throttle_clear forgets
 * the failures of one account from one address (after a success there).
 */
#define FS_THROTTLE_ACCOUNT_FACTOR 20
#define FS_THROTTLE_ADDRESS_FACTOR 4
int fs_throttle_check(fs_db *db, const char *login, const char *addr, int max_failures, int window_s,
		      long long now, int *retry_after_s);
int fs_throttle_record(fs_db *db, const char *login, const char *addr, long long now);
int fs_throttle_clear(fs_db *db, const char *login, const char *addr);

#endif
