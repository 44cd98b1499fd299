/* se_model_physical.c - the edge and shadow parts of the SE forward model as
 * the image formation makes them (see se_model_physical.h). */
#include "se_model_physical.h"

#include <math.h>
#include <string.h>

int se_phys_edge_px(const fs_se_geom *m, int g, int half, double px_per_sample, double cap_px, float *out)
{
	if (g < 4 || half < 1 || !(px_per_sample > 0) || !(cap_px > 0) || !(m->fill > 0) || m->fill >= 1 ||
	    !(m->h_over_r > 0))
		return -1;
	int cw = 2 * half + 1;
	memset(out, 0, (size_t)cw * cw * sizeof *out);
	/* grid units: the base radius, the lattice's two vectors */
	double R = 0.5 * m->fill * g, H = m->h_over_r;
	double ax = g * cos(m->angle), ay = g * sin(m->angle);
	double bx = g * cos(m->angle + M_PI / 3), by = g * sin(m->angle + M_PI / 3);
	int span = half / g + 2;
	for (int i = -span; i <= span; i++)
		for (int j = -span; j <= span; j++) {
			double sx = i * ax + j * bx, sy = i * ay + j * by;
			int x0 = (int)floor(sx - R) - 1, x1 = (int)ceil(sx + R) + 1;
			int y0 = (int)floor(sy - R) - 1, y1 = (int)ceil(sy + R) + 1;
			if (x1 < -half || y1 < -half || x0 > half || y0 > half)
				continue;
			for (int y = y0 < -half ? -half : y0; y <= y1 && y <= half; y++)
				for (int x = x0 < -half ? -half : x0; x <= x1 && x <= half; x++) {
					double acc = 0;
					/* the same 2 x 2 subsamples as the model's other
					 * parts, so that the parts share one pixel */
					for (int b = 0; b < 2; b++)
						for (int a = 0; a < 2; a++) {
							double px = x + (a - 0.5) / 2 - sx, py = y + (b - 0.5) / 2 - sy;
							double rr = hypot(px, py), u = rr / R;
							if (u >= 1)
								continue; /* the flat: no curvature; the
									     base's kink is concave */
							double h, h1, h2;
							fs_se_dome_shape(u, H, m->profile, &h, &h1, &h2);
							/* Laplacian of R h(r / R) per grid unit,
							 * then per image px: a sample is
							 * px_per_sample px, so a curvature per px
							 * is the per-sample one over it */
							double lap = (u > 1e-6 ? (h2 + h1 / u) : 2 * h2) / R / px_per_sample;
							acc += fmin(cap_px, fmax(0, -lap));
						}
					out[(size_t)(y + half) * cw + (x + half)] += (float)(acc / 4);
				}
		}
	return 0;
}

void se_phys_shadow_parts(const fs_se_field *f, float *const out[SEX_N])
{
	int cw = 2 * f->half + 1;
	for (size_t k = 0; k < (size_t)cw * cw; k++) {
		/* fs_se_shadow writes the yield (>= 1) where the path is
		 * blocked and 0 elsewhere: blocked is its sign */
		float bl = f->c[FS_SE_SHADOW][k] > 0 ? 1.0f : 0.0f;
		out[SEX_BLOCKED][k] = bl;
		out[SEX_BLOCKED_SLOPE_X][k] = bl * f->c[FS_SE_SLOPE_X][k];
		out[SEX_BLOCKED_SLOPE_Y][k] = bl * f->c[FS_SE_SLOPE_Y][k];
	}
}
