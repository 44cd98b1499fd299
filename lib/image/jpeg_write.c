/*
 * jpeg_write.c - 8-bit greyscale JPEG encoding into memory (the display
 * pyramid's tiles: a tenth of a PNG's size and several times faster to
 * make, and a tile is only ever looked at). libjpeg's error_exit longjmps
 * back here; nothing is printed.
 */
#include "image/image_io.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

typedef struct jw_err {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
	char msg[JMSG_LENGTH_MAX];
} jw_err;

static void on_error_exit(j_common_ptr c)
{
	jw_err *e = (jw_err *)c->err;
	c->err->format_message(c, e->msg);
	longjmp(e->jump, 1);
}

static void on_output(j_common_ptr c)
{
	(void)c;
}

int fs_jpeg_encode_gray8(const unsigned char *px, int width, int height, size_t stride, int quality,
			 unsigned char **out, size_t *out_len, char *err, size_t errlen)
{
	struct jpeg_compress_struct ci;
	jw_err e;
	/* libjpeg's output buffer, where the error path can still find it
	 * (locals changed after setjmp are not reliable after the longjmp) */
	struct {
		unsigned char *m;
		unsigned long len;
	} dst = {NULL, 0};
	*out = NULL;
	*out_len = 0;
	if (!px || width <= 0 || height <= 0 || width > 65500 || height > 65500) {
		snprintf(err, errlen, "JPEG write: no image or bad size");
		return -1;
	}
	memset(&ci, 0, sizeof ci);
	ci.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = on_error_exit;
	e.mgr.output_message = on_output;
	e.msg[0] = 0;
	if (setjmp(e.jump)) {
		jpeg_destroy_compress(&ci);
		free(*(unsigned char *volatile *)&dst.m);
		snprintf(err, errlen, "JPEG write: %s", e.msg);
		return -1;
	}
	jpeg_create_compress(&ci);
	jpeg_mem_dest(&ci, &dst.m, &dst.len);
	ci.image_width = (JDIMENSION)width;
	ci.image_height = (JDIMENSION)height;
	ci.input_components = 1;
	ci.in_color_space = JCS_GRAYSCALE;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, quality, TRUE);
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		JSAMPROW row = (JSAMPROW)(px + (size_t)ci.next_scanline * stride);
		jpeg_write_scanlines(&ci, &row, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	*out = dst.m;
	*out_len = (size_t)dst.len;
	return 0;
}
