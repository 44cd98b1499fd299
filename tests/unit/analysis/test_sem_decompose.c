/*
 * Where the dome rule's error on issue 13's corner scenes comes from
 * (issue 13 section 2): the rule is three steps - its centres, the
 * per-image formation fit (dome_fit.h; the rule uses its centres' offset,
 * detect_offset.h) and the per-tubercle measurement (dome_measure.h) - and
 * the ORACLE of test_sem_oracle.c (true centres, TRUE formation, the base
 * radius fitted per tubercle by least squares of the rendered patch with a
 * gain and an offset per patch) meets the accuracy targets in 59 of 64
 * scenes. Swapping one step at a time between the two says which step
 * loses the scenes. Rows, per scene (mean D %, mean S %, SD of D %):
 *
 *   oracle   true centres,      true formation,            oracle's fit
 *   (1) fitT true centres,      formation FITTED at them,  oracle's fit
 *   (2) dcT  dome rule centres, true formation,            oracle's fit
 *   (3) dcF  dome rule centres, formation fitted at them,  oracle's fit
 *   rule     the dome rule itself (its centres and its diameters)
 *
 * "Fitted formation" = the simulator's options with the ones the fit
 * recovers replaced by its values (fitted_opts: h/R, profile, detector
 * azimuth, elevation and strength, edge brightening, shadow depth, blur);
 * the rest (secant exponent, undulation, drift, halftone screen, radius
 * jitter) stays true: the fit does not model them, and the oracle's gain
 * and offset per patch take the response. Per scene the fitted formation
 * is printed beside the true one, and the centres' RMS error and common
 * bias (% pitch); per group of each factor the mean centre RMS and each
 * row's count of scenes meeting all three accuracy targets; and the
 * rule's mean S error split into its centre-distance part and its
 * diameter part (S = distance - D: at fill 0.8, 3 % of S is 0.75 % of D).
 *
 * A detection at the rule's centre stands for the tubercle: the model,
 * rendered with the dome at its true centre, is read shifted by the
 * detection's offset, which is the model rendered at the detected centre
 * inside the patch (half a pitch: the neighbours' bases lie beyond it).
 *
 * Scenes: the 64 corners (sem_corner_scene) cut to 8 x 7 pitches without
 * the paper margin and black surround, as the oracle cuts them (to keep
 * three formations' renders affordable); the dome rule runs on that cut,
 * so its row here is not test_sem_accuracy's (the same scenes at 12 x 10
 * pitches with margins).
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
#include "analysis/dome_fit.h"
#include "analysis/halftone.h"
#include "sanitized.h"
#include "scale_grid.h"
#include "sem_sim.h"

#define NSCENES 64
/* Scenes run: all 64 in `make accuracy` (the plain build; make test skips
 * it there); under the sanitizers (fs_test_subset, sanitized.h: memory
 * and undefined behaviour, not the levels) two, scene 0 (every factor at
 * its first level) and scene 63 (every factor at its second: fill 0.8,
 * flat, h/R 1, a 5-px halftone, azimuth 135, pitch 64), so each level of
 * each factor still runs (every 8th scene took 55 s of CPU there, stop
 * 27). */
static int scene_step = 1;
#define SCENE_STEP scene_step
#define SCENES_RUN ((NSCENES - 1) / SCENE_STEP + 1)
/* wider than the oracle's 0.85..1.15: a fitted formation may put the
 * best radius further from the truth. Under the sanitizers three of them
 * (the grid's least, a vertex between points, the rendering of each model
 * take the same code at any count; the binary's CPU there 61 -> 31 s with
 * 3 scales instead of 8, h30e), and only the true formation's models
 * are rendered (h36b): the fitted formations' models are the simulator's
 * code again with other options (half the binary's CPU there; the rows
 * fitT and dcF print NaN), while the fits themselves (lib/) still run.
 * A coverage build sees the same lib/ lines and branches
 * (docs/paper-figures.md, h36b). */
