/*
 * png_errors.h - the libpng error and warning callbacks of the PNG reader
 * and writer.
 *
 * libpng must never print or exit: pass an FS_PNG_MSG-byte buffer, cleared,
 * as the error pointer of png_create_read_struct/png_create_write_struct.
 * fs_png_on_error keeps the first message there and longjmps to the
 * caller's setjmp(png_jmpbuf(...)); fs_png_on_warning drops warnings.
 *
 * Ownership: the message buffer is the caller's and must live as long as
 * the libpng struct it was given to.
 */
#ifndef FS_PNG_ERRORS_H
#define FS_PNG_ERRORS_H

#include <png.h>

#define FS_PNG_MSG 200

void fs_png_on_error(png_structp png, png_const_charp msg);
void fs_png_on_warning(png_structp png, png_const_charp msg);

#endif
