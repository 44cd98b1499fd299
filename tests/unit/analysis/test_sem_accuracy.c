/*
 * The diameter measurement against the SEM simulator (sem_sim.h, issue 13):
 * all 64 corners of fill {0.25, 0.80} x profile {spherical, flat-topped} x
 * h/R {0.25, 1.0} x halftone {none, 5 px} x detector azimuth {0°, 135°} x
 * pitch {16, 64 px}, each with its own seed (lattice rotation, jitters,
 * noise), some with a white margin and a black surround with a label.
 * Method auto with the default parameters, no per-scene setting, through
 * fs_detect_outline (the outline rule, today's default) and
 * fs_detect_domes (the dome-base rule, experimental): both tables are
 * printed, whichever rule the build selects (measurement.h).
 *
 * A detection matches a true dome within 0.25 x pitch (each used once).
 * Counted: truths and detections whose centre lies at least 0.75 pitch
 * inside the scale region. Per scene: recall, precision, mean D error %,
 * mean S error % (edge-to-edge space over true neighbour pairs both
 * matched), SD % of the per-tubercle D error. Targets of the issue: |mean D
 * error| and |mean S error| < 3 %, SD < 8 % where D >= 8 px and the
 * halftone period <= D / 3, recall and precision >= 0.97.
 *
 * The asserts are the levels reached (docs/paper-figures.md), not yet every
 * target of the issue: those are not met.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect.h"
#include "analysis/detect_methods.h"
#include "sem_cache.h"
#include "sem_opts_keys.h"
#include "sem_scene.h"
#include "sem_score.h"

/* Measured on the simulator that integrates the yield of the analytic
 * slopes over each pixel (h19f; before it, with slopes by differences
 * over 2 px: outline D 3, RP 29; dome rule D 28, S 31, SD 28, RP 48), with
 * the dome rule's centres corrected by their fitted common offset (h19e)
 * and its small-base and flat-disk estimator (h19h). Recall and precision
 * of the dome rule: 53 from its circle votes, 64 since its candidates are
 * the peaks of the image's mean dome correlated with the image (h20g,
 * dome_template.h; D 19 -> 26, S 28 -> 29, SD 23 -> 27 measured then,
 * guards raised to those levels). Each dome's size relative to the
 * image's others read from its whole patch through the image's formation,
 * at the base rule's mean level (h21e, detect_base_fit.h): D 26 -> 27,
 * S 29 -> 29, SD 27 -> 38 of 40, all four 12 -> 14. Each sized dome at
 * the template fit's centre, between its search's grid points (h22d,
 * dome_centre_fit.h; centre error RMS 4.0 -> 2.2 % of the pitch): D 27,
 * S 29, SD 38 -> 39, all four 14 -> 15; merged with h22e-h22h (main
 * cc241b2): D 28, S 31, SD 39, all four 17, the guards raised there.
 * The level of the sizes read again from the template fit's centres on
 * unsmoothed rays where no halftone screen was found (h23f,
 * detect_base_fit.h): D 28 -> 32, S 31, SD 39, all four 17 -> 19. That
 * level read with the outward push of the dome's inner slope taken out
 * (h24d, fs_dome_measure_base): D 32 -> 37, S 31 -> 35, SD 39, RP 64, all
 * four 19 -> 27. Merged with parabola_vertex.h's collinear samples
 * (f689574): scene 11 (screened, its level the base rule's first
 * reading) mean D +1.7 -> +3.3 %, D 37 -> 36 (the old header on today's
 * code gives +1.7 again). The fitted centres moved by their common shift
 * along the detector's axis before that level is read (h30f,
 * centre_axis.h): D 36 -> 37, S 35 -> 36, SD 39, RP 64, all four 27 -> 28
 * (gained 3 and 48, lost 50 on D: its base reading from the corrected
 * centres is +3.2 %, docs/paper-figures.md section h30f). Under a
 * printed screen the level read on the low-passed image the templates
 * are fitted on, where the low-pass leaves the bases resolved (h31b,
 * detect_base_fit.h; before, the first reading on smoothed rays): D 37 ->
 * 45, S 36 -> 40, SD 39, RP 64, all four 28 -> 34 (gained 40, 41, 42, 44,
 * 45, 46, 57, 60; lost 47 and 63 on S, fill 0.8 flat-topped tall domes
 * read 1.7-1.9 % small; docs/paper-figures.md section h31b). The template
 * fit's centre search in one round at 0.04 pitch and its vertex at that
 * step (h31d, a third of the fit's cost): D 37 -> 38, S 36 -> 37, SD 39 ->
 * 38, RP 64, all four 28 -> 29 (gained 23 on D, 39 and 53 on S, 50 on D;
 * lost 3 on S (-1.8 -> -3.2 %), 20 on D (-1.7 -> -3.2 %) and 40 on SD
 * (7.5 -> 10.1 %, a scene that fails D and S either way); mean |D error|
 * over the 64 scenes 4.45 -> 4.43 %, |S error| 7.54 -> 7.46 %, the SD
 * where it applies 2.31 -> 2.69 %). Both together (merge of h31b and
 * h31d): D 46, S 41, SD 38, RP 64, all four 34. The extraction sizes its
 * domes once more at its final centres with the step Re-measure runs
 * (h31a, detect_measure.h fs_det_size_domes_list): D 47, S 42, SD 38, RP
 * 64, all four 36. A level reading pinned at its window's end left out of
 * the level (h32c, detect_base_fit.h): the same counts (3, 5, 19, 21, 23
 * nearer the truth, all fill 0.8 at pitch 16; 45 D -0.3 -> -0.4 %); on
 * the held-out seeds (o.seed += 4000) D 43 -> 44, S 43, SD 38, RP 64, all
 * four 33. The level read again on the measurement image blurred by 1 px
 * more and extrapolated to no blur where the bases stay resolved (h32e,
 * detect_base_fit.h; only unscreened pitch-64 scenes move): measured
 * before h32c's merge D 47 -> 49, S 42 -> 40, SD 38, RP 64, all four 36
 * (gained 36 and 52 on D, +3.7/+3.5 -> +2.7/+2.8 %; lost 39 and 55 on S,
 * fill 0.8 flat-topped tall domes whose rule centres read D -0.7/-0.5 ->
 * -0.8/-0.9 %); held-out 43/43/38/64/33 -> 46/44/38/64/37. Rebased on
 * h32c: 47/42/38/64/36 -> 49/40/38/64/36, held-out 44/43/38/64/33 ->
 * 47/44/38/64/37. The S guard is lowered to what this reaches
 * (docs/paper-figures.md, section h32e).
 * At pitch 16 the templates made as the patch's
 * bilinear read at the centre's sub-pixel phase sees them (h32f,
 * dome_base_fit.h): D 47, S 42 -> 44 (gained 3 and 14 on S), SD 38, RP
 * 64, all four 36 -> 37 (3); held-out seeds (o.seed += 4000) 43 / 43 /
 * 38 / 64 / 33, unchanged; on h32c's level 47/42 -> 44/38/64/36 -> 37,
 * held-out 44/43 -> 42 (6: S -2.9 -> -3.0 %, its D +9 % failing either
 * way)/38/64/33; on h32e's level (main a973ce8) 49/40 -> 42/38/64/36 ->
 * 37, held-out 47/44 -> 43/38/64/37. Guards S 42, all four 37. */
