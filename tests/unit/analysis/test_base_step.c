/*
 * A base reading on no step of the image is no reading of the base
 * (issue 13 section 4, h36g; base_step.h, detect_base_fit.h): where most
 * of an image's level readings lie where the rays' summed step is below
 * FS_BASE_STEP_MIN x its window's median, the dome rule's level is the
 * formation's own sizes.
 *
 * Checked against known domes (the SEM simulator, sem_sim.h): a lattice
 * of low domes (fill 0.5, pitch 48, h/R 0.25, P1 Fig1's detector side)
 * with sharp feet (spherical caps): from the true centres every base
 * shows a step (contrast >= FS_BASE_STEP_MIN) and a reading at the
 * window's ceiling (0.48 pitch, where P1 Fig1's readings went, h34g) lies
 * on none for most domes; the same lattice with smooth feet (the cos^2
 * dome, P1 Fig1's kind): the flat ground beyond the bases, 0.3-0.48
 * pitch, lies on no step for at least 90 % of the domes. A tile's crop
 * reads what the whole image reads. The level's arithmetic (a majority
 * of readings on no step: the formation's sizes) is checked beside the
 * pinned readings' in test_base_level_pinned.c, on the same plan. Cost:
 * about 0.15 s (two renders of 400 x 300 px).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/base_step.h"
#include "image/image.h"
#include "sem_sim.h"

/* the truth's domes whose whole window (0.6 pitch) lies in the frame:
 * their contrast at radius r_of_pitch x pitch (0: the true base) into c */
static size_t contrasts(const fs_image *img, const sem_truth *t, double r_of_pitch, double *c, size_t max)
{
	size_t n = 0;
	double m = 0.6 * t->pitch + FS_BASE_STEP_REACH;
	for (size_t i = 0; i < t->n && n < max; i++) {
		if (t->x[i] < m || t->y[i] < m || t->x[i] > t->width - 1 - m || t->y[i] > t->height - 1 - m)
			continue;
		double r = r_of_pitch > 0 ? r_of_pitch * t->pitch : t->d[i] / 2;
		c[n++] = fs_base_step_contrast(img, 0, 0, img->width, img->height, t->x[i], t->y[i], r,
					       0.09 * t->pitch, 0.48 * t->pitch);
	}
	return n;
}

static fs_image *scene(double profile, sem_truth *t)
{
	sem_opts o;
	sem_defaults(&o);
	o.width = 400;
	o.height = 300;
	o.pitch = 48;
	o.fill = 0.5;
	o.profile = profile;
	o.h_over_r = 0.25;
	o.det_azimuth = -59 * M_PI / 180; /* P1 Fig1's detector side */
	o.seed = 36;
	fs_image *img = sem_make(&o, t);
	assert_non_null(img);
	return img;
}

static void bases_show_a_step_the_ground_beyond_none(void **state)
{
	(void)state;
	double c[64];
	sem_truth t;
	/* spherical caps: a step at every base, none at the ceiling */
	fs_image *img = scene(0, &t);
	size_t n = contrasts(img, &t, 0, c, 64), low = 0;
	assert_true(n >= 12);
	for (size_t i = 0; i < n; i++) {
		assert_true(isfinite(c[i]));
		low += !(c[i] >= FS_BASE_STEP_MIN);
	}
	assert_int_equal(low, 0);
	n = contrasts(img, &t, 0.48, c, 64);
	low = 0;
	for (size_t i = 0; i < n; i++)
		low += c[i] < FS_BASE_STEP_MIN;
	assert_true(2 * low > n);
	/* a tile's crop (its offset and the whole image's size given) reads
	 * the same as the whole image, also where the rays reach the frame */
	int ox = 37, oy = 21;
	fs_image *crop = fs_image_new(img->width - ox, img->height - oy);
	assert_non_null(crop);
	for (int y = 0; y < crop->height; y++)
		memcpy(crop->data + (size_t)y * crop->width, img->data + (size_t)(y + oy) * img->width + ox,
		       (size_t)crop->width * sizeof *crop->data);
	double x = img->width - 10.3, y = img->height - 30.6;
	assert_true(fs_base_step_contrast(crop, ox, oy, img->width, img->height, x, y, 12, 4, 23) ==
		    fs_base_step_contrast(img, 0, 0, img->width, img->height, x, y, 12, 4, 23));
	fs_image_free(crop);
	fs_image_free(img);
	sem_truth_free(&t);

	/* the same lattice with smooth feet: the flat ground beyond the
	 * bases (0.3-0.48 pitch, where P1 Fig1's readings went) shows no
	 * step either; the base itself does here (contrast 1.2-3.1: the
	 * window holds more flat ground than foot), so the rule judges where
	 * a reading lies, not the foot's shape */
	img = scene(SEM_PROFILE_SMOOTH, &t);
	for (double f = 0.3; f < 0.49; f += 0.06) {
		n = contrasts(img, &t, f, c, 64);
		low = 0;
		assert_true(n >= 12);
		for (size_t i = 0; i < n; i++)
			low += c[i] < FS_BASE_STEP_MIN;
		assert_true(10 * low >= 9 * n);
	}
	fs_image_free(img);
	sem_truth_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bases_show_a_step_the_ground_beyond_none),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
