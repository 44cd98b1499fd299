/*
 * router.c - matching a request against the route table (see router.h).
 */
#include "routes/router.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {name}: a parameter; names ending in "id" take positive integers only. */
static int match_segment(const char *pat, size_t plen, const char *seg, size_t slen, fs_req *r, int *np,
			 const char **pstart)
{
	if (plen >= 2 && pat[0] == '{' && pat[plen - 1] == '}') {
		if (slen == 0 || *np >= FS_MAX_PARAMS)
			return 0;
		int numeric = plen >= 4 && pat[plen - 3] == 'i' && pat[plen - 2] == 'd';
		long long v = 0;
		if (numeric) {
			if (slen > 18 || seg[0] == '0')
				return 0;
			for (size_t i = 0; i < slen; i++) {
				if (seg[i] < '0' || seg[i] > '9')
					return 0;
				v = v * 10 + (seg[i] - '0');
			}
		}
		if (r) {
			r->ids[*np] = v;
			r->params[*np] = pstart ? *pstart : NULL;
		}
		(*np)++;
		return 1;
	}
	return plen == slen && !memcmp(pat, seg, slen);
}

static int path_matches(const char *pattern, const char *path, fs_req *r)
{
	int np = 0;
	const char *p = pattern, *s = path;
	while (*p == '/' && *s == '/') {
		p++;
		s++;
		const char *pe = strchr(p, '/'), *se = strchr(s, '/');
		size_t plen = pe ? (size_t)(pe - p) : strlen(p);
		size_t slen = se ? (size_t)(se - s) : strlen(s);
		const char *segstart = s;
		if (!match_segment(p, plen, s, slen, r, &np, &segstart))
			return 0;
		p += plen;
		s += slen;
	}
	if (*p || *s)
		return 0;
	if (r)
		r->nparams = np;
	return 1;
}

const fs_route *fs_route_match(const fs_route *table, size_t n, const char *method, const char *path, fs_req *r,
			       int *status, char *allow, size_t allowlen)
{
	size_t used = 0;
	if (allowlen)
		allow[0] = 0;
	int path_seen = 0;
	for (size_t i = 0; i < n; i++) {
		if (!path_matches(table[i].pattern, path, NULL))
			continue;
		path_seen = 1;
		if (!strcmp(table[i].method, method) ||
		    (!strcmp(method, "HEAD") && !strcmp(table[i].method, "GET"))) {
			path_matches(table[i].pattern, path, r);
			*status = 200;
			return &table[i];
		}
		if (allowlen && !strstr(allow, table[i].method)) {
			int k = snprintf(allow + used, allowlen - used, "%s%s", used ? ", " : "", table[i].method);
			if (k > 0 && (size_t)k < allowlen - used)
				used += (size_t)k;
		}
	}
	*status = path_seen ? 405 : 404;
	return NULL;
}
