/*
 * image_import.h - the second half of an upload of a large image, run by a
 * background job (cgi/main_job.c, kind "import"): the request stored the
 * original (originals/<sha256>) and answered 202; this decodes it, checks
 * the user's disk quota, writes the working image, display copies and
 * pyramid, and creates the library entry with its Base set in one
 * transaction, exactly as a synchronous upload does (route_images.c).
 *
 * A failure leaves nothing behind that no entry uses: derived files it made
 * and the original, when no other entry holds it.
 */
#ifndef FS_IMAGE_IMPORT_H
#define FS_IMAGE_IMPORT_H

#include <stddef.h>

#include "app/app.h"

typedef struct fs_import_req {
	long long user_id;
	char sha256[65];
	int page;
	char name[256];
	int shared;
	long long size; /* bytes of the original */
} fs_import_req;

/* 0 with *image_id (and *existing 1 when the user already had this file),
 * or -1 with a message. */
int fs_image_import_stored(fs_app *app, const fs_import_req *q, long long *image_id, int *existing, char *err,
			   size_t errlen);

#endif
