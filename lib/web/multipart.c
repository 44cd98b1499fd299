/* multipart.c - streaming multipart/form-data parser (see multipart.h). */
#include "web/multipart.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define STAGE_BYTES 16384
#define MAX_PARAM 1024	/* longest field name or filename accepted */
#define MAX_CTYPE 256

enum { S_PREAMBLE, S_AFTER_DELIM, S_HEADERS, S_DATA, S_EPILOGUE, S_FAILED };
enum { AD_START, AD_DASH, AD_PAD, AD_CR };

struct fs_multipart {
	fs_multipart_cb cb;
	void *ud;
	/* "\n--" boundary: the CR before the LF is optional and held apart */
	char delim[3 + FS_MULTIPART_MAX_BOUNDARY + 1];
	size_t dlen;
	int state, ad, pending_cr, nparts, cb_rc;
	size_t match;
	char hdr[FS_MULTIPART_MAX_HEADER + 1];
	size_t hlen;
	char stage[STAGE_BYTES];
	size_t nstage;
	char err[200];
};

static int fail(fs_multipart *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(fs_multipart *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->err, sizeof(m->err), fmt, ap);
	va_end(ap);
	m->state = S_FAILED;
	return -1;
}

static int callback_failed(fs_multipart *m, int rc, const char *which)
{
	m->cb_rc = rc;
	return fail(m, "%s callback aborted parsing (%d)", which, rc);
}

/*
 * Finds parameter `want` (case-insensitive) in "; a=b; c=\"d\"" and copies
 * its unquoted value to out. Returns 1 found, 0 absent, -1 malformed or
 * longer than cap - 1.
 */
static int get_param(const char *s, const char *want, char *out, size_t cap)
{
	int found = 0;

	while (*s) {
		while (*s == ';' || *s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		const char *name = s;
		while (*s && *s != '=' && *s != ';')
			s++;
		const char *name_end = s;
		while (name_end > name && (name_end[-1] == ' ' || name_end[-1] == '\t'))
			name_end--;
		if (*s != '=')
			continue; /* a flag without value: ignore */
		s++;
		while (*s == ' ' || *s == '\t')
			s++;
		int match = !found && (size_t)(name_end - name) == strlen(want) &&
			    strncasecmp(name, want, strlen(want)) == 0;
		size_t n = 0;
		if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1])
					s++;
				if (match) {
					if (n + 1 >= cap)
						return -1;
					out[n++] = *s;
				}
			}
			if (*s != '"')
				return -1;
			s++;
		} else {
			const char *v = s;
			while (*s && *s != ';')
				s++;
			const char *e = s;
			while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if (match) {
				if ((size_t)(e - v) + 1 > cap)
					return -1;
				memcpy(out, v, (size_t)(e - v));
				n = (size_t)(e - v);
			}
		}
		if (match) {
			out[n] = 0;
			found = 1;
		}
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s && *s != ';')
			return -1;
	}
	return found;
}

static int is_bchar(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || strchr("'()+_,-./:=? ", c) != NULL;
}

fs_multipart *fs_multipart_new(const char *content_type_header,
			       const fs_multipart_cb *cb, void *ud,
			       char *err, size_t errlen)
{
	static const char type[] = "multipart/form-data";
	char boundary[FS_MULTIPART_MAX_BOUNDARY + 2];
	fs_multipart *m = NULL;
	const char *h = content_type_header;

	if (!h || !cb || !cb->part_begin || !cb->part_data || !cb->part_end) {
		snprintf(err, errlen, "missing Content-Type or callbacks");
		return NULL;
	}
	while (*h == ' ' || *h == '\t')
		h++;
	if (strncasecmp(h, type, sizeof(type) - 1) != 0 ||
	    (h[sizeof(type) - 1] && h[sizeof(type) - 1] != ';' &&
	     h[sizeof(type) - 1] != ' ')) {
		snprintf(err, errlen, "Content-Type is not multipart/form-data");
		return NULL;
	}
	int r = get_param(h + sizeof(type) - 1, "boundary", boundary, sizeof(boundary));
	size_t blen = r == 1 ? strlen(boundary) : 0;
	if (r != 1 || blen == 0 || blen > FS_MULTIPART_MAX_BOUNDARY ||
	    boundary[blen - 1] == ' ') {
		snprintf(err, errlen, "multipart boundary missing or invalid");
		return NULL;
	}
	for (size_t i = 0; i < blen; i++)
		if (!is_bchar(boundary[i])) {
			snprintf(err, errlen, "multipart boundary has an invalid character");
			return NULL;
		}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->cb = *cb;
	m->ud = ud;
	m->dlen = (size_t)snprintf(m->delim, sizeof(m->delim), "\n--%s", boundary);
	m->state = S_PREAMBLE;
	m->match = 1; /* the first delimiter may open the body: as if after a LF */
	return m;
}

