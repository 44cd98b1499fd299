/*
 * csv_read.c - reading back fishscale measure's CSV files (csv_read.h).
 */
#include "cli/csv_read.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Splits one CSV line (RFC 4180, modified in place) into at most max fields. */
static int csv_split(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;
	for (;;) {
		if (n == max)
			return n;
		if (*p == '"') {
			char *w = ++p;
			f[n++] = w;
			for (;;) {
				if (!*p)
					break;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			*w = 0;
			while (*p && *p != ',')
				p++;
		} else {
			f[n++] = p;
			while (*p && *p != ',' && *p != '\n' && *p != '\r')
				p++;
		}
		if (*p != ',') {
			*p = 0;
			return n;
		}
		*p++ = 0;
	}
}

int fs_csv_open(fs_csv_reader *r, const char *path, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->f = fopen(path, "r");
	if (!r->f) {
		r->open_errno = errno;
		snprintf(err, errlen, "%.300s: %s", path, strerror(r->open_errno));
		return -1;
	}
	if (getline(&r->line, &r->cap, r->f) < 0) {
		snprintf(err, errlen, "%.300s: empty file", path);
		return -1;
	}
	r->ln = 1;
	/* the header's fields are kept while the lines reuse the line buffer */
	r->header = strdup(r->line);
	if (!r->header) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->nh = csv_split(r->header, r->head, FS_CSV_MAX_COLS);
	return 0;
}

int fs_csv_column(const fs_csv_reader *r, const char *name)
{
	for (int i = 0; i < r->nh; i++)
		if (!strcmp(r->head[i], name))
			return i;
	return -1;
}

int fs_csv_next(fs_csv_reader *r, char **v)
{
	if (getline(&r->line, &r->cap, r->f) < 0)
		return -1;
	r->ln++;
	if (r->line[0] == '\n' || r->line[0] == '\r' || !r->line[0])
		return 0;
	return csv_split(r->line, v, FS_CSV_MAX_COLS);
}

void fs_csv_close(fs_csv_reader *r)
{
	free(r->header);
	free(r->line);
	if (r->f)
		fclose(r->f);
	memset(r, 0, sizeof *r);
}

int fs_csv_num(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return end != s && (!*end || *end == '\r' || *end == '\n') && !errno && isfinite(*v) ? 0 : -1;
}
