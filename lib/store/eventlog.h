/*
 * eventlog.h - the event log (the original's session log, §3.4 of the UI
 * reference): one row per event with time, user, image, event type and a
 * JSON details object. Append-only; filtered and paged on read.
 */
#ifndef FS_EVENTLOG_H
#define FS_EVENTLOG_H

#include <cJSON.h>

#include "store/db.h"

/* Appends an event; details may be NULL ({}). image_id/user_id 0 = none. */
int fs_event_log(fs_db *db, long long user_id, long long image_id, const char *event_type, const cJSON *details);

/*
 * Client events (POST /api/log) live in their own namespace: stored as
 * "client_" + the type the client gave, listed with that prefix taken off
 * and "client": true, so an entry written by a browser is never shown as
 * the server's. A client may not use a type the server writes
 * (fs_event_type_is_server: image_deleted, calibration_set, edit_add_tub,
 * agent_started, ...); the agent history events a client writes on a set
 * (agent_accept_best, edit_agent_accepted, ...) are not server types and
 * stay allowed.
 */
#define FS_EVENT_CLIENT_PREFIX "client_"
int fs_event_type_is_server(const char *type);

typedef struct fs_event_query {
	long long user_id;   /* 0 = any (admins); members see only their own */
	long long image_id;  /* 0 = any */
	const char *event_type; /* NULL = any; a trailing '*' matches a prefix */
	double since, until; /* unix times, 0 = open */
	long long before_id; /* paging: events with smaller ids; 0 = newest */
	long long after_id;  /* paging: events with larger ids; 0 = any */
	int oldest_first;    /* the order of the page (default newest first) */
	int limit;           /* 1..1000 */
} fs_event_query;

/* A page, newest first (or oldest first): [{id, timestamp, event_type,
 * client, user, image_id, details}]. A type filter X matches the server's
 * X and the clients' X. */
int fs_event_query_run(fs_db *db, const fs_event_query *q, cJSON **out);

/* The id of the n-th newest event q matches (n >= 1; q's limit is not
 * used), 0 when fewer match: where an export of the newest n starts. */
int fs_event_query_nth_id(fs_db *db, const fs_event_query *q, int n, long long *id);

#endif
