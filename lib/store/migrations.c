/*
 * migrations.c - the database schema as numbered migrations.
 *
 * Migration n brings PRAGMA user_version from n-1 to n. Never edit a
 * migration that has shipped: add a new one. Each runs inside the single
 * immediate transaction of fs_db_migrate_to, so a failure leaves the
 * database at its previous version.
 */
#include "store/db.h"

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

	/* 2: images, annotation sets with their edit journal and history, the
	 * event log, per-user settings and parameter profiles */
	"CREATE TABLE image_files ("
	"  sha256 TEXT PRIMARY KEY,"
	"  size INTEGER NOT NULL,"
	"  format TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL"
	");"
	"CREATE TABLE images ("
	"  id INTEGER PRIMARY KEY,"
	"  owner_id INTEGER NOT NULL REFERENCES users(id),"
	"  file_sha256 TEXT NOT NULL REFERENCES image_files(sha256),"
	"  work_key TEXT NOT NULL,"
	"  original_name TEXT NOT NULL,"
	"  format TEXT NOT NULL,"
	"  width INTEGER NOT NULL,"
	"  height INTEGER NOT NULL,"
	"  bit_depth INTEGER NOT NULL,"
	"  channels INTEGER NOT NULL DEFAULT 1,"
	"  n_pages INTEGER NOT NULL DEFAULT 1,"
	"  visibility TEXT NOT NULL DEFAULT 'shared' CHECK (visibility IN ('private', 'shared')),"
	"  um_per_px REAL,"
	"  calibration_method TEXT,"
	"  suggested_um_per_px REAL,"
	"  suggested_source TEXT,"
	"  rotation INTEGER NOT NULL DEFAULT 0,"
	"  transforms TEXT NOT NULL DEFAULT '[]',"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL"
	");"
	"CREATE INDEX images_owner ON images(owner_id);"
	"CREATE INDEX images_created ON images(created_at);"
	"CREATE TABLE recent_images ("
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,"
	"  opened_at INTEGER NOT NULL,"
	"  PRIMARY KEY (user_id, image_id)"
	") WITHOUT ROWID;"
	"CREATE TABLE sets ("
	"  id INTEGER PRIMARY KEY,"
	"  image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  position INTEGER NOT NULL,"
	"  revision INTEGER NOT NULL DEFAULT 0,"
	"  clean_revision INTEGER NOT NULL DEFAULT 0,"
	"  next_tid INTEGER NOT NULL DEFAULT 1,"
	"  params TEXT,"
	"  calibration_um_per_px REAL,"
	"  created_by INTEGER REFERENCES users(id),"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL,"
	"  UNIQUE (image_id, name COLLATE NOCASE)"
	");"
	"CREATE TABLE tubercles ("
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  tid INTEGER NOT NULL,"
	"  x REAL NOT NULL,"
	"  y REAL NOT NULL,"
	"  r REAL NOT NULL,"
	"  circularity REAL NOT NULL DEFAULT 1,"
	"  major REAL, minor REAL, orientation REAL, eccentricity REAL,"
	"  is_boundary INTEGER NOT NULL DEFAULT 0,"
	"  source TEXT NOT NULL DEFAULT 'manual',"
	"  PRIMARY KEY (set_id, tid)"
	") WITHOUT ROWID;"
	"CREATE TABLE edges ("
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  id1 INTEGER NOT NULL,"
	"  id2 INTEGER NOT NULL,"
	"  PRIMARY KEY (set_id, id1, id2),"
	"  CHECK (id1 < id2)"
	") WITHOUT ROWID;"
	"CREATE TABLE set_ops ("
	"  id INTEGER PRIMARY KEY,"
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  user_id INTEGER REFERENCES users(id),"
	"  at INTEGER NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  label TEXT NOT NULL,"
	"  diff TEXT NOT NULL,"
	"  undone INTEGER NOT NULL DEFAULT 0,"
	"  agent_run_id INTEGER,"
	"  checkpointed INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX set_ops_set ON set_ops(set_id, id);"
	"CREATE TABLE history ("
	"  id INTEGER PRIMARY KEY,"
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  at INTEGER NOT NULL,"
	"  user_id INTEGER REFERENCES users(id),"
	"  type TEXT NOT NULL,"
	"  data TEXT NOT NULL"
	");"
	"CREATE INDEX history_set ON history(set_id, id);"
	"CREATE TABLE events ("
	"  id INTEGER PRIMARY KEY,"
	"  at REAL NOT NULL,"
	"  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,"
	"  image_id INTEGER REFERENCES images(id) ON DELETE SET NULL,"
	"  event_type TEXT NOT NULL,"
	"  details TEXT NOT NULL"
	");"
	"CREATE INDEX events_user ON events(user_id, at);"
	"CREATE INDEX events_image ON events(image_id, at);"
	"CREATE INDEX events_type ON events(event_type, at);"
	"CREATE TABLE user_settings ("
	"  user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,"
	"  settings TEXT NOT NULL"
	");"
	"CREATE TABLE user_profiles ("
	"  id INTEGER PRIMARY KEY,"
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  params TEXT NOT NULL,"
	"  created_at INTEGER NOT NULL,"
	"  UNIQUE (user_id, name COLLATE NOCASE)"
	");",

	/* 3: agent runs - one row per worker process, the web app's record of
	 * who started what, its limits and outcome, and the set's journal
	 * position before the run (Reset undoes back to it) */
	"CREATE TABLE agent_runs ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('optimize', 'edit', 'chat')),"
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  image_id INTEGER REFERENCES images(id) ON DELETE SET NULL,"
	"  set_id INTEGER REFERENCES sets(id) ON DELETE SET NULL,"
	"  provider TEXT NOT NULL,"
	"  model TEXT NOT NULL DEFAULT '',"
	"  options TEXT NOT NULL DEFAULT '{}',"
	"  state TEXT NOT NULL DEFAULT 'starting'"
	"    CHECK (state IN ('starting', 'running', 'completed', 'stopped', 'failed')),"
	"  pid INTEGER,"
	"  started_at REAL NOT NULL,"
	"  finished_at REAL,"
	"  iterations INTEGER NOT NULL DEFAULT 0,"
	"  tokens_in INTEGER NOT NULL DEFAULT 0,"
	"  tokens_out INTEGER NOT NULL DEFAULT 0,"
	"  cost_usd REAL NOT NULL DEFAULT 0,"
	"  best_score REAL,"
	"  finish_reason TEXT,"
	"  error TEXT,"
	"  run_dir TEXT NOT NULL DEFAULT '',"
	"  checkpoint_rev INTEGER,"
	"  checkpoint_op INTEGER"
	");"
	"CREATE INDEX agent_runs_user ON agent_runs(user_id, started_at);"
	"CREATE INDEX agent_runs_state ON agent_runs(state);",

	/* 4: connections by their second end too, so that deleting a tubercle
	 * finds its connections without scanning the set */
	"CREATE INDEX edges_id2 ON edges(set_id, id2);",

	/* 5: transforms that can be undone, and undo that is each user's own.
	 * images: the steps from base_step on (in transforms) can be undone;
	 * base_key names the working image before them, whose frame the sets'
	 * rows are kept in. Older steps had already moved the rows (and
	 * deleted what a crop cut away), so they stay the base. xf_revision
	 * counts the image's steps and undos (the transform list shrinks on
	 * undo, so its length cannot serve). set_ops: refs names the steps
	 * an undo, redo, journal undo or revert acted on; every row is now a
	 * change that was applied, so an undone step no longer disappears
	 * from the log: the old redo tails (undone = 1, undone without a row
	 * of their own) go. */
	"ALTER TABLE images ADD COLUMN base_key TEXT NOT NULL DEFAULT '';"
	"ALTER TABLE images ADD COLUMN base_step INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE images ADD COLUMN xf_revision INTEGER NOT NULL DEFAULT 0;"
	"UPDATE images SET base_key = work_key, base_step = json_array_length(transforms), "
	"  xf_revision = json_array_length(transforms);"
	"ALTER TABLE set_ops ADD COLUMN refs TEXT;"
	"DELETE FROM set_ops WHERE undone = 1;"
	"CREATE INDEX set_ops_user ON set_ops(set_id, user_id, id);",

	/* 6: heavy work off the request path: jobs done by detached workers,
	 * grouped in batches (see jobs.h) */
	"CREATE TABLE batches ("
	"  id INTEGER PRIMARY KEY,"
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  created_at REAL NOT NULL"
	");"
	"CREATE TABLE jobs ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL,"
	"  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  image_id INTEGER REFERENCES images(id) ON DELETE CASCADE,"
	"  set_id INTEGER,"
	"  new_set TEXT NOT NULL DEFAULT '',"
	"  batch_id INTEGER REFERENCES batches(id) ON DELETE CASCADE,"
	"  params TEXT NOT NULL DEFAULT '{}',"
	"  state TEXT NOT NULL CHECK (state IN ('queued', 'starting', 'running', 'done', 'failed', 'cancelled')),"
	"  stage TEXT NOT NULL DEFAULT '',"
	"  progress REAL NOT NULL DEFAULT 0,"
	"  pixels INTEGER NOT NULL DEFAULT 0,"
	"  mem_bytes INTEGER NOT NULL DEFAULT 0,"
	"  pid INTEGER,"
	"  result TEXT,"
	"  error TEXT,"
	"  created_at REAL NOT NULL,"
	"  started_at REAL,"
	"  finished_at REAL"
	");"
	"CREATE INDEX jobs_state ON jobs(state);"
	"CREATE INDEX jobs_user ON jobs(user_id, id);"
	"CREATE INDEX jobs_batch ON jobs(batch_id);",

	/* 7: saved comparisons (the Compare page): a user's named choice of
	 * sets with a group label each, private or shared like images; a
	 * deleted set leaves every comparison that held it */
	"CREATE TABLE comparisons ("
	"  id INTEGER PRIMARY KEY,"
	"  owner_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,"
	"  name TEXT NOT NULL,"
	"  visibility TEXT NOT NULL DEFAULT 'shared' CHECK (visibility IN ('private', 'shared')),"
	"  created_at INTEGER NOT NULL,"
	"  updated_at INTEGER NOT NULL"
	");"
	"CREATE INDEX comparisons_owner ON comparisons(owner_id);"
	"CREATE TABLE comparison_sets ("
	"  comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,"
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  position INTEGER NOT NULL,"
	"  label TEXT NOT NULL DEFAULT '',"
	"  PRIMARY KEY (comparison_id, set_id)"
	") WITHOUT ROWID;"
	"CREATE INDEX comparison_sets_set ON comparison_sets(set_id);",

	/* 8: the calibration each image suggests from its SEM data bar
	 * (store/image_databar.h), computed once after the upload on the
	 * uploaded image and kept through later crops that remove the bar */
	"CREATE TABLE image_databar ("
	"  image_id INTEGER PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,"
	"  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),"
	"  um_per_px REAL,"
	"  confidence REAL NOT NULL DEFAULT 0,"
	"  result TEXT NOT NULL DEFAULT '{}',"
	"  error TEXT NOT NULL DEFAULT '',"
	"  updated_at INTEGER NOT NULL"
	");",

	/* 9: measured diameters. A tubercle whose base could not be measured
	 * keeps its centre with r NULL (the table is rebuilt: SQLite cannot
	 * drop a NOT NULL), and each tubercle has a fit quality (NULL =
	 * unknown). Every set records the measurement version that produced
	 * its diameters (analysis/measurement.h); sets that existed before
	 * this migration get 0, "measured before versioning". */
	"CREATE TABLE tubercles_v9 ("
	"  set_id INTEGER NOT NULL REFERENCES sets(id) ON DELETE CASCADE,"
	"  tid INTEGER NOT NULL,"
	"  x REAL NOT NULL,"
	"  y REAL NOT NULL,"
	"  r REAL,"
	"  circularity REAL NOT NULL DEFAULT 1,"
	"  major REAL, minor REAL, orientation REAL, eccentricity REAL,"
	"  is_boundary INTEGER NOT NULL DEFAULT 0,"
	"  source TEXT NOT NULL DEFAULT 'manual',"
	"  fit_quality REAL,"
	"  PRIMARY KEY (set_id, tid)"
	") WITHOUT ROWID;"
	"INSERT INTO tubercles_v9 (set_id, tid, x, y, r, circularity, major, minor, orientation, eccentricity,"
	"  is_boundary, source) SELECT set_id, tid, x, y, r, circularity, major, minor, orientation,"
	"  eccentricity, is_boundary, source FROM tubercles;"
	"DROP TABLE tubercles;"
	"ALTER TABLE tubercles_v9 RENAME TO tubercles;"
	"ALTER TABLE sets ADD COLUMN measurement_version INTEGER NOT NULL DEFAULT 0;",
	/* 10: the scale region of an image (scale_regions.h), per working
	 * image (work_key): the automatic one cached, or a person's
	 * correction (source 'user'), kept when a transform is undone */
	"CREATE TABLE scale_regions ("
	"  image_id INTEGER NOT NULL REFERENCES images(id) ON DELETE CASCADE,"
	"  work_key TEXT NOT NULL,"
	"  width INTEGER NOT NULL,"
	"  height INTEGER NOT NULL,"
	"  cell INTEGER NOT NULL,"
	"  rows TEXT NOT NULL,"
	"  source TEXT NOT NULL CHECK (source IN ('auto', 'user')),"
	"  user_id INTEGER REFERENCES users(id) ON DELETE SET NULL,"
	"  updated_at INTEGER NOT NULL,"
	"  PRIMARY KEY (image_id, work_key)"
	") WITHOUT ROWID;",
	/* 11: a large set's rows as one record (set_packed.h): an
	 * extraction of 70,000 tubercles is written in milliseconds instead
	 * of holding SQLite's one write lock for seconds with 280,000 rows.
	 * A packed set has no rows in tubercles or edges. */
	"CREATE TABLE set_packed ("
	"  set_id INTEGER PRIMARY KEY REFERENCES sets(id) ON DELETE CASCADE,"
	"  n_tubercles INTEGER NOT NULL,"
	"  n_edges INTEGER NOT NULL,"
	"  tubercles BLOB NOT NULL,"
	"  edges BLOB NOT NULL"
	");",
	/* 12: large values written in short transactions (staged_blob.h): a
	 * blob's chunks are written one short transaction each while nothing
	 * refers to it, and a tiny last transaction makes it visible by
	 * referring to it from set_packed.blob_id (a packed set's record) or
	 * set_ops.diff_blob (a journal step's diff). refs counts those
	 * references (the triggers keep it); staged_pid is the writing
	 * process's until then. A blob nobody refers to, or whose writer died,
	 * is garbage: fs_blob_sweep deletes it, again a chunk at a time. */
	"CREATE TABLE blobs ("
	"  id INTEGER PRIMARY KEY,"
	"  size INTEGER NOT NULL,"
	"  refs INTEGER NOT NULL DEFAULT 0,"
	"  staged_pid INTEGER,"
	"  created_at REAL NOT NULL"
	");"
	"CREATE INDEX blobs_garbage ON blobs(refs, staged_pid);"
	"CREATE TABLE blob_chunks ("
	"  blob_id INTEGER NOT NULL,"
	"  seq INTEGER NOT NULL,"
	"  data BLOB NOT NULL,"
	"  PRIMARY KEY (blob_id, seq)"
	");"
	"ALTER TABLE set_packed ADD COLUMN blob_id INTEGER;"
	"ALTER TABLE set_ops ADD COLUMN diff_blob INTEGER;"
	"CREATE TRIGGER set_packed_blob_ins AFTER INSERT ON set_packed WHEN new.blob_id IS NOT NULL BEGIN"
	"  UPDATE blobs SET refs = refs + 1 WHERE id = new.blob_id; END;"
	"CREATE TRIGGER set_packed_blob_del AFTER DELETE ON set_packed WHEN old.blob_id IS NOT NULL BEGIN"
	"  UPDATE blobs SET refs = refs - 1 WHERE id = old.blob_id; END;"
	"CREATE TRIGGER set_packed_blob_upd AFTER UPDATE OF blob_id ON set_packed"
	"  WHEN old.blob_id IS NOT new.blob_id BEGIN"
	"  UPDATE blobs SET refs = refs - 1 WHERE id = old.blob_id;"
	"  UPDATE blobs SET refs = refs + 1 WHERE id = new.blob_id; END;"
	"CREATE TRIGGER set_ops_blob_ins AFTER INSERT ON set_ops WHEN new.diff_blob IS NOT NULL BEGIN"
	"  UPDATE blobs SET refs = refs + 1 WHERE id = new.diff_blob; END;"
	"CREATE TRIGGER set_ops_blob_del AFTER DELETE ON set_ops WHEN old.diff_blob IS NOT NULL BEGIN"
	"  UPDATE blobs SET refs = refs - 1 WHERE id = old.diff_blob; END;",
	/* 13: the memory an agent run on a large image is expected to take
	 * (issue 15): counted with the heavy jobs' against the site's budget,
	 * both ways (agent_runs.h, jobs.h); 0 for an image small enough to
	 * extract synchronously */
	"ALTER TABLE agent_runs ADD COLUMN mem_bytes INTEGER NOT NULL DEFAULT 0;",
	/* 14: a packed set's edits since its record was written, as one
	 * small value (set_packed.h): an edit of a 70,000-tubercle set writes
	 * the change, not the 7 MB record again, under the write lock.
	 * NULL: the record is the set. */
	"ALTER TABLE set_packed ADD COLUMN delta BLOB;",
};

const int fs_migrations_count = (int)(sizeof fs_migrations / sizeof fs_migrations[0]);