static int flush(fs_multipart *m)
{
	if (m->nstage) {
		int rc = m->cb.part_data(m->ud, m->stage, m->nstage);
		m->nstage = 0;
		if (rc)
			return callback_failed(m, rc, "part_data");
	}
	return 0;
}

static int emit(fs_multipart *m, const char *p, size_t n)
{
	if (m->state != S_DATA || n == 0)
		return 0;
	if (n > sizeof(m->stage) - m->nstage) {
		if (flush(m))
			return -1;
		if (n >= sizeof(m->stage)) {
			int rc = m->cb.part_data(m->ud, p, n);
			return rc ? callback_failed(m, rc, "part_data") : 0;
		}
	}
	memcpy(m->stage + m->nstage, p, n);
	m->nstage += n;
	return 0;
}

/* A partial delimiter match turned out to be data. */
static int emit_held(fs_multipart *m)
{
	int rc = 0;
	if (m->pending_cr)
		rc = emit(m, "\r", 1);
	if (!rc && m->match)
		rc = emit(m, m->delim, m->match);
	m->pending_cr = 0;
	m->match = 0;
	return rc;
}

static int header_line(fs_multipart *m, char *line, char *name, char *filename,
		       int *has_filename, char *ctype, int *has_cd)
{
	char *colon = strchr(line, ':');
	if (!colon)
		return fail(m, "malformed part header line");
	*colon = 0;
	char *v = colon + 1;
	while (*v == ' ' || *v == '\t')
		v++;
	size_t vn = strlen(v);
	while (vn && (v[vn - 1] == ' ' || v[vn - 1] == '\t'))
		v[--vn] = 0;
	if (strcasecmp(line, "Content-Disposition") == 0) {
		if (strncasecmp(v, "form-data", 9) != 0 || (v[9] && v[9] != ';' && v[9] != ' '))
			return fail(m, "part Content-Disposition is not form-data");
		int r = get_param(v + 9, "name", name, MAX_PARAM);
		if (r != 1)
			return fail(m, "part Content-Disposition has no valid name");
		r = get_param(v + 9, "filename", filename, MAX_PARAM);
		if (r < 0)
			return fail(m, "part Content-Disposition has an invalid filename");
		*has_filename = r == 1;
		*has_cd = 1;
	} else if (strcasecmp(line, "Content-Type") == 0) {
		if (vn >= MAX_CTYPE)
			return fail(m, "part Content-Type too long");
		memcpy(ctype, v, vn + 1);
	}
	return 0;
}

/* hdr holds the header block without CRs, ending in "\n\n". */
static int begin_part(fs_multipart *m)
{
	char name[MAX_PARAM], filename[MAX_PARAM], ctype[MAX_CTYPE] = "";
	int has_filename = 0, has_cd = 0, rc;
	char *line = m->hdr;

	m->hdr[m->hlen] = 0;
	/* unfold continuation lines (obsolete but legal) */
	for (char *p = m->hdr; (p = strchr(p, '\n')); p++)
		if (p[1] == ' ' || p[1] == '\t')
			*p = ' ';
	while (*line && *line != '\n') {
		char *nl = strchr(line, '\n');
		*nl = 0;
		if (header_line(m, line, name, filename, &has_filename, ctype, &has_cd))
			return -1;
		line = nl + 1;
	}
	if (!has_cd)
		return fail(m, "part without Content-Disposition");
	rc = m->cb.part_begin(m->ud, name, has_filename ? filename : NULL,
			      ctype[0] ? ctype : NULL);
	if (rc)
		return callback_failed(m, rc, "part_begin");
	m->state = S_DATA;
	m->match = 0;
	m->pending_cr = 0;
	return 0;
}

