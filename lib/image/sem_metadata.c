/* sem_metadata.c - pixel size from vendor SEM text and resolution tags (see sem_metadata.h). */
#include "image/sem_metadata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int plausible_sem(double um)
{
	return isfinite(um) && um >= FS_SEM_MIN_UM && um <= FS_SEM_MAX_UM;
}

/* strtod on a bounded, possibly unterminated span; returns chars consumed (0 = none). */
static size_t parse_number(const char *p, size_t len, double *v)
{
	char tmp[64];
	size_t n = len < sizeof tmp - 1 ? len : sizeof tmp - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	char *end;
	*v = strtod(tmp, &end);
	return (size_t)(end - tmp);
}

static const char *find_bounded(const char *hay, size_t len, const char *needle)
{
	size_t nl = strlen(needle);
	for (size_t i = 0; i + nl <= len; i++)
		if (memcmp(hay + i, needle, nl) == 0)
			return hay + i;
	return NULL;
}

/* Length of the unit at p in µm, and how many bytes the unit name took. */
static double unit_um(const char *p, size_t len, size_t *used)
{
	static const struct {
		const char *name;
		double um;
	} units[] = {
		{"pm", 1e-6}, {"nm", 1e-3}, {"um", 1.0}, {"\xc2\xb5m", 1.0}, {"\xce\xbcm", 1.0},
		{"\xb5m", 1.0}, {"mm", 1e3}, {"m", 1e6},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t n = strlen(units[i].name);
		if (n <= len && memcmp(p, units[i].name, n) == 0) {
			*used = n;
			return units[i].um;
		}
	}
	return 0;
}

int fs_sem_zeiss_pixel_size(const char *text, size_t len, double *um_per_px)
{
	if (!text || !um_per_px)
		return -1;
	/* "Image Pixel Size" is the calibrated one; plain "Pixel Size" is older firmware. */
	static const char *keys[] = {"Image Pixel Size", "Pixel Size"};
	for (size_t k = 0; k < 2; k++) {
		const char *p = find_bounded(text, len, keys[k]);
		if (!p)
			continue;
		const char *end = text + len;
		p += strlen(keys[k]);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= end || *p != '=')
			continue;
		p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		double v;
		size_t used = parse_number(p, (size_t)(end - p), &v);
		if (!used)
			continue;
		p += used;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		double u = unit_um(p, (size_t)(end - p), &used);
		if (u <= 0)
			continue;
		if (plausible_sem(v * u)) {
			*um_per_px = v * u;
			return 0;
		}
	}
	return -1;
}

/* Next line of [*pos, len): start and length without the line break. */
static int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *ll)
{
	if (*pos >= len)
		return 0;
	size_t s = *pos, e = s;
	while (e < len && text[e] != '\n' && text[e] != '\r' && text[e] != '\0')
		e++;
	*line = text + s;
	*ll = e - s;
	*pos = e + 1;
	return 1;
}

static void trim(const char **p, size_t *n)
{
	while (*n && (**p == ' ' || **p == '\t')) {
		(*p)++;
		(*n)--;
	}
	while (*n && ((*p)[*n - 1] == ' ' || (*p)[*n - 1] == '\t'))
		(*n)--;
}

int fs_sem_fei_pixel_size(const char *text, size_t len, double *um_per_px)
{
	if (!text || !um_per_px)
		return -1;
	size_t pos = 0, ll;
	const char *line;
	int in_scan = 0;
	while (next_line(text, len, &pos, &line, &ll)) {
		trim(&line, &ll);
		if (ll && line[0] == '[') {
			in_scan = ll == 6 && memcmp(line, "[Scan]", 6) == 0;
			continue;
		}
		if (!in_scan || ll < 10 || memcmp(line, "PixelWidth", 10) != 0)
			continue;
		const char *v = line + 10;
		size_t vl = ll - 10;
		trim(&v, &vl);
		if (!vl || *v != '=')
			continue;
		v++;
		vl--;
		trim(&v, &vl);
		double m;
		size_t used = parse_number(v, vl, &m);
		if (used && used == vl && plausible_sem(m * 1e6)) {
			*um_per_px = m * 1e6;
			return 0;
		}
	}
	return -1;
}

int fs_resolution_um_per_px(double pixels_per_unit, double unit_um_len, double *um_per_px)
{
	if (!um_per_px || !isfinite(pixels_per_unit) || !isfinite(unit_um_len) || pixels_per_unit <= 0 ||
	    unit_um_len <= 0)
		return -1;
	double um = unit_um_len / pixels_per_unit;
	if (!isfinite(um) || um <= 0 || um >= FS_RESOLUTION_MAX_UM)
		return -1;
	*um_per_px = um;
	return 0;
}