#define LEVEL_OLD_D 7
#define LEVEL_OLD_RP 31
#define LEVEL_NEW_D 56 /* h39a, the screened refit's fill walked with the offset: 49 -> 50 (25); h41f, tall domes' level extrapolated at tight gaps: 50 -> 52 (5, 21); h41c, the screened low-pass where the rays were smoothed as much: 52 -> 53; h42e, the level read as without a screen where no dot fits in the gap: 53 -> 55 (15, 27); h48c, the tight screen's level from the valleys' steps, lifted: 55 -> 56 (11) */
#define LEVEL_NEW_S 51 /* h37d, the cast shadow's border out of the level: 42 -> 43 (51); h40g, stray level readings out: 43 -> 44 (39); h41f: 44 -> 45 (7); h42e: 45 -> 46 (29, 31 gained, 13 lost); h42b, the level read where the formation's offset shows a tall dome: 46 -> 47 (23); h46b, the tall sphere's line with v from the readings' own steps: 47 -> 48 (21); h48c: 48 -> 51 (11, 13, 15, 27 gained, 31 lost) */
#define LEVEL_NEW_SD 40 /* h33e, refit formation under a screen: 38 -> 40 (40, 56) */
#define LEVEL_NEW_RP 64
#define LEVEL_NEW_ALL 48 /* h33e: 37 -> 39; held out 37 -> 39 (docs/paper-figures.md); h37d: 39 -> 40; h40g: 40 -> 41 (39); h41f: 41 -> 42 (7; held out 40 -> 41); h42e: 42 -> 43 (29, 31 gained, 13 lost; held out 44 -> 45); h42b: 43 -> 44 (23; held out 45 as with h42e alone); h46b: 44 -> 45 (21; held out 45 as before); h48c: 45 -> 48 (11, 13, 15, 27 gained, 31 lost; held out 45 -> 48) */

