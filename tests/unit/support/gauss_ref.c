/* gauss_ref.c - the Gaussian blurs' reference (see gauss_ref.h). */
#include "gauss_ref.h"

#include <math.h>

fs_image *gauss_ref_noise(int w, int h, unsigned seed)
{
	fs_image *img = fs_image_new(w, h);
	if (!img)
		return NULL;
	unsigned s = seed;
	for (int i = 0; i < w * h; i++) {
		s = s * 1103515245u + 12345u;
		img->data[i] = (float)((s >> 8) & 0xffff) / 65535.0f;
	}
	return img;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

double gauss_ref_at(const fs_image *img, int x, int y, double sigma)
{
	int R = (int)(4 * sigma + 0.5);
	double s = 0, ws = 0;
	for (int j = -R; j <= R; j++)
		for (int i = -R; i <= R; i++) {
			double wt = exp(-0.5 * (i * i + j * j) / (sigma * sigma));
			s += wt * fs_image_at(img, clampi(x + i, 0, img->width - 1), clampi(y + j, 0, img->height - 1));
			ws += wt;
		}
	return s / ws;
}
