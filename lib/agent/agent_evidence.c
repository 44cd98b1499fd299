/*
 * agent_evidence.c - whether the image shows a tubercle at a point
 * (fs_agent_evidence_at, agent_fish_tools.h): the editor adds a predicted
 * lattice site only on this evidence and removes a tubercle that lacks it.
 *
 * The measurement is the detector's own: fs_blob_measure (blob_measure.h)
 * on the working image smoothed as the detector smooths before measuring
 * (sigma 5 % of the pitch, at least 0.7 px), with rays up to 0.6 pitch.
 * Nothing is judged in absolute grey levels: the reference is the same
 * measurement on (up to 160 of) the set's own tubercles, so a faint image
 * and a contrasty one are judged alike. Evidence needs all of:
 *  - a blob (3/4 of the rays find its edge, the peak stands above the
 *    surroundings),
 *  - its measured centre within 0.3 pitch of the point (a point between
 *    tubercles converges on a neighbour instead),
 *  - a radius within 0.6..1.4 x the set's median measured radius,
 *  - circularity at least 0.75 x the set's median (a ring of neighbours
 *    around a gap is less round; small tubercles measure less round),
 *  - local contrast at least 0.4 x the set's median (below 0.2 at the
 *    point itself nothing is measured): the contrast is the
 *    spread (standard deviation) of the smoothed image over the disc of
 *    1.5 x the reference radius, which a dome has whichever side of it the
 *    SEM's detector lights, and blank paper, a flat gap or noise lack.
 * Domes with two steps (h34d): a large side-lit dome shows two nested
 * steps, the edge of its bright cap and its base (P1 Fig4, pitch 82 px:
 * about 10 and 20-30 px), and the measurement's strongest step per ray
 * takes one or the other, or some rays the one and some the other (then
 * less round), dome by dome, whatever the centre the rule put there. The
 * set's readings are then two populations; their median falls between
 * them or in one (13.5 px on the outline rule's Fig4 set, 11.8 px on the
 * dome rule's), and the median's band called a third of the set's own
 * domes "no tubercle": the editor deleted real domes under both rules
 * (2 of 51 outline, 4 of 57 dome). Where the set's readings spread over
 * more than EV_TWO_STEPS between their quartiles, a reading is judged
 * against 0.6 x the lower to 1.4 x the upper quartile, circularity
 * against 0.75 x the lower quartile, and a reading too large or not
 * round is read again inside itself (the cap's edge), which may pass in
 * its place. A set whose domes read alike keeps the median's tests.
 * Such a set's tubercle that reads larger than the band but passes every
 * other test is kept (h34l: on P1 Fig2 the band's top, 1.4 x an upper
 * quartile of caps' edges, lay below real bases).
 * A site to add (fs_agent_evidence_at; not a tubercle of the set, whose
 * deletion is judged as before) must also look like the set's own domes
 * (h37h, agent_likeness.c): on P2 Fig1c's low contrast a bright crack, a
 * shadow and grey ground between domes passed every test above (radius
 * 12-18 px against the set's 14.1, circularity 0.45-0.80, contrast
 * 0.6-1.3 of the set's) and the editor added them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_fish_tools.h"
#include "analysis/blob_measure.h"
#include "analysis/blur_tiles.h"
#include "analysis/dome_measure.h"
#include "analysis/preprocess.h"

/* The detector's window (FS_DOME_R0, FS_DOME_R1, dome_measure.h) at its
 * reach of 0.6 pitch, in pitches: the products are exactly 0.09 and 0.48,
 * the factors these measurements always used. */
#define EV_R0 (FS_DOME_R0 * 0.6)
#define EV_R1 (FS_DOME_R1 * 0.6)
#define EV_SAMPLE 160
/* the set's radius readings spread over more than this ratio between their
 * quartiles: its domes show two steps (see the top); the simulator's
 * one-step domes read within 1.06-1.16, the paper figures 1.29-1.91 */
