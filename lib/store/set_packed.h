/*
 * set_packed.h - a large annotation set's rows as one record (issue 15).
 *
 * SQLite has one writer, and writing an extraction of 70,000 tubercles and
 * 210,000 connections as rows holds the write lock for seconds, while
 * every edit on the site waits. A set replaced with at least
 * fs_packed_min() tubercles is therefore stored packed: its tubercles and
 * its edges each as one blob (fixed-size little-endian records, sorted by
 * id / by (id1, id2)) in the set_packed table, and no rows in tubercles or
 * edges. It stays packed (later edits rewrite the blobs) until the set is
 * deleted. set_rows.c decides and dispatches: everything above it sees the
 * same tubercles, with the same values to the last bit, either way.
 *
 * An edit does not write the record again (7 MB for 70,000 tubercles,
 * 50-60 ms of the write lock): it writes the set's delta, what differs
 * from the record (the base), a few hundred bytes for a move, in the
 * same row. A reader applies it to the base. Once the delta would
 * outgrow fs_packed_delta_max() bytes, the edit writes the whole record
 * again, and that is the new base.
 *
 * Reads are cached per connection (the last packed set read or written)
 * while no other connection has committed (PRAGMA data_version) and this
 * one has not rolled back, so per-tubercle lookups of an edit do not
 * decode the set each time.
 *
 * Errors: fs_db_rc values. Ownership: *state from fs_packed_state points
 * into the cache (valid until the next call on the store; never freed by
 * the caller); lists passed to fs_packed_put stay the caller's. The cache
 * holds the base's bytes too (7 MB for 70,000 tubercles) so that an edit
 * can make its delta without reading them again.
 */
#ifndef FS_SET_PACKED_H
#define FS_SET_PACKED_H

#include <stddef.h>

#include "store/db.h"
#include "store/set_diff.h"

/* The smallest replacement stored packed (default 5000 tubercles); tests
 * lower it to exercise packed sets with a few tubercles. */
int fs_packed_min(void);
void fs_packed_set_min(int n);
/* The largest delta written (default 64 KiB, about 800 tubercles
 * changed); tests change it. 0: every edit writes the whole record. */
size_t fs_packed_delta_max(void);
void fs_packed_set_delta_max(size_t bytes);

/* The set's packed rows: *state NULL when the set is stored as rows. */
int fs_packed_state(fs_db *db, long long set_id, const fs_set_state **state);
/* Only whether the set is packed (no record read). */
int fs_packed_exists(fs_db *db, long long set_id, int *packed);

/* Stores t (sorted by id, ids unique) and e (normalised) as the set's packed
 * rows, replacing what it had packed. */
int fs_packed_put(fs_db *db, long long set_id, const fs_tubercle_list *t, const fs_edge_list *e);

/* After this connection wrote s as the set's packed rows by rec: they
 * become the cached state (s is taken over and zeroed; rec's record, when
 * it was the whole one, too), so the next edit does not read them back. */
struct fs_packed_rec;
void fs_packed_cache_keep(fs_db *db, long long set_id, fs_set_state *s, struct fs_packed_rec *rec);

/* The same in two halves, so that a large set's record is made before the
 * write lock is taken: the encoded record (fs_packed_rec_free), then its
 * write. */
typedef struct fs_packed_rec {
	unsigned char *tub, *edges;
	size_t n_tub, n_edges; /* the set's counts (also with a delta) */
	long long blob_id;     /* > 0: staged (fs_packed_stage), written by reference */
	unsigned char *delta;  /* non-NULL: only the delta is written (tub, edges NULL) */
	size_t delta_len;
} fs_packed_rec;
int fs_packed_encode(const fs_tubercle_list *t, const fs_edge_list *e, fs_packed_rec *out);
/* An edit's record: next (the set after the edit) as a delta over the
 * cached base of the set (fs_packed_state read it just before), or the
 * whole record when there is no base or the delta would be too large. */
int fs_packed_encode_edit(fs_db *db, long long set_id, const fs_set_state *next, fs_packed_rec *out);
void fs_packed_rec_free(fs_packed_rec *r);
/* Inside the write transaction: the record becomes the set's (a staged
 * one by reference, published by this transaction). */
int fs_packed_put_encoded(fs_db *db, long long set_id, const fs_packed_rec *r);
/* Before the write transaction, outside any: a record large enough
 * (fs_blob_worth_staging) is written in chunks of short transactions
 * (staged_blob.h), so that fs_packed_put_encoded only refers to it and the
 * write lock is held for a tiny transaction instead of megabytes. Sets
 * r->blob_id; the caller drops it (fs_blob_drop) if it is not put. */
int fs_packed_stage(fs_db *db, fs_packed_rec *r, char *err, size_t errlen);

#endif
