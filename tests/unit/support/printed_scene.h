/*
 * printed_scene.h - an interior scene under a halftone screen (a printed
 * figure's dots) set up as the unrefined path's tests read it: rendered
 * through the scene cache, its pitch estimated from the lattice, the dome
 * rule's measurement image at the small pitch's blur (0.5 px), and, for
 * the tests that start from the truth, every true dome inside the frame a
 * candidate. Written once (h49g) for test_base_ridge_lit,
 * test_offset_held_lowpass and test_detect_walk, which had each written
 * these lines.
 *
 * Ownership: a printed_scene owns its image, truth and measurement image;
 * printed_scene_close frees them whatever printed_scene_open returned.
 * printed_scene_true_cands' *out is the caller's (fs_cand_free).
 */
#ifndef PRINTED_SCENE_H
#define PRINTED_SCENE_H

#include "analysis/detect_candidates.h"
#include "analysis/params.h"
#include "image/image.h"
#include "sem_sim.h"

typedef struct printed_scene {
	sem_opts o;     /* interior scene k, its seed + seed_add, the screen */
	sem_truth tr;   /* its truth */
	fs_image *img;  /* the rendered scene */
	fs_params p;    /* the default parameters */
	double pitch;   /* the lattice's estimate, px */
	fs_image *meas; /* fs_detect_measure_image at 0.5 px */
	char err[256];
} printed_scene;

/* Interior scene k on seed offset seed_add under a halftone screen of
 * that period (px) set up as above. 0, or -1 with err set. */
int printed_scene_open(printed_scene *s, int k, unsigned seed_add, double halftone);

/* Every true dome whose centre lies in the frame a candidate of radius
 * 0.3 pitch, in the truth's order. 0, or -1 when out of memory. */
int printed_scene_true_cands(const printed_scene *s, fs_cand_list *out);

void printed_scene_close(printed_scene *s);

#endif
