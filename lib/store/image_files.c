/* image_files.c - content-addressed image files (see image_files.h). */
#include "store/image_files.h"
#include "store/work_file.h"
#include "store/pyramid.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/image_io.h"
#include "base/sha256.h"

static const char *const kind_dir[] = {"originals", "work", "display", "thumbs"};
static const char *const kind_ext[] = {"", ".f32", ".png", ".png"};

int fs_file_key_valid(const char *key)
{
	if (!key)
		return 0;
	size_t n = 0;
	for (; key[n]; n++)
		if (!((key[n] >= '0' && key[n] <= '9') || (key[n] >= 'a' && key[n] <= 'f')))
			return 0;
	return n == 64;
}

int fs_file_relpath(fs_file_kind kind, const char *key, char *out, size_t outlen)
{
	if ((unsigned)kind > FS_FILE_THUMB || !fs_file_key_valid(key))
		return -1;
	int n = snprintf(out, outlen, "%s/%s%s", kind_dir[kind], key, kind_ext[kind]);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int fs_file_path(const char *data_dir, fs_file_kind kind, const char *key, char *out, size_t outlen)
{
	char rel[128];
	if (fs_file_relpath(kind, key, rel, sizeof rel))
		return -1;
	int n = snprintf(out, outlen, "%s/%s", data_dir, rel);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int mkdir_p1(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0750) == 0 || errno == EEXIST)
		return 0;
	snprintf(err, errlen, "cannot create directory %s: %s", path, strerror(errno));
	return -1;
}

int fs_files_ensure_dirs(const char *data_dir, char *err, size_t errlen)
{
	char p[4096];
	static const char *const dirs[] = {"originals", "work", "display", "thumbs", "tmp"};
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", data_dir, dirs[i]);
		if (mkdir_p1(p, err, errlen))
			return -1;
	}
	return 0;
}

int fs_files_tmp_open(const char *data_dir, char *path, size_t pathlen, char *err, size_t errlen)
{
	int n = snprintf(path, pathlen, "%s/tmp/upload-XXXXXX", data_dir);
	if (n < 0 || (size_t)n >= pathlen) {
		snprintf(err, errlen, "data directory path too long");
		return -1;
	}
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	/* group-readable like the rest of the data directory; a failure only
	 * leaves mkstemp's stricter 0600 */
	(void)fchmod(fd, 0640);
	return fd;
}

