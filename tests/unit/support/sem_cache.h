/*
 * sem_cache.h - the simulated scenes of one test run rendered once and
 * shared between the test binaries that judge the same scenes (the 64
 * corner scenes of sem_sim.h: test_dome_base, test_sem_accuracy,
 * test_dome_fit, ...).
 *
 * Why: rendering a scene (the yield integrated over each pixel, shadows)
 * costs as much as measuring it, and four binaries rendered the same 64
 * scenes (test_dome_base twice): most of make test's unit phase.
 *
 * How: when the environment names a directory in SEM_SCENE_CACHE (
 * tests/run_unit.sh makes one per build directory and run, and removes it
 * at the end), sem_make_shared looks for the scene's file there, keyed by
 * every field of the options and SEM_CACHE_VERSION; a missing or invalid
 * file (other options, other version, wrong size or checksum) is rendered
 * by sem_make and written (to a temporary name, then renamed: a reader
 * sees a whole file or none). Two processes wanting the same missing
 * scene do not both render it: the second waits on the first's lock on
 * the scene, then reads its file. Without SEM_SCENE_CACHE, or when the
 * directory cannot be used, it is sem_make: a test binary run alone
 * renders its scenes itself. The image and truth are bit-identical to
 * sem_make's (test_sem_cache.c).
 *
 * The cache must not outlive the build that filled it (the key does not
 * hold the simulator's code): run_unit.sh's directory lives for one run.
 * Bump SEM_CACHE_VERSION when the file layout changes.
 *
 * Ownership: as sem_make: a new fs_image (fs_image_free) and a filled
 * sem_truth (sem_truth_free).
 */
#ifndef SEM_CACHE_H
#define SEM_CACHE_H

#include "sem_sim.h"

#define SEM_CACHE_VERSION 1

/* sem_make through the run's scene cache; NULL as sem_make. */
fs_image *sem_make_shared(const sem_opts *o, sem_truth *t);

/* The cache file's path for o under dir (for the tests); 0, or -1 when it
 * does not fit in len. */
int sem_cache_path(const char *dir, const sem_opts *o, char *path, size_t len);

#endif