#define NSCALES_MAX 8
static const double scales_all[NSCALES_MAX] = {0.75, 0.85, 0.92, 0.97, 1.02, 1.07, 1.15, 1.27};
static const double scales_subset[3] = {0.85, 1.02, 1.15};
static const double *scales = scales_all;
static int nscales = NSCALES_MAX;
#define NSCALES nscales
static int fitted_models = 1;

static void choose_subset(void)
{
	if (!fs_test_subset())
		return;
	scene_step = 63;
	scales = scales_subset;
	nscales = 3;
	fitted_models = 0;
}

enum { ROW_ORACLE, ROW_FIT_T, ROW_DC_T, ROW_DC_F, ROW_RULE, NROWS };
static const char *row_name[NROWS] = {"oracle", "fitT", "dcT", "dcF", "rule"};

/* Levels reached when this was written (h21f, a guard: each row's count
 * of scenes meeting all three accuracy targets): the oracle 60, the
 * fitted formation from the true centres 35, the dome rule's centres
 * with the true formation 13, with the fitted one 13, the rule 13. */
static const int row_level[NROWS] = {60, 35, 13, 13, 13};

typedef struct fit_err {
	double d, s, sd;
	int clipped;
} fit_err;

typedef struct scene_res {
	fit_err row[NROWS];
	int sd_applies, ok[NROWS];
	double c_rms, c_bias; /* dome rule's centres: RMS error, |mean error|, % pitch */
	double s_dist, s_diam; /* rule's mean S error = centre-distance part - diameter part, % of S */
	fs_dome_fit ft;       /* the formation fitted at the true centres */
	int ft_ok;
} scene_res;

static scene_res res[NSCENES];
static int n_run;

static void cut_opts(int k, sem_opts *o)
{
	sem_corner_scene(k, o);
	o->width = (int)(8 * o->pitch);
	o->height = (int)(7 * o->pitch);
	o->margin_top = 0;
	o->black_left = 0;
}

/* The simulator's options with the formation the fit found (see above).
 * Its weights map onto the simulator's parameters through the formation
 * both share: yield x (1 + k (n.d - sin e)) = sec (1 - k sin e) + k cos e
 * x slope + const, so side = k cos e / (1 - k sin e); the edge weight is
 * per the fit's grid unit of convexity; its blur holds the halftone's
 * low-pass and the scan's blur, which the simulator adds itself. */
static void fitted_opts(const sem_opts *o, const fs_dome_fit *f, sem_opts *m)
{
	*m = *o;
	m->h_over_r = f->h_over_r;
	m->profile = f->profile;
	m->det_azimuth = f->azimuth;
	double e = f->elevation > 0 ? f->elevation : 40 * M_PI / 180;
	double k = f->side / (cos(e) + f->side * sin(e));
	m->det_elevation = e;
	m->det_strength = fmax(0, k);
	m->shadow = fmin(0.95, fmax(0, f->shadow));
	m->edge = fmax(0, f->edge * (1 - k * sin(e)) * f->grid_px);
	double b2 = f->blur_px * f->blur_px;
	if (f->halftone > 0)
		b2 -= pow(FS_HALFTONE_LOWPASS * f->halftone, 2);
	if (o->halftone > 0)
		b2 -= o->scan_blur * o->scan_blur;
	m->beam_blur = sqrt(fmax(0.09, b2));
}

/* The expected image of formation o with every base radius scaled by s:
 * no shot noise, no fine roughness (test_sem_oracle.c). */
static fs_image *model_of(const sem_opts *o, double s)
{
	sem_opts m = *o;
	m.dose = 0;
	m.roughness = 0;
	m.radius_scale = s;
	sem_truth tm;
	fs_image *img = sem_make(&m, &tm);
	sem_truth_free(&tm);
	return img;
}

static double sample(const fs_image *im, double x, double y)
{
	return fs_image_sample_clamped(im, x, y);
}

/* The affine residual of each truth's patch (centre cx, cy; the model
 * read shifted by the centre's offset from the truth) into sse[j *
 * NSCALES + q] for the model of scale q. */
