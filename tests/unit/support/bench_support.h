/*
 * bench_support.h - what every benchmark in tests/bench/ measures with: wall
 * and process-CPU clocks, the median of a few runs, the run count
 * (FS_BENCH_RUNS), and the 8-bit grey TIFF the large-image benches write
 * (the layout SEMs write: strips of 16 rows).
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
