/* version.c - build information and linked library versions (see version.h). */
#include "base/version.h"

#include <stdio.h>
#include <string.h>

#include <curl/curl.h>
#include <jpeglib.h>
#include <png.h>
#include <sqlite3.h>
#include <tiffio.h>

#include "fs_build_info.h"

const char *fs_version_string(void)
{
	return FS_VERSION;
}

const char *fs_git_commit(void)
{
	return FS_GIT_COMMIT;
}

const char *fs_build_date(void)
{
	return FS_BUILD_DATE;
}

cJSON *fs_version_json(void)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "fishscale", FS_VERSION);
	cJSON_AddStringToObject(o, "commit", FS_GIT_COMMIT);
	cJSON_AddStringToObject(o, "built", FS_BUILD_DATE);
	cJSON *l = cJSON_AddObjectToObject(o, "libraries");
	/* libtiff's banner is several lines; keep the first */
	char tiff[128];
	snprintf(tiff, sizeof tiff, "%s", TIFFGetVersion());
	char *nl = strchr(tiff, '\n');
	if (nl)
		*nl = 0;
	cJSON_AddStringToObject(l, "libtiff", tiff);
	cJSON_AddStringToObject(l, "libpng", png_get_libpng_ver(NULL));
	char jpeg[64];
#ifdef LIBJPEG_TURBO_VERSION
#define FS_STR2(x) #x
#define FS_STR(x) FS_STR2(x)
	snprintf(jpeg, sizeof jpeg, "libjpeg-turbo %s (API %d)", FS_STR(LIBJPEG_TURBO_VERSION), JPEG_LIB_VERSION);
#else
	snprintf(jpeg, sizeof jpeg, "libjpeg API %d", JPEG_LIB_VERSION);
#endif
	cJSON_AddStringToObject(l, "libjpeg", jpeg);
	cJSON_AddStringToObject(l, "sqlite", sqlite3_libversion());
	cJSON_AddStringToObject(l, "libcurl", curl_version_info(CURLVERSION_NOW)->version);
	cJSON_AddStringToObject(l, "cjson", cJSON_Version());
	/* libfcgi exports no version; the build records the installed package's */
	cJSON_AddStringToObject(l, "libfcgi", FS_LIBFCGI_VERSION);
	return o;
}
