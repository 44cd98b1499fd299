/* testimg_write.c - writers of test images with known pixels (see testimg_write.h). */
#include "testimg_write.h"
#include "rm_tree.h"

#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>
#include <unistd.h>

double fs_testimg_sample(int bits, int is_float, int smooth, int x, int y, int c, int page)
{
	if (is_float) {
		if (smooth)
			return (x + y) * 0.25 - 1.0;
		return (x * 3 + y * 5 + c * 7 + page * 11) * 0.5 - 3.0;
	}
	double maxv = bits >= 32 ? 4294967295.0 : (double)((1ULL << bits) - 1);
	if (smooth) /* a ramp over [0, 200/255] of full scale */
		return (double)(uint64_t)((((x + y) * 2 + c * 8 + page * 4) % 200) / 255.0 * maxv);
	uint64_t base = (uint64_t)(x * 3 + y * 5 + c * 7 + page * 11);
	if (bits <= 8)
		return (double)(base % ((uint64_t)maxv + 1));
	if (bits == 16)
		return (double)((base * 257 + (uint64_t)x) & 0xffff);
	return (double)((base * 16843009ULL + (uint64_t)x * (uint64_t)y) & 0xffffffffULL);
}

unsigned fs_testimg_palette(unsigned i, int c)
{
	switch (c) {
	case 0:
		return (i * 37u * 257u) & 0xffff;
	case 1:
		return 65535u - ((i * 11u * 257u) & 0xffff);
	default:
		return ((i * 101u) * 257u) & 0xffff;
	}
}

/* Stores sample k (of a packed row) with the given raw value. */
static void put_sample(unsigned char *row, size_t k, int bps, int is_float, double v)
{
	switch (bps) {
	case 1:
	case 2:
	case 4: {
		size_t bit = k * (size_t)bps;
		int shift = 8 - bps - (int)(bit & 7);
		row[bit >> 3] = (unsigned char)(row[bit >> 3] | (((unsigned)v & ((1u << bps) - 1)) << shift));
		break;
	}
	case 8:
		row[k] = (unsigned char)(unsigned)v;
		break;
	case 16: {
		uint16_t s = (uint16_t)(unsigned)v;
		memcpy(row + 2 * k, &s, 2);
		break;
	}
	case 32:
		if (is_float) {
			float f = (float)v;
			memcpy(row + 4 * k, &f, 4);
		} else {
			uint32_t u = (uint32_t)v;
			memcpy(row + 4 * k, &u, 4);
		}
		break;
	default: {
		memcpy(row + 8 * k, &v, 8);
		break;
	}
	}
}

static const TIFFFieldInfo sem_fields[] = {
	{34118, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0, "TestZeissSEM"},
	{34682, TIFF_VARIABLE, TIFF_VARIABLE, TIFF_ASCII, FIELD_CUSTOM, 1, 0, "TestFEISEM"},
};

/* Fills a packed row of n pixels starting at x0 on line y; plane < 0 = all samples. */
static void fill_row(unsigned char *row, size_t rowbytes, const fs_testimg_tiff *s, int spp, int x0, int n, int y,
		     int plane, int page, int width)
{
	int fl = s->sample_format == SAMPLEFORMAT_IEEEFP;
	memset(row, 0, rowbytes);
	for (int i = 0; i < n; i++) {
		int x = x0 + i;
		if (x >= width || y >= s->height)
			continue; /* tile padding stays zero */
		if (plane >= 0) {
			put_sample(row, (size_t)i, s->bps, fl, fs_testimg_sample(s->bps, fl, s->smooth, x, y, plane, page));
			continue;
		}
		for (int c = 0; c < spp; c++)
			put_sample(row, (size_t)i * spp + c, s->bps, fl,
				   fs_testimg_sample(s->bps, fl, s->smooth, x, y, c, page));
	}
}