#define EV_TWO_STEPS 1.25
/* a site to add must look like the set's domes at least this fraction of
 * the set's own median likeness (agent_likeness.c; see the top). The set's
 * own domes spread below their median, and the bar lies where real domes
 * and non-domes overlap (h37h): P1 Fig4's known gap at (288, 241) reads
 * 0.75 of the dome rule's median and 0.65 of the outline rule's (0.75 and
 * 0.72 left it empty in runs of 5 turns); P2 Fig1c's crack, shadow and
 * grey ground read -0.22 to 0.62 at the point (up to 0.77 within 0.3 pitch,
 * where the best point must then pass the measurement itself) */
#define EV_LIKE 0.64
/* how far from a predicted site its likeness is looked for, pitches: a
 * site is at least ADD_MIN_SEP (0.75) pitch from the set's tubercles, so
 * the search does not reach theirs (agent_likeness.c) */
#define EV_LIKE_REACH 0.3

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median nearest-neighbour distance over a sample of the set. */
static double sample_pitch(const fs_tubercle_list *t)
{
	size_t step = t->n > EV_SAMPLE ? t->n / EV_SAMPLE : 1, n = 0;
	double *d = malloc((t->n / step + 1) * sizeof(double));
	double p = 0;
	if (!d)
		return 0;
	for (size_t i = 0; i < t->n; i += step) {
		double best = INFINITY;
		for (size_t j = 0; j < t->n; j++) {
			if (j == i)
				continue;
			double dx = t->items[j].centroid_x - t->items[i].centroid_x;
			if (fabs(dx) >= best)
				continue;
			double q = hypot(dx, t->items[j].centroid_y - t->items[i].centroid_y);
			if (q > 0.5 && q < best)
				best = q;
		}
		if (isfinite(best))
			d[n++] = best;
	}
	if (n) {
		qsort(d, n, sizeof(double), cmp_dbl);
		p = d[n / 2];
	}
	free(d);
	return p;
}

/*
 * The detector's two measurements at (x, y): the dome-base rule
 * (fs_dome_measure_lone: as a lone dome, so that an empty gap between
 * tubercles is not pulled onto a circle; rays up to 0.6 pitch as the
 * detector's, radius 0.09 to 0.48 pitch) when its fit quality reaches the
 * detector's 0.45 - it finds
 * the bases of side-lit SEM domes, whose brightest point is not their
 * centre - else the blob rule (fs_blob_measure). 2: dome, 1: blob, 0: none.
 */
static int measure_in(const fs_agent_sess *s, double x, double y, double rmin, double rmax, fs_tubercle *m)
{
	double P = s->ev_pitch;
	int ox, oy, how = 0;
	char err[128];
	fs_tubercle_init(m);
	const fs_image *im = fs_blur_tiles_at(s->ev_blur, x, y, &ox, &oy, err, sizeof err);
	if (!im)
		return 0;
	/* in the tile's coordinates (exact: whole pixels subtracted) */
	double lx = x - ox, ly = y - oy;
	if (fs_dome_measure_lone(im, lx, ly, rmin, rmax, 0, m) == 0 && m->fit_quality >= 0.45 &&
	    isfinite(m->radius_px) && m->radius_px > 0)
		how = 2;
	else {
		fs_tubercle_init(m);
		if (fs_blob_measure(im, lx, ly, 0.6 * P, m) == 0 && m->radius_px > 0)
			how = 1;
	}
	m->centroid_x += ox;
	m->centroid_y += oy;
	return how;
}

static int measure(const fs_agent_sess *s, double x, double y, fs_tubercle *m)
{
	return measure_in(s, x, y, EV_R0 * s->ev_pitch, EV_R1 * s->ev_pitch, m);
}

/* The contrast's spread (see the top) at (x, y), read from (x, y)'s tile;
 * -1 when there is none (out of memory). */
