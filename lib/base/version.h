/*
 * version.h - fishscale's version, git commit and build date, and the
 * versions of the libraries it is linked with (for /about and --version).
 *
 * Ownership: the strings are static (never freed); fs_version_json's
 * object is the caller's (cJSON_Delete).
 */
#ifndef FS_VERSION_H
#define FS_VERSION_H

#include <cJSON.h>

const char *fs_version_string(void);   /* e.g. "0.1.0" */
const char *fs_git_commit(void);
const char *fs_build_date(void);
/* {"fishscale":..., "commit":..., "built":..., "libraries": {"libtiff": ...}}; caller deletes. */
cJSON *fs_version_json(void);

#endif