static void patch_sse(const fs_image *obs, const fs_image *model, const sem_truth *t, const int *use,
		      const double *cx, const double *cy, int q, double *sse)
{
	int W = obs->width, H = obs->height;
	double half = 0.5 * t->pitch;
	for (size_t j = 0; j < t->n; j++) {
		if (!use[j])
			continue;
		double dx = cx[j] - t->x[j], dy = cy[j] - t->y[j];
		int x0 = (int)floor(cx[j] - half), x1 = (int)ceil(cx[j] + half);
		int y0 = (int)floor(cy[j] - half), y1 = (int)ceil(cy[j] + half);
		double n = 0, so = 0, sm = 0, soo = 0, smm = 0, som = 0;
		for (int y = y0 < 0 ? 0 : y0; y <= y1 && y < H; y++)
			for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < W; x++) {
				if (hypot(x - cx[j], y - cy[j]) > half)
					continue;
				double ov = obs->data[(size_t)y * W + x], mv = sample(model, x - dx, y - dy);
				n++;
				so += ov;
				sm += mv;
				soo += ov * ov;
				smm += mv * mv;
				som += ov * mv;
			}
		double vm = smm - sm * sm / n, vo = soo - so * so / n, cv = som - so * sm / n;
		sse[j * NSCALES + q] = vm > 1e-12 ? vo - cv * cv / vm : vo;
	}
}

/* Best scale over the grid for sums sse[0..NSCALES-1] (scale_grid.h). */
static double best_scale(const double *sse, int *clip)
{
	return scale_grid_best(scales, sse, NSCALES, clip);
}

/* Errors of diameters dm[j] at centres (cx, cy) over the truths use[]:
 * mean D %, mean S % (true neighbour pairs both used), SD of D %. */
static void errors_of(const sem_truth *t, const int *use, const double *cx, const double *cy, const double *dm,
		      fit_err *f)
{
	double st_d = 0, se_d = 0, se = 0, se2 = 0;
	int n = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!use[j])
			continue;
		double e = dm[j] / t->d[j] - 1;
		st_d += t->d[j];
		se_d += dm[j];
		se += e;
		se2 += e * e;
		n++;
	}
	f->d = n ? 100 * (se_d - st_d) / st_d : NAN;
	f->sd = n > 1 ? 100 * sqrt(fmax(0, (se2 - se * se / n) / (n - 1))) : NAN;
	double st = 0, sv = 0;
	for (size_t q = 0; q < t->n_pairs; q++) {
		int a = t->pi[q], b = t->pj[q];
		if (!use[a] || !use[b])
			continue;
		st += t->space[q];
		sv += hypot(cx[a] - cx[b], cy[a] - cy[b]) - 0.5 * (dm[a] + dm[b]);
	}
	f->s = st > 0 ? 100 * (sv - st) / st : NAN;
}

/* Per-tubercle diameters from the sums, then their errors. */
static void oracle_errors(const sem_truth *t, const int *use, const double *cx, const double *cy,
			  const double *sse, double *dm, fit_err *f)
{
	int clipped = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!use[j])
			continue;
		int clip;
		dm[j] = best_scale(&sse[j * NSCALES], &clip) * t->d[j];
		clipped += clip;
	}
	errors_of(t, use, cx, cy, dm, f);
	f->clipped = clipped;
}

/* Fits the formation at n centres (default search, no uncertainty). */
static int fit_at(const fs_image *img, const double *xs, const double *ys, size_t n, fs_dome_fit *f)
{
	fs_dome_fit_opts fo;
	fs_dome_fit_opts_default(&fo);
	fo.no_sigma = 1;
	fo.no_profiles = 1;
	char err[128];
	double pitch = fs_dome_fit_pitch(xs, ys, n);
	return pitch >= 6 ? fs_dome_fit_image(img, xs, ys, n, pitch, &fo, f, err, sizeof err) : -1;
}

