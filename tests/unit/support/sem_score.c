/* sem_score.c - a detection scored against the simulator's truth (see
 * sem_score.h). */
#include "sem_score.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sem_pair_scored(const sem_truth *t, const fs_tubercle_list *res, const int *mtru, size_t q)
{
	int a = t->pi[q], b = t->pj[q];
	if (mtru[a] < 0 || mtru[b] < 0 || !sem_counted(t, t->x[a], t->y[a]) || !sem_counted(t, t->x[b], t->y[b]))
		return 0;
	return isfinite(res->items[mtru[a]].radius_px) && isfinite(res->items[mtru[b]].radius_px);
}

int sem_score_detection(const sem_truth *t, const fs_tubercle_list *res, double halftone, sem_score *r)
{
	size_t n = res->n;
	double *xs = malloc((n + 1) * sizeof *xs), *ys = malloc((n + 1) * sizeof *ys);
	int *mdet = malloc((n + 1) * sizeof *mdet), *mtru = malloc((t->n + 1) * sizeof *mtru);
	int rc = -1;
	if (!xs || !ys || !mdet || !mtru)
		goto out;
	for (size_t i = 0; i < n; i++) {
		xs[i] = res->items[i].centroid_x;
		ys[i] = res->items[i].centroid_y;
	}
	if (sem_match(t, xs, ys, n, 0.25 * t->pitch, mdet, mtru))
		goto out;
	memset(r, 0, sizeof *r);
	size_t nt = 0, ntm = 0, nd = 0, ndm = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (!sem_counted(t, t->x[j], t->y[j]))
			continue;
		nt++;
		ntm += mtru[j] >= 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!sem_counted(t, xs[i], ys[i]))
			continue;
		nd++;
		ndm += mdet[i] >= 0;
	}
	r->n_true = nt;
	r->n_found = nd;
	r->recall = nt ? (double)ntm / nt : 0;
	r->precision = nd ? (double)ndm / nd : 0;
	/* diameters over matched counted truths */
	double sd_true = 0, sd_det = 0, se = 0, se2 = 0, dmean = 0;
	size_t nm = 0;
	for (size_t j = 0; j < t->n; j++) {
		if (mtru[j] < 0 || !sem_counted(t, t->x[j], t->y[j]))
			continue;
		double rd = res->items[mtru[j]].radius_px;
		if (!isfinite(rd)) {
			r->n_nan++;
			continue;
		}
		double e = (2 * rd - t->d[j]) / t->d[j];
		sd_true += t->d[j];
		sd_det += 2 * rd;
		se += e;
		se2 += e * e;
		dmean += t->d[j];
		nm++;
	}
	r->d_err = nm ? 100 * (sd_det - sd_true) / sd_true : NAN;
	r->d_sd = nm > 1 ? 100 * sqrt(fmax(0, (se2 - se * se / nm) / (nm - 1))) : NAN;
	dmean = nm ? dmean / nm : 0;
	r->sd_applies = dmean >= 8 && halftone <= dmean / 3;
	/* spaces over true neighbour pairs with both ends matched and measured */
	double st = 0, sdv = 0;
	size_t ns = 0;
	for (size_t q = 0; q < t->n_pairs; q++) {
		if (!sem_pair_scored(t, res, mtru, q))
			continue;
		const fs_tubercle *A = &res->items[mtru[t->pi[q]]], *B = &res->items[mtru[t->pj[q]]];
		st += t->space[q];
		sdv += hypot(A->centroid_x - B->centroid_x, A->centroid_y - B->centroid_y) - A->radius_px -
		       B->radius_px;
		ns++;
	}
	r->s_err = ns && st > 0 ? 100 * (sdv - st) / st : NAN;
	rc = 0;
out:
	free(xs);
	free(ys);
	free(mdet);
	free(mtru);
	return rc;
}

int sem_score_scaled(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f, sem_score *r)
{
	fs_tubercle_list c = *res;
	c.items = malloc((res->n + 1) * sizeof *c.items);
	if (!c.items)
		return -1;
	memcpy(c.items, res->items, res->n * sizeof *c.items);
	for (size_t i = 0; i < c.n; i++)
		c.items[i].radius_px *= f;
	int rc = sem_score_detection(t, &c, halftone, r);
	free(c.items);
	return rc;
}

int sem_score_scaled_ds(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f, double *d,
			double *s)
{
	sem_score sc;
	if (sem_score_scaled(t, res, halftone, f, &sc))
		return -1;
	*d = sc.d_err;
	*s = sc.s_err;
	return 0;
}

int sem_score_radii_ds(const sem_truth *t, const double *x, const double *y, const double *r, size_t n,
		       double halftone, double *d, double *s)
{
	fs_tubercle_list l = {0};
	for (size_t i = 0; i < n; i++) {
		fs_tubercle tb;
		fs_tubercle_init(&tb);
		tb.id = (int)i + 1;
		tb.centroid_x = x[i];
		tb.centroid_y = y[i];
		tb.radius_px = r[i];
		tb.fit_quality = 1;
		if (fs_tubercle_list_append(&l, &tb)) {
			fs_tubercle_list_free(&l);
			return -1;
		}
	}
	int rc = sem_score_scaled_ds(t, &l, halftone, 1.0, d, s);
	fs_tubercle_list_free(&l);
	return rc;
}

void sem_score_scaled_print(const sem_truth *t, const fs_tubercle_list *res, double halftone, double f)
{
	sem_score sc;
	if (!isfinite(f) || sem_score_scaled(t, res, halftone, f, &sc))
		printf(" %.4f NAN NAN", f);
	else
		printf(" %.4f %+6.2f %+6.2f", f, sc.d_err, sc.s_err);
}