/* A scene's score (sem_score.h: matching, counted region and errors as
 * above). */
typedef sem_score scene_result;

/* The held-out check (README): SEM_SEED_ADD=4000 renders every scene,
 * corner and interior, with its seed moved by that much - images never
 * tuned on. The floors below are the test seeds' own, so such a run
 * prints the tables and asserts only that every scene ran. (Before this,
 * a sed inserted the seed by hand before the interior scenes' options
 * were copied in: their "held-out" rows at stops 34-36 were the test
 * seeds'.) */
static unsigned seed_add(void)
{
	const char *v = getenv("SEM_SEED_ADD");
	return v ? (unsigned)strtoul(v, NULL, 10) : 0;
}

/* SEM_SET="KEY=VALUE,..." (h41a): sem_opts_keys' keys applied to every
 * scene, corner and interior, after its seed - the same tables under
 * another simulator (e.g. beam_continuous=1, the beam blurred as a
 * continuous spot: the rule must not depend on how the simulator
 * discretises its blur). The floors are the default simulator's, so such
 * a run, like a held-out one, prints the tables and asserts only that
 * every scene ran; an unknown key fails the run before any render. */
static const char *scene_set(void)
{
	const char *v = getenv("SEM_SET");
	return v && *v ? v : NULL;
}

/* SEM_CAND_NUDGE=px (h47i): the dome rule's candidates moved by px in x
 * and y before they are measured (fs_detect_set_cand_nudge) - at 1e-6
 * px a rounding, so how far the tables move then is the noise floor a
 * cost cut that moves the candidates' bits is judged against. Like a
 * held-out run, such a run prints the tables and asserts only that every
 * scene ran. */
static double cand_nudge(void)
{
	const char *v = getenv("SEM_CAND_NUDGE");
	return v && *v ? strtod(v, NULL) : 0;
}

static void run_scene(int k, const sem_opts *given, sem_detect_fn fn, scene_result *r)
{
	sem_opts o;
	sem_truth t;
	sem_corner_scene(k, &o);
	if (given) /* a scene between the corners (run_interior) */
		o = *given;
	int label = given ? (int)o.seed - 3000 : k;
	o.seed += seed_add();
	assert_int_equal(sem_opts_set_keys(&o, scene_set()), 0);
	fs_image *img = sem_make_shared(&o, &t);
	assert_non_null(img);
	const char *dump = getenv("SEM_DUMP");
	if (dump) {
		char path[512];
		snprintf(path, sizeof path, "%s/scene%02d%s.pgm", dump, label, given ? "i" : "");
		FILE *f = fopen(path, "wb");
		if (f) {
			fprintf(f, "P5\n%d %d\n255\n", img->width, img->height);
			for (size_t i = 0; i < (size_t)img->width * img->height; i++)
				fputc((int)lround(fmin(1, fmax(0, img->data[i])) * 255), f);
			fclose(f);
		}
	}
	char err[256];
	assert_int_equal(sem_detect_score(img, &t, o.halftone, fn, r, err, sizeof err), 0);
	sem_truth_free(&t);
	fs_image_free(img);
}

#define NSCENES 64

