/* annotation.c - releasing annotation documents and sets (see annotation.h). */
#include "store/annotation.h"

#include <stdlib.h>
#include <string.h>

void fs_annot_set_free(fs_annot_set *s)
{
	if (!s)
		return;
	fs_tubercle_list_free(&s->tubercles);
	fs_edge_list_free(&s->edges);
	cJSON_Delete(s->history);
	memset(s, 0, sizeof *s);
}

void fs_annot_doc_free(fs_annot_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->sets && i < d->n_sets; i++)
		fs_annot_set_free(&d->sets[i]);
	free(d->sets);
	memset(d, 0, sizeof *d);
}