/* Makes a rename durable: the directory entry itself must reach the disk. */
static void fsync_parent(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = 0;
	int fd = open(dir[0] ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t k = write(fd, p, len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Writes an iovec-like list of pieces to path through a temporary name. */
static int write_pieces_atomic(const char *path, const void *const *data, const size_t *len, int n, char *err,
			       size_t errlen)
{
	char tmp[4200];
	int fd = -1, rc = -1;
	int k = snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", path);
	if (k < 0 || (size_t)k >= sizeof tmp) {
		snprintf(err, errlen, "path too long");
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	(void)fchmod(fd, 0640);
	for (int i = 0; i < n; i++) {
		if (write_all(fd, data[i], len[i])) {
			snprintf(err, errlen, "cannot write a file: %s", strerror(errno));
			goto out;
		}
	}
	if (fsync(fd) != 0) {
		snprintf(err, errlen, "cannot sync a file: %s", strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		snprintf(err, errlen, "cannot close a file: %s", strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename a file into place: %s", strerror(errno));
		goto out;
	}
	fsync_parent(path);
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (rc)
		unlink(tmp);
	return rc;
}

int fs_file_write_atomic(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
	const void *d[1] = {data};
	size_t l[1] = {len};
	return write_pieces_atomic(path, d, l, 1, err, errlen);
}

int fs_file_publish(const char *tmp_path, const char *path, int *created, char *err, size_t errlen)
{
	if (created)
		*created = 0;
	/* link() fails with EEXIST instead of replacing, so a file another
	 * upload stored first is never swapped under a reader. */
	if (link(tmp_path, path) == 0) {
		unlink(tmp_path);
		fsync_parent(path);
		if (created)
			*created = 1;
		return 0;
	}
	if (errno == EEXIST) {
		unlink(tmp_path);
		return 0;
	}
	snprintf(err, errlen, "cannot store the file: %s", strerror(errno));
	return -1;
}

void fs_work_key_initial(const char *file_sha256, int page, char out[65])
{
	char buf[128];
	int n = snprintf(buf, sizeof buf, "%s:page=%d", file_sha256, page);
	fs_sha256_hex(buf, (size_t)n, out);
}

void fs_work_key_next(const char *key, const char *step, char out[65])
{
	char buf[256];
	int n = snprintf(buf, sizeof buf, "%s:%s", key, step);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = (int)sizeof buf - 1;
	fs_sha256_hex(buf, (size_t)n, out);
}

int fs_work_write(const char *path, const fs_image *img, char *err, size_t errlen)
{
	return fs_work_file_write(path, img, err, errlen);
}

fs_image *fs_work_read(const char *path, char *err, size_t errlen)
{
	return fs_work_file_read(path, err, errlen);
}

static int png_atomic(const char *path, const fs_image *img, char *err, size_t errlen)
{
	unsigned char *png = NULL;
	size_t len = 0;
	if (fs_png_encode_gray(img, &png, &len, err, errlen))
		return -1;
	int rc = fs_file_write_atomic(path, png, len, err, errlen);
	free(png);
	return rc;
}

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether the image of key is large enough for a pyramid, from the working
 * image's header (-1 when there is none). */
static int key_wants_pyramid(const char *data_dir, const char *key)
{
	char path[4096], err[128];
	int w, h, bps;
	if (fs_file_path(data_dir, FS_FILE_WORK, key, path, sizeof path) ||
	    fs_work_file_info(path, &w, &h, &bps, err, sizeof err))
		return -1;
	return fs_pyramid_wanted(w, h);
}

int fs_files_store_derived(const char *data_dir, const char *key, const fs_image *img, int only_missing,
			   int *created, char *err, size_t errlen)
{
	char path[4096];
	fs_image *small = NULL;
	int made = 0, rc = -1;
	int tiled = fs_pyramid_wanted(img->width, img->height);
	for (int kind = FS_FILE_WORK; kind <= FS_FILE_THUMB; kind++) {
		if (fs_file_path(data_dir, kind, key, path, sizeof path)) {
			snprintf(err, errlen, "bad file key");
			goto out;
		}
		if (only_missing && exists(path))
			continue;
		int w;
		if (kind == FS_FILE_WORK) {
			w = fs_work_write(path, img, err, errlen);
		} else if (kind == FS_FILE_DISPLAY && !tiled) {
			w = png_atomic(path, img, err, errlen);
		} else {
			/* the thumbnail, and the display copy of a tiled image: an
			 * overview (the pyramid has the full resolution) */
			small = fs_image_downscale(img, kind == FS_FILE_THUMB ? FS_THUMB_MAX_SIDE : fs_pyramid_min_side());
			if (!small) {
				snprintf(err, errlen, "out of memory for a reduced copy");
				goto out;
			}
			w = png_atomic(path, small, err, errlen);
			fs_image_free(small);
			small = NULL;
		}
		if (w)
			goto out;
		made |= 1 << kind;
	}
	if (tiled && !(only_missing && fs_pyramid_exists(data_dir, key))) {
		if (fs_pyramid_write(data_dir, key, img, err, errlen))
			goto out;
		made |= FS_DERIVED_PYRAMID;
	}
	rc = 0;
out:
	fs_image_free(small);
	if (created)
		*created = made;
	return rc;
}

int fs_files_have_derived(const char *data_dir, const char *key)
{
	char path[4096];
	for (int kind = FS_FILE_WORK; kind <= FS_FILE_THUMB; kind++)
		if (fs_file_path(data_dir, kind, key, path, sizeof path) || !exists(path))
			return 0;
	return key_wants_pyramid(data_dir, key) != 1 || fs_pyramid_exists(data_dir, key);
}

long long fs_files_derived_bytes(const char *data_dir, const char *key)
{
	char path[4096];
	long long sum = 0;
	struct stat st;
	for (int kind = FS_FILE_WORK; kind <= FS_FILE_THUMB; kind++)
		if (!fs_file_path(data_dir, kind, key, path, sizeof path) && stat(path, &st) == 0 &&
		    S_ISREG(st.st_mode))
			sum += (long long)st.st_size;
	return sum + fs_pyramid_bytes(data_dir, key);
}

long long fs_files_derived_estimate(int width, int height, int bytes_per_sample)
{
	long long px = (long long)width * height;
	/* working image: header + samples (deflate adds at most ~0.1 % and 4
	 * bytes a band to what it cannot shrink); display PNG: at most one
	 * byte a pixel plus filter bytes (an overview for a tiled image, but
	 * counted whole); pyramid; thumbnail: at most 256 x 256 */
	long long work = 24 + bytes_per_sample * px + bytes_per_sample * px / 500 + 16 * ((long long)height / 64 + 1);
	long long pyr = 0, display = px + height;
	if (fs_pyramid_wanted(width, height)) {
		/* a tiled image's display copy is an overview whose longer side
		 * is the pyramid's threshold (fs_files_store_derived): counting
		 * it full size asked a 100 MP upload for 84 MB it never takes */
		long long side = fs_pyramid_min_side(), lo = width < height ? width : height,
			  hi = width < height ? height : width;
		long long other = lo * side / hi + 1;
		display = side * other + other;
		pyr = fs_pyramid_estimate(width, height);
	}
	return work + display + pyr + 65536 + 2 * FS_THUMB_MAX_SIDE * FS_THUMB_MAX_SIDE;
}

void fs_files_remove_derived(const char *data_dir, const char *key)
{
	char path[4096];
	fs_pyramid_remove(data_dir, key);
	for (int kind = FS_FILE_WORK; kind <= FS_FILE_THUMB; kind++)
		if (!fs_file_path(data_dir, kind, key, path, sizeof path))
			unlink(path);
}

void fs_files_remove_original(const char *data_dir, const char *sha256)
{
	char path[4096];
	if (!fs_file_path(data_dir, FS_FILE_ORIGINAL, sha256, path, sizeof path))
		unlink(path);
}
