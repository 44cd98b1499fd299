/* tubercle.c - growable tubercle and edge lists (see tubercle.h). */
#include "image/tubercle.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **items, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	if (ncap > SIZE_MAX / elem)
		return -1;
	void *p = realloc(*items, ncap * elem);
	if (!p)
		return -1;
	*items = p;
	*cap = ncap;
	return 0;
}

int fs_tubercle_list_append(fs_tubercle_list *l, const fs_tubercle *t)
{
	if (grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
		return -1;
	l->items[l->n++] = *t;
	return 0;
}

void fs_tubercle_list_free(fs_tubercle_list *l)
{
	if (!l)
		return;
	free(l->items);
	memset(l, 0, sizeof *l);
}

int fs_edge_list_append(fs_edge_list *l, const fs_edge *e)
{
	if (grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items))
		return -1;
	l->items[l->n++] = *e;
	return 0;
}

void fs_edge_list_free(fs_edge_list *l)
{
	if (!l)
		return;
	free(l->items);
	memset(l, 0, sizeof *l);
}

static const char *const source_names[] = {"extracted", "manual", "lattice", "agent"};

const char *fs_source_name(fs_source s)
{
	if ((unsigned)s < sizeof source_names / sizeof source_names[0])
		return source_names[s];
	return "extracted";
}

int fs_source_parse(const char *name, fs_source *out)
{
	for (size_t i = 0; i < sizeof source_names / sizeof source_names[0]; i++) {
		if (name && strcmp(name, source_names[i]) == 0) {
			*out = (fs_source)i;
			return 0;
		}
	}
	return -1;
}