static double spread(const fs_agent_sess *s, double x, double y, double r)
{
	int ox, oy;
	char err[128];
	const fs_image *im = fs_blur_tiles_at(s->ev_blur, x, y, &ox, &oy, err, sizeof err);
	return im ? fs_image_disc_spread(im, x - ox, y - oy, r) : -1;
}

static int reference(fs_agent_sess *s)
{
	char err[128];
	const fs_tubercle_list *t = &s->t;
	if (s->ev_ready > 0)
		return 0;
	/* a failed reference is tried again once the set has grown (an empty
	 * set before the editor's extraction) */
	if (s->ev_ready < 0 && t->n < 2 * s->ev_fail_n + 5)
		return -1;
	s->ev_ready = -1;
	s->ev_fail_n = t->n;
	fs_blur_tiles_free(s->ev_blur);
	s->ev_blur = NULL;
	fs_agent_likeness_free(s);
	if (t->n < 5)
		return -1;
	s->ev_pitch = sample_pitch(t);
	if (!(s->ev_pitch > 2))
		return -1;
	/* A point's measurement reads within about 1.2 pitch of it (the dome's
	 * rays of 1.3 x 0.48 pitch from a centre that may move 0.5 x 0.48
	 * pitch a pass, the blob's of 0.6 pitch from a centre moved up to 0.6
	 * pitch): a halo of 2.5 pitch keeps every read inside the tile, so a
	 * large image is blurred tile by tile with the whole blur's values. */
	s->ev_blur = fs_blur_tiles_new(s->img, fmax(0.7, 0.05 * s->ev_pitch), (int)ceil(2.5 * s->ev_pitch) + 8, 0,
				       err, sizeof(err));
	if (!s->ev_blur)
		return -1;
	size_t step = t->n > EV_SAMPLE ? t->n / EV_SAMPLE : 1, n = 0;
	double *r = malloc((t->n / step + 1) * sizeof(double));
	double *c = malloc((t->n / step + 1) * sizeof(double));
	double *ci = malloc((t->n / step + 1) * sizeof(double));
	if (!r || !c || !ci) {
		free(r);
		free(c);
		free(ci);
		return -1;
	}
	for (size_t i = 0; i < t->n; i += step) {
		fs_tubercle m;
		if (measure(s, t->items[i].centroid_x, t->items[i].centroid_y, &m) > 0) {
			ci[n] = m.circularity;
			r[n++] = m.radius_px;
		}
	}
	if (n >= 3) {
		qsort(r, n, sizeof(double), cmp_dbl);
		s->ev_r = r[n / 2];
		s->ev_r_lo = r[n / 4];
		s->ev_r_hi = r[(3 * n) / 4];
		/* one step per dome: the median's band, as before h34d */
		if (!(s->ev_r_hi > EV_TWO_STEPS * s->ev_r_lo))
			s->ev_r_lo = s->ev_r_hi = s->ev_r;
		size_t k = 0;
		for (size_t i = 0; i < t->n; i += step)
			c[k++] = spread(s, t->items[i].centroid_x, t->items[i].centroid_y, 1.5 * s->ev_r);
		qsort(c, k, sizeof(double), cmp_dbl);
		s->ev_c = c[k / 2];
		qsort(ci, n, sizeof(double), cmp_dbl);
		s->ev_circ = ci[s->ev_r_hi > s->ev_r_lo ? n / 4 : n / 2];
		/* the likeness's reference: the same sample's patches (r and c
		 * reused for their centres) */
		k = 0;
		for (size_t i = 0; i < t->n; i += step, k++) {
			r[k] = t->items[i].centroid_x;
			c[k] = t->items[i].centroid_y;
		}
		fs_agent_likeness_reference(s, r, c, k);
	}
	free(r);
	free(c);
	free(ci);
	if (!(s->ev_r > 0.5) || !(s->ev_c > 0))
		return -1;
	s->ev_ready = 1;
	return 0;
}

enum { EV_OK, EV_AWAY, EV_SIZE, EV_ROUND, EV_FAINT };