static void run_scene(int k, scene_res *r)
{
	sem_opts o;
	cut_opts(k, &o);
	sem_truth t;
	fs_image *obs = sem_make(&o, &t);
	assert_non_null(obs);
	size_t nt = t.n;
	memset(r, 0, sizeof *r);

	/* the dome rule */
	fs_params p;
	fs_params_default(&p);
	fs_detect_result dr;
	char err[256];
	assert_int_equal(fs_detect_domes(obs, &p, 0, &dr, err, sizeof err), 0);
	size_t nd = dr.tubercles.n;
	double *dx = malloc((nd + 1) * sizeof *dx), *dy = malloc((nd + 1) * sizeof *dy);
	int *mtru = malloc((nt + 1) * sizeof *mtru), *counted = calloc(nt + 1, sizeof *counted);
	int *matched = calloc(nt + 1, sizeof *matched);
	double *cx = malloc((nt + 1) * sizeof *cx), *cy = malloc((nt + 1) * sizeof *cy);
	double *dm = malloc((nt + 1) * sizeof *dm);
	double *sse[4];
	for (int i = 0; i < 4; i++)
		sse[i] = calloc(nt * NSCALES + 1, sizeof *sse[i]);
	assert_true(dx && dy && mtru && counted && matched && cx && cy && dm && sse[0] && sse[1] && sse[2] && sse[3]);
	for (size_t i = 0; i < nd; i++) {
		dx[i] = dr.tubercles.items[i].centroid_x;
		dy[i] = dr.tubercles.items[i].centroid_y;
	}
	assert_int_equal(sem_match(&t, dx, dy, nd, 0.25 * t.pitch, NULL, mtru), 0);
	double e2 = 0, ex = 0, ey = 0, dsum = 0;
	int nm = 0, nc = 0;
	for (size_t j = 0; j < nt; j++) {
		counted[j] = sem_counted(&t, t.x[j], t.y[j]);
		nc += counted[j];
		dsum += counted[j] ? t.d[j] : 0;
		cx[j] = t.x[j];
		cy[j] = t.y[j];
		if (!counted[j] || mtru[j] < 0 || !isfinite(dr.tubercles.items[mtru[j]].radius_px))
			continue;
		matched[j] = 1;
		const fs_tubercle *tb = &dr.tubercles.items[mtru[j]];
		ex += tb->centroid_x - t.x[j];
		ey += tb->centroid_y - t.y[j];
		e2 += pow(tb->centroid_x - t.x[j], 2) + pow(tb->centroid_y - t.y[j], 2);
		nm++;
	}
	assert_true(nc > 5 && nm > 5);
	r->sd_applies = dsum / nc >= 8 && o.halftone <= dsum / nc / 3;
	r->c_rms = 100 * sqrt(e2 / nm) / t.pitch;
	r->c_bias = 100 * hypot(ex / nm, ey / nm) / t.pitch;

	/* the formation fitted at the true centres and at the rule's */
	fs_dome_fit fd;
	r->ft_ok = fit_at(obs, t.x, t.y, nt, &r->ft) == 0;
	int fd_ok = fit_at(obs, dx, dy, nd, &fd) == 0;
	sem_opts oft, ofd;
	fitted_opts(&o, &r->ft, &oft);
	fitted_opts(&o, &fd, &ofd);

	/* the rule's centres per truth */
	double *rx = malloc((nt + 1) * sizeof *rx), *ry = malloc((nt + 1) * sizeof *ry);
	assert_true(rx && ry);
	for (size_t j = 0; j < nt; j++) {
		rx[j] = matched[j] ? dr.tubercles.items[mtru[j]].centroid_x : t.x[j];
		ry[j] = matched[j] ? dr.tubercles.items[mtru[j]].centroid_y : t.y[j];
	}
	for (int q = 0; q < NSCALES; q++) {
		fs_image *mt = model_of(&o, scales[q]);
		assert_non_null(mt);
		patch_sse(obs, mt, &t, counted, cx, cy, q, sse[0]);
		patch_sse(obs, mt, &t, matched, rx, ry, q, sse[2]);
		fs_image_free(mt);
		if (r->ft_ok && fitted_models) {
			fs_image *mf = model_of(&oft, scales[q]);
			assert_non_null(mf);
			patch_sse(obs, mf, &t, counted, cx, cy, q, sse[1]);
			fs_image_free(mf);
		}
		if (fd_ok && fitted_models) {
			fs_image *mf = model_of(&ofd, scales[q]);
			assert_non_null(mf);
			patch_sse(obs, mf, &t, matched, rx, ry, q, sse[3]);
			fs_image_free(mf);
		}
	}
	oracle_errors(&t, counted, cx, cy, sse[0], dm, &r->row[ROW_ORACLE]);
	if (r->ft_ok && fitted_models)
		oracle_errors(&t, counted, cx, cy, sse[1], dm, &r->row[ROW_FIT_T]);
	else
		r->row[ROW_FIT_T].d = r->row[ROW_FIT_T].s = r->row[ROW_FIT_T].sd = NAN;
	oracle_errors(&t, matched, rx, ry, sse[2], dm, &r->row[ROW_DC_T]);
	if (fd_ok && fitted_models)
		oracle_errors(&t, matched, rx, ry, sse[3], dm, &r->row[ROW_DC_F]);
	else
		r->row[ROW_DC_F].d = r->row[ROW_DC_F].s = r->row[ROW_DC_F].sd = NAN;
	for (size_t j = 0; j < nt; j++)
		dm[j] = matched[j] ? 2 * dr.tubercles.items[mtru[j]].radius_px : 0;
	errors_of(&t, matched, rx, ry, dm, &r->row[ROW_RULE]);
	/* the rule's S error: centre distances and diameters apart */
	double st = 0, sdist = 0, sdiam = 0;
	for (size_t q = 0; q < t.n_pairs; q++) {
		int a = t.pi[q], b = t.pj[q];
		if (!matched[a] || !matched[b])
			continue;
		st += t.space[q];
		sdist += hypot(rx[a] - rx[b], ry[a] - ry[b]) - hypot(t.x[a] - t.x[b], t.y[a] - t.y[b]);
		sdiam += 0.5 * (dm[a] + dm[b] - t.d[a] - t.d[b]);
	}
	r->s_dist = st > 0 ? 100 * sdist / st : NAN;
	r->s_diam = st > 0 ? 100 * sdiam / st : NAN;
	for (int w = 0; w < NROWS; w++) {
		const fit_err *f = &r->row[w];
		r->ok[w] = fabs(f->d) < 3 && fabs(f->s) < 3 && (!r->sd_applies || f->sd < 8);
	}
	for (int i = 0; i < 4; i++)
		free(sse[i]);
	free(rx);
	free(ry);
	free(dx);
	free(dy);
	free(mtru);
	free(counted);
	free(matched);
	free(cx);
	free(cy);
	free(dm);
	fs_detect_result_free(&dr);
	sem_truth_free(&t);
	fs_image_free(obs);
}

