/*
 * annot_id_index: a tubercle's id with its position in its list, and the
 * order (id, then position) both halves of the annotation file sort them
 * in - the reader to find duplicate ids (the first holder keeps it), the
 * writer to find an edge's tubercles (the first of its id, as the reader
 * keeps). Plain values: no ownership.
 */
#ifndef FS_ANNOT_ID_INDEX_H
#define FS_ANNOT_ID_INDEX_H

#include <stddef.h>

typedef struct {
	int id;
	size_t idx;
} fs_annot_id_idx;

/* qsort comparator of two fs_annot_id_idx: by id, then by position. */
int fs_annot_cmp_id_idx(const void *a, const void *b);

#endif
