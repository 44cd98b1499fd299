/*
 * load_jpeg.c - JPEG into the float working image through libjpeg(-turbo).
 *
 * libjpeg's error_exit is replaced by one that records the message and
 * longjmps back to decode(); nothing is printed. A premature end of data is
 * only a warning to libjpeg (it pads with grey), but a truncated upload must
 * be refused, so that one warning is promoted to an error. Greyscale and
 * YCbCr/RGB are read; CMYK/YCCK are refused (their inversion conventions
 * differ between writers and SEM software does not produce them).
 */
#include "image/loader.h"
#include "image/sem_metadata.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

/* Progressive files with thousands of tiny scans decode very slowly (a known
 * denial of service); real images use about ten. */
#define JPEG_MAX_SCANS 500

typedef struct jpeg_job {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr jerr;
	struct jpeg_progress_mgr progress;
	jmp_buf jump;
	int created;
	long max_pixels;
	int header_only;
	int compact;         /* FS_LOAD_COMPACT asked for */
	fs_image *img;       /* owned until handed to the caller */
	unsigned char *row;  /* owned */
	char msg[JMSG_LENGTH_MAX];
	char why[200];
} jpeg_job;

static void on_error_exit(j_common_ptr c)
{
	jpeg_job *j = c->client_data;
	if (!j->msg[0])
		c->err->format_message(c, j->msg);
	longjmp(j->jump, 1);
}

static void on_emit(j_common_ptr c, int level)
{
	if (level < 0 && c->err->msg_code == JWRN_JPEG_EOF)
		on_error_exit(c);
	if (level < 0)
		c->err->num_warnings++;
}

static void on_output(j_common_ptr c)
{
	(void)c;
}

static void on_progress(j_common_ptr c)
{
	j_decompress_ptr d = (j_decompress_ptr)c;
	if (d->progressive_mode && d->input_scan_number > JPEG_MAX_SCANS) {
		jpeg_job *j = c->client_data;
		snprintf(j->why, sizeof j->why, "JPEG: more than %d progressive scans", JPEG_MAX_SCANS);
		longjmp(j->jump, 1);
	}
}

static int decode(jpeg_job *j, const unsigned char *buf, size_t len, fs_loaded *out)
{
	j_decompress_ptr ci = &j->cinfo;

	ci->err = jpeg_std_error(&j->jerr);
	j->jerr.error_exit = on_error_exit;
	j->jerr.emit_message = on_emit;
	j->jerr.output_message = on_output;
	ci->client_data = j;
	if (setjmp(j->jump))
		return -1;
	jpeg_create_decompress(ci);
	j->created = 1;
	j->progress.progress_monitor = on_progress;
	ci->progress = &j->progress;
	jpeg_mem_src(ci, buf, (unsigned long)len);
	jpeg_read_header(ci, TRUE);

	out->bit_depth = ci->data_precision;
	out->channels = ci->num_components;
	if (fs_load_check_size(ci->image_width, ci->image_height, j->max_pixels, j->why, sizeof j->why) != 0)
		return -1;
	out->width = (int)ci->image_width;
	out->height = (int)ci->image_height;
	/* the compact path below: a grey JPEG of 8-bit samples */
	out->compact_bits = ci->jpeg_color_space == JCS_GRAYSCALE && ci->data_precision == 8 ? 8 : 0;
	if (j->header_only)
		return 0;
	switch (ci->jpeg_color_space) {
	case JCS_GRAYSCALE:
		ci->out_color_space = JCS_GRAYSCALE;
		break;
	case JCS_YCbCr:
	case JCS_RGB:
		ci->out_color_space = JCS_RGB;
		break;
	default:
		snprintf(j->why, sizeof j->why, "JPEG: colour space %d (CMYK/YCCK) is not supported",
			 (int)ci->jpeg_color_space);
		return -1;
	}
	/* libjpeg has no backing store here: this caps its working memory. */
	long long cap = (long long)j->max_pixels * 8 + (64LL << 20);
	ci->mem->max_memory_to_use = cap > (1LL << 31) ? (1L << 31) : (long)cap;

	jpeg_start_decompress(ci);
	int nc = ci->output_components;
	if ((nc != 1 && nc != 3) || ci->output_width != ci->image_width || ci->output_height != ci->image_height) {
		snprintf(j->why, sizeof j->why, "JPEG: unexpected output layout");
		return -1;
	}
	/* a grey JPEG kept in its 8 bits (image.h): its samples as decoded */
	int compact = j->compact && nc == 1 && ci->data_precision == 8;
	j->img = compact ? fs_image_new_compact((int)ci->output_width, (int)ci->output_height, 8)
			 : fs_image_new((int)ci->output_width, (int)ci->output_height);
	j->row = malloc((size_t)ci->output_width * (size_t)nc);
	if (!j->img || !j->row) {
		snprintf(j->why, sizeof j->why, "JPEG: out of memory for %u x %u pixels", ci->output_width,
			 ci->output_height);
		return -1;
	}
	while (ci->output_scanline < ci->output_height) {
		JSAMPROW rows[1] = {j->row};
		JDIMENSION y = ci->output_scanline;
		if (jpeg_read_scanlines(ci, rows, 1) != 1) {
			snprintf(j->why, sizeof j->why, "JPEG: cannot read row %u", (unsigned)y);
			return -1;
		}
		if (compact) {
			memcpy((unsigned char *)j->img->px + (size_t)y * ci->output_width, j->row, ci->output_width);
			continue;
		}
		float *dst = j->img->data + (size_t)y * ci->output_width;
		for (JDIMENSION x = 0; x < ci->output_width; x++) {
			const unsigned char *p = j->row + (size_t)x * nc;
			dst[x] = nc == 1 ? p[0] / 255.0f : fs_luma(p[0] / 255.0f, p[1] / 255.0f, p[2] / 255.0f);
		}
	}

	double um, unit_um = ci->density_unit == 1 ? 25400.0 : ci->density_unit == 2 ? 10000.0 : 0.0;
	if (ci->saw_JFIF_marker && fs_resolution_um_per_px(ci->X_density, unit_um, &um) == 0) {
		out->suggested_um_per_px = um;
		snprintf(out->calibration_source, sizeof out->calibration_source, "jpeg-density");
	}
	return 0;
}

int fs_jpeg_load(const unsigned char *buf, size_t len, long max_pixels, int flags, fs_loaded *out,
		 char *err, size_t errlen)
{
	jpeg_job *j = calloc(1, sizeof *j);
	if (!j) {
		fs_load_errf(err, errlen, "JPEG: out of memory");
		return -1;
	}
	j->max_pixels = max_pixels;
	j->header_only = flags & FS_LOAD_HEADER_ONLY;
	j->compact = (flags & FS_LOAD_COMPACT) != 0;
	int rc = fs_load_hand_over(decode(j, buf, len, out), "JPEG", j->why, j->msg, &j->img, out, err, errlen);
	if (j->created)
		jpeg_destroy_decompress(&j->cinfo);
	fs_image_free(j->img);
	free(j->row);
	free(j);
	return rc;
}
