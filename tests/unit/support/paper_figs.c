/*
 * paper_figs.c - the published figures' list (paper_figs.h).
 */
#include "paper_figs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int paper_figs_read(paper_fig *figs, int max)
{
	FILE *f = fopen(PAPER_FIGS_DIR "expected.csv", "r");
	if (!f)
		return -1;
	char line[1024];
	int n = 0;
	if (!fgets(line, sizeof line, f)) { /* the header */
		fclose(f);
		return -1;
	}
	while (n < max && fgets(line, sizeof line, f)) {
		char *fields[8] = {0}, *save = NULL;
		int k = 0;
		for (char *tok = strtok_r(line, ",", &save); tok && k < 8; tok = strtok_r(NULL, ",", &save))
			fields[k++] = tok;
		if (k < 6)
			continue;
		paper_fig *p = &figs[n];
		memset(p, 0, sizeof *p);
		snprintf(p->file, sizeof p->file, "%.150s", fields[0]);
		snprintf(p->genus, sizeof p->genus, "%.60s", fields[2]);
		size_t pl = strcspn(fields[0], "_");
		snprintf(p->paper, sizeof p->paper, "%.*s", (int)(pl < 7 ? pl : 7), fields[0]);
		p->d_um = atof(fields[4]);
		p->s_um = atof(fields[5]);
		p->ratio = p->d_um / (p->d_um + p->s_um);
		n++;
	}
	fclose(f);
	return n;
}

size_t paper_fig_names(const char **names, size_t max)
{
	static paper_fig figs[PAPER_FIGS_MAX];
	int n = paper_figs_read(figs, PAPER_FIGS_MAX);
	size_t k = 0;
	for (int i = 0; i < n && k < max; i++)
		names[k++] = figs[i].file;
	return k;
}