/* The radius band (see the top) */
static double band_lo(const fs_agent_sess *s)
{
	return 0.6 * s->ev_r_lo;
}

static double band_hi(const fs_agent_sess *s)
{
	return 1.4 * s->ev_r_hi;
}

/* The tests of the top on reading m (rule how) of the point (x, y); fills
 * ev and says which test failed. large: a reading above the band passes
 * the size test (a set's larger dome, see judge). */
static int verdict(const fs_agent_sess *s, double x, double y, int how, const fs_tubercle *m, int large,
		   fs_agent_evidence *ev)
{
	double P = s->ev_pitch, R = s->ev_r;
	double shift = hypot(m->centroid_x - x, m->centroid_y - y);
	const char *rule = how == 2 ? "dome base" : "blob";
	ev->ok = 0;
	ev->radius = m->radius_px;
	ev->circularity = m->circularity;
	ev->x = m->centroid_x;
	ev->y = m->centroid_y;
	ev->contrast = spread(s, m->centroid_x, m->centroid_y, 1.5 * R) / s->ev_c;
	if (shift > 0.3 * P) {
		snprintf(ev->why, sizeof(ev->why), "the %s near (%.0f, %.0f) is centred %.1f px away (%.2f pitch): a "
			 "neighbour, not a tubercle here", rule, x, y, shift, shift / P);
		return EV_AWAY;
	}
	if (!(m->radius_px >= band_lo(s) && (m->radius_px <= band_hi(s) || large))) {
		snprintf(ev->why, sizeof(ev->why), "%s radius %.1f px against the set's %.1f-%.1f px", rule, m->radius_px,
			 band_lo(s), band_hi(s));
		return EV_SIZE;
	}
	if (!(m->circularity >= 0.75 * s->ev_circ)) {
		snprintf(ev->why, sizeof(ev->why), "not round: circularity %.2f against the set's %.2f", m->circularity,
			 s->ev_circ);
		return EV_ROUND;
	}
	if (!(ev->contrast >= 0.4)) {
		snprintf(ev->why, sizeof(ev->why), "too faint: contrast %.2f of the set's", ev->contrast);
		return EV_FAINT;
	}
	ev->ok = 1;
	snprintf(ev->why, sizeof(ev->why), "a %stubercle (%s): radius %.1f px (set %.1f), circularity %.2f, contrast "
		 "%.2f of the set's", m->radius_px > band_hi(s) ? "larger " : "", rule, m->radius_px, R, m->circularity,
		 ev->contrast);
	return EV_OK;
}

/* A site (x, y) whose reading passed the measurement's tests (ev ok, at
 * its measured centre) is kept only where the image looks like the set's
 * own domes (see the top): at the measured centre (an eighth of a pitch
 * around it), or else near the site itself (EV_LIKE_REACH: a site
 * predicted from its neighbours may lie a third of a pitch from the dome,
 * and the measurement from it may converge beside the dome, h37h's P1
 * Fig4 gap at (288, 241) measured at (269, 224)), whose best point is then
 * measured and judged as a site of its own, and its measured centre
 * becomes the site (the plan checks its distance to the set again). Otherwise ok is cleared and why says so; without a likeness
 * reference nothing changes. */
