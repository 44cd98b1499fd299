/*
 * compare_chart.c - the Compare chart (see compare_chart.h): groups, axes,
 * the three parts and the samples behind the distributions.
 */
#include "analysis/compare_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define WIDTH 820.0
#define PLOT_L 72.0
#define PLOT_R 590.0
#define LEGEND_X 612.0
#define FONT 11.0
#define SMALL 9.0

static const fs_color INK = {34, 34, 34, 255};
static const fs_color MUTED = {110, 110, 110, 255};
static const fs_color GRID = {228, 228, 228, 255};
static const fs_color WHITE = {255, 255, 255, 255};

/* Okabe & Ito's colours, ordered so that neighbours differ in lightness too */
static const fs_color palette[] = {
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255},
	{204, 121, 167, 255}, {213, 94, 0, 255}, {86, 180, 233, 255},
};
#define N_PALETTE (sizeof palette / sizeof palette[0])
#define N_SHAPES 5 /* circle, square, triangle up, diamond, triangle down */

/* genus regions: light fills, each a different grey level */
static const fs_color region_palette[] = {
	{68, 119, 170, 255}, {238, 102, 119, 255}, {34, 136, 51, 255}, {204, 187, 68, 255},
	{102, 204, 238, 255}, {170, 51, 119, 255}, {187, 187, 187, 255}, {120, 80, 40, 255},
};
#define N_REGION (sizeof region_palette / sizeof region_palette[0])

static fs_color with_alpha(fs_color c, unsigned char a)
{
	c.a = a;
	return c;
}

/* ---- groups ---- */

static const char *group_of(const fs_chart_set *s)
{
	return s->group && *s->group ? s->group : NULL;
}

int fs_chart_groups(const fs_chart_set *sets, size_t n, fs_chart_group **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	fs_chart_group *g = NULL;
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		const char *label = group_of(&sets[i]);
		if (!label)
			continue;
		size_t k = 0;
		while (k < ng && strcmp(g[k].label, label))
			k++;
		if (k < ng)
			continue;
		fs_chart_group *p = realloc(g, (ng + 1) * sizeof *g);
		if (!p) {
			free(g);
			return -1;
		}
		g = p;
		memset(&g[ng], 0, sizeof g[ng]);
		snprintf(g[ng].label, sizeof g[ng].label, "%s", label);
		g[ng].style = (int)ng;
		ng++;
	}
	for (size_t k = 0; k < ng; k++) {
		fs_chart_group *e = &g[k];
		double sd = 0, ss = 0, sf = 0, sh = 0;
		size_t nf = 0, nh = 0;
		for (size_t i = 0; i < n; i++) {
			const char *label = group_of(&sets[i]);
			if (!label || strcmp(label, e->label))
				continue;
			e->n_sets++;
			if (sets[i].calibrated && isfinite(sets[i].d_mean) && isfinite(sets[i].s_mean)) {
				e->n_calibrated++;
				sd += sets[i].d_mean;
				ss += sets[i].s_mean;
			}
			if (isfinite(sets[i].fill_ratio))
				sf += sets[i].fill_ratio, nf++;
			if (isfinite(sets[i].hexagonalness))
				sh += sets[i].hexagonalness, nh++;
		}
		e->d_mean = e->n_calibrated ? sd / e->n_calibrated : NAN;
		e->s_mean = e->n_calibrated ? ss / e->n_calibrated : NAN;
		e->fill_ratio = nf ? sf / nf : NAN;
		e->hexagonalness = nh ? sh / nh : NAN;
		double vd = 0, vs = 0;
		for (size_t i = 0; i < n && e->n_calibrated > 1; i++) {
			const char *label = group_of(&sets[i]);
			if (!label || strcmp(label, e->label) || !sets[i].calibrated || !isfinite(sets[i].d_mean) ||
			    !isfinite(sets[i].s_mean))
				continue;
			vd += (sets[i].d_mean - e->d_mean) * (sets[i].d_mean - e->d_mean);
			vs += (sets[i].s_mean - e->s_mean) * (sets[i].s_mean - e->s_mean);
		}
		e->d_sd = !e->n_calibrated ? NAN : e->n_calibrated > 1 ? sqrt(vd / (e->n_calibrated - 1)) : 0;
		e->s_sd = !e->n_calibrated ? NAN : e->n_calibrated > 1 ? sqrt(vs / (e->n_calibrated - 1)) : 0;
	}
	*out = g;
	*n_out = ng;
	return 0;
}

static int style_of(const fs_chart_set *s, const fs_chart_group *g, size_t ng)
{
	const char *label = group_of(s);
	for (size_t k = 0; label && k < ng; k++)
		if (!strcmp(g[k].label, label))
			return g[k].style;
	return FS_CHART_STYLE_NONE;
}

static fs_color style_color(int style)
{
	return style < 0 ? fs_rgba(90, 90, 90, 255) : palette[style % N_PALETTE];
}

