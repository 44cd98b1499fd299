/*
 * set_frame.c - stored and shown coordinates of a set (see set_frame.h).
 */
#include "store/set_frame.h"

#include <stdlib.h>
#include <string.h>

#include "store/images_store.h"
#include "store/db_bind.h"

static void identity(fs_set_frame *f)
{
	memset(f, 0, sizeof *f);
	fs_affine_identity(&f->fwd);
	fs_affine_identity(&f->inv);
	f->identity = 1;
}

/* One query: the image's size, steps and base step, by the set or the image id. */
static int load(fs_db *db, const char *sql, long long id, fs_set_frame *f)
{
	identity(f);
	sqlite3_stmt *st = fs_db_stmt(db, sql);
	if (!st)
		return FS_DB_ERROR;
	fs_bind b = fs_bind_start(db, st);
	fs_bind_int64(&b, 1, id);
	int rc = fs_bind_step(&b);
	if (rc != SQLITE_ROW) {
		fs_db_done(st);
		return fs_db_row_rc(rc);
	}
	if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
		/* a set whose image row is missing (a test's bare set) shows as stored */
		fs_db_done(st);
		return FS_DB_OK;
	}
	f->width = sqlite3_column_double(st, 0);
	f->height = sqlite3_column_double(st, 1);
	int base = sqlite3_column_int(st, 3);
	fs_image_step *steps = NULL;
	size_t n = 0;
	rc = fs_image_steps_parse((const char *)sqlite3_column_text(st, 2), &steps, &n) ? FS_DB_ERROR : FS_DB_OK;
	fs_db_done(st);
	if (rc)
		return rc;
	for (size_t i = base < 0 ? 0 : (size_t)base; i < n; i++) {
		fs_affine a;
		fs_affine_of(&steps[i].t, &a);
		fs_affine_then(&f->fwd, &a);
		f->bounded |= steps[i].t.kind == FS_TRANSFORM_CROP;
	}
	free(steps);
	fs_affine_invert(&f->fwd, &f->inv);
	f->identity = fs_affine_is_identity(&f->fwd);
	return FS_DB_OK;
}

int fs_set_frame_load(fs_db *db, long long set_id, fs_set_frame *f)
{
	return load(db, "SELECT i.width, i.height, i.transforms, i.base_step FROM sets s "
			"LEFT JOIN images i ON i.id = s.image_id WHERE s.id = ?", set_id, f);
}

int fs_set_frame_visible(const fs_set_frame *f, double x, double y)
{
	if (!f->bounded)
		return 1;
	double nx, ny;
	fs_affine_apply(&f->fwd, x, y, &nx, &ny);
	return nx >= 0 && nx < f->width && ny >= 0 && ny < f->height;
}

void fs_set_frame_show(const fs_set_frame *f, fs_tubercle *t)
{
	if (f->identity)
		return;
	double x, y;
	fs_affine_apply(&f->fwd, t->centroid_x, t->centroid_y, &x, &y);
	t->centroid_x = x;
	t->centroid_y = y;
	if (t->has_ellipse)
		t->orientation = fs_affine_angle(&f->fwd, t->orientation);
}

void fs_set_frame_store(const fs_set_frame *f, const fs_tubercle *shown, const fs_tubercle *cur, fs_tubercle *out)
{
	*out = *shown;
	if (f->identity)
		return;
	double sx, sy;
	if (cur)
		fs_affine_apply(&f->fwd, cur->centroid_x, cur->centroid_y, &sx, &sy);
	if (cur && sx == shown->centroid_x && sy == shown->centroid_y) {
		out->centroid_x = cur->centroid_x;
		out->centroid_y = cur->centroid_y;
	} else {
		fs_affine_apply(&f->inv, shown->centroid_x, shown->centroid_y, &out->centroid_x, &out->centroid_y);
	}
	if (shown->has_ellipse) {
		if (cur && cur->has_ellipse && fs_affine_angle(&f->fwd, cur->orientation) == shown->orientation)
			out->orientation = cur->orientation;
		else
			out->orientation = fs_affine_angle(&f->inv, shown->orientation);
	}
}

static void bind_named(fs_bind *b, const char *name, double v)
{
	int i = sqlite3_bind_parameter_index(b->st, name);
	if (i > 0)
		fs_bind_double(b, i, v);
}

void fs_set_frame_bind(fs_bind *b, const fs_set_frame *f)
{
	int i = sqlite3_bind_parameter_index(b->st, ":fb");
	if (i > 0)
		fs_bind_int(b, i, f->bounded);
	bind_named(b, ":fax", f->fwd.ax);
	bind_named(b, ":fbx", f->fwd.bx);
	bind_named(b, ":fcx", f->fwd.cx);
	bind_named(b, ":fay", f->fwd.ay);
	bind_named(b, ":fby", f->fwd.by);
	bind_named(b, ":fcy", f->fwd.cy);
	bind_named(b, ":fw", f->width);
	bind_named(b, ":fh", f->height);
}
