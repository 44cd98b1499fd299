/* dome_signal.c - the SE signal of the image's dome in a patch (see
 * dome_signal.h). */
#include "analysis/dome_signal.h"

#include <math.h>
#include <string.h>

#include "analysis/lanes.h"

fs_dome_signal fs_dome_signal_at(const fs_dome_tpl *t, const fs_image *img, double x, double y)
{
	return fs_dome_signal_at_crop(t, img, 0, 0, x, y);
}

fs_dome_signal fs_dome_signal_at_crop(const fs_dome_tpl *t, const fs_image *img, int ox, int oy, double x, double y)
{
	fs_dome_signal s = {NAN, NAN, 0};
	/* (each point made in the whole image's pixels, then the crop's
	 * origin taken off: exact, as fs_dome_tpl_fit_crop) */
	x += ox;
	y += oy;
	size_t np = t->npts, n = 0;
	double so = 0, soo = 0, st[FS_DOME_TPL_NFILL] = {0}, stt[FS_DOME_TPL_NFILL] = {0},
	       sot[FS_DOME_TPL_NFILL] = {0};
	int w = img->width, h = img->height, nk = t->nk;
	for (size_t i = 0; i < np; i++) {
		double px = (x + t->dx[i]) - ox, py = (y + t->dy[i]) - oy;
		if (!(px >= 0 && py >= 0 && px < w - 1 && py < h - 1))
			continue;
		double o = fs_image_sample_inside(img->data, w, px, py);
		so += o;
		soo += o * o;
		int k = 0;
		if (t->tp) {
			/* the point's fills side by side (tp: t widened, the same
			 * doubles), two to a pair of lanes, each fill's sums
			 * still added point by point in order (h50a) */
			const double *tv = t->tp + i * (size_t)nk;
			v2d o2 = {o, o};
			for (; k + 1 < nk; k += 2) {
				v2d v, a, b, c;
				memcpy(&v, tv + k, sizeof v);
				memcpy(&a, st + k, sizeof a);
				memcpy(&b, stt + k, sizeof b);
				memcpy(&c, sot + k, sizeof c);
				a += v;
				b += v * v;
				c += o2 * v;
				memcpy(st + k, &a, sizeof a);
				memcpy(stt + k, &b, sizeof b);
				memcpy(sot + k, &c, sizeof c);
			}
		}
		for (; k < nk; k++) {
			double v = t->t[(size_t)k * np + i];
			st[k] += v;
			stt[k] += v * v;
			sot[k] += o * v;
		}
		n++;
	}
	s.used = n;
	if (4 * n < np || n < 3)
		return s;
	double vo = soo - so * so / n;
	s.signal = 0;
	s.r2 = 0;
	for (int k = 0; k < nk; k++) {
		double cov = sot[k] - so * st[k] / n, vt = stt[k] - st[k] * st[k] / n;
		if (!(cov > 0 && vt > 0 && vo > 0))
			continue;
		/* gain cov / vt; gain x template varies by gain^2 vt / n */
		double sig = cov / sqrt(vt * n), r2 = cov * cov / (vt * vo);
		if (r2 > s.r2) {
			s.r2 = r2;
			s.signal = sig;
		}
	}
	return s;
}
