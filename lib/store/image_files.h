/*
 * image_files.h - the image files in the data directory, content-addressed.
 *
 * Layout (every name is made of hex keys this server computed, never of
 * anything a client sent):
 *   originals/<sha256>        the uploaded bytes, stored once per content
 *   work/<key>.f32            working image, compact: 8 or 16 bits a sample
 *                             when that is exact, deflated (work_file.h; the
 *                             name is kept from the float-only format)
 *   display/<key>.png         8-bit greyscale copy of the working image
 *   thumbs/<key>.png          the same, at most FS_THUMB_MAX_SIDE a side
 *   pyramid/<key>/            display tiles of a large image (pyramid.h);
 *                             its display PNG is then an overview of at
 *                             most tile_min_side a side
 *   tmp/                      uploads in progress and temporary names
 * A work key names one working image: the original's hash and page for a
 * fresh upload, then the previous key plus each transform
 * (fs_work_key_initial, fs_work_key_next), so two library entries of the
 * same file with the same transforms share their derived files.
 *
 * Writes are atomic: a temporary name in the same directory, fsync,
 * rename, then an fsync of the directory, so a reader (nginx, another
 * worker) sees the old file or the new one, never half of one.
 *
 * Errors: 0 or -1 with a message in err. Paths are written into
 * caller-provided buffers; fs_work_read returns an image the caller frees
 * with fs_image_free.
 */
#ifndef FS_IMAGE_FILES_H
#define FS_IMAGE_FILES_H

#include <stddef.h>

#include "image/image.h"

#define FS_THUMB_MAX_SIDE 256

typedef enum fs_file_kind {
	FS_FILE_ORIGINAL = 0,
	FS_FILE_WORK,
	FS_FILE_DISPLAY,
	FS_FILE_THUMB
} fs_file_kind;

/* 1 when key is 64 lowercase hex characters. */
int fs_file_key_valid(const char *key);

/* <data_dir>/<kind dir>/<key>[.ext] into out; -1 for a bad key or a short buffer. */
int fs_file_path(const char *data_dir, fs_file_kind kind, const char *key, char *out, size_t outlen);
/* The same path relative to the data directory ("display/<key>.png"), for X-Accel-Redirect. */
int fs_file_relpath(fs_file_kind kind, const char *key, char *out, size_t outlen);

/* Creates originals/, work/, display/, thumbs/ and tmp/ when missing. */
int fs_files_ensure_dirs(const char *data_dir, char *err, size_t errlen);

/* Opens a new, empty, exclusive file in <data_dir>/tmp (mode 0640); its
 * path goes into path. Returns the descriptor or -1. */
int fs_files_tmp_open(const char *data_dir, char *path, size_t pathlen, char *err, size_t errlen);

/* Writes len bytes to path atomically (temporary name, fsync, rename). */
int fs_file_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen);

/*
 * Moves an already written and fsynced file tmp_path to path. When path
 * exists (the same content is stored already) tmp_path is removed instead
 * and *created is 0; otherwise *created is 1 (created may be NULL).
 */
int fs_file_publish(const char *tmp_path, const char *path, int *created, char *err, size_t errlen);

/* Work keys: sha256 hex of "<file_sha256>:page=<page>", and of
 * "<key>:<step>" for each transform step ("rotate_left", "crop:x,y,w,h"). */
void fs_work_key_initial(const char *file_sha256, int page, char out[65]);
void fs_work_key_next(const char *key, const char *step, char out[65]);

/* Working image file: write atomically / read back (checked against the file size). */
int fs_work_write(const char *path, const fs_image *img, char *err, size_t errlen);
fs_image *fs_work_read(const char *path, char *err, size_t errlen);

/* Bit in *created for the pyramid directory. */
#define FS_DERIVED_PYRAMID (1 << 8)

/*
 * Writes the working image, display PNG and thumbnail of key, and the
 * display pyramid of a large image. With only_missing, files that already
 * exist are left as they are (they hold the same content by construction).
 * *created (may be NULL) gets a bit per kind written (1 << FS_FILE_WORK,
 * ..., FS_DERIVED_PYRAMID), so a failed caller can take back exactly what
 * it added. img may be compact (image.h): every file is then the same, byte
 * for byte, as from its float copy, and nothing full-size is converted
 * (the working image keeps its samples, the display copies and the pyramid
 * are made a row at a time).
 */
int fs_files_store_derived(const char *data_dir, const char *key, const fs_image *img, int only_missing,
			   int *created, char *err, size_t errlen);
/* 1 when all the derived files of key exist (the pyramid too, when the
 * working image is large enough for one). */
int fs_files_have_derived(const char *data_dir, const char *key);

/* Bytes on disk of the derived files of key, pyramid included (missing
 * ones count 0). */
long long fs_files_derived_bytes(const char *data_dir, const char *key);
/* Bytes the derived files of a width x height image will take, at most
 * (the working image at bytes_per_sample = fs_work_precision, before
 * deflate; the PNGs bounded by their raw size, a tiled image's display
 * copy as the overview it is), for checking a disk quota before they are
 * written. */
long long fs_files_derived_estimate(int width, int height, int bytes_per_sample);

/* Removes the derived files of key, pyramid included / the original of sha
 * (missing files are fine). */
void fs_files_remove_derived(const char *data_dir, const char *key);
void fs_files_remove_original(const char *data_dir, const char *sha256);

#endif
