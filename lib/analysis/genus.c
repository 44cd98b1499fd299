/*
 * genus.c - genus suggestion from mean tubercle diameter and spacing (µm),
 * with the published ranges (Gayet & Meunier 1986, 1993; Brito et al.
 * 2000). One classifier: the original's extraction-time rule (see
 * metrics.h); its unnormalised /statistics variant is deliberately absent.
 */
#include "analysis/metrics.h"

#include <math.h>
#include <stddef.h>

struct genus_range {
	const char *name;
	double dmin, dmax, smin, smax;
};

/* Order matters: the first in-range match wins, as in the original. */
static const struct genus_range ranges[] = {
	{"Lepisosteus", 3.79, 5.61, 3.14, 4.75},
	{"Atractosteus", 5.68, 9.07, 1.89, 2.82},
	{"Polypterus", 2.19, 3.03, 5.57, 8.54},
	{"Obaichthys", 4.73, 5.27, 4.55, 4.79},
	{"Paralepidosteus", 5.73, 5.94, 6.00, 6.25},
	{"Lepidotes", 3.93, 4.78, 4.57, 5.02},
};

void fs_classify_genus(double d, double s, const char **genus, const char **confidence)
{
	size_t n = sizeof ranges / sizeof ranges[0];
	double best = INFINITY;
	const char *best_name = NULL;

	*genus = "Unknown";
	*confidence = "none";
	if (!isfinite(d) || !isfinite(s))
		return;
	for (size_t i = 0; i < n; i++) {
		const struct genus_range *r = &ranges[i];
		if (d >= r->dmin && d <= r->dmax && s >= r->smin && s <= r->smax) {
			*genus = r->name;
			*confidence = "high";
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct genus_range *r = &ranges[i];
		double score = fabs(d - (r->dmin + r->dmax) / 2) / (r->dmax - r->dmin) +
			       fabs(s - (r->smin + r->smax) / 2) / (r->smax - r->smin);
		if (score < best) {
			best = score;
			best_name = r->name;
		}
	}
	if (best < 1.5) {
		*genus = best_name;
		*confidence = "medium";
	} else if (best < 3.0) {
		*genus = best_name;
		*confidence = "low";
	}
}
