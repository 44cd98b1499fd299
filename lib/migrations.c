/*
 * migrations.c - the database schema as numbered migrations.
 *
 * Migration n brings PRAGMA user_version from n-1 to n. Never edit a
 * migration that has shipped: add a new one. Each runs inside the single
 * immediate transaction of fs_db_migrate_to, so a failure leaves the
 * database at its previous version.
 */
#include "db.h"

#include <stdio.h>

const char *const fs_migrations[] = {
	/* 1: accounts, sessions, login throttling */
	"CREATE TABLE users ("
	"  id INTEGER PRIMARY KEY,"
	"  login TEXT NOT NULL UNIQUE COLLATE NOCASE,"
	"  display_name TEXT NOT NULL,"
	"  role TEXT NOT NULL CHECK (role IN ('admin', 'member')),"
	"  password_hash TEXT,"
	"  disabled INTEGER NOT NULL DEFAULT 0,"
	"  created_at INTEGER NOT NULL,"
	"  last_login_at INTEGER"
	");"
	"CREATE TABLE sessions ("
	"  token_hash TEXT PRIMARY KEY,"
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  csrf_token TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL,"
	"  last_seen_at INTEGER NOT NULL,"
	"  expires_at INTEGER NOT NULL,"
	"  client_addr TEXT NOT NULL DEFAULT ''"
	");"
	"CREATE INDEX sessions_user ON sessions(user_id);"
	"CREATE TABLE login_failures ("
	"  id INTEGER PRIMARY KEY,"
	"  login TEXT NOT NULL COLLATE NOCASE,"
	"  client_addr TEXT NOT NULL,"
	"  at INTEGER NOT NULL"
	");"
	"CREATE INDEX login_failures_login ON login_failures(login, at);"
	"CREATE INDEX login_failures_addr ON login_failures(client_addr, at);",
};

const int fs_migrations_count = (int)(sizeof fs_migrations / sizeof fs_migrations[0]);
