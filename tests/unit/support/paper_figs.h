/*
 * paper_figs.h - the published figures of tests/fixtures/paper with their
 * published values (expected.csv: file, species, genus, arrangement,
 * diameter and space in µm, source), read in one place for every test
 * that walks them (test_paper_images, test_dome_fit_paper).
 *
 * Ownership: the caller's array is filled; nothing is allocated.
 * paper_fig_names' strings live in a static table of this module, valid
 * for the program's life.
 */
#ifndef PAPER_FIGS_H
#define PAPER_FIGS_H

#include <stddef.h>

#define PAPER_FIGS_DIR "tests/fixtures/paper/"
#define PAPER_FIGS_MAX 16

typedef struct paper_fig {
	char file[160];    /* under PAPER_FIGS_DIR */
	char genus[64];
	char paper[8];     /* the file's prefix before the first '_': "P1", "P2", "P3" */
	double d_um, s_um; /* published mean diameter and edge-to-edge space */
	double ratio;      /* d / (d + s), the calibration-free figure */
} paper_fig;

/* Fills figs (at most max rows, in the file's order); returns how many,
 * or -1 when the list cannot be read. */
int paper_figs_read(paper_fig *figs, int max);

/* Points names[0..] at the figures' file names, in the list's order (the
 * benches walk them by name); returns how many, 0 when the list cannot
 * be read. Not thread-safe: it fills the module's static table. */
size_t paper_fig_names(const char **names, size_t max);

#endif
