/*
 * staged_blob.h - a large value written in short transactions, invisible
 * until one tiny transaction publishes it (issue 15, "one writer, short
 * writes").
 *
 * SQLite has one writer: a background job that wrote its 70,000-tubercle
 * result (the packed record, 7 MB, and its journal step, megabytes more)
 * in one transaction held the write lock for 60-100 ms, and every edit on
 * the site waited that long behind it. Staged, the bytes go into
 * blob_chunks one chunk (fs_blob_chunk_bytes) per transaction while
 * nothing refers to them, with a pause as long as the transaction (1-4
 * ms) after each so that a waiting edit takes the lock in between: an
 * edit waits at most for one chunk; the
 * transaction that makes the result visible only refers to the blob
 * (set_packed.blob_id, set_ops.diff_blob: migration 12's triggers count
 * the references) and calls fs_blob_publish.
 *
 * A blob is garbage when nobody refers to it once published (a record
 * replaced, a journal step trimmed, a set deleted), or when its writer
 * died before publishing (a crash or kill between chunks: readers never
 * saw it). fs_blob_sweep deletes garbage a chunk per transaction too,
 * after claiming it in one short transaction of its own: from the claim
 * on the blob is gone for readers and cannot be published, so no reader
 * or writer ever finds a blob with chunks missing.
 *
 * Errors: fs_db_rc values, with a message in err (may be NULL) where
 * there is one. Ownership: parts are only read; *out from fs_blob_read is
 * the caller's (free()).
 */
#ifndef FS_STAGED_BLOB_H
#define FS_STAGED_BLOB_H

#include <stddef.h>

#include "store/db.h"

/* Bytes per chunk (default 256 KiB, a millisecond or two of writing);
 * tests lower it so that small sets are staged in several chunks. A value
 * at least this large is worth staging (fs_blob_worth_staging). */
size_t fs_blob_chunk_bytes(void);
void fs_blob_set_chunk_bytes(size_t n);
int fs_blob_worth_staging(size_t bytes);

/* Writes the concatenation of parts[0..nparts) (lens[i] bytes each) as a
 * new blob, a chunk per transaction; it stays staged (owned by this
 * process, referred to by nothing) until fs_blob_publish. Must be called
 * outside a transaction. On failure what was written is dropped (or left
 * to the sweep when even that fails) and *blob_id is 0. */
int fs_blob_stage(fs_db *db, const unsigned char *const *parts, const size_t *lens, int nparts, long long *blob_id,
		  char *err, size_t errlen);

/* Inside the transaction that refers to blob_id: the blob is no longer
 * staged; from its commit on it lives as long as something refers to it.
 * FS_DB_ERROR when it is not staged any more (the sweep claimed it: its
 * writer was taken for gone). */
int fs_blob_publish(fs_db *db, long long blob_id);

/* A staged blob that will not be published (the set moved on, the write
 * failed): deleted now, outside a transaction. 0 is ignored. */
void fs_blob_drop(fs_db *db, long long blob_id);

/* The blob's bytes (inside the caller's transaction, if any; otherwise in
 * a read transaction of its own): *out malloc'ed (at least one byte),
 * *len its size. FS_DB_NOTFOUND when there is no such blob or the sweep
 * has claimed it, FS_DB_ERROR when its chunks do not add up to its size
 * (damage: never half a value). */
int fs_blob_read(fs_db *db, long long blob_id, unsigned char **out, size_t *len);
/* The same on a bare connection (a statement's, sqlite3_db_handle). */
int fs_blob_read_conn(sqlite3 *h, long long blob_id, unsigned char **out, size_t *len);

/* Deletes garbage blobs (see above; a staged blob whose process is gone,
 * or older than an hour) a chunk per transaction. Outside a transaction.
 * *freed (may be NULL) receives how many blobs went. */
int fs_blob_sweep(fs_db *db, int *freed);

/* Test hook: called after each chunk a stage commits (seq from 0). */
void fs_blob_on_chunk(void (*fn)(long long blob_id, int seq, void *arg), void *arg);

#endif