static void liken(fs_agent_sess *s, double x, double y, fs_agent_evidence *ev)
{
	double lim = EV_LIKE * s->ev_lk_med, bx, by;
	double lk = fs_agent_likeness_at(s, ev->x, ev->y, 0.125, NULL, NULL);
	ev->likeness = lk;
	if (!(s->ev_lk_med > 0) || !isfinite(lk) || lk >= lim)
		return;
	double lk0 = fs_agent_likeness_at(s, x, y, EV_LIKE_REACH, &bx, &by);
	if (lk0 >= lim) {
		/* the best point is read again as a site of its own: measured
		 * there, every test passed, and the likeness at that measured
		 * centre - the search may end on a patch that half covers a dome
		 * beside grey ground, which the site's own reading must confirm
		 * (with it P1 Fig4's dome rule adds (306, 52), on a faint bright
		 * patch, instead of (305, 53) radius 24 px) */
		fs_tubercle m;
		fs_agent_evidence e2;
		int how = measure(s, bx, by, &m);
		memset(&e2, 0, sizeof e2);
		if (how && verdict(s, bx, by, how, &m, 0, &e2) == EV_OK) {
			double lk2 = fs_agent_likeness_at(s, e2.x, e2.y, 0.125, NULL, NULL);
			if (lk2 >= lim) {
				e2.likeness = lk2;
				*ev = e2;
				return;
			}
			lk0 = lk2;
		}
	}
	ev->ok = 0;
	snprintf(ev->why, sizeof(ev->why), "not like the set's domes at (%.0f, %.0f): likeness %.2f against the set's "
		 "median %.2f (radius %.1f px, contrast %.2f of the set's)", ev->x, ev->y, fmax(lk, lk0), s->ev_lk_med,
		 ev->radius, ev->contrast);
}

/* fs_agent_evidence_at, with the second look inside (second) or without.
 * A point (a site to add, fs_agent_evidence_at) is judged by its own
 * reading; a tubercle of the set (fs_agent_evidenced: whether to keep it,
 * whether the coverage counts it) by either of its steps. The second look
 * finds a step inside the neighbours' ring at an empty point between
 * domes too: given to every point (and without EV_TWO_STEPS), the
 * simulator's damaged scenes lost false tubercles' removals (fill 0.50,
 * pitch 24: 94 -> 84 %), so it only keeps what is there. */
static int judge(fs_agent_sess *s, double x, double y, int second, fs_agent_evidence *ev)
{
	fs_tubercle m;
	memset(ev, 0, sizeof(*ev));
	ev->likeness = NAN;
	ev->x = x;
	ev->y = y;
	if (reference(s)) {
		snprintf(ev->why, sizeof(ev->why), "no reference: too few measurable tubercles in the set");
		return -1;
	}
	double P = s->ev_pitch, R = s->ev_r;
	/* blank paper, a flat gap: no measurement needed to say no (the
	 * measured tubercle must reach 0.4 below; its disc overlaps this one) */
	ev->contrast = spread(s, x, y, 1.5 * R) / s->ev_c;
	if (ev->contrast < 0.2) {
		snprintf(ev->why, sizeof(ev->why), "too faint at (%.0f, %.0f): contrast %.2f of the set's", x, y,
			 ev->contrast);
		return 0;
	}
	int how = measure(s, x, y, &m);
	if (!how) {
		ev->contrast = spread(s, x, y, 1.5 * R) / s->ev_c;
		snprintf(ev->why, sizeof(ev->why), "no dome or blob at (%.0f, %.0f) (contrast %.2f of the set's)", x, y,
			 ev->contrast);
		return 0;
	}
	int fail = verdict(s, x, y, how, &m, 0, ev);
	if (!second && fail == EV_OK)
		liken(s, x, y, ev);
	if (fail == EV_SIZE && how == 2 && second && s->ev_r_hi > s->ev_r_lo && m.radius_px > band_hi(s)) {
		/* a tubercle of the set that reads larger than the band: kept
		 * when it passes every other test - centred, round, contrasty
		 * (h34l: P1 Fig2's dome #302, a base of 13.5 px against the
		 * band's 12.5 px, round 0.78, its inner step 12.6 px). The band's
		 * top is 1.4 x the upper quartile, which on a set whose readings
		 * are mostly the caps' edges (Fig2: quartiles 6.9 and 8.9 px,
		 * the published fill's base radius 9.2 px) is below its larger
		 * bases; the measurement itself stops at 0.48 pitch (touching
		 * domes). What a gap between domes reads - the neighbours' ring
		 * - is off centre or not round, and fails here still: without
		 * the two-step gate this keeps every one of the simulator's
		 * false tubercles' removals (docs/paper-figures.md, h34l). */
		fs_agent_evidence ev1 = *ev;
		fail = verdict(s, x, y, how, &m, 1, &ev1);
		if (fail == EV_OK) {
			*ev = ev1;
			return 0;
		}
		fail = EV_SIZE;
	}
	if ((fail == EV_SIZE || fail == EV_ROUND) && how == 2 && second && s->ev_r_hi > s->ev_r_lo &&
	    !(m.radius_px < band_lo(s))) {
		/* too large or not round where the set's domes show two steps:
		 * the step inside the one read, the cap's edge of a dome whose
		 * base was read (or the rays that took the base of some and the
		 * cap of others) */
		fs_agent_evidence ev2 = *ev;
		fs_tubercle m2;
		double lo = EV_R0 * P, hi = fmin(EV_R1 * P, 0.85 * m.radius_px);
		if (lo < hi && measure_in(s, x, y, lo, hi, &m2) == 2 && verdict(s, x, y, 2, &m2, 0, &ev2) == EV_OK)
			*ev = ev2;
	}
	return 0;
}

