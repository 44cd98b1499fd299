/*
 * heap_policy.h - how the process's heap treats the large image buffers.
 *
 * Every extraction allocates and frees several full-size float images
 * (12 MB each at 2048x1536). glibc hands such blocks to the kernel on free
 * and maps them afresh on the next request, so each request pays one page
 * fault per 4 KiB (about 3,000 faults, 15 ms on the reference machine,
 * more than the whole image decode). fs_heap_keep_images() makes the heap
 * keep blocks up to 64 MB and trim only beyond 128 MB of free top, so a
 * long-lived worker reuses the memory of the previous request. The price is
 * that a worker's resident size stays at its high-water mark (about
 * 8 x the float size of the largest image it has processed).
 *
 * Call once at the start of a process (FastCGI worker, CLI, agent worker).
 * Returns 0, or -1 when the allocator refused the settings (nothing breaks:
 * allocation then only stays slower).
 */
#ifndef FS_HEAP_POLICY_H
#define FS_HEAP_POLICY_H

#include <stddef.h>

int fs_heap_keep_images(void);

/*
 * Maps in every page of a large new block at once (Linux 5.14 and later:
 * MADV_POPULATE_WRITE), before the caller writes it: a 400 MB image is
 * otherwise 100,000 page faults on its first write, which cost more than a
 * third of decoding an 8-bit TIFF into it. Blocks under 16 MB, other
 * kernels and a refusal are left as they are (the first write then faults
 * the pages in, as without it). Never changes the block's contents.
 */
void fs_heap_prefault(void *p, size_t bytes);

#endif