typedef struct tally {
	int d, s, sd, all;
} tally;

static tally met[NROWS];
static int n_sd;

static double deg(double a)
{
	return a * 180 / M_PI;
}

static void print_groups(void)
{
	static const char *factor[6] = {"fill", "profile", "h/R", "halftone", "azimuth", "pitch"};
	static const char *level[6][2] = {{"0.25", "0.80"}, {"sph", "flat"}, {"0.25", "1.0"},
					  {"none", "5px"},  {"0", "135"},     {"16", "64"}};
	printf("per group (the scenes of one level of one factor): dome rule centre RMS %% pitch (mean), "
	       "and scenes meeting all three targets per row\n");
	printf("%-8s %-5s %7s |", "factor", "level", "cRMS%");
	for (int w = 0; w < NROWS; w++)
		printf(" %6s", row_name[w]);
	printf("\n");
	for (int b = 0; b < 6; b++)
		for (int l = 0; l < 2; l++) {
			double rms = 0;
			int n = 0, ok[NROWS] = {0};
			for (int k = 0; k < NSCENES; k += SCENE_STEP) {
				if (((k >> b) & 1) != l)
					continue;
				rms += res[k].c_rms;
				n++;
				for (int w = 0; w < NROWS; w++)
					ok[w] += res[k].ok[w];
			}
			printf("%-8s %-5s %7.2f |", factor[b], level[b][l], n ? rms / n : NAN);
			for (int w = 0; w < NROWS; w++)
				printf(" %3d/%-2d", ok[w], n);
			printf("\n");
		}
}

