/*
 * status_file.c - atomic replacement of small JSON files by
 * write-temp, fsync, rename (the way cgit publishes its cache files).
 */
#include "agent/status_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The rename is only durable once the directory entry is on disk. */
static void sync_dir_of(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s", path);
	int fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int fs_status_file_write_text(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	int fd = -1;
	int made = 0;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid()) >= sizeof tmp) {
		snprintf(err, errlen, "status file path too long");
		return -1;
	}
	/* A temp file left by a crashed earlier process with our pid is ours to replace. */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		goto fail;
	}
	made = 1;
	if (write_all(fd, text, len) || fsync(fd)) {
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		snprintf(err, errlen, "cannot close %s: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path)) {
		snprintf(err, errlen, "cannot rename to %s: %s", path, strerror(errno));
		goto fail;
	}
	sync_dir_of(path);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	return -1;
}

int fs_status_file_write(const char *path, const cJSON *obj, char *err, size_t errlen)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s) {
		snprintf(err, errlen, "out of memory serialising the status");
		return -1;
	}
	int rc = fs_status_file_write_text(path, s, strlen(s), err, errlen);
	cJSON_free(s);
	return rc;
}

int fs_status_file_read(const char *path, cJSON **out, char *err, size_t errlen)
{
	int rc = -1;
	char *buf = NULL;
	struct stat st;
	*out = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s is not a regular file", path);
		goto out;
	}
	if ((unsigned long long)st.st_size > FS_STATUS_FILE_MAX) {
		snprintf(err, errlen, "%s is too large (%lld bytes)", path, (long long)st.st_size);
		goto out;
	}
	/* The file is never rewritten in place, so its size cannot change under us. */
	size_t n = (size_t)st.st_size, got = 0;
	buf = malloc(n + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(err, errlen, "cannot read %s: %s", path, k < 0 ? strerror(errno) : "short read");
			goto out;
		}
		got += (size_t)k;
	}
	buf[n] = 0;
	cJSON *j = cJSON_ParseWithLength(buf, n);
	if (!j || !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		snprintf(err, errlen, "%s does not hold a JSON object", path);
		goto out;
	}
	*out = j;
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}
