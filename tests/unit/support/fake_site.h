/*
 * fake_site.h - a whole site in a temporary directory for handler tests
 * that go through the router: the application opened on a fresh database,
 * one member "ann" with a session (the cookie to send), images inserted as
 * rows, and GET requests answered as the FastCGI worker would. The site
 * owns its app and directory; fs_fake_site_close removes both.
 */
#ifndef FS_TEST_FAKE_SITE_H
#define FS_TEST_FAKE_SITE_H

#include <cjson/cJSON.h>

#include "app/app.h"
#include "store/store.h"

typedef struct fs_fake_site {
	fs_app app;
	char dir[64];     /* the data directory (/tmp/fs-<tag>-XXXXXX) */
	char cookie[200]; /* "HTTP_COOKIE=fs_session=..." of ann's session */
	long long uid;    /* ann */
} fs_fake_site;

/* Opens the site; tag names the directory (a few letters). 0, or -1. */
int fs_fake_site_open(fs_fake_site *s, const char *tag);
/* Inserts an 8-bit one-page TIFF image row of ann's, w x h, whose file
 * hash is made from seed; *rec receives the row. 0, or -1. */
int fs_fake_site_image(fs_fake_site *s, int seed, const char *name, int w, int h, fs_image_rec *rec);
/* A second connection to the site's database (another process's); the
 * caller closes it with fs_db_close. NULL on failure. */
fs_db *fs_fake_site_connect(fs_fake_site *s);
/* GET uri as ann: the answer's JSON (the caller's to cJSON_Delete; NULL
 * when the body is not JSON) and its status in *status. */
cJSON *fs_fake_site_get(fs_fake_site *s, const char *uri, int *status);
/* Closes the app and removes the directory. */
void fs_fake_site_close(fs_fake_site *s);

#endif