/* Draws marker `style` centred on (x, y) (bounding box centre) of radius r. */
static void marker(fs_drawing *d, int style, double x, double y, double r, int hollow, double sw)
{
	fs_color c = style_color(style);
	int shape = style < 0 ? 0 : style % N_SHAPES;
	/* past the first five groups the shapes come back hollow */
	if (style >= N_SHAPES)
		hollow = 1;
	if (style < 0)
		hollow = 1;
	fs_color fill = hollow ? with_alpha(WHITE, 230) : c;
	fs_color stroke = hollow ? c : INK;
	double w = hollow ? sw * 1.8 : sw;
	switch (shape) {
	case 0:
		fs_draw_circle(d, x, y, r, fill, stroke, w);
		break;
	case 1:
		fs_draw_rect(d, x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8, fill, stroke, w);
		break;
	case 2: {
		double p[] = {x, y - r * 1.1, x + r * 1.1, y + r * 1.1, x - r * 1.1, y + r * 1.1};
		fs_draw_polygon(d, p, 3, fill, stroke, w);
		break;
	}
	case 3: {
		double p[] = {x, y - r * 1.25, x + r * 1.25, y, x, y + r * 1.25, x - r * 1.25, y};
		fs_draw_polygon(d, p, 4, fill, stroke, w);
		break;
	}
	default: {
		double p[] = {x - r * 1.1, y - r * 1.1, x + r * 1.1, y - r * 1.1, x, y + r * 1.1};
		fs_draw_polygon(d, p, 3, fill, stroke, w);
		break;
	}
	}
}

/* ---- axes ---- */

typedef struct axis {
	double lo, hi, step; /* data */
	double p0, p1;       /* drawing units of lo and hi */
} axis;

static double nice_step(double range, int target)
{
	if (!(range > 0))
		return 1;
	double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;
	return (f < 1.5 ? 1 : f < 2.25 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10) * mag;
}

static axis make_axis(double hi, int target, double p0, double p1)
{
	axis a = {0, hi, 1, p0, p1};
	if (!(hi > 0) || !isfinite(hi))
		hi = 1;
	a.step = nice_step(hi, target);
	a.hi = ceil(hi / a.step - 1e-9) * a.step;
	return a;
}

