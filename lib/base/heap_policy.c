/*
 * heap_policy.c - keep large image blocks in the heap (see heap_policy.h).
 */
#include "base/heap_policy.h"

#include <malloc.h>

int fs_heap_keep_images(void)
{
	/* Setting either threshold also stops glibc's own adaptive raising of
	 * them, so both are set. */
	int ok = mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
	ok = mallopt(M_TRIM_THRESHOLD, 128 * 1024 * 1024) && ok;
	return ok ? 0 : -1;
}
