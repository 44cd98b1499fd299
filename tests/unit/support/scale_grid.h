/*
 * scale_grid.h - the best radius scale of a model fitted to an image over
 * a grid of scales: the SEM simulator's accuracy instruments
 * (test_sem_oracle, test_sem_decompose) render each tubercle's model at
 * every scale of their grid, sum the squared misfit per scale, and take
 * the scale of the smallest sum, refined between grid points by the
 * parabola through it and its two neighbours.
 *
 * Nothing is allocated or kept; every pointer is the caller's.
 */
#ifndef SCALE_GRID_H
#define SCALE_GRID_H

/* The abscissa of the vertex of the parabola through (x[i], y[i]),
 * i = 0..2; x[1] when the three points do not open upwards. */
double scale_grid_vertex(const double *x, const double *y);

/* The best scale for the sums sse[i] at scales[i], i < n (n >= 3,
 * scales increasing): the parabola's vertex around the smallest sum;
 * when the smallest is at an end of the grid, that end's scale, and
 * *clip is set (else cleared). */
double scale_grid_best(const double *scales, const double *sse, int n, int *clip);

#endif
