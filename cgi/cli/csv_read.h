/*
 * csv_read.h - reading back the CSV files `fishscale measure` writes
 * (tubercles, edges, summary) for `fishscale chart`: the header, then the
 * lines one at a time split into fields (RFC 4180 quoting), a column found
 * by its header name, a field read as a number.
 *
 * Ownership: a reader is the caller's value; fs_csv_open fills it and the
 * caller ends it with fs_csv_close whatever happened (an unopened reader
 * too). The fields handed out point into the reader's own buffers: the
 * header's stay valid until fs_csv_close, a line's until the next
 * fs_csv_next. The path is only read.
 */
#ifndef FS_CLI_CSV_READ_H
#define FS_CLI_CSV_READ_H

#include <stddef.h>
#include <stdio.h>

#define FS_CSV_MAX_COLS 64

typedef struct fs_csv_reader {
	FILE *f;
	char *line, *header; /* the last line read; the header's copy, split in place */
	size_t cap;
	char *head[FS_CSV_MAX_COLS]; /* the header's fields */
	int nh;
	int ln;                      /* the last line's number, the header's 1 */
	int open_errno;              /* why fopen failed, 0 when it did not */
} fs_csv_reader;

/* Opens path and reads its header: 0, or -1 with err ("PATH: reason",
 * "PATH: empty file", "out of memory"); open_errno then tells a file that
 * could not be opened (ENOENT: absent) from one that could. */
int fs_csv_open(fs_csv_reader *r, const char *path, char *err, size_t errlen);
/* The index of the header's column name, -1 without it. */
int fs_csv_column(const fs_csv_reader *r, const char *name);
/* Reads the next line into v (FS_CSV_MAX_COLS fields at most): the number
 * of fields, 0 for an empty line, -1 at the file's end. */
int fs_csv_next(fs_csv_reader *r, char **v);
void fs_csv_close(fs_csv_reader *r);
/* A whole field as a finite number: 0, or -1 (empty, trailing text, out
 * of range, not finite); a line's end after it is allowed. */
int fs_csv_num(const char *s, double *v);

#endif
