/*
 * compare_csv.c - the Compare table as CSV (see compare_csv.h).
 */
#include "store/compare_csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/export_csv.h"

static int num(fs_buf *b, double v)
{
	return isfinite(v) ? fs_buf_printf(b, ",%.6g", v) : fs_buf_putc(b, ',');
}

static int text(fs_buf *b, const char *s)
{
	return fs_buf_putc(b, ',') || fs_csv_field(b, s ? s : "");
}

int fs_csv_compare(fs_buf *b, const fs_chart_set *sets, size_t n, const char *const *versions)
{
	if (fs_buf_puts(b, "kind,set_id,name,group,calibrated,unit,n_tubercles,n_edges,mean_diameter,sd_diameter,"
			   "mean_space,sd_space,fill_ratio,hexagonalness,suggested_genus,"
			   "classification_confidence") ||
	    fs_buf_puts(b, versions ? ",measurement_version\n" : "\n"))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const fs_chart_set *s = &sets[i];
		if (fs_buf_printf(b, "set,%lld", s->id) || text(b, s->name) || text(b, s->group) ||
		    fs_buf_printf(b, ",%d,%s,%d,%d", s->calibrated ? 1 : 0, s->calibrated ? "um" : "px", s->n_tubercles,
				  s->n_edges) ||
		    num(b, s->d_mean) || num(b, s->d_sd) || num(b, s->s_mean) || num(b, s->s_sd) ||
		    num(b, s->fill_ratio) || num(b, s->hexagonalness) || text(b, s->genus) ||
		    text(b, s->confidence) || (versions && text(b, versions[i])) || fs_buf_putc(b, '\n'))
			return -1;
	}
	fs_chart_group *g = NULL;
	size_t ng = 0;
	if (fs_chart_groups(sets, n, &g, &ng))
		return -1;
	int rc = 0;
	for (size_t k = 0; k < ng && !rc; k++) {
		int tubercles = 0, edges = 0;
		for (size_t i = 0; i < n; i++)
			if (sets[i].group && !strcmp(sets[i].group, g[k].label)) {
				tubercles += sets[i].n_tubercles;
				edges += sets[i].n_edges;
			}
		rc = fs_buf_puts(b, "group_mean,") || text(b, g[k].label) || text(b, g[k].label) ||
		     fs_buf_printf(b, ",%d,um,%d,%d", g[k].n_calibrated == g[k].n_sets ? 1 : 0, tubercles, edges) ||
		     num(b, g[k].d_mean) || num(b, g[k].d_sd) || num(b, g[k].s_mean) || num(b, g[k].s_sd) ||
		     num(b, g[k].fill_ratio) || num(b, g[k].hexagonalness) || fs_buf_puts(b, versions ? ",,,\n" : ",,\n");
	}
	free(g);
	return rc ? -1 : 0;
}
