/*
 * heap_policy.c - keep large image blocks in the heap (see heap_policy.h).
 */
#include "base/heap_policy.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

int fs_heap_keep_images(void)
{
	/* Setting either threshold also stops glibc's own adaptive raising of
	 * them, so both are set. */
	int ok = mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
	ok = mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024) && ok;
	return ok ? 0 : -1;
}

void fs_heap_prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	if (!p || bytes < ((size_t)16 << 20))
		return;
	/* the whole pages inside the block (madvise takes page-aligned ranges) */
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), b = ((uintptr_t)p + bytes) & ~(pg - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)bytes;
#endif
}
