/*
 * png_errors.c - libpng callbacks that record instead of printing (see
 * png_errors.h).
 */
#include "image/png_errors.h"

#include <stdio.h>

void fs_png_on_error(png_structp png, png_const_charp msg)
{
	char *keep = png_get_error_ptr(png);
	if (!keep[0])
		snprintf(keep, FS_PNG_MSG, "%s", msg);
	png_longjmp(png, 1);
}

void fs_png_on_warning(png_structp png, png_const_charp msg)
{
	(void)png;
	(void)msg;
}
