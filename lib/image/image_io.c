/*
 * image_io.c - format sniffing, dispatch to the TIFF/PNG/JPEG loaders, and
 * the file-size check made before a file is read.
 */
#include "image/image_io.h"
#include "base/heap_policy.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_PIXELS 100000000L

/*
 * A file bigger than this cannot be a sane image of max_pixels: the largest
 * layout is 8 bytes per sample x 4 samples, plus headers. Checked before the
 * file is read into memory.
 */
#define MAX_BYTES_PER_PIXEL 32

fs_format fs_format_sniff(const unsigned char *buf, size_t len)
{
	if (!buf)
		return FS_FORMAT_UNKNOWN;
	if (len >= 4 && ((buf[0] == 'I' && buf[1] == 'I' && (buf[2] == 42 || buf[2] == 43) && buf[3] == 0) ||
			 (buf[0] == 'M' && buf[1] == 'M' && buf[2] == 0 && (buf[3] == 42 || buf[3] == 43))))
		return FS_FORMAT_TIFF;
	if (len >= 8 && memcmp(buf, "\x89PNG\r\n\x1a\n", 8) == 0)
		return FS_FORMAT_PNG;
	if (len >= 3 && buf[0] == 0xff && buf[1] == 0xd8 && buf[2] == 0xff)
		return FS_FORMAT_JPEG;
	return FS_FORMAT_UNKNOWN;
}

const char *fs_format_name(fs_format f)
{
	switch (f) {
	case FS_FORMAT_TIFF:
		return "tiff";
	case FS_FORMAT_PNG:
		return "png";
	case FS_FORMAT_JPEG:
		return "jpeg";
	default:
		return "unknown";
	}
}

static long effective_max_pixels(const fs_load_opts *opts)
{
	if (!opts || opts->max_pixels <= 0)
		return DEFAULT_MAX_PIXELS;
	return opts->max_pixels;
}

static int load_memory(const unsigned char *buf, size_t len, const fs_load_opts *opts, int header_only,
		       fs_loaded *out, char *err, size_t errlen)
{
	if (!out) {
		fs_load_errf(err, errlen, "no output given");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!buf || len == 0) {
		fs_load_errf(err, errlen, "empty input");
		return -1;
	}
	long max_pixels = effective_max_pixels(opts);
	int page = opts ? opts->page : 0;
	if (page < 0) {
		fs_load_errf(err, errlen, "page %d is not valid", page);
		return -1;
	}
	fs_format f = fs_format_sniff(buf, len);
	if (f != FS_FORMAT_TIFF && page != 0) {
		fs_load_errf(err, errlen, "page %d requested but %s files have one page", page,
			     fs_format_name(f));
		return -1;
	}
	int rc;
	int flags = (header_only ? FS_LOAD_HEADER_ONLY : 0) | (opts && opts->compact ? FS_LOAD_COMPACT : 0);
	switch (f) {
	case FS_FORMAT_TIFF:
		rc = fs_tiff_load(buf, len, max_pixels, page, flags, out, err, errlen);
		break;
	case FS_FORMAT_PNG:
		rc = fs_png_load(buf, len, max_pixels, flags, out, err, errlen);
		break;
	case FS_FORMAT_JPEG:
		rc = fs_jpeg_load(buf, len, max_pixels, flags, out, err, errlen);
		break;
	default:
		fs_load_errf(err, errlen, "not a TIFF, PNG or JPEG file");
		return -1;
	}
	if (rc != 0) {
		fs_loaded_free(out);
		return -1;
	}
	out->format = f;
	return 0;
}

int fs_load_memory(const unsigned char *buf, size_t len, const fs_load_opts *opts, fs_loaded *out,
		   char *err, size_t errlen)
{
	return load_memory(buf, len, opts, 0, out, err, errlen);
}

int fs_probe_memory(const unsigned char *buf, size_t len, const fs_load_opts *opts, fs_loaded *out,
		    char *err, size_t errlen)
{
	return load_memory(buf, len, opts, 1, out, err, errlen);
}

static int load_file(const char *path, const fs_load_opts *opts, int header_only, fs_loaded *out, char *err,
		     size_t errlen)
{
	unsigned char *buf = NULL;
	FILE *fp = NULL;
	int rc = -1;

	if (out)
		memset(out, 0, sizeof *out);
	if (!path || !out) {
		fs_load_errf(err, errlen, "no file or output given");
		goto out;
	}
	fp = fopen(path, "rb");
	if (!fp) {
		fs_load_errf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		goto out;
	}
	struct stat st;
	if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
		fs_load_errf(err, errlen, "%s is not a regular file", path);
		goto out;
	}
	long max_pixels = effective_max_pixels(opts);
	if ((unsigned long long)st.st_size / MAX_BYTES_PER_PIXEL > (unsigned long long)max_pixels + 65536) {
		fs_load_errf(err, errlen, "%s is too large (%lld bytes)", path, (long long)st.st_size);
		goto out;
	}
	size_t len = (size_t)st.st_size;
	if (len == 0) {
		fs_load_errf(err, errlen, "%s is empty", path);
		goto out;
	}
	/* A TIFF is read by libtiff from the file itself, only the parts it
	 * needs (issue 15: a 100 MP TIFF was first read whole into a 100 MB
	 * buffer, then copied again); the other formats from memory. */
	unsigned char head[4];
	if (pread(fileno(fp), head, sizeof head, 0) == (ssize_t)sizeof head &&
	    fs_format_sniff(head, sizeof head) == FS_FORMAT_TIFF) {
		int page = opts ? opts->page : 0;
		if (page < 0) {
			fs_load_errf(err, errlen, "page %d is not valid", page);
			goto out;
		}
		int flags = (header_only ? FS_LOAD_HEADER_ONLY : 0) | (opts && opts->compact ? FS_LOAD_COMPACT : 0);
		rc = fs_tiff_load_fd(fileno(fp), len, max_pixels, page, flags, out, err, errlen);
		if (rc)
			fs_loaded_free(out);
		else
			out->format = FS_FORMAT_TIFF;
		goto out;
	}
	if (header_only) {
		/* the headers only: mapped, so only the pages the decoder's
		 * header parsing touches are read (an upload's probe took the
		 * whole file, 100 MB for an uncompressed 100 MP TIFF, in the
		 * web worker); the files probed are the server's own, which
		 * nothing truncates meanwhile */
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fileno(fp), 0);
		if (map != MAP_FAILED) {
			rc = load_memory(map, len, opts, 1, out, err, errlen);
			munmap(map, len);
			goto out;
		}
	}
	buf = malloc(len);
	if (!buf) {
		fs_load_errf(err, errlen, "out of memory reading %s", path);
		goto out;
	}
	fs_heap_prefault(buf, len); /* read() fills it whole: pages in one call */
	if (fread(buf, 1, len, fp) != len) {
		fs_load_errf(err, errlen, "cannot read %s", path);
		goto out;
	}
	rc = load_memory(buf, len, opts, header_only, out, err, errlen);
out:
	free(buf);
	if (fp)
		fclose(fp);
	return rc;
}

int fs_load_file(const char *path, const fs_load_opts *opts, fs_loaded *out, char *err, size_t errlen)
{
	return load_file(path, opts, 0, out, err, errlen);
}

int fs_probe_file(const char *path, const fs_load_opts *opts, fs_loaded *out, char *err, size_t errlen)
{
	return load_file(path, opts, 1, out, err, errlen);
}
