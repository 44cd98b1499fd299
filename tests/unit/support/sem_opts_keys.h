/*
 * sem_opts_keys.h - a simulated scene's options set from KEY=VALUE text,
 * for the benches that render a scene described on the command line
 * (bench_nobase_scene, bench_paper_trace --sem), so each bench does not
 * keep its own list of keys.
 *
 * Keys (angles in degrees): pitch, fill, angle, profile (0 sphere,
 * 1 paraboloid, 2 flat, 3 smooth cos^2), hr, rjit, pjit, rough, undul,
 * secant, az, elev, strength, shadow, edge, blur (beam), dose, drift,
 * halftone, scan (scan blur), cap, capp, width, height, supersample
 * (alias super: sub-samples a side of the pixels near a base or a
 * shadow's border; 0 = SEM_SUPERSAMPLE, 1 every pixel its centre's
 * value), beam_continuous (alias beamc: 1 the beam blurred on the
 * sub-sample grid before the pixel's box, sem_sim.h), seed.
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

#endif