static int write_tiff_page(TIFF *tif, const fs_testimg_tiff *s, int page)
{
	int spp = s->spp ? s->spp : 1;
	int width = s->width + page;
	int separate = s->planar_separate && spp > 1;
	unsigned char *buf = NULL;
	uint16_t *cmap[3] = {NULL, NULL, NULL};
	int rc = -1;

	TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
	TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)s->height);
	TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)s->bps);
	TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)spp);
	TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, (uint16_t)(s->sample_format ? s->sample_format : SAMPLEFORMAT_UINT));
	TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, (uint16_t)s->photometric);
	TIFFSetField(tif, TIFFTAG_PLANARCONFIG, (uint16_t)(separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG));
	TIFFSetField(tif, TIFFTAG_COMPRESSION, (uint16_t)(s->compression ? s->compression : COMPRESSION_NONE));
	if (spp == 2 || spp == 4) {
		uint16_t extra = EXTRASAMPLE_UNASSALPHA;
		TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
	}
	if (s->zip_level && (s->compression == COMPRESSION_ADOBE_DEFLATE || s->compression == COMPRESSION_DEFLATE))
		TIFFSetField(tif, TIFFTAG_ZIPQUALITY, s->zip_level);
	if (s->compression == COMPRESSION_JPEG) {
		TIFFSetField(tif, TIFFTAG_JPEGQUALITY, s->jpeg_quality ? s->jpeg_quality : 95);
		if (s->photometric == PHOTOMETRIC_YCBCR)
			TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
	}
	if (s->photometric == PHOTOMETRIC_PALETTE) {
		size_t n = (size_t)1 << s->bps;
		for (int c = 0; c < 3; c++) {
			cmap[c] = malloc(n * sizeof(uint16_t));
			if (!cmap[c])
				goto out;
			for (size_t i = 0; i < n; i++)
				cmap[c][i] = (uint16_t)(fs_testimg_palette((unsigned)i, c) >> (s->cmap8 ? 8 : 0));
		}
		TIFFSetField(tif, TIFFTAG_COLORMAP, cmap[0], cmap[1], cmap[2]);
	}
	if (s->xres > 0) {
		TIFFSetField(tif, TIFFTAG_XRESOLUTION, (float)s->xres);
		TIFFSetField(tif, TIFFTAG_YRESOLUTION, (float)s->xres);
		TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, (uint16_t)s->resunit);
	}
	if (s->zeiss_text || s->fei_text) {
		TIFFMergeFieldInfo(tif, sem_fields, 2);
		if (s->zeiss_text)
			TIFFSetField(tif, 34118, s->zeiss_text);
		if (s->fei_text)
			TIFFSetField(tif, 34682, s->fei_text);
	}
	if (s->pages > 1) {
		TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
		TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)page, (uint16_t)s->pages);
	}
	int planes = separate ? spp : 1;
	if (s->tile) {
		TIFFSetField(tif, TIFFTAG_TILEWIDTH, (uint32_t)s->tile);
		TIFFSetField(tif, TIFFTAG_TILELENGTH, (uint32_t)s->tile);
		tmsize_t ts = TIFFTileSize(tif), trs = TIFFTileRowSize(tif);
		buf = malloc((size_t)ts);
		if (!buf || ts <= 0)
			goto out;
		for (int p = 0; p < planes; p++)
			for (int ty = 0; ty < s->height; ty += s->tile)
				for (int tx = 0; tx < width; tx += s->tile) {
					for (int r = 0; r < s->tile; r++)
						fill_row(buf + (size_t)r * trs, (size_t)trs, s, spp, tx, s->tile, ty + r,
							 separate ? p : -1, page, width);
					if (TIFFWriteTile(tif, buf, (uint32_t)tx, (uint32_t)ty, 0, (uint16_t)p) < 0)
						goto out;
				}
	} else {
		TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)(s->rows_per_strip ? s->rows_per_strip : 16));
		tmsize_t ls = TIFFScanlineSize(tif);
		buf = malloc((size_t)ls);
		if (!buf || ls <= 0)
			goto out;
		for (int p = 0; p < planes; p++)
			for (int y = 0; y < s->height; y++) {
				fill_row(buf, (size_t)ls, s, spp, 0, width, y, separate ? p : -1, page, width);
				if (TIFFWriteScanline(tif, buf, (uint32_t)y, (uint16_t)p) < 0)
					goto out;
			}
	}
	if (!TIFFWriteDirectory(tif))
		goto out;
	rc = 0;
