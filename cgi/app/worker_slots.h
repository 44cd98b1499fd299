/*
 * worker_slots.h - at most n processes of a kind doing their heavy part at
 * once, across processes and without a daemon: n lock files
 * <dir>/<name>-<k>.lock, one flock(2) each. A process holds a slot while
 * it keeps the descriptor open; the kernel frees it when the process
 * ends, however it ends. Used by the data-bar reader (one is started
 * detached after each upload, so a burst of uploads would otherwise run
 * as many Tesseract readings at once).
 */
#ifndef FS_WORKER_SLOTS_H
#define FS_WORKER_SLOTS_H

#include <stddef.h>

/*
 * Takes a free slot of n, waiting up to wait_ms (polling every 50 ms) for
 * one to free: the descriptor that holds it (close it to give the slot
 * back), or -1 with err (none free in time, or the files cannot be made).
 */
int fs_worker_slot_take(const char *dir, const char *name, int n, long wait_ms, char *err, size_t errlen);

#endif
