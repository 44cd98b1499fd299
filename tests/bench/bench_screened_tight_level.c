/*
 * bench_screened_tight_level.c - what the print's reproduction (the
 * halftone screen's threshold and the scan blur after it) does to the
 * level the dome rule reads at tight gaps under a screen (h43d, issue
 * 13; docs/paper-figures.md, h42e section 5 and h43d).
 *
 * Where no screen dot fits between two bases (fs_det_base_level_tight_
 * screen) the level is fs_det_base_level_blur on the screened measurement
 * image. h42e found it +1..+3.5 % long on the flat low domes (corner
 * scenes 11, 27) and put it on the screen sharpening the steps, against
 * the surface read with neither the screen nor the scan blur. This bench
 * splits the print into its two parts: per scene the dome rule is run on
 * the screened image (its D %, "ruleD"), and at its matched final centres
 * (@r) and at the TRUE centres (@t) the level's reader (reach 0.6 pitch,
 * as bench_level_small's) reads
 *   scr   the screened image (what the rule reads);
 *   cln   the same surface without the screen (sem_make with halftone 0:
 *         the screen comes after every random draw, so the surface and
 *         noise are the same) blurred by the scan blur the print adds
 *         (linear: the print's part that is no threshold);
 *   raw   the same surface with neither (@t only; h42e's "clean");
 *   scr0  the screen without the scan blur after it (@t only): the
 *         threshold alone;
 *   lin   the screened image through the inverse of the screen's tone
 *         curve (the simulator's ink and paper): a cell's coverage under
 *         a 45-degree cos+cos dot screen is F(v), F the distribution of
 *         the threshold 0.5 + 0.25 (cos a + cos b), steeper than 1 at
 *         mid-grey - the hypothesis that the tone curve's slope is what
 *         sharpens the steps.
 * The rule's D is then carried over as if its level had read otherwise,
 * each time its D times a ratio of two readings: "D|cln" cln / scr and
 * "D|lin" lin / scr at the rule's centres; "D|xscan" the factor "xscan"
 * that takes the scan blur's variance (o.scan_blur^2, known here) off the
 * level along the reading's own slope against blur variance (h32e's
 * second reading, 1 px more); "D|rep" (1 + raw@t) / (1 + scr@t), the
 * print's whole part as the TRUE centres read it: what an exact forward
 * model of the print could give the level, the rule's centres unchanged.
 * "print": the largest difference between the scene's image and the
 * clean surface printed again by sem_screen (0: every column reads the
 * same surface); "P read": the screen's period fs_halftone_detect finds.
 *
 * Usage: bench_screened_tight_level [--seed-add N] [--set KEY=VALUE]...
 * [SCENE...] (default: the B2 scenes 9 11 13 15 25 27 29 31; --set:
 * sem_opts_keys.h's keys applied after the seed, e.g. scan=0.9 or
 * halftone=4 for how the print's part follows its scan blur and period).
 * Asserts nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_base_fit.h"
#include "analysis/halftone.h"
#include "analysis/preprocess.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_sim.h"

/* the simulator's ink and paper (sem_sim.c's halftone_screen) */
#define INK 0.05
#define PAPER 0.95
#define TONE_N 2048
/* the reader's reach in pitches, as bench_level_small's (the rule's
 * candidates' twice their radius) */
#define REACH 0.6

/* F, the screen's tone curve, tabulated on [0, 1]: the share of the
 * threshold 0.5 + 0.25 (cos a + cos b) below v for a, b uniform. */
static double tone[TONE_N + 1];

static void tone_make(void)
{
	const int na = 4096;
	for (int i = 0; i <= TONE_N; i++) {
		double v = (double)i / TONE_N, s = 0;
		for (int j = 0; j < na; j++) {
			double a = M_PI * (j + 0.5) / na, u = 4 * (v - 0.5) - cos(a);
			/* P(cos b < u), b uniform on [0, pi) */
			s += u <= -1 ? 0 : u >= 1 ? 1 : 1 - acos(u) / M_PI;
		}
		tone[i] = s / na;
	}
}

static double tone_inverse(double c)
{
	if (c <= tone[0])
		return 0;
	if (c >= tone[TONE_N])
		return 1;
	int lo = 0, hi = TONE_N;
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2;
		if (tone[mid] <= c)
			lo = mid;
		else
			hi = mid;
	}
	double f = (c - tone[lo]) / (tone[hi] - tone[lo] > 0 ? tone[hi] - tone[lo] : 1);
	return (lo + f) / TONE_N;
}