typedef struct summary {
	int d, s, sd, sd_applies, rp, all, run;
	int d10; /* mean D within 10 % (the printed interior table's wider count) */
} summary;

static summary sum_old, sum_new;

static void run_table(const char *title, sem_detect_fn fn, summary *S)
{
	scene_result R;
	memset(S, 0, sizeof *S);
	printf("%s\n", title);
	printf("%-5s %-4s %-5s %-4s %-3s %-4s %-3s %5s %5s %6s %6s %6s %5s\n", "scene", "fill", "prof",
	       "h/R", "ht", "az", "pit", "rec", "prec", "D%", "S%", "sdD%", "nan");
	for (int k = 0; k < NSCENES; k += SEM_SCENE_STEP) {
		scene_result *r = &R;
		S->run++;
		run_scene(k, NULL, fn, r);
		int ok_d = fabs(r->d_err) < 3, ok_s = fabs(r->s_err) < 3;
		int ok_sd = !r->sd_applies || r->d_sd < 8;
		int ok_rp = r->recall >= 0.97 && r->precision >= 0.97;
		S->d += ok_d;
		S->s += ok_s;
		S->sd_applies += r->sd_applies;
		S->sd += r->sd_applies && r->d_sd < 8;
		S->rp += ok_rp;
		S->all += ok_d && ok_s && ok_sd && ok_rp;
		printf("%-5d %-4.2f %-5s %-4.2f %-3d %-4d %-3d %5.3f %5.3f %6.1f %6.1f %6.1f%s %4d %s%s%s%s\n",
		       k, k & 1 ? 0.80 : 0.25, k & 2 ? "flat" : "sph", k & 4 ? 1.0 : 0.25, k & 8 ? 5 : 0,
		       k & 16 ? 135 : 0, k & 32 ? 64 : 16, r->recall, r->precision, r->d_err, r->s_err,
		       r->d_sd, r->sd_applies ? "*" : " ", r->n_nan, ok_d ? "" : " D", ok_s ? "" : " S",
		       ok_sd ? "" : " SD", ok_rp ? "" : " RP");
	}
	printf("targets met: mean D %d/%d, mean S %d/%d, D SD %d/%d (* = applies), "
	       "recall & precision %d/%d, all four %d/%d\n",
	       S->d, NSCENES, S->s, NSCENES, S->sd, S->sd_applies, S->rp, NSCENES, S->all, NSCENES);
}

/* Scenes between the corners (h34i, issue 13 section 2). The corner
 * matrix takes fill 0.25 and 0.8 only; between them, low spherical caps
 * (h/R 0.25) at pitch 32-40 read mean D 20-34 % small under the dome rule
 * before h34i (its centres locked onto the lit flank, and the formation's
 * blur, which holds their scatter, shut the axis step's gate:
 * centre_axis.h). Scenes 0-7: fill {0.5, 0.6} x pitch {32, 40} x
 * detector azimuth {0, 135 deg}, h/R 0.25; 8 and 9: h/R 0.5 (fill 0.5,
 * pitch 32, 0 deg; fill 0.6, pitch 40, 135 deg). Spherical caps without
 * a screen (corner scenes 33 and 49's formation), seeds of their own. */
#define NINTERIOR SEM_INTERIOR_SCENES
/* h34i: 3 -> 8 of 10; h35c: 8 -> 9 of those 10, 11 and 10 of 14 (main
 * before h35c: 10 and 9 of 14); h35j: 12 and 11 of 14 (scenes 11 and 12
 * no longer read a lattice harmonic as a halftone screen: halftone.h);
 * h36e: 13 and 12 (scene 11's shift read again from the moved centres
 * where the centres' scatter shut the axis step's gate: centre_axis.h,
 * ax->own; D -3.1 -> -2.2 %); h37d: 13 and 13 (scene 13, h/R 0.5: the
 * level's readings on the cast shadow's border, detect_base_fit.h
 * fs_det_base_shadow_factor; S -4.4 -> -1.6 %); h38l: 14 and 14 (scene 3,
 * its centres locked onto the lit flank moved one by one after the axis
 * step: fs_det_base_axis_perdome, centre_perdome.h; S +5.0 -> +1.5 %;
 * held out 13 and 13 as before: scene 6, a third of its centres locked) */
