/*
 * bench_support.h - what every benchmark in tests/bench/ measures with: wall
 * and process-CPU clocks, the median of a few runs, the run count
 * (FS_BENCH_RUNS), and the 8-bit grey TIFF the large-image benches write
 * (the layout SEMs write: strips of 16 rows), and the comma-separated lists
 * of numbers their arguments take (--seeds 0,4000,..., --nudges, --scenes).
 *
 * CPU time is printed next to wall time because on a shared virtual machine
 * stolen time inflates the wall clock and not the process's CPU clock.
 * Nothing here allocates anything the caller must free.
 */
#ifndef BENCH_SUPPORT_H
#define BENCH_SUPPORT_H

#include "image/image.h"
#include "synth.h"

/* Monotonic wall clock, milliseconds. */
double bench_now_ms(void);

/* CPU time of the whole process (all threads), milliseconds. */
double bench_cpu_ms(void);

/* Median of v[0..n-1] (mean of the two middle values when n is even);
 * v is not reordered. 0 when n < 1. */
double bench_median(const double *v, int n);

/* The number of runs: FS_BENCH_RUNS when it is set to 1..9, otherwise
 * dflt. The figures are medians of 5. */
int bench_runs(int dflt);

/* A comma-separated list of numbers (e.g. "-1e-6,0,1e-6") into
 * v[0..max-1]: the count (0 for ""); -1 when an item is not a number, runs
 * on into anything but a comma or the list's end ("4000x"), or the list
 * holds more than max items. Written once (h49g) for the benches that had
 * each kept their own copy, some of which cut a long list short or read
 * "0;4000" as 0 without a word. */
int bench_parse_list(const char *s, double *v, int max);

/* The same list of whole numbers from lo to hi (the seed offsets, the
 * scenes' indices, the tiles' sizes) into v: -1 also when one is not
 * whole or outside [lo, hi]. */
int bench_parse_ints(const char *s, int lo, int hi, int *v, int max);
int bench_parse_seeds(const char *s, unsigned *v, int max);

/* Writes img (values 0..1, clamped) as an 8-bit min-is-black TIFF,
 * uncompressed or with deflate. 0, or -1 when it cannot be written. */
int bench_write_tiff8(const char *path, const fs_image *img, int deflate);

/* The options of issue 15's large scene: a 10000 x 10000 8-bit synthetic
 * SEM image, pitch 40 px, about 70,000 tubercles (bench_large and
 * bench_large_stages measure the same image). */
void bench_large_scene(synth_opts *o);
/* The same image at a fine pitch (14 px, about 590,000 tubercles): the
 * detection preprocesses it at full resolution, tile by tile. */
void bench_large_fine_scene(synth_opts *o);

/* The options of the detection benchmarks' synthetic lattice: 2048 x 1536,
 * pitch 36 px, rotated and jittered under a gradient (bench_detect times
 * both rules' detection on it, bench_detect_domes the dome rule's). */
void bench_detect_lattice(synth_opts *o);

#endif