static fs_image *linearised(const fs_image *img)
{
	fs_image *out = fs_image_new(img->width, img->height);
	if (!out)
		return NULL;
	size_t n = (size_t)img->width * img->height;
	for (size_t i = 0; i < n; i++)
		out->data[i] = (float)tone_inverse((img->data[i] - INK) / (PAPER - INK));
	return out;
}

typedef struct sums {
	double read, truth;
	size_t n;
} sums;

static double pct(const sums *s)
{
	return s->truth > 0 ? 100 * (s->read - s->truth) / s->truth : NAN;
}

/* reads img at (x, y) with reach mr into s against the true d, and
 * returns the reading (NAN when none or pinned) */
static double rd(const fs_image *img, double x, double y, double mr, double d, sums *s)
{
	int e;
	double v;
	double r = fs_det_base_level_blur(img, x, y, mr, 1, &e, &v, NULL);
	if (!isfinite(r) || e)
		return NAN;
	s->read += 2 * r;
	s->truth += d;
	s->n++;
	return r;
}

static sem_opts_args set_args;

static int run(int k, unsigned seed_add)
{
	sem_opts o;
	sem_corner_args(k, seed_add, &set_args, &o);
	if (!(o.halftone > 0)) {
		printf("%d: no screen to split\n", k);
		return -1;
	}
	sem_scene s;
	fs_detect_result res;
	if (sem_scene_detect(&s, &o, fs_detect_domes, &res)) {
		printf("%d: %s\n", k, s.err);
		return -1;
	}
	sem_opts oc = o;
	oc.halftone = 0;
	sem_truth tc;
	fs_image *clean0 = sem_make_shared(&oc, &tc);
	char err[128];
	fs_image *clean = clean0 && o.scan_blur > 0 ? fs_gaussian_blurred(clean0, o.scan_blur, err, sizeof err) : NULL;
	fs_image *lin = linearised(s.img);
	/* the measurement image blurred by FS_DET_BASE_EXTRA_BLUR more: the
	 * level's slope against blur variance (h32e's second reading) */
	fs_image *b2 = fs_gaussian_blurred(s.img, FS_DET_BASE_EXTRA_BLUR, err, sizeof err);
	/* the screen without the scan blur after it: its threshold alone */
	fs_image *scr0 = clean0 ? fs_image_clone(clean0) : NULL;
	if (scr0 && sem_screen(scr0, o.halftone, 0)) {
		fs_image_free(scr0);
		scr0 = NULL;
	}
	/* the decomposition holds only if the print of the clean surface is
	 * the scene's image to the bit (sem_screen's promise): said per scene */
	double dev = -1;
	fs_image *again = clean0 ? fs_image_clone(clean0) : NULL;
	if (again && !sem_screen(again, o.halftone, o.scan_blur)) {
		dev = 0;
		for (size_t i = 0; i < (size_t)again->width * again->height; i++)
			dev = fmax(dev, fabs(again->data[i] - s.img->data[i]));
	}
	fs_image_free(again);
	/* the period the rule finds (halftone.h), against the printed one */
	double per = NAN;
	if (fs_halftone_detect(s.img, &per, NULL))
		per = NAN;
	int *mt = malloc((res.tubercles.n ? res.tubercles.n : 1) * sizeof *mt);
	int rc = -1;
	if (!clean || !lin || !scr0 || !b2 || !mt || sem_match_tubercles(&s.tr, &res.tubercles, mt, NULL))
		goto out;
	sums rule = {0}, rs = {0}, rc_ = {0}, rl = {0}, ts = {0}, tcl = {0}, tl = {0}, traw = {0}, ts0 = {0};
	/* the ratio's sums over the domes read on both */
	double ss = 0, sc = 0, sl = 0, ssl = 0, x1 = 0, x2 = 0;
	for (size_t i = 0; i < res.tubercles.n; i++) {
		int j = mt[i];
		const fs_tubercle *q = &res.tubercles.items[i];
		if (j < 0 || !sem_counted(&s.tr, s.tr.x[j], s.tr.y[j]) || !fs_tubercle_measured(q))
			continue;
		double d = s.tr.d[j], mr = REACH * s.tr.pitch;
		rule.read += 2 * q->radius_px;
		rule.truth += d;
		rule.n++;
		double a = rd(s.img, q->centroid_x, q->centroid_y, mr, d, &rs);
		double b = rd(clean, q->centroid_x, q->centroid_y, mr, d, &rc_);
		double c = rd(lin, q->centroid_x, q->centroid_y, mr, d, &rl);
		if (isfinite(a) && isfinite(b)) {
			ss += a;
			sc += b;
		}
		/* (its own mean D is not printed: only its ratio to a) */
		sums on_b2 = {0};
		double a2 = rd(b2, q->centroid_x, q->centroid_y, mr, d, &on_b2);
		if (isfinite(a) && isfinite(a2)) {
			x1 += a;
			x2 += a2;
		}
		if (isfinite(a) && isfinite(c)) {
			ssl += a;
			sl += c;
		}
		(void)rd(s.img, s.tr.x[j], s.tr.y[j], mr, d, &ts);
		(void)rd(clean, s.tr.x[j], s.tr.y[j], mr, d, &tcl);
		(void)rd(lin, s.tr.x[j], s.tr.y[j], mr, d, &tl);
		(void)rd(clean0, s.tr.x[j], s.tr.y[j], mr, d, &traw);
		(void)rd(scr0, s.tr.x[j], s.tr.y[j], mr, d, &ts0);
	}
	/* the level with the scan blur's variance taken off along the
	 * reading's slope against variance: L1 - (L2 - L1) sb^2 / s^2 */
	double sb2 = o.scan_blur * o.scan_blur, s2 = FS_DET_BASE_EXTRA_BLUR * FS_DET_BASE_EXTRA_BLUR;
	double fx = x1 > 0 ? 1 - (x2 - x1) / x1 * sb2 / s2 : NAN;
	double D = pct(&rule), fc = ss > 0 ? sc / ss : NAN, fl = ssl > 0 ? sl / ssl : NAN;
	/* the reproduction's whole part as the TRUE centres read it */
	double frep = (1 + pct(&traw) / 100) / (1 + pct(&ts) / 100);
	printf("%-5d %-4s %-4.2f %-4d %4zu %7.2f | %7.2f %7.2f %7.2f | %7.2f %7.2f %7.2f %7.2f %7.2f | %7.4f %7.4f | "
	       "%7.2f %7.2f | %7.4f %7.2f | %7.2f | %g | %.2f\n",
	       k, k & 2 ? "flat" : "sph", k & 4 ? 1.0 : 0.25, k & 16 ? 135 : 0, rule.n, D, pct(&rs), pct(&rc_),
	       pct(&rl), pct(&ts), pct(&tcl), pct(&tl), pct(&traw), pct(&ts0), fc, fl, 100 * ((1 + D / 100) * fc - 1),
	       100 * ((1 + D / 100) * fl - 1), fx, 100 * ((1 + D / 100) * fx - 1), 100 * ((1 + D / 100) * frep - 1), dev, per);
	rc = 0;
out:
	free(mt);
	fs_image_free(lin);
	fs_image_free(scr0);
	fs_image_free(b2);
	fs_image_free(clean);
	fs_image_free(clean0);
	if (clean0)
		sem_truth_free(&tc);
	fs_detect_result_free(&res);
	sem_scene_close(&s);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int scenes[64], n = 0;
	for (int i = 1; i < argc; i++) {
		if (sem_bench_arg(argc, argv, &i, &seed_add, &set_args))
			continue;
		if (n < 64)
			scenes[n++] = atoi(argv[i]);
	}
	if (!n) {
		static const int b2[8] = {9, 11, 13, 15, 25, 27, 29, 31};
		for (n = 0; n < 8; n++)
			scenes[n] = b2[n];
	}
	tone_make();
	printf("the level under a screen: the rule's D and the reader on the screened (scr), clean (cln) and "
	       "tone-linearised (lin) image, mean D %% (seeds +%u)\n",
	       seed_add);
	for (int i = 0; i < set_args.n; i++)
		printf(" %s", set_args.kv[i]);
	if (set_args.n)
		printf("\n");
	printf("%-5s %-4s %-4s %-4s %4s %7s | %7s %7s %7s | %7s %7s %7s %7s %7s | %7s %7s | %7s %7s | %7s %7s | %7s | %s | %s\n", "scene", "prof",
	       "h/R", "az", "n", "ruleD", "scr@r", "cln@r", "lin@r", "scr@t", "cln@t", "lin@t", "raw@t", "scr0@t",
	       "cln/scr", "lin/scr", "D|cln", "D|lin", "xscan", "D|xscan", "D|rep", "print", "P read");
	int rc = 0;
	for (int i = 0; i < n; i++)
		rc |= run(scenes[i], seed_add) ? 1 : 0;
	return rc;
}
