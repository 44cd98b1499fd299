#include "store/annot_id_index.h"

int fs_annot_cmp_id_idx(const void *a, const void *b)
{
	const fs_annot_id_idx *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}