#define LEVEL_INTERIOR_D 14
#define LEVEL_INTERIOR_ALL 14

/* The same 14 scenes printed through a 5-px halftone screen (h43m): the
 * simulator's halftone set after the seed, the default scan blur, the
 * surface the unscreened scene's - how h43d and h43j screened them
 * (SEM_SET=halftone=5). Before h43j they read D 10-48 % short (the
 * refinement's lit-side centres refusing the formation's offset, and the
 * screened level's gate asking the template fit's unscaled radius), and
 * nothing here guarded the mends but two single-scene tests. Floors: the
 * test seeds' counts at h43j's merge (main 8d7f072). With h43j's two lib
 * commits reverted the table reads D 2, S 2, SD 11/12, RP 14, all four 2
 * and mean D within 10 % on 7 of 14 (i0 -24, i1 -38, i4 -33, i6 -48, i11
 * -25 %); the 3 % counts move by a scene or two, so the 10 % count is
 * asserted as well: it is what h43j mended (12 of 14 today, the floor 11
 * because i1 reads -10.0 %, on the line). What they guard is h43j's
 * refused offset (fs_det_offset_refused): its gate mend alone reverted,
 * the table reads 4/4/11/14/4 and 11 within 10 % and passes - that mend
 * acts from the true centres, test_base_level_screened and
 * test_remeasure_truth hold it. Held out (+4000): 5/4/11/14/4 before and
 * after h43j, within 10 % 7 -> 9. Since h44d (under a screen coarse
 * against the lattice the refined and unrefined first passes are both
 * sized, and the unrefined kept where the two part) 13 of 14 within 10 %,
 * the floor 12 (i1 still reads -10.0 %, on the line, so 13 would turn on
 * its last digit); h44d reverted reads 12 and passes, its own guard is
 * test_offset_refused's printed interior scene 4. Held out 5/4/12/14/4, within 10 % 12.
 * Stop 47 raised D, S, SD and all four to 4/5/12/4: h47d's turned refit
 * below the rounding bar (R^2 >= 0.99) and h47j's clear start on half
 * the refinement's rays read 4/5/12/14/4 together (3/4/11/14/3 and
 * 3/4/12/14/3 each alone); held out 8/7/12/14/7, within 10 % 14.
 * h51f raised D, S and all four to 10/9/9: walk mode 2 with the lit cap
 * on by default (detect_walk.h, dome_measure.h) reads 10/9/12/14/9, 13
 * within 10 % (main before it 4/5/12/14/4, 13).
 * Stop 52 raised D to 11 and within 10 % to 13: h52c's per-image lit gate
 * on by default (fs_det_base_set_lit_gate, 0.5 px: the tall printed domes
 * read again with the free circle) reads 11/9/12/14/9 and 14 of 14 within
 * 10 % (off: 10/9/12/14/9, 13); the floor 13, not 14, as i1 still sits
 * near the line. A SEM_SET halftone overrides the 5 px;
 * under the sanitizers every 8th scene, as the interior table. */
#define PRINTED_HALFTONE 5
#define LEVEL_PRINTED_D 11
#define LEVEL_PRINTED_S 9
#define LEVEL_PRINTED_SD 12
#define LEVEL_PRINTED_RP 14
#define LEVEL_PRINTED_ALL 9
#define LEVEL_PRINTED_D10 13

static summary sum_interior, sum_printed;

