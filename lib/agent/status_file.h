/*
 * status_file.h - small JSON files that one process writes and others poll
 * (an agent worker's status.json): a reader sees either the previous or
 * the new complete file, never a half-written one.
 *
 * Writing goes to a temporary file in the same directory
 * (<path>.<pid>.tmp, created O_EXCL|O_NOFOLLOW, mode 0600), which is
 * written whole, fsynced and rename()d over path; the directory is then
 * fsynced so the rename survives a crash. A failure removes the temporary
 * file and leaves the old content in place.
 *
 * Ownership: the writer borrows obj; the reader returns a new cJSON tree
 * in *out that the caller deletes.
 */
#ifndef FS_STATUS_FILE_H
#define FS_STATUS_FILE_H

#include <stddef.h>

#include <cJSON.h>

/* Largest status file a reader accepts (a status is meant to stay small). */
#define FS_STATUS_FILE_MAX (4u << 20)

/* Replaces path with obj serialised. 0, or -1 with err. */
int fs_status_file_write(const char *path, const cJSON *obj, char *err, size_t errlen);

/* Same, for text that is already serialised (len bytes). */
int fs_status_file_write_text(const char *path, const char *text, size_t len, char *err, size_t errlen);

/*
 * Reads and parses path. Returns 0 with *out set; 1 when the file does not
 * exist (yet); -1 with err when it cannot be read, is larger than
 * FS_STATUS_FILE_MAX or is not a JSON object.
 */
int fs_status_file_read(const char *path, cJSON **out, char *err, size_t errlen);

#endif
