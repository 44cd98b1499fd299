/* pyramid.c - the display pyramid's tiles (see pyramid.h). */
#include "store/pyramid.h"
#include "store/image_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "image/image_io.h"

static int min_side = FS_TILE_MIN_SIDE_DEFAULT;

void fs_pyramid_set_min_side(int side)
{
	min_side = side;
}

int fs_pyramid_min_side(void)
{
	return min_side;
}

int fs_pyramid_wanted(int width, int height)
{
	return min_side > 0 && (width > min_side || height > min_side);
}

int fs_pyramid_levels(int width, int height)
{
	int n = 1;
	while (width > FS_TILE_SIDE || height > FS_TILE_SIDE) {
		width = (width + 1) / 2;
		height = (height + 1) / 2;
		n++;
	}
	return n;
}

long long fs_pyramid_estimate(int width, int height)
{
	/* the levels add up to 4/3 of the pixels; a JPEG tile at quality 85
	 * stays below a byte a pixel even for noise, plus its headers */
	long long px = (long long)width * height;
	long long tiles = px / (FS_TILE_SIDE * FS_TILE_SIDE) * 4 / 3 + 64;
	return px * 4 / 3 + tiles * 1024;
}

int fs_pyramid_reldir(const char *key, char *out, size_t outlen)
{
	if (!fs_file_key_valid(key))
		return -1;
	int n = snprintf(out, outlen, "pyramid/%s", key);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

static int dir_path(const char *data_dir, const char *key, char *out, size_t outlen)
{
	char rel[128];
	if (fs_pyramid_reldir(key, rel, sizeof rel))
		return -1;
	int n = snprintf(out, outlen, "%s/%s", data_dir, rel);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

int fs_pyramid_exists(const char *data_dir, const char *key)
{
	char p[4096];
	struct stat st;
	return !dir_path(data_dir, key, p, sizeof p) && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Sum of the file sizes in dir (remove = 1: removes them and dir). */
static long long walk(const char *dir, int remove)
{
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	long long sum = 0;
	struct dirent *e;
	int fd = dirfd(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct stat st;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			sum += (long long)st.st_size;
		if (remove)
			unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	if (remove)
		rmdir(dir);
	return sum;
}

long long fs_pyramid_bytes(const char *data_dir, const char *key)
{
	char p[4096];
	return dir_path(data_dir, key, p, sizeof p) ? 0 : walk(p, 0);
}

void fs_pyramid_remove(const char *data_dir, const char *key)
{
	char p[4096];
	if (!dir_path(data_dir, key, p, sizeof p))
		walk(p, 1);
}

typedef struct writer {
	int dirfd;
	char *err;
	size_t errlen;
} writer;

static int put_tile(writer *wr, int z, int tx, int ty, const unsigned char *px, int w, int h, size_t stride)
{
	unsigned char *jpg = NULL;
	size_t len = 0;
	if (fs_jpeg_encode_gray8(px, w, h, stride, FS_TILE_QUALITY, &jpg, &len, wr->err, wr->errlen))
		return -1;
	char name[64];
	snprintf(name, sizeof name, "%d-%d-%d.jpg", z, tx, ty);
	int fd = openat(wr->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	int rc = -1;
	if (fd >= 0) {
		size_t off = 0;
		while (off < len) {
			ssize_t k = write(fd, jpg + off, len - off);
			if (k <= 0 && errno != EINTR)
				break;
			if (k > 0)
				off += (size_t)k;
		}
		rc = off == len ? 0 : -1;
		if (close(fd) != 0)
			rc = -1;
	}
	if (rc)
		snprintf(wr->err, wr->errlen, "cannot write a pyramid tile: %s", strerror(errno));
	free(jpg);
	return rc;
}

/* The tiles of one band of a level: rows [y0, y0 + rows) of a w-wide level. */
static int put_band(writer *wr, int z, int y0, const unsigned char *band, int w, int rows)
{
	for (int x = 0; x < w; x += FS_TILE_SIDE) {
		int tw = w - x < FS_TILE_SIDE ? w - x : FS_TILE_SIDE;
		if (put_tile(wr, z, x / FS_TILE_SIDE, y0 / FS_TILE_SIDE, band + x, tw, rows, (size_t)w))
			return -1;
	}
	return 0;
}

/* Halves rows of src (w wide) into dst ((w + 1) / 2 wide); an odd last row
 * or column is averaged with itself. */
static void halve_rows(const unsigned char *r0, const unsigned char *r1, int w, unsigned char *dst)
{
	int w2 = (w + 1) / 2;
	for (int x = 0; x < w2; x++) {
		int a = 2 * x, b = 2 * x + 1 < w ? 2 * x + 1 : 2 * x;
		dst[x] = (unsigned char)((r0[a] + r0[b] + r1[a] + r1[b] + 2) / 4);
	}
}

static unsigned char to8(float v)
{
	if (!(v > 0.0f))
		return 0;
	if (v >= 1.0f)
		return 255;
	return (unsigned char)(v * 255.0f + 0.5f);
}

/* A compact image's (image.h) display bytes per sample code: to8 of the
 * code's float value, so the tiles are those of its float copy; caller
 * frees. NULL on out of memory. */
static unsigned char *compact_table(int bits)
{
	size_t n = (size_t)1 << bits;
	unsigned char *t = malloc(n);
	for (size_t k = 0; t && k < n; k++)
		t[k] = to8(fs_image_compact_value(bits, (unsigned)k));
	return t;
}

/* Row y of img as display bytes into dst (w of them). */
static void row_bytes(const fs_image *img, const unsigned char *table, int y, unsigned char *dst)
{
	int w = img->width;
	size_t at = (size_t)y * (size_t)w;
	if (img->bits == 8) {
		const unsigned char *src = (const unsigned char *)img->px + at;
		for (int x = 0; x < w; x++)
			dst[x] = table[src[x]];
	} else if (img->bits == 16) {
		const unsigned short *src = (const unsigned short *)img->px + at;
		for (int x = 0; x < w; x++)
			dst[x] = table[src[x]];
	} else {
		const float *src = img->data + at;
		for (int x = 0; x < w; x++)
			dst[x] = to8(src[x]);
	}
}

static int write_levels(writer *wr, const fs_image *img)
{
	int w = img->width, h = img->height, rc = -1;
	int w1 = (w + 1) / 2, h1 = (h + 1) / 2;
	unsigned char *band = malloc((size_t)FS_TILE_SIDE * (size_t)w);
	unsigned char *level = malloc((size_t)w1 * (size_t)h1); /* level 1, then each next in place */
	unsigned char *table = img->bits ? compact_table(img->bits) : NULL;
	if (!band || !level || (img->bits && !table)) {
		snprintf(wr->err, wr->errlen, "out of memory for the pyramid");
		goto out;
	}
	/* level 0 band by band from the samples, level 1 made on the way */
	for (int y = 0; y < h; y += FS_TILE_SIDE) {
		int rows = h - y < FS_TILE_SIDE ? h - y : FS_TILE_SIDE;
		for (int r = 0; r < rows; r++)
			row_bytes(img, table, y + r, band + (size_t)r * w);
		if (put_band(wr, 0, y, band, w, rows))
			goto out;
		for (int r = 0; r < rows; r += 2) {
			const unsigned char *r0 = band + (size_t)r * w;
			const unsigned char *r1 = r + 1 < rows ? r0 + w : r0;
			halve_rows(r0, r1, w, level + (size_t)((y + r) / 2) * w1);
		}
	}
	/* the smaller levels: each fits in memory beside the previous */
	int z = 1;
	w = w1;
	h = h1;
	for (;;) {
		for (int y = 0; y < h; y += FS_TILE_SIDE) {
			int rows = h - y < FS_TILE_SIDE ? h - y : FS_TILE_SIDE;
			if (put_band(wr, z, y, level + (size_t)y * w, w, rows))
				goto out;
		}
		if (w <= FS_TILE_SIDE && h <= FS_TILE_SIDE)
			break;
		int nw = (w + 1) / 2, nh = (h + 1) / 2;
		/* in place: output row y only reads input rows 2y and 2y + 1 >= y */
		for (int y = 0; y < nh; y++) {
			const unsigned char *r0 = level + (size_t)(2 * y) * w;
			const unsigned char *r1 = 2 * y + 1 < h ? r0 + w : r0;
			halve_rows(r0, r1, w, band); /* band has room for a row of any level */
			memcpy(level + (size_t)y * nw, band, (size_t)nw);
		}
		w = nw;
		h = nh;
		z++;
	}
	rc = 0;
out:
	free(band);
	free(level);
	free(table);
	return rc;
}

int fs_pyramid_write(const char *data_dir, const char *key, const fs_image *img, char *err, size_t errlen)
{
	char final[4096], tmp[4200], top[4096];
	if (!img || !(img->data || img->px) || img->width <= 0 || img->height <= 0 ||
	    dir_path(data_dir, key, final, sizeof final)) {
		snprintf(err, errlen, "no image or a bad key for the pyramid");
		return -1;
	}
	snprintf(top, sizeof top, "%s/pyramid", data_dir);
	if (mkdir(top, 0750) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create the pyramid directory: %s", strerror(errno));
		return -1;
	}
	snprintf(tmp, sizeof tmp, "%s.tmp-XXXXXX", final);
	if (!mkdtemp(tmp)) {
		snprintf(err, errlen, "cannot create a temporary directory: %s", strerror(errno));
		return -1;
	}
	(void)chmod(tmp, 0750);
	writer wr = {open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err, errlen};
	int rc = -1;
	if (wr.dirfd < 0) {
		snprintf(err, errlen, "cannot open a temporary directory: %s", strerror(errno));
		goto out;
	}
	if (write_levels(&wr, img))
		goto out;
	/* one sync for all the tiles, then the directory appears whole */
	if (syncfs(wr.dirfd) != 0) {
		snprintf(err, errlen, "cannot sync the pyramid: %s", strerror(errno));
		goto out;
	}
	if (rename(tmp, final) != 0) {
		if (errno == EEXIST || errno == ENOTEMPTY) {
			rc = 0; /* another process made the same pyramid first */
			goto out;
		}
		snprintf(err, errlen, "cannot put the pyramid in place: %s", strerror(errno));
		goto out;
	}
	tmp[0] = 0;
	rc = 0;
out:
	if (wr.dirfd >= 0)
		close(wr.dirfd);
	if (tmp[0])
		walk(tmp, 1);
	return rc;
}