static double map(const axis *a, double v)
{
	return a->p0 + (v - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

static void tick_label(char *out, size_t n, double v, double step)
{
	int dec = step >= 1 ? (fmod(step, 1) > 1e-9 ? 1 : 0) : (int)ceil(-log10(step) - 1e-9);
	if (step < 1 && fabs(step * pow(10, dec) - round(step * pow(10, dec))) > 1e-6)
		dec++;
	snprintf(out, n, "%.*f", dec, v);
}

/* Plot frame, grid, ticks and axis titles; the plot group's data attributes. */
static void axes(fs_drawing *d, const axis *x, const axis *y, const char *xtitle, const char *ytitle)
{
	char buf[32];
	for (double v = x->lo; v <= x->hi + x->step * 1e-6; v += x->step) {
		double px = map(x, v);
		fs_draw_line(d, px, y->p1, px, y->p0, GRID, 0.8, 0);
		fs_draw_line(d, px, y->p0, px, y->p0 + 4, INK, 0.8, 0);
		tick_label(buf, sizeof buf, v, x->step);
		fs_draw_text(d, px, y->p0 + 15, buf, SMALL + 0.5, FS_ANCHOR_MIDDLE, 0, INK);
	}
	for (double v = y->lo; v <= y->hi + y->step * 1e-6; v += y->step) {
		double py = map(y, v);
		fs_draw_line(d, x->p0, py, x->p1, py, GRID, 0.8, 0);
		fs_draw_line(d, x->p0 - 4, py, x->p0, py, INK, 0.8, 0);
		tick_label(buf, sizeof buf, v, y->step);
		fs_draw_text(d, x->p0 - 7, py + 3.5, buf, SMALL + 0.5, FS_ANCHOR_END, 0, INK);
	}
	fs_draw_text(d, (x->p0 + x->p1) / 2, y->p0 + 34, xtitle, FONT, FS_ANCHOR_MIDDLE, 0, INK);
	fs_draw_text(d, x->p0 - 42, (y->p0 + y->p1) / 2 + fs_draw_text_width(ytitle, FONT) / 2, ytitle, FONT,
		     FS_ANCHOR_START, FS_TEXT_VERTICAL, INK);
}

/* A group's mean on either chart, as one SVG group (attrs, title): its
 * style's marker hollow and large, crossed, so that it reads apart from
 * the sets' small filled markers about it. */
static void group_mean_mark(fs_drawing *d, const char *const *attrs, const char *title, int style, double px,
			    double py)
{
	fs_draw_group_begin(d, 0, 0, attrs, title);
	marker(d, style, px, py, 9, 1, 1.4);
	fs_draw_line(d, px - 3, py, px + 3, py, style_color(style), 1.5, 0);
	fs_draw_line(d, px, py - 3, px, py + 3, style_color(style), 1.5, 0);
	fs_draw_group_end(d);
}

static void frame(fs_drawing *d, const axis *x, const axis *y)
{
	fs_draw_rect(d, x->p0, y->p1, x->p1 - x->p0, y->p0 - y->p1, FS_NONE, INK, 1);
}

static void plot_group(fs_drawing *d, const char *cls, const axis *x, const axis *y)
{
	char v[8][32];
	snprintf(v[0], 32, "%.6g", x->lo);
	snprintf(v[1], 32, "%.6g", x->hi);
	snprintf(v[2], 32, "%.6g", y->lo);
	snprintf(v[3], 32, "%.6g", y->hi);
	snprintf(v[4], 32, "%.6g", x->p0);
	snprintf(v[5], 32, "%.6g", x->p1);
	snprintf(v[6], 32, "%.6g", y->p1);
	snprintf(v[7], 32, "%.6g", y->p0);
	const char *attrs[] = {"class", cls, "data-x-min", v[0], "data-x-max", v[1], "data-y-min", v[2],
			       "data-y-max", v[3], "data-left", v[4], "data-right", v[5], "data-top", v[6],
			       "data-bottom", v[7], NULL};
	fs_draw_group_begin(d, 0, 0, attrs, NULL);
}

/* Writes text wrapped to max_width from (x, y) down; returns the y after it. */
static double wrapped(fs_drawing *d, double x, double y, const char *text, double size, double max_width,
		      fs_color c, int flags)
{
	char line[512];
	size_t len = 0;
	const char *p = text;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t wl = sp ? (size_t)(sp - p) : strlen(p);
		char trial[512];
		snprintf(trial, sizeof trial, "%.*s%s%.*s", (int)len, line, len ? " " : "", (int)wl, p);
		if (len && fs_draw_text_width(trial, size) > max_width) {
			fs_draw_text(d, x, y, line, size, FS_ANCHOR_START, flags, c);
			y += size * 1.35;
			snprintf(line, sizeof line, "%.*s", (int)wl, p);
		} else {
			snprintf(line, sizeof line, "%s", trial);
		}
		len = strlen(line);
		p += wl;
		while (*p == ' ')
			p++;
	}
	if (len) {
		fs_draw_text(d, x, y, line, size, FS_ANCHOR_START, flags, c);
		y += size * 1.35;
	}
	return y;
}

/* Cuts s to fit max_width at size (adding "…"). */
static void fit(char *out, size_t n, const char *s, double size, double max_width)
{
	snprintf(out, n, "%s", s);
	size_t len = strlen(out);
	while (len > 1 && fs_draw_text_width(out, size) > max_width) {
		len--;
		while (len > 0 && (out[len] & 0xc0) == 0x80) /* UTF-8 boundary */
			len--;
		snprintf(out + len, n - len, "…");
	}
}

/* ---- part 1: diameter against space ---- */

static double draw_main(fs_drawing *d, const fs_chart_input *in, const fs_reference *ref,
			const fs_chart_group *g, size_t ng)
{
	const double top = 46, bottom = 470;
	double xmax = 0, ymax = 0;
	for (size_t i = 0; i < ref->n_genera; i++) {
		xmax = fmax(xmax, ref->genera[i].s_max);
		ymax = fmax(ymax, ref->genera[i].d_max);
	}
	for (size_t i = 0; i < ref->n_species; i++) {
		xmax = fmax(xmax, ref->species[i].s);
		ymax = fmax(ymax, ref->species[i].d);
	}
	size_t n_cal = 0;
	for (size_t i = 0; i < in->n; i++) {
		const fs_chart_set *s = &in->sets[i];
		if (!s->calibrated || !isfinite(s->d_mean) || !isfinite(s->s_mean))
			continue;
		n_cal++;
		xmax = fmax(xmax, s->s_mean + (isfinite(s->s_sd) ? s->s_sd : 0));
		ymax = fmax(ymax, s->d_mean + (isfinite(s->d_sd) ? s->d_sd : 0));
	}
	axis x = make_axis(xmax * 1.04, 9, PLOT_L, PLOT_R);
	axis y = make_axis(ymax * 1.04, 8, bottom, top);

	fs_draw_text(d, PLOT_L, 22, "Mean tubercle diameter against mean intertubercular space", FONT + 2,
		     FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	fs_draw_text(d, PLOT_L, 37, "calibrated sets, mean ± SD; behind them the published genus ranges and species",
		     SMALL, FS_ANCHOR_START, 0, MUTED);
	plot_group(d, "plot plot-main", &x, &y);
	fs_draw_rect(d, x.p0, y.p1, x.p1 - x.p0, y.p0 - y.p1, WHITE, FS_NONE, 0);
	axes(d, &x, &y, "Mean intertubercular space S (µm)", "Mean tubercle diameter D (µm)");

	/* genus regions, last in precedence first so the classifier's first choice is on top */
	for (size_t k = ref->n_genera; k-- > 0;) {
		const fs_ref_genus *e = &ref->genera[k];
		fs_color c = region_palette[k % N_REGION];
		char title[512], prec[32];
		snprintf(title, sizeof title, "%s (precedence %zu): D %.2f–%.2f µm, S %.2f–%.2f µm; %s", e->name, k + 1,
			 e->d_min, e->d_max, e->s_min, e->s_max, e->cite);
		snprintf(prec, sizeof prec, "%zu", k + 1);
		const char *attrs[] = {"class", "genus-region", "data-genus", e->name, "data-precedence", prec, NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		double x0 = map(&x, e->s_min), x1 = map(&x, e->s_max), y0 = map(&y, e->d_max), y1 = map(&y, e->d_min);
		fs_draw_rect(d, x0, y0, x1 - x0, y1 - y0, with_alpha(c, 46), with_alpha(c, 210), k % 2 ? 1.2 : 0.9);
		char label[96];
		snprintf(label, sizeof label, "%zu %s", k + 1, e->name);
		double tw = fs_draw_text_width(label, SMALL + 0.5);
		if (tw + 6 < x1 - x0)
			fs_draw_text(d, x0 + 3, y0 + 11, label, SMALL + 0.5, FS_ANCHOR_START, FS_TEXT_ITALIC,
				     with_alpha(c, 255));
		else
			fs_draw_text(d, x1 + 3, (y0 + y1) / 2 + 3, label, SMALL + 0.5, FS_ANCHOR_START,
				     FS_TEXT_ITALIC, with_alpha(c, 255));
		fs_draw_group_end(d);
	}
	/* the papers' species */
	for (size_t i = 0; i < ref->n_species; i++) {
		const fs_ref_species *e = &ref->species[i];
		char title[640];
		snprintf(title, sizeof title, "%s (published): D %.2f µm, S %.2f µm; %s, %s", e->name, e->d, e->s,
			 e->source, e->cite);
		const char *attrs[] = {"class", "reference-species", "data-species", e->name, NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		double px = map(&x, e->s), py = map(&y, e->d);
		fs_draw_line(d, px - 4, py, px + 4, py, INK, 1.3, 0);
		fs_draw_line(d, px, py - 4, px, py + 4, INK, 1.3, 0);
		const char *la[] = {"class", "species-label", NULL};
		fs_draw_group_begin(d, 0, 0, la, NULL);
		fs_draw_text(d, px + 5, py - 4, e->name, SMALL - 0.5, FS_ANCHOR_START, FS_TEXT_ITALIC, MUTED);
		fs_draw_group_end(d);
		fs_draw_group_end(d);
	}
	/* group means, under the sets so that every set stays within reach */
	for (size_t k = 0; k < ng; k++) {
		if (!g[k].n_calibrated)
			continue;
		char dv[32], sv[32], nsets[16], title[400];
		snprintf(dv, sizeof dv, "%.6g", g[k].d_mean);
		snprintf(sv, sizeof sv, "%.6g", g[k].s_mean);
		snprintf(nsets, sizeof nsets, "%zu", g[k].n_calibrated);
		snprintf(title, sizeof title, "%s, mean of %zu set(s): D %.2f µm (SD between sets %.2f), S %.2f µm (%.2f)",
			 g[k].label, g[k].n_calibrated, g[k].d_mean, g[k].d_sd, g[k].s_mean, g[k].s_sd);
		const char *attrs[] = {"class", "group-mean", "data-chart", "main", "data-group", g[k].label,
				       "data-d", dv, "data-s", sv, "data-n", nsets, NULL};
		group_mean_mark(d, attrs, title, g[k].style, map(&x, g[k].s_mean), map(&y, g[k].d_mean));
	}
	/* the sets: error bars, then markers */
	for (size_t i = 0; i < in->n; i++) {
		const fs_chart_set *s = &in->sets[i];
		if (!s->calibrated || !isfinite(s->d_mean) || !isfinite(s->s_mean))
			continue;
		int st = style_of(s, g, ng);
		fs_color c = style_color(st);
		char id[32], dv[32], sv[32], title[512];
		snprintf(id, sizeof id, "%lld", s->id);
		snprintf(dv, sizeof dv, "%.6g", s->d_mean);
		snprintf(sv, sizeof sv, "%.6g", s->s_mean);
		snprintf(title, sizeof title, "%s%s%s%s: D %.2f ± %.2f µm, S %.2f ± %.2f µm, %d tubercles", s->name,
			 group_of(s) ? " (" : "", group_of(s) ? group_of(s) : "", group_of(s) ? ")" : "", s->d_mean,
			 isfinite(s->d_sd) ? s->d_sd : 0, s->s_mean, isfinite(s->s_sd) ? s->s_sd : 0, s->n_tubercles);
		const char *attrs[] = {"class", "set-point", "data-chart", "main", "data-set-id", id, "data-group",
				       group_of(s) ? group_of(s) : "", "data-d", dv, "data-s", sv, NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		double px = map(&x, s->s_mean), py = map(&y, s->d_mean);
		fs_color bar = with_alpha(c, 200);
		if (isfinite(s->s_sd) && s->s_sd > 0) {
			double a = map(&x, fmax(0, s->s_mean - s->s_sd)), b = map(&x, s->s_mean + s->s_sd);
			fs_draw_line(d, a, py, b, py, bar, 1, 0);
			fs_draw_line(d, a, py - 3, a, py + 3, bar, 1, 0);
			fs_draw_line(d, b, py - 3, b, py + 3, bar, 1, 0);
		}
		if (isfinite(s->d_sd) && s->d_sd > 0) {
			double a = map(&y, fmax(0, s->d_mean - s->d_sd)), b = map(&y, s->d_mean + s->d_sd);
			fs_draw_line(d, px, a, px, b, bar, 1, 0);
			fs_draw_line(d, px - 3, a, px + 3, a, bar, 1, 0);
			fs_draw_line(d, px - 3, b, px + 3, b, bar, 1, 0);
		}
		marker(d, st, px, py, 4.5, 0, 0.8);
		fs_draw_group_end(d);
	}
	if (!n_cal)
		fs_draw_text(d, (x.p0 + x.p1) / 2, y.p1 + 24,
			     "No calibrated set: the sets are on the fill-ratio chart below.", FONT,
			     FS_ANCHOR_MIDDLE, 0, MUTED);
	frame(d, &x, &y);
	fs_draw_group_end(d);

	/* the legend */
	double ly = top + 6;
	const char *la[] = {"class", "legend", NULL};
	fs_draw_group_begin(d, 0, 0, la, NULL);
	fs_draw_text(d, LEGEND_X, ly, "Sets", FONT, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	ly += 17;
	int any_ungrouped = 0;
	for (size_t i = 0; i < in->n; i++)
		any_ungrouped |= !group_of(&in->sets[i]);
	for (size_t k = 0; k < ng; k++) {
		char text[200], cut[200];
		snprintf(text, sizeof text, "%s (%zu)", g[k].label, g[k].n_sets);
		fit(cut, sizeof cut, text, SMALL + 1, WIDTH - LEGEND_X - 24);
		marker(d, g[k].style, LEGEND_X + 6, ly - 3.5, 4.5, 0, 0.8);
		fs_draw_text(d, LEGEND_X + 18, ly, cut, SMALL + 1, FS_ANCHOR_START, 0, INK);
		ly += 16;
	}
	if (any_ungrouped) {
		marker(d, FS_CHART_STYLE_NONE, LEGEND_X + 6, ly - 3.5, 4.5, 0, 0.8);
		fs_draw_text(d, LEGEND_X + 18, ly, "no group", SMALL + 1, FS_ANCHOR_START, 0, INK);
		ly += 16;
	}
	if (ng) {
		fs_draw_circle(d, LEGEND_X + 6, ly - 3.5, 7, with_alpha(WHITE, 230), MUTED, 2.5);
		fs_draw_text(d, LEGEND_X + 18, ly, "group mean (of set means)", SMALL + 1, FS_ANCHOR_START, 0, INK);
		ly += 18;
	}
	fs_draw_line(d, LEGEND_X + 2, ly - 3.5, LEGEND_X + 10, ly - 3.5, INK, 1.3, 0);
	fs_draw_line(d, LEGEND_X + 6, ly - 7.5, LEGEND_X + 6, ly + 0.5, INK, 1.3, 0);
	fs_draw_text(d, LEGEND_X + 18, ly, "published species", SMALL + 1, FS_ANCHOR_START, 0, INK);
	ly += 24;
	fs_draw_text(d, LEGEND_X, ly, "Genus ranges", FONT, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	ly += 4;
	ly = wrapped(d, LEGEND_X, ly + 10, "(number = the classifier's precedence where ranges overlap)", SMALL,
		     WIDTH - LEGEND_X - 8, MUTED, 0);
	for (size_t k = 0; k < ref->n_genera; k++) {
		fs_color c = region_palette[k % N_REGION];
		fs_draw_rect(d, LEGEND_X + 1, ly - 9, 11, 10, with_alpha(c, 46), with_alpha(c, 210), k % 2 ? 1.2 : 0.9);
		char text[96];
		snprintf(text, sizeof text, "%zu %s", k + 1, ref->genera[k].name);
		fs_draw_text(d, LEGEND_X + 18, ly, text, SMALL + 1, FS_ANCHOR_START, FS_TEXT_ITALIC, INK);
		ly += 15;
	}
	fs_draw_group_end(d);

	/* under the plot: the precedence and the sources */
	double ty = bottom + 56;
	char prec[512];
	fs_reference_precedence_text(ref, prec, sizeof prec);
	ty = wrapped(d, PLOT_L - 40, ty, prec, SMALL, WIDTH - PLOT_L + 20, INK, 0);
	ty += 3;
	for (size_t i = 0; i < ref->n_cites; i++) {
		char text[640];
		snprintf(text, sizeof text, "%s: %s", ref->cites[i].key, ref->cites[i].text);
		ty = wrapped(d, PLOT_L - 40, ty, text, SMALL - 1, WIDTH - PLOT_L + 20, MUTED, 0);
	}
	return fmax(ty, ly) + 8;
}

/* ---- part 2: fill ratio and hexagonalness ---- */

static int cmp_ratio(const void *a, const void *b)
{
	double x = (*(const double *const *)a)[0], y = (*(const double *const *)b)[0];
	return x < y ? -1 : x > y;
}

static double draw_ratio(fs_drawing *d, const fs_chart_input *in, const fs_reference *ref,
			 const fs_chart_group *g, size_t ng)
{
	double top = 86, bottom = 380;
	/* the species' fill ratios, numbered along the top in rows that do not overlap */
	size_t ns = ref->n_species;
	double (*sp)[2] = ns ? calloc(ns, sizeof *sp) : NULL; /* ratio, index */
	double **order = ns ? calloc(ns, sizeof *order) : NULL;
	if (ns && (!sp || !order)) {
		free(sp);
		free(order);
		ns = 0;
	}
	for (size_t i = 0; i < ns; i++) {
		sp[i][0] = ref->species[i].d / (ref->species[i].d + ref->species[i].s);
		sp[i][1] = (double)i;
		order[i] = sp[i];
	}
	if (ns)
		qsort(order, ns, sizeof *order, cmp_ratio);
	axis x = make_axis(1, 10, PLOT_L, PLOT_R);
	axis y = make_axis(1, 5, bottom, top);
	fs_draw_text(d, PLOT_L, 22, "Fill ratio and hexagonalness (no calibration needed)", FONT + 2,
		     FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	fs_draw_text(d, PLOT_L, 37,
		     "every set, uncalibrated ones only here; fill ratio = D / (D + S); numbers: published species",
		     SMALL, FS_ANCHOR_START, 0, MUTED);
	plot_group(d, "plot plot-ratio", &x, &y);
	fs_draw_rect(d, x.p0, y.p1, x.p1 - x.p0, y.p0 - y.p1, WHITE, FS_NONE, 0);
	axes(d, &x, &y, "Fill ratio D / (D + S)", "Hexagonalness");
	double row_end[4] = {-1e9, -1e9, -1e9, -1e9};
	for (size_t k = 0; k < ns; k++) {
		size_t i = (size_t)order[k][1];
		const fs_ref_species *e = &ref->species[i];
		double px = map(&x, order[k][0]);
		char num[32], title[640];
		snprintf(num, sizeof num, "%zu", k + 1);
		int row = 0;
		while (row < 3 && row_end[row] > px - 5)
			row++;
		row_end[row] = px + 5;
		snprintf(title, sizeof title, "%s (published): fill ratio %.3f (D %.2f µm, S %.2f µm); %s", e->name,
			 order[k][0], e->d, e->s, e->source);
		const char *attrs[] = {"class", "reference-species", "data-species", e->name, NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		fs_draw_line(d, px, y.p1, px, y.p0, fs_rgba(90, 90, 90, 110), 0.8, 1);
		fs_draw_line(d, px, y.p1 - 4 - row * 11, px, y.p1, MUTED, 0.8, 0);
		fs_draw_text(d, px, y.p1 - 6 - row * 11, num, SMALL - 0.5, FS_ANCHOR_MIDDLE, 0, INK);
		fs_draw_group_end(d);
	}
	for (size_t k = 0; k < ng; k++) {
		if (!isfinite(g[k].fill_ratio) || !isfinite(g[k].hexagonalness))
			continue;
		char fv[32], hv[32], title[300];
		snprintf(fv, sizeof fv, "%.6g", g[k].fill_ratio);
		snprintf(hv, sizeof hv, "%.6g", g[k].hexagonalness);
		snprintf(title, sizeof title, "%s, mean of %zu set(s): fill ratio %.3f, hexagonalness %.3f", g[k].label,
			 g[k].n_sets, g[k].fill_ratio, g[k].hexagonalness);
		const char *attrs[] = {"class", "group-mean", "data-chart", "ratio", "data-group", g[k].label,
				       "data-fill", fv, "data-hex", hv, NULL};
		group_mean_mark(d, attrs, title, g[k].style, map(&x, g[k].fill_ratio), map(&y, g[k].hexagonalness));
	}
	for (size_t i = 0; i < in->n; i++) {
		const fs_chart_set *s = &in->sets[i];
		if (!isfinite(s->fill_ratio) || !isfinite(s->hexagonalness))
			continue;
		int st = style_of(s, g, ng);
		char id[32], fv[32], hv[32], title[512];
		snprintf(id, sizeof id, "%lld", s->id);
		snprintf(fv, sizeof fv, "%.6g", s->fill_ratio);
		snprintf(hv, sizeof hv, "%.6g", s->hexagonalness);
		snprintf(title, sizeof title, "%s%s%s%s: fill ratio %.3f, hexagonalness %.3f%s", s->name,
			 group_of(s) ? " (" : "", group_of(s) ? group_of(s) : "", group_of(s) ? ")" : "", s->fill_ratio,
			 s->hexagonalness, s->calibrated ? "" : ", uncalibrated");
		const char *attrs[] = {"class", "set-point", "data-chart", "ratio", "data-set-id", id, "data-group",
				       group_of(s) ? group_of(s) : "", "data-fill", fv, "data-hex", hv,
				       "data-calibrated", s->calibrated ? "1" : "0", NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		marker(d, st, map(&x, s->fill_ratio), map(&y, s->hexagonalness), 4.5, 0, 0.8);
		fs_draw_group_end(d);
	}
	frame(d, &x, &y);
	fs_draw_group_end(d);
	/* legend: the numbered species */
	double ly = top + 6;
	const char *la[] = {"class", "legend", NULL};
	fs_draw_group_begin(d, 0, 0, la, NULL);
	fs_draw_text(d, LEGEND_X, ly, "Published species", FONT, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	ly += 16;
	for (size_t k = 0; k < ns; k++) {
		const fs_ref_species *e = &ref->species[(size_t)order[k][1]];
		char text[160], cut[160];
		snprintf(text, sizeof text, "%zu %s %.2f", k + 1, e->name, order[k][0]);
		fit(cut, sizeof cut, text, SMALL + 0.5, WIDTH - LEGEND_X - 6);
		fs_draw_text(d, LEGEND_X, ly, cut, SMALL + 0.5, FS_ANCHOR_START, 0, INK);
		ly += 14;
	}
	fs_draw_group_end(d);
	free(order);
	free(sp);
	return fmax(bottom + 48, ly + 6);
}

/* ---- part 3: distributions ---- */

#define DIST_BINS 30
#define ROW_H 34.0
#define HIST_W 250.0
#define COL_D 250.0
#define COL_S 545.0

/* The upper end of a block's shared axis: the largest mean + 4 SD, or the
 * largest value when smaller (values above it go into the last bin). */
static double dist_hi(const fs_chart_input *in, int calibrated, int diam)
{
	double hi = 0;
	for (size_t i = 0; i < in->n; i++) {
		const fs_chart_set *s = &in->sets[i];
		if (!s->calibrated != !calibrated)
			continue;
		const double *v = diam ? s->d_values : s->s_values;
		size_t n = diam ? s->n_d : s->n_s;
		double m = diam ? s->d_mean : s->s_mean, sd = diam ? s->d_sd : s->s_sd, mx = 0;
		for (size_t k = 0; k < n; k++)
			if (isfinite(v[k]))
				mx = fmax(mx, v[k]);
		double cap = isfinite(m) && isfinite(sd) ? m + 4 * sd : mx;
		hi = fmax(hi, fmin(mx, cap > 0 ? cap : mx));
	}
	return hi > 0 ? hi : 1;
}

static void histogram(fs_drawing *d, double x0, double y0, const axis *a, const double *v, size_t n, double mean,
		      fs_color c)
{
	int counts[DIST_BINS] = {0}, top = 0;
	double bw = (a->hi - a->lo) / DIST_BINS;
	for (size_t k = 0; k < n; k++) {
		if (!isfinite(v[k]))
			continue;
		int b = (int)floor((v[k] - a->lo) / bw);
		b = b < 0 ? 0 : b >= DIST_BINS ? DIST_BINS - 1 : b;
		if (++counts[b] > top)
			top = counts[b];
	}
	fs_draw_line(d, x0, y0, x0 + HIST_W, y0, MUTED, 0.6, 0);
	if (!top) {
		fs_draw_text(d, x0 + 4, y0 - 8, "no values", SMALL - 0.5, FS_ANCHOR_START, 0, MUTED);
		return;
	}
	double unit = HIST_W / DIST_BINS;
	for (int b = 0; b < DIST_BINS; b++) {
		if (!counts[b])
			continue;
		double h = (ROW_H - 10) * counts[b] / top;
		fs_draw_rect(d, x0 + b * unit + 0.5, y0 - h, unit - 1, h, with_alpha(c, 170), FS_NONE, 0);
	}
	if (isfinite(mean)) {
		double px = x0 + (fmin(mean, a->hi) - a->lo) / (a->hi - a->lo) * HIST_W;
		fs_draw_line(d, px, y0 - (ROW_H - 6), px, y0 + 2, INK, 1.2, 0);
	}
}

static double dist_block(fs_drawing *d, const fs_chart_input *in, const fs_chart_group *g, size_t ng,
			 int calibrated, double y)
{
	size_t rows = 0;
	for (size_t i = 0; i < in->n; i++)
		rows += !in->sets[i].calibrated == !calibrated;
	if (!rows)
		return y;
	const char *unit = calibrated ? "µm" : "px";
	axis ad = make_axis(dist_hi(in, calibrated, 1), 5, COL_D, COL_D + HIST_W);
	axis as = make_axis(dist_hi(in, calibrated, 0), 5, COL_S, COL_S + HIST_W);
	char title[64];
	snprintf(title, sizeof title, "Tubercle diameter (%s)", unit);
	fs_draw_text(d, COL_D, y, title, FONT, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	snprintf(title, sizeof title, "Intertubercular space (%s)", unit);
	fs_draw_text(d, COL_S, y, title, FONT, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	fs_draw_text(d, 8, y, calibrated ? "Calibrated sets" : "Uncalibrated sets (pixels)", FONT, FS_ANCHOR_START,
		     FS_TEXT_BOLD, INK);
	y += 8;
	/* shared axes, drawn once above the rows */
	const axis *both[2] = {&ad, &as};
	for (int k = 0; k < 2; k++) {
		const axis *a = both[k];
		for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step) {
			char buf[32];
			double px = map(a, v);
			tick_label(buf, sizeof buf, v, a->step);
			fs_draw_line(d, px, y + 4, px, y + 8, INK, 0.8, 0);
			fs_draw_text(d, px, y + 17, buf, SMALL, FS_ANCHOR_MIDDLE, 0, INK);
		}
		fs_draw_line(d, a->p0, y + 8, a->p1, y + 8, INK, 0.8, 0);
	}
	y += 22;
	for (size_t i = 0; i < in->n; i++) {
		const fs_chart_set *s = &in->sets[i];
		if (!s->calibrated != !calibrated)
			continue;
		int st = style_of(s, g, ng);
		char id[32], head[160], sub[200], cut[200];
		snprintf(id, sizeof id, "%lld", s->id);
		snprintf(sub, sizeof sub, "%s%sD %.2f ± %.2f, S %.2f ± %.2f %s", group_of(s) ? group_of(s) : "",
			 group_of(s) ? " · " : "", s->d_mean, isfinite(s->d_sd) ? s->d_sd : 0, s->s_mean,
			 isfinite(s->s_sd) ? s->s_sd : 0, unit);
		char title[512];
		snprintf(title, sizeof title, "%s: %s (%zu diameters, %zu spaces)", s->name, sub, s->n_d, s->n_s);
		const char *attrs[] = {"class", "set-dist", "data-set-id", id, NULL};
		fs_draw_group_begin(d, 0, 0, attrs, title);
		double base = y + ROW_H - 4;
		if (i % 2 == 0)
			fs_draw_rect(d, 0, y, WIDTH, ROW_H, fs_rgba(246, 246, 246, 255), FS_NONE, 0);
		marker(d, st, 13, y + 11, 4, 0, 0.8);
		fit(head, sizeof head, s->name, FONT - 1, COL_D - 36);
		fs_draw_text(d, 24, y + 15, head, FONT - 1, FS_ANCHOR_START, 0, INK);
		fit(cut, sizeof cut, sub, SMALL - 1, COL_D - 36);
		fs_draw_text(d, 24, y + 27, cut, SMALL - 1, FS_ANCHOR_START, 0, MUTED);
		histogram(d, COL_D, base, &ad, s->d_values, s->n_d, s->d_mean, style_color(st));
		histogram(d, COL_S, base, &as, s->s_values, s->n_s, s->s_mean, style_color(st));
		fs_draw_group_end(d);
		y += ROW_H;
	}
	return y + 16;
}

static double draw_dist(fs_drawing *d, const fs_chart_input *in, const fs_chart_group *g, size_t ng)
{
	fs_draw_text(d, 8, 22, "Distributions per set", FONT + 2, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
	fs_draw_text(d, 8, 37,
		     "histograms on shared axes (values beyond the axis in the last bin); the line marks the mean",
		     SMALL, FS_ANCHOR_START, 0, MUTED);
	double y = 62;
	if (!in->n) {
		fs_draw_text(d, 8, y, "No set chosen.", FONT, FS_ANCHOR_START, 0, MUTED);
		return y + 12;
	}
	y = dist_block(d, in, g, ng, 1, y);
	y = dist_block(d, in, g, ng, 0, y + 6);
	return y;
}

fs_drawing *fs_chart_draw(const fs_chart_input *in, int parts, char *err, size_t errlen)
{
	if (!(parts & FS_CHART_ALL)) {
		snprintf(err, errlen, "no part of the chart asked for");
		return NULL;
	}
	const fs_reference *ref = in->ref ? in->ref : fs_reference_builtin();
	fs_chart_group *g = NULL;
	size_t ng = 0;
	fs_drawing *d = fs_drawing_new(WIDTH, 100, WHITE);
	if (!d || fs_chart_groups(in->sets, in->n, &g, &ng)) {
		fs_drawing_free(d);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	double y = 0;
	if (in->title && *in->title) {
		fs_draw_text(d, 8, 24, in->title, FONT + 5, FS_ANCHOR_START, FS_TEXT_BOLD, INK);
		y = 34;
	}
	static const struct {
		int part;
		const char *cls;
	} order[] = {{FS_CHART_MAIN, "part part-main"}, {FS_CHART_RATIO, "part part-ratio"},
		     {FS_CHART_DIST, "part part-dist"}};
	for (size_t k = 0; k < 3; k++) {
		if (!(parts & order[k].part))
			continue;
		const char *attrs[] = {"class", order[k].cls, NULL};
		fs_draw_group_begin(d, 0, y, attrs, NULL);
		double h = order[k].part == FS_CHART_MAIN    ? draw_main(d, in, ref, g, ng)
			   : order[k].part == FS_CHART_RATIO ? draw_ratio(d, in, ref, g, ng)
							     : draw_dist(d, in, g, ng);
		fs_draw_group_end(d);
		y += h + 10;
	}
	free(g);
	fs_drawing_resize(d, WIDTH, ceil(y));
	return d;
}

/* ---- samples and bins ---- */

int fs_chart_samples(const fs_tubercle_list *t, const fs_edge_list *e, double scale, double **d, size_t *nd,
		     double **s, size_t *ns)
{
	*d = *s = NULL;
	*nd = *ns = 0;
	size_t nt = t ? t->n : 0, ne = e ? e->n : 0;
	double *dv = malloc((nt ? nt : 1) * sizeof *dv), *sv = malloc((ne ? ne : 1) * sizeof *sv);
	/* edges name tubercles by id: an index keeps this O(n log n) */
	fs_tubercle_index *ix = t ? fs_tubercle_index_new(t) : NULL;
	if (!dv || !sv || (t && !ix)) {
		free(dv);
		free(sv);
		fs_tubercle_index_free(ix);
		return -1;
	}
	for (size_t i = 0; i < nt; i++) {
		double v = 2 * t->items[i].radius_px * scale;
		if (isfinite(v))
			dv[(*nd)++] = v;
	}
	for (size_t i = 0; i < ne && ix; i++) {
		int a = fs_tubercle_index_find(ix, e->items[i].id1), b = fs_tubercle_index_find(ix, e->items[i].id2);
		if (a < 0 || b < 0)
			continue;
		const fs_tubercle *p = &t->items[a], *q = &t->items[b];
		double ed = hypot(p->centroid_x - q->centroid_x, p->centroid_y - q->centroid_y) - p->radius_px -
			    q->radius_px;
		double v = (ed > 0 ? ed : 0) * scale;
		if (isfinite(ed) && isfinite(v)) /* no space next to an unmeasured tubercle */
			sv[(*ns)++] = v;
	}
	fs_tubercle_index_free(ix);
	*d = dv;
	*s = sv;
	return 0;
}

int fs_chart_bin(const double *values, size_t n, int max_bins, double *lo, double *width, int *counts)
{
	double mn = INFINITY, mx = -INFINITY;
	for (size_t i = 0; i < n; i++)
		if (isfinite(values[i])) {
			mn = fmin(mn, values[i]);
			mx = fmax(mx, values[i]);
		}
	*lo = 0;
	*width = 0;
	if (!isfinite(mn) || max_bins < 1)
		return 0;
	int nb = mx > mn ? max_bins : 1;
	double w = mx > mn ? (mx - mn) / nb : 1;
	memset(counts, 0, (size_t)nb * sizeof *counts);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;
		int b = (int)((values[i] - mn) / w);
		counts[b >= nb ? nb - 1 : b]++;
	}
	*lo = mn;
	*width = w;
	return nb;
}

void fs_chart_set_fill(fs_chart_set *s, const fs_stats *st, int calibrated, const double *d, size_t nd,
		       const double *sp, size_t ns)
{
	s->calibrated = calibrated;
	s->n_tubercles = st->n_tubercles;
	s->n_edges = st->n_edges;
	/* a tubercle without a diameter is counted, not averaged: with none
	 * measured the statistics' zeros are no mean */
	s->d_mean = nd ? st->mean_diameter_um : NAN;
	s->d_sd = nd ? st->std_diameter_um : NAN;
	s->s_mean = ns ? st->mean_space_um : NAN;
	s->s_sd = ns ? st->std_space_um : NAN;
	s->fill_ratio = ns && nd ? st->size_pitch_ratio : NAN;
	s->hexagonalness = st->hexagonalness_score;
	s->genus = calibrated ? st->suggested_genus : "Unknown";
	s->confidence = calibrated ? st->classification_confidence : "none";
	s->d_values = d;
	s->n_d = nd;
	s->s_values = sp;
	s->n_s = ns;
}