out:
	free(buf);
	for (int c = 0; c < 3; c++)
		free(cmap[c]);
	return rc;
}

int fs_testimg_write_tiff(const char *path, const fs_testimg_tiff *spec)
{
	TIFF *tif = TIFFOpen(path, spec->big_endian ? "wb" : "wl");
	if (!tif)
		return -1;
	int pages = spec->pages > 0 ? spec->pages : 1;
	int rc = 0;
	for (int p = 0; p < pages && rc == 0; p++)
		rc = write_tiff_page(tif, spec, p);
	TIFFClose(tif);
	return rc;
}

static int png_channels(int ct)
{
	switch (ct) {
	case PNG_COLOR_TYPE_GRAY_ALPHA:
		return 2;
	case PNG_COLOR_TYPE_RGB:
		return 3;
	case PNG_COLOR_TYPE_RGB_ALPHA:
		return 4;
	default:
		return 1;
	}
}

int fs_testimg_write_png(const char *path, const fs_testimg_png *s)
{
	FILE *fp = fopen(path, "wb");
	png_structp png = NULL;
	png_infop info = NULL;
	unsigned char *volatile row = NULL;
	int rc = -1;

	if (!fp)
		return -1;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	if (!png || !(info = png_create_info_struct(png)))
		goto out;
	if (setjmp(png_jmpbuf(png)))
		goto out;
	png_init_io(png, fp);
	png_set_IHDR(png, info, (png_uint_32)s->width, (png_uint_32)s->height, s->bit_depth, s->color_type,
		     s->interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	if (s->color_type == PNG_COLOR_TYPE_PALETTE) {
		png_color pal[256];
		int n = 1 << s->bit_depth;
		for (int i = 0; i < n; i++) {
			pal[i].red = (png_byte)(fs_testimg_palette((unsigned)i, 0) >> 8);
			pal[i].green = (png_byte)(fs_testimg_palette((unsigned)i, 1) >> 8);
			pal[i].blue = (png_byte)(fs_testimg_palette((unsigned)i, 2) >> 8);
		}
		png_set_PLTE(png, info, pal, n);
		if (s->trns) {
			png_byte alpha[2] = {0, 128};
			png_set_tRNS(png, info, alpha, 2, NULL);
		}
	} else if (s->trns && (s->color_type == PNG_COLOR_TYPE_GRAY || s->color_type == PNG_COLOR_TYPE_RGB)) {
		png_color_16 key = {0, 1, 1, 1, 1};
		png_set_tRNS(png, info, NULL, 0, &key);
	}
	if (s->phys_ppm)
		png_set_pHYs(png, info, s->phys_ppm, s->phys_ppm, PNG_RESOLUTION_METER);
	png_write_info(png, info);
	if (s->bit_depth == 16)
		png_set_swap(png); /* we fill native little-endian 16-bit samples */
	int ch = png_channels(s->color_type);
	size_t rowbytes = ((size_t)s->width * ch * s->bit_depth + 7) / 8;
	row = malloc(rowbytes);
	if (!row)
		goto out;
	int passes = png_set_interlace_handling(png);
	for (int p = 0; p < passes; p++)
		for (int y = 0; y < s->height; y++) {
			memset(row, 0, rowbytes);
			for (int x = 0; x < s->width; x++)
				for (int c = 0; c < ch; c++) {
					double v = fs_testimg_sample(s->bit_depth, 0, s->smooth, x, y, c, 0);
					put_sample(row, (size_t)x * ch + c, s->bit_depth, 0, v);
				}
			png_write_row(png, row);
		}
	png_write_end(png, info);
	rc = 0;
out:
	png_destroy_write_struct(&png, &info);
	free(row);
	fclose(fp);
	return rc;
}

int fs_testimg_write_jpeg(const char *path, const fs_testimg_jpeg *s)
{
	struct jpeg_compress_struct ci;
	struct jpeg_error_mgr jerr;
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	int nc = s->components;
	unsigned char *row = malloc((size_t)s->width * nc);
	if (!row) {
		fclose(fp);
		return -1;
	}
	ci.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&ci);
	jpeg_stdio_dest(&ci, fp);
	ci.image_width = (JDIMENSION)s->width;
	ci.image_height = (JDIMENSION)s->height;
	ci.input_components = nc;
	ci.in_color_space = nc == 1 ? JCS_GRAYSCALE : nc == 3 ? JCS_RGB : JCS_CMYK;
	jpeg_set_defaults(&ci);
	jpeg_set_quality(&ci, s->quality ? s->quality : 95, TRUE);
	if (s->progressive)
		jpeg_simple_progression(&ci);
	if (s->density_dpi) {
		ci.density_unit = 1;
		ci.X_density = ci.Y_density = (UINT16)s->density_dpi;
	}
	jpeg_start_compress(&ci, TRUE);
	while (ci.next_scanline < ci.image_height) {
		for (int x = 0; x < s->width; x++)
			for (int c = 0; c < nc; c++)
				row[x * nc + c] = (unsigned char)fs_testimg_sample(8, 0, 1, x, (int)ci.next_scanline, c, 0);
		JSAMPROW r[1] = {row};
		jpeg_write_scanlines(&ci, r, 1);
	}
	jpeg_finish_compress(&ci);
	jpeg_destroy_compress(&ci);
	free(row);
	return fclose(fp) == 0 ? 0 : -1;
}

