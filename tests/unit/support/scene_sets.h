/*
 * scene_sets.h - the simulator's three scene sets as the formation benches
 * name and walk them (the 64 corner scenes, the interior ones, the
 * smooth-footed ones), and a scene of them started as those benches
 * start one: detected by the dome rule, with the rule's measurement
 * image. Written once for bench_formation_truth and bench_foot_formation,
 * whose copies were the same lines, and the start of bench_blur_fine_read,
 * bench_blur_kernel --rule and bench_common_shift (stop 44's review).
 * Also the small-dome benches' default corner scenes (h49g).
 *
 * Ownership: a dome_scene owns its scene, detection and images;
 * dome_scene_close frees them, whatever dome_scene_open returned.
 */
#ifndef SCENE_SETS_H
#define SCENE_SETS_H

#include "analysis/detect.h"
#include "image/image.h"
#include "sem_scene.h"
#include "sem_sim.h"

enum { SET_CORNER, SET_INTERIOR, SET_SMOOTH, NSET };
/* "corner", "interior", "smooth" */
extern const char *const SET_NAME[NSET];
/* how many scenes each set holds */
extern const int SET_COUNT[NSET];

/* The set named name (SET_NAME), or -1. */
int scene_set_named(const char *name);

/* The corner scenes the small-dome benches take when given none into
 * scenes (room for 16): the unscreened fill-0.25 pitch-16 groups A (2 6 18
 * 22) and E (0 4 16 20), and with_b1 also B1 (1 3 5 7 17 19 21 23); the
 * count. Written once (h49g) for bench_level_beam, bench_blur_kernel,
 * bench_small_dome_patch (A, E), bench_common_shift and bench_level_small
 * (A, E, B1). */
int small_dome_scenes(int *scenes, int with_b1);

/* Scene k of set with seed_add added to its seed (the held-out seeds). */
void scene_set_opts(int set, int k, unsigned seed_add, sem_opts *o);

typedef struct dome_scene {
	sem_scene s;
	fs_detect_result res; /* the dome rule's detection */
	fs_image *fimg;       /* the image as floats when it was compact, else NULL */
	fs_image *meas;       /* the rule's measurement image */
	double msig;          /* its blur: the dome rule's, 1 px from a pitch of 40 px, else 0.5 */
} dome_scene;

/* o's scene (scene k of set) rendered (through the scene cache),
 * detected by fs_detect_domes and its measurement image made
 * (fs_detect_measure_image at msig, the dome rule's). 0; or -1, m closed,
 * when either failed, said on stdout as the benches' own lines said it
 * ("SET k: why", "SET k: measurement image: why"). */
int dome_scene_open(dome_scene *m, const sem_opts *o, int set, int k);
/* The same, detected only where detect is set: otherwise the scene alone
 * (m->res empty, the measurement image at the small pitch's msig, 0.5),
 * for a bench that reads neither the rule's centres nor its score
 * (bench_foot_formation --no-rule, h44g). */
int dome_scene_open_as(dome_scene *m, const sem_opts *o, int set, int k, int detect);
void dome_scene_close(dome_scene *m);

#endif