int fs_agent_evidence_at(fs_agent_sess *s, double x, double y, fs_agent_evidence *ev)
{
	return judge(s, x, y, 0, ev);
}

int fs_agent_evidence_ready(fs_agent_sess *s)
{
	return reference(s) == 0;
}

struct fs_agent_ev_memo {
	float x, y;
	signed char v; /* 0 unknown, 1 shown, -1 not */
};

int fs_agent_evidenced(fs_agent_sess *s, const fs_tubercle *t)
{
	fs_agent_evidence ev;
	if (t->id < 0 || t->id > 10000000)
		return 1;
	if ((size_t)t->id >= s->ev_memo_n) {
		size_t n = (size_t)t->id + 1 > 2 * s->ev_memo_n ? (size_t)t->id + 1 : 2 * s->ev_memo_n;
		struct fs_agent_ev_memo *m = realloc(s->ev_memo, n * sizeof(*m));
		if (!m)
			return 1;
		memset(m + s->ev_memo_n, 0, (n - s->ev_memo_n) * sizeof(*m));
		s->ev_memo = m;
		s->ev_memo_n = n;
	}
	struct fs_agent_ev_memo *m = &s->ev_memo[t->id];
	if (m->v && m->x == (float)t->centroid_x && m->y == (float)t->centroid_y)
		return m->v > 0;
	if (judge(s, t->centroid_x, t->centroid_y, 1, &ev))
		return 1; /* no reference: nothing to judge by */
	m->x = (float)t->centroid_x;
	m->y = (float)t->centroid_y;
	m->v = ev.ok ? 1 : -1;
	return ev.ok;
}

typedef struct warm_key {
	long tile;
	size_t i;
} warm_key;

static int cmp_warm(const void *a, const void *b)
{
	const warm_key *p = a, *q = b;
	if (p->tile != q->tile)
		return p->tile < q->tile ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

void fs_agent_evidence_warm(fs_agent_sess *s, const fs_tubercle_list *t, const unsigned char *want)
{
	/* a small image is blurred whole: the order costs nothing there */
	if ((long long)s->img->width * s->img->height <= FS_BLUR_TILES_WHOLE_MAX)
		return;
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += !want || want[i];
	/* the reference is made where the caller's first verdict would make it */
	if (!n || reference(s))
		return;
	warm_key *k = malloc(n * sizeof *k);
	if (!k)
		return; /* the caller's loop judges them in its own order */
	n = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!want || want[i]) {
			const fs_tubercle *a = &t->items[i];
			k[n].tile = fs_blur_tiles_index(s->ev_blur, a->centroid_x, a->centroid_y);
			k[n++].i = i;
		}
	qsort(k, n, sizeof *k, cmp_warm);
	for (size_t j = 0; j < n; j++)
		fs_agent_evidenced(s, &t->items[k[j].i]);
	free(k);
}