int fs_testimg_read(const char *path, unsigned char **buf, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return -1;
	int rc = -1;
	*buf = NULL;
	if (fseek(fp, 0, SEEK_END) != 0)
		goto out;
	long n = ftell(fp);
	if (n < 0 || fseek(fp, 0, SEEK_SET) != 0)
		goto out;
	*buf = malloc(n > 0 ? (size_t)n : 1);
	if (!*buf || fread(*buf, 1, (size_t)n, fp) != (size_t)n) {
		free(*buf);
		*buf = NULL;
		goto out;
	}
	*len = (size_t)n;
	rc = 0;
out:
	fclose(fp);
	return rc;
}

int fs_testimg_write_bytes(const char *path, const unsigned char *buf, size_t len)
{
	FILE *fp = fopen(path, "wb");
	if (!fp)
		return -1;
	size_t w = fwrite(buf, 1, len, fp);
	int rc = fclose(fp);
	return w == len && rc == 0 ? 0 : -1;
}

int fs_testimg_tmpdir(char *dir, size_t dirlen)
{
	const char *t = getenv("TMPDIR");
	if (!t || !*t)
		t = "/tmp";
	if (snprintf(dir, dirlen, "%s/fs_testimg_XXXXXX", t) >= (int)dirlen)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

void fs_testimg_rmdir(const char *dir)
{
	test_rm_tree(dir);
}

static char group_dir[128];

int fs_testimg_dir_setup(void **state)
{
	(void)state;
	return fs_testimg_tmpdir(group_dir, sizeof group_dir);
}

int fs_testimg_dir_teardown(void **state)
{
	(void)state;
	fs_testimg_rmdir(group_dir);
	return 0;
}

const char *fs_testimg_dir(void)
{
	return group_dir;
}

const char *fs_testimg_path(const char *name)
{
	static char p[256];
	snprintf(p, sizeof p, "%s/%s", group_dir, name);
	return p;
}