static int run_all(void **state)
{
	(void)state;
	choose_subset();
	printf("sem decomposition (scenes cut to 8 x 7 pitches; D%%/S%%/sdD%% per row; oracle = true centres + "
	       "true formation + per-tubercle fit; fitT = true centres + formation fitted at them; dcT = dome "
	       "rule centres + true formation; dcF = dome rule centres + formation fitted at them; rule = the "
	       "dome rule itself; cRMS/cBias = rule centre error %% pitch; S split = rule S error from centre "
	       "distances | from diameters):\n");
	for (int k = 0; k < NSCENES; k += SCENE_STEP) {
		scene_res *r = &res[k];
		n_run++;
		run_scene(k, r);
		n_sd += r->sd_applies;
		printf("%2d f%.2f %-4s hr%-4.2f ht%d az%-3d p%-2d%s |", k, k & 1 ? 0.80 : 0.25, k & 2 ? "flat" : "sph",
		       k & 4 ? 1.0 : 0.25, k & 8 ? 5 : 0, k & 16 ? 135 : 0, k & 32 ? 64 : 16, r->sd_applies ? "*" : " ");
		for (int w = 0; w < NROWS; w++) {
			const fit_err *f = &r->row[w];
			printf(" %s %5.1f %5.1f %4.1f%s%s |", row_name[w], f->d, f->s, f->sd, r->ok[w] ? "" : "x",
			       f->clipped ? "c" : "");
			met[w].d += fabs(f->d) < 3;
			met[w].s += fabs(f->s) < 3;
			met[w].sd += r->sd_applies && f->sd < 8;
			met[w].all += r->ok[w];
		}
		printf(" cRMS %4.1f cBias %4.1f | S %5.1f %5.1f\n", r->c_rms, r->c_bias, r->s_dist, r->s_diam);
		sem_opts o;
		cut_opts(k, &o);
		const fs_dome_fit *f = &r->ft;
		double e = f->elevation > 0 ? f->elevation : 40 * M_PI / 180;
		printf("   fitted at true centres vs true: fill %.3f/%.2f h/R %.2f/%.2f prof %.0f/%.0f blur %.2f/%.2f px "
		       "az %.0f/%.0f el %.0f/%.0f k %.2f/%.2f edge %.2f/%.2f shadow %.2f/%.2f off %.2f,%.2f px R2 %.3f%s\n",
		       f->fill, o.fill, f->h_over_r, o.h_over_r, f->profile, o.profile, f->blur_px,
		       sqrt(o.beam_blur * o.beam_blur +
			    (o.halftone > 0 ? o.scan_blur * o.scan_blur + pow(FS_HALFTONE_LOWPASS * o.halftone, 2) : 0)),
		       deg(f->azimuth), deg(o.det_azimuth), deg(f->elevation), deg(o.det_elevation),
		       f->side / (cos(e) + f->side * sin(e)), o.det_strength, f->edge * f->grid_px, o.edge, f->shadow,
		       o.shadow, f->offset_x, f->offset_y, f->quality, r->ft_ok ? "" : " (fit failed)");
	}
	printf("rows meeting the targets (|mean D|, |mean S| < 3 %%, D SD < 8 %% where * applies):\n");
	for (int w = 0; w < NROWS; w++)
		printf("  %-6s D %d/%d  S %d/%d  SD %d/%d  all three %d/%d\n", row_name[w], met[w].d, n_run, met[w].s,
		       n_run, met[w].sd, n_sd, met[w].all, n_run);
	print_groups();
	return 0;
}

/* Each row keeps at least the scenes it met when this was written, and
 * the oracle (true centres and formation) is at least as good as any row
 * that swaps in a fitted or detected step, over all scenes. */
static void decomposition_levels(void **state)
{
	(void)state;
	assert_int_equal(n_run, SCENES_RUN);
	if (SCENE_STEP > 1)
		return;
	for (int w = 0; w < NROWS; w++)
		assert_true(met[w].all >= row_level[w]);
	for (int w = 1; w < NROWS; w++)
		assert_true(met[ROW_ORACLE].all >= met[w].all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decomposition_levels),
	};
	return cmocka_run_group_tests_name("sem decomposition", tests, run_all, NULL);
}
