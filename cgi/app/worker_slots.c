/* worker_slots.c - a few lock files as a counting semaphore between processes (see worker_slots.h). */
#include "app/worker_slots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int fs_worker_slot_take(const char *dir, const char *name, int n, long wait_ms, char *err, size_t errlen)
{
	if (n < 1)
		n = 1;
	for (long waited = 0;; waited += 50) {
		for (int k = 0; k < n; k++) {
			char path[1400];
			snprintf(path, sizeof path, "%s/%s-%d.lock", dir, name, k);
			int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
			if (fd < 0) {
				snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
				return -1;
			}
			if (flock(fd, LOCK_EX | LOCK_NB) == 0)
				return fd;
			close(fd);
		}
		if (waited >= wait_ms) {
			snprintf(err, errlen, "%d %s already running; try again later", n,
				 n == 1 ? "reading is" : "readings are");
			return -1;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}
