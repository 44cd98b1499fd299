/*
 * sem_opts_keys.h - a simulated scene's options set from KEY=VALUE text,
 * for the benches that render a scene described on the command line
 * (bench_nobase_scene, bench_paper_trace --sem), so each bench does not
 * keep its own list of keys.
 *
 * Keys (angles in degrees): pitch, fill, angle, profile (0 sphere,
 * 1 paraboloid, 2 flat, 3 smooth cos^2), hr, rjit, pjit, rough, undul,
 * secant, az, elev, strength, shadow, edge, blur (beam), dose, drift,
 * halftone, scan (scan blur), cap, capp, foot, footst, footfrom (the smooth foot's power, stretch and its start), width, height, supersample
 * (alias super: sub-samples a side of the pixels near a base or a
 * shadow's border; 0 = SEM_SUPERSAMPLE, 1 every pixel its centre's
 * value), beam_continuous (alias beamc: 1 the beam blurred on the
 * sub-sample grid before the pixel's box, sem_sim.h), shiftx, shifty
 * (every dome and its truth moved by that many px: the pixel grid's
 * phase under the domes), seed.
 * Ownership: o is the caller's; kv is only read.
 */
#ifndef SEM_OPTS_KEYS_H
#define SEM_OPTS_KEYS_H

#include "sem_sim.h"

/* 0, or -1 when kv has no '=' or names no key (o then unchanged). */
int sem_opts_set_key(sem_opts *o, const char *kv);

/* A list of KEY=VALUE separated by commas or white space (an environment
 * variable's text, e.g. test_sem_accuracy's SEM_SET), applied in order.
 * 0, or -1 when an item is not a key (o then holds the items before it);
 * a NULL or empty list is 0 and changes nothing. */
int sem_opts_set_keys(sem_opts *o, const char *list);

/*
 * A bench's repeatable --set KEY=VALUE (the simulator options on every
 * scene after its seed), one list for every bench instead of a copy of
 * the loop in each: an item is checked on the defaults when it is given,
 * so a mistyped key stops the bench before any scene is rendered, and a
 * full list is refused rather than the option read as a scene number.
 * The items are the caller's (argv), not copied.
 */
#define SEM_OPTS_ARGS_MAX 16
typedef struct {
	const char *kv[SEM_OPTS_ARGS_MAX];
	int n;
} sem_opts_args;

/* 0, or -1 when kv is not a key (sem_opts_set_key) or the list is full
 * (a unchanged). */
int sem_opts_args_add(sem_opts_args *a, const char *kv);
/* sem_opts_args_add for a bench's command line: on refusal it says so on
 * stderr ("PROG: OPT KV: no such key ... or more than N"), so every bench
 * refuses a mistyped key in the same words without its own copy of the
 * message; the bench then exits 2. 0, or -1 (a unchanged). */
int sem_opts_args_say(sem_opts_args *a, const char *prog, const char *opt, const char *kv);
/* The benches' two common options at argv[*i], checked first in their
 * argument loops: "--seed-add N" (the held-out seeds: N added to every
 * scene's seed, into *seed_add) and, where a is given, "--set KEY=VALUE"
 * (into a). 1 when argv[*i] was one of them (*i then at its value: the
 * loop goes on to the next argument); 0 when it was neither, or one
 * without its value (the bench's own clauses then judge it, as before).
 * A refused --set is said as sem_opts_args_say says it and the process
 * exits 2, as each bench did itself (a bench's helper, never lib/'s). */
int sem_bench_arg(int argc, char **argv, int *i, unsigned *seed_add, sem_opts_args *a);
/* Every item of a set on o, in the order given. */
void sem_opts_args_apply(const sem_opts_args *a, sem_opts *o);
/* Corner scene k (sem_corner_scene) on the seeds seed_add further, then
 * every item of a on it: how the benches that take --seed-add and --set
 * start a corner scene. */
void sem_corner_args(int k, unsigned seed_add, const sem_opts_args *a, sem_opts *o);
/* The same start for interior scene k (sem_interior_scene) where
 * interior is set, else corner scene k: the benches with --interior. */
void sem_scene_args(int interior, int k, unsigned seed_add, const sem_opts_args *a, sem_opts *o);

#endif
