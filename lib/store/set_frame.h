/*
 * set_frame.h - where a set's stored coordinates are shown.
 *
 * A set keeps its tubercles in the frame of its image's base (the working
 * image before the image's undoable transform steps; see images_store.h)
 * and shows them through the map of those steps. After a crop only what
 * falls inside the image as it is now is shown ("visible"); the rest is
 * kept, untouched, and is shown again when the crop is undone. Edits come
 * in shown coordinates and are stored back through the inverse map; a
 * value the edit did not change is kept as stored, so nothing drifts by
 * a rounding error through a round trip.
 */
#ifndef FS_SET_FRAME_H
#define FS_SET_FRAME_H

#include <sqlite3.h>

#include "store/db.h"
#include "store/db_bind.h"
#include "image/image_transform.h"
#include "image/tubercle.h"

typedef struct fs_set_frame {
	fs_affine fwd, inv; /* stored -> shown, shown -> stored */
	int bounded;        /* a crop among the steps: only the inside is shown */
	double width, height;
	int identity;
} fs_set_frame;

/* The frame of set set_id (FS_DB_NOTFOUND when there is no such set). */
int fs_set_frame_load(fs_db *db, long long set_id, fs_set_frame *f);

/* 1 when the stored point (x, y) is shown. */
int fs_set_frame_visible(const fs_set_frame *f, double x, double y);
/* A stored tubercle as shown (in place). */
void fs_set_frame_show(const fs_set_frame *f, fs_tubercle *t);
/* A shown tubercle as it is to be stored: position and orientation go
 * through the inverse, except where they equal the stored tubercle cur
 * (may be NULL) as shown, where cur's stored values are kept. */
void fs_set_frame_store(const fs_set_frame *f, const fs_tubercle *shown, const fs_tubercle *cur, fs_tubercle *out);

/*
 * SQL for "the stored tubercle with columns x, y of alias a is shown": a
 * condition on the named parameters :fb, :fax .. :fcy, :fw, :fh (one set
 * of them serves every alias of a statement), bound by
 * fs_set_frame_bind. True for every row when the frame has no crop. It
 * computes exactly what fs_affine_apply does, in the same order.
 */
#define FS_SET_FRAME_SQL(a)                                                                                  \
	"(:fb = 0 OR (((:fax * " a ".x + :fbx * " a ".y) + :fcx) >= 0 AND "                                  \
	"((:fax * " a ".x + :fbx * " a ".y) + :fcx) < :fw AND "                                              \
	"((:fay * " a ".x + :fby * " a ".y) + :fcy) >= 0 AND "                                               \
	"((:fay * " a ".x + :fby * " a ".y) + :fcy) < :fh))"
/* Binds them through b (a failure is kept in b, see db_bind.h). */
void fs_set_frame_bind(fs_bind *b, const fs_set_frame *f);

#endif