static int on_delimiter(fs_multipart *m)
{
	if (m->state == S_DATA) {
		if (flush(m))
			return -1;
		int rc = m->cb.part_end(m->ud);
		if (rc)
			return callback_failed(m, rc, "part_end");
	}
	m->state = S_AFTER_DELIM;
	m->ad = AD_START;
	m->match = 0;
	m->pending_cr = 0;
	return 0;
}

static int start_headers(fs_multipart *m)
{
	if (m->nparts >= FS_MULTIPART_MAX_PARTS)
		return fail(m, "more than %d parts", FS_MULTIPART_MAX_PARTS);
	m->nparts++;
	m->state = S_HEADERS;
	m->hlen = 0;
	return 0;
}

static int after_delim(fs_multipart *m, char c)
{
	switch (m->ad) {
	case AD_START:
		if (c == '-') {
			m->ad = AD_DASH;
			return 0;
		}
		/* fall through */
	case AD_PAD:
		if (c == ' ' || c == '\t') {
			m->ad = AD_PAD;
			return 0;
		}
		if (c == '\r') {
			m->ad = AD_CR;
			return 0;
		}
		if (c == '\n')
			return start_headers(m);
		return fail(m, "malformed delimiter line");
	case AD_DASH:
		if (c != '-')
			return fail(m, "malformed closing delimiter");
		m->state = S_EPILOGUE;
		return 0;
	default:
		if (c != '\n')
			return fail(m, "malformed delimiter line");
		return start_headers(m);
	}
}

static int header_byte(fs_multipart *m, char c)
{
	if (c == '\r')
		return 0;
	if (c == 0) /* the header block is parsed as a C string */
		return fail(m, "NUL byte in part headers");
	if (m->hlen >= FS_MULTIPART_MAX_HEADER)
		return fail(m, "part headers longer than %d bytes", FS_MULTIPART_MAX_HEADER);
	m->hdr[m->hlen++] = c;
	if (c == '\n' && (m->hlen == 1 || m->hdr[m->hlen - 2] == '\n'))
		return begin_part(m);
	return 0;
}

/* The delimiter matcher shared by preamble and data. delim[0] is '\n' and
 * no other byte of it is '\n' or '\r', so a mismatch never needs to look
 * back into the held bytes. */
static int body_byte(fs_multipart *m, char c)
{
	if (m->match) {
		if (c == m->delim[m->match]) {
			if (++m->match == m->dlen)
				return on_delimiter(m);
			return 0;
		}
		if (emit_held(m))
			return -1;
	}
	if (c == '\n') {
		m->match = 1;
		return 0;
	}
	if (m->pending_cr) {
		m->pending_cr = 0;
		if (emit(m, "\r", 1))
			return -1;
	}
	if (c == '\r') {
		m->pending_cr = 1;
		return 0;
	}
	return emit(m, &c, 1);
}

int fs_multipart_feed(fs_multipart *m, const char *data, size_t len)
{
	size_t i = 0;

	if (m->state == S_FAILED)
		return -1;
	while (i < len) {
		switch (m->state) {
		case S_EPILOGUE:
			i = len;
			continue;
		case S_DATA:
			if (!m->match && !m->pending_cr) {
				/* fast path: plain bytes up to the next line end */
				size_t j = i;
				while (j < len && data[j] != '\n' && data[j] != '\r')
					j++;
				if (emit(m, data + i, j - i))
					return -1;
				i = j;
				if (i == len)
					continue;
			}
			/* fall through */
		case S_PREAMBLE:
			if (body_byte(m, data[i++]))
				return -1;
			break;
		case S_AFTER_DELIM:
			if (after_delim(m, data[i++]))
				return -1;
			break;
		case S_HEADERS:
			if (header_byte(m, data[i++]))
				return -1;
			break;
		default:
			return -1;
		}
	}
	return m->state == S_DATA ? flush(m) : 0;
}

int fs_multipart_finish(fs_multipart *m)
{
	if (m->state == S_FAILED)
		return -1;
	if (m->state != S_EPILOGUE)
		return fail(m, "body ended before the closing delimiter");
	return 0;
}

const char *fs_multipart_error(const fs_multipart *m)
{
	return m ? m->err : "";
}

int fs_multipart_callback_rc(const fs_multipart *m)
{
	return m ? m->cb_rc : 0;
}

void fs_multipart_free(fs_multipart *m)
{
	free(m);
}
