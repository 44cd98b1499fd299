/*
 * png_write.c - 8-bit grey and RGB PNG encoding (display copies, thumbnails,
 * overlays), into memory or into a file.
 *
 * Files are written to a temporary name in the same directory and renamed
 * into place, so a reader (nginx, another worker) never sees half a PNG.
 * libpng errors longjmp back to encode(); its state lives in a job struct
 * so nothing is lost across the jump.
 */
#include "image/image_io.h"
#include "base/buf.h"
#include "image/png_errors.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct png_wjob {
	png_structp png;
	png_infop info;
	fs_buf out;                /* owned: the encoded bytes */
	unsigned char *row;        /* owned: one converted grey row */
	float *fspan;              /* owned: a compact image's row as floats, else NULL */
	const fs_image *gray;      /* borrowed, or NULL */
	const unsigned char *rgb;  /* borrowed, or NULL */
	int width, height;
	int oom;
	char msg[FS_PNG_MSG];
} png_wjob;

static void write_mem(png_structp png, png_bytep data, size_t n)
{
	png_wjob *j = png_get_io_ptr(png);
	if (fs_buf_append(&j->out, data, n) != 0) {
		j->oom = 1;
		png_error(png, "out of memory");
	}
}

static void flush_mem(png_structp png)
{
	(void)png;
}

static unsigned char to_byte(float v)
{
	if (!(v > 0.0f)) /* also catches NaN */
		return 0;
	if (v >= 1.0f)
		return 255;
	return (unsigned char)lrintf(v * 255.0f);
}

static int encode(png_wjob *j)
{
	if (setjmp(png_jmpbuf(j->png)))
		return -1;
	png_set_write_fn(j->png, j, write_mem, flush_mem);
	/* Speed matters more than a few percent of size for display copies. */
	png_set_compression_level(j->png, 3);
	png_set_IHDR(j->png, j->info, (png_uint_32)j->width, (png_uint_32)j->height, 8,
		     j->gray ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_write_info(j->png, j->info);
	for (int y = 0; y < j->height; y++) {
		if (j->gray) {
			/* a compact image's row converted (fs_image_span): the same bytes */
			const float *src = fs_image_span(j->gray, 0, y, j->width, j->fspan);
			for (int x = 0; x < j->width; x++)
				j->row[x] = to_byte(src[x]);
			png_write_row(j->png, j->row);
		} else {
			png_write_row(j->png, (png_const_bytep)(j->rgb + (size_t)y * (size_t)j->width * 3));
		}
	}
	png_write_end(j->png, NULL);
	return 0;
}

/* Encodes gray (or rgb) into *out; one of the two is NULL. */
static int encode_any(const fs_image *gray, const unsigned char *rgb, int width, int height,
		      unsigned char **out, size_t *out_len, char *err, size_t errlen)
{
	png_wjob *j = NULL;
	int rc = -1;

	if (!out || !out_len || (!gray && !rgb) || width <= 0 || height <= 0 ||
	    (gray && !gray->data && !gray->px)) {
		fs_load_errf(err, errlen, "PNG write: no image or bad size");
		return -1;
	}
	*out = NULL;
	*out_len = 0;
	j = calloc(1, sizeof *j);
	if (!j) {
		fs_load_errf(err, errlen, "PNG write: out of memory");
		return -1;
	}
	j->gray = gray;
	j->rgb = rgb;
	j->width = width;
	j->height = height;
	if (gray)
		j->row = malloc((size_t)width);
	if (gray && gray->bits)
		j->fspan = malloc((size_t)width * sizeof(float));
	j->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, j->msg, fs_png_on_error, fs_png_on_warning);
	if (j->png)
		j->info = png_create_info_struct(j->png);
	if (!j->png || !j->info || (gray && !j->row) || (gray && gray->bits && !j->fspan)) {
		fs_load_errf(err, errlen, "PNG write: out of memory");
		goto out;
	}
	if (encode(j) != 0) {
		fs_load_errf(err, errlen, "PNG write: %s", j->oom ? "out of memory" : j->msg);
		goto out;
	}
	*out_len = j->out.len;
	*out = (unsigned char *)fs_buf_steal(&j->out);
	rc = 0;
out:
	if (j->png)
		png_destroy_write_struct(&j->png, j->info ? &j->info : NULL);
	fs_buf_free(&j->out);
	free(j->row);
	free(j->fspan);
	free(j);
	return rc;
}

int fs_png_encode_rgb(const unsigned char *rgb, int width, int height, unsigned char **out, size_t *out_len,
		      char *err, size_t errlen)
{
	return encode_any(NULL, rgb, width, height, out, out_len, err, errlen);
}

int fs_png_encode_gray(const fs_image *img, unsigned char **out, size_t *out_len, char *err, size_t errlen)
{
	if (!img) {
		fs_load_errf(err, errlen, "PNG write: no image");
		return -1;
	}
	return encode_any(img, NULL, img->width, img->height, out, out_len, err, errlen);
}

/* Write-then-rename so readers only ever see a complete file. */
static int write_file(const char *path, const unsigned char *data, size_t len, char *err, size_t errlen)
{
	char *tmp = NULL;
	FILE *fp = NULL;
	int rc = -1;

	if (!path) {
		fs_load_errf(err, errlen, "PNG write: no path");
		return -1;
	}
	if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0) {
		tmp = NULL;
		fs_load_errf(err, errlen, "PNG write: out of memory");
		goto out;
	}
	fp = fopen(tmp, "wb");
	if (!fp) {
		fs_load_errf(err, errlen, "PNG write: cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fwrite(data, 1, len, fp) != len || fflush(fp) != 0 || fsync(fileno(fp)) != 0) {
		fs_load_errf(err, errlen, "PNG write: cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fclose(fp) != 0) {
		fp = NULL;
		fs_load_errf(err, errlen, "PNG write: cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fp = NULL;
	if (rename(tmp, path) != 0) {
		fs_load_errf(err, errlen, "PNG write: cannot rename to %s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fp)
		fclose(fp);
	if (rc != 0 && tmp)
		unlink(tmp);
	free(tmp);
	return rc;
}

int fs_png_write_gray(const char *path, const fs_image *img, char *err, size_t errlen)
{
	unsigned char *data = NULL;
	size_t len = 0;
	int rc = fs_png_encode_gray(img, &data, &len, err, errlen);
	if (rc == 0)
		rc = write_file(path, data, len, err, errlen);
	free(data);
	return rc;
}

int fs_png_write_rgb(const char *path, const unsigned char *rgb, int width, int height, char *err,
		     size_t errlen)
{
	unsigned char *data = NULL;
	size_t len = 0;
	int rc = fs_png_encode_rgb(rgb, width, height, &data, &len, err, errlen);
	if (rc == 0)
		rc = write_file(path, data, len, err, errlen);
	free(data);
	return rc;
}
