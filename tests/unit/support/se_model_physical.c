/* se_model_physical.c - the shadow's parts of the SE forward model as the
 * image formation makes them (see se_model_physical.h). */
#include "se_model_physical.h"


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