/* halftone: the screen's period in px, 0 for none (the scenes' own). */
static void run_interior(const char *title, int halftone, sem_detect_fn fn, summary *S)
{
	scene_result R;
	memset(S, 0, sizeof *S);
	printf("%s\n", title);
	printf("%-5s %-4s %-4s %-4s %-3s %5s %5s %6s %6s %6s %5s\n", "scene", "fill", "h/R", "az", "pit", "rec",
	       "prec", "D%", "S%", "sdD%", "nan");
	for (int i = 0; i < NINTERIOR; i += SEM_SCENE_STEP) {
		sem_opts o;
		sem_interior_scene(i, &o);
		if (halftone)
			o.halftone = halftone;
		S->run++;
		run_scene(0, &o, fn, &R);
		int ok_d = fabs(R.d_err) < 3, ok_s = fabs(R.s_err) < 3;
		int ok_sd = !R.sd_applies || R.d_sd < 8;
		int ok_rp = R.recall >= 0.97 && R.precision >= 0.97;
		S->d += ok_d;
		S->s += ok_s;
		S->sd_applies += R.sd_applies;
		S->sd += R.sd_applies && R.d_sd < 8;
		S->rp += ok_rp;
		S->all += ok_d && ok_s && ok_sd && ok_rp;
		S->d10 += fabs(R.d_err) < 10;
		printf("%-5d %-4.2f %-4.2f %-4.0f %-3.0f %5.3f %5.3f %6.1f %6.1f %6.1f%s %4d %s%s%s%s\n", i, o.fill,
		       o.h_over_r, o.det_azimuth * 180 / M_PI, o.pitch, R.recall, R.precision, R.d_err, R.s_err,
		       R.d_sd, R.sd_applies ? "*" : " ", R.n_nan, ok_d ? "" : " D", ok_s ? "" : " S",
		       ok_sd ? "" : " SD", ok_rp ? "" : " RP");
	}
	printf("targets met %s: mean D %d/%d, mean S %d/%d, D SD %d/%d, recall & precision "
	       "%d/%d, all four %d/%d\n",
	       halftone ? "between the corners, printed" : "between the corners", S->d, S->run, S->s, S->run,
	       S->sd, S->sd_applies, S->rp, S->run, S->all, S->run);
	if (halftone)
		printf("mean D within 10 %% (printed): %d/%d\n", S->d10, S->run);
}

static int run_all(void **state)
{
	(void)state;
	if (scene_set()) {
		sem_opts probe;
		sem_defaults(&probe);
		if (sem_opts_set_keys(&probe, scene_set())) {
			fprintf(stderr, "SEM_SET=%s: not KEY=VALUE of sem_opts_keys.h\n", scene_set());
			return -1;
		}
		printf("scene options after the seed (SEM_SET): %s\n", scene_set());
	}
	run_table("fs_detect (the outline rule, today's default):", fs_detect_outline, &sum_old);
	run_table("fs_detect_domes (circle votes + the dome-base rule, experimental):", fs_detect_domes,
		  &sum_new);
	run_interior("fs_detect_domes between the corners (fill 0.4-0.7, pitch 28-40, spherical, no screen):", 0,
		     fs_detect_domes, &sum_interior);
	run_interior("fs_detect_domes between the corners printed (the same scenes, 5-px halftone screen):",
		     PRINTED_HALFTONE, fs_detect_domes, &sum_printed);
	return 0;
}

/* The simulator itself: deterministic, and its truth consistent. */
static void simulator_is_deterministic_and_consistent(void **state)
{
	(void)state;
	sem_opts o;
	sem_defaults(&o);
	o.halftone = 4;
	o.jpeg_quality = 80;
	o.resample = 0.8;
	o.margin_top = 30;
	o.black_left = 40;
	sem_truth a, b;
	fs_image *ia = sem_make(&o, &a), *ib = sem_make(&o, &b);
	assert_non_null(ia);
	assert_non_null(ib);
	assert_int_equal(ia->width, ib->width);
	assert_int_equal(memcmp(ia->data, ib->data, (size_t)ia->width * ia->height * sizeof(float)), 0);
	assert_int_equal(a.n, b.n);
	assert_int_equal(ia->width, (int)lround(o.width * 0.8));
	assert_true(a.n > 50);
	assert_true(fabs(a.pitch - 0.8 * o.pitch) < 1e-9);
	/* diameters near fill x pitch; spaces = centre distance - radii, about
	 * (1 - fill) x pitch; every pair is a lattice neighbour */
	double md = 0;
	for (size_t i = 0; i < a.n; i++)
		md += a.d[i];
	md /= a.n;
	assert_true(fabs(md - o.fill * a.pitch) < 0.03 * o.fill * a.pitch);
	double ms = 0;
	for (size_t q = 0; q < a.n_pairs; q++) {
		double dist = hypot(a.x[a.pi[q]] - a.x[a.pj[q]], a.y[a.pi[q]] - a.y[a.pj[q]]);
		assert_true(dist > 0.8 * a.pitch && dist < 1.2 * a.pitch);
		assert_true(fabs(a.space[q] - (dist - 0.5 * (a.d[a.pi[q]] + a.d[a.pj[q]]))) < 1e-9);
		ms += a.space[q];
	}
	ms /= a.n_pairs;
	assert_true(fabs(ms - (1 - o.fill) * a.pitch) < 0.05 * a.pitch);
	assert_true(a.n_pairs > 2 * a.n);
	/* the white band and the black surround are outside the region */
	assert_true(fabs(a.ry0 - 30 * 0.8) < 1e-9 && fabs(a.rx0 - 40 * 0.8) < 1e-9);
	assert_true(ia->data[5 * ia->width + ia->width / 2] > 0.8);
	/* another seed, another image */
	o.seed = 2;
	sem_truth c;
	fs_image *ic = sem_make(&o, &c);
	assert_non_null(ic);
	assert_true(c.n != a.n || c.x[0] != a.x[0]);
	/* matching: the truth matches itself completely */
	int *m = malloc(a.n * sizeof *m);
	assert_non_null(m);
	assert_int_equal(sem_match(&a, a.x, a.y, a.n, 0.25 * a.pitch, m, NULL), 0);
	for (size_t i = 0; i < a.n; i++)
		assert_int_equal(m[i], (int)i);
	free(m);
	sem_truth_free(&a);
	sem_truth_free(&b);
	sem_truth_free(&c);
	fs_image_free(ia);
	fs_image_free(ib);
	fs_image_free(ic);
}

/* The levels reached when this was written (a regression guard, not the
 * issue's targets, which neither rule meets in every scene). */
static void accuracy_levels_reached(void **state)
{
	(void)state;
	assert_int_equal(sum_old.run, NSCENES / SEM_SCENE_STEP);
	assert_int_equal(sum_new.run, NSCENES / SEM_SCENE_STEP);
	assert_int_equal(sum_interior.run, (NINTERIOR + SEM_SCENE_STEP - 1) / SEM_SCENE_STEP);
	assert_int_equal(sum_printed.run, (NINTERIOR + SEM_SCENE_STEP - 1) / SEM_SCENE_STEP);
	if (SEM_SCENE_STEP > 1 || seed_add() || scene_set() || cand_nudge() != 0)
		return;
	assert_true(sum_old.d >= LEVEL_OLD_D);
	assert_true(sum_old.rp >= LEVEL_OLD_RP);
	assert_true(sum_new.d >= LEVEL_NEW_D);
	assert_true(sum_new.s >= LEVEL_NEW_S);
	assert_true(sum_new.sd >= LEVEL_NEW_SD);
	assert_true(sum_new.rp >= LEVEL_NEW_RP);
	assert_true(sum_new.all >= LEVEL_NEW_ALL);
	assert_true(sum_interior.d >= LEVEL_INTERIOR_D);
	assert_true(sum_interior.all >= LEVEL_INTERIOR_ALL);
	assert_true(sum_printed.d >= LEVEL_PRINTED_D);
	assert_true(sum_printed.s >= LEVEL_PRINTED_S);
	assert_true(sum_printed.sd >= LEVEL_PRINTED_SD);
	assert_true(sum_printed.rp >= LEVEL_PRINTED_RP);
	assert_true(sum_printed.all >= LEVEL_PRINTED_ALL);
	assert_true(sum_printed.d10 >= LEVEL_PRINTED_D10);
}

int main(void)
{
	const struct CMUnitTest sim[] = {
		cmocka_unit_test(simulator_is_deterministic_and_consistent),
	};
	const struct CMUnitTest acc[] = {
		cmocka_unit_test(accuracy_levels_reached),
	};
	fs_detect_set_cand_nudge(cand_nudge());
	int rc = cmocka_run_group_tests_name("sem simulator", sim, NULL, NULL);
	rc |= cmocka_run_group_tests_name("sem accuracy", acc, run_all, NULL);
	return rc;
}
