/* lattice_judged.c - see lattice_judged.h. */
#include "lattice_judged.h"

#include <string.h>

#include "nearest_point.h"

/* P2 Fig1c: removed and not real - a ridge's bright band (124,162),
 * (99,141), the gaps and flanks between first-pass domes, the top and
 * left margins (284,20), (310,20), (88,14), (31,35). (Not listed: the
 * removed (37,133), 6 px from the kept (31,136) - one place.) */
static const judged_site fig1c_gone[] = {
	{241, 342}, {124, 162}, {99, 141}, {230, 264}, {178, 208}, {68, 156}, {144, 397},
	{284, 20},  {126, 278}, {310, 20}, {46, 359},  {103, 310}, {63, 55},  {222, 396},
	{32, 220},  {73, 179},  {56, 264}, {117, 93},  {88, 14},   {250, 391},
	{129, 198}, {281, 352}, {291, 72}, {126, 344}, {95, 366},  {31, 35},  {194, 363},
};
/* kept and real: two domes no first-pass detection covers (the outline
 * rule finds the second too) */
static const judged_site fig1c_real[] = {{318, 255}, {164, 336}};

/* P1 Fig2: removed and not real - bare ground between domes (the
 * circles of 29-34 px radius centred on no dome), specks, the right
 * margin's debris (667,201) */
static const judged_site fig2_gone[] = {
	{569, 163}, {645, 466}, {112, 316}, {286, 394}, {59, 494}, {43, 530},
	{667, 201}, {428, 515}, {162, 389}, {319, 261}, {355, 512},
};
/* kept and real: small domes at lattice sites (the outline rule finds
 * the first one too) */
static const judged_site fig2_real[] = {{207, 396}, {360, 186}, {451, 271}, {539, 277}};

const judged_figure lattice_judged[2] = {
	{"P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif", 43.1, fig1c_gone, sizeof fig1c_gone / sizeof *fig1c_gone,
	 fig1c_real, sizeof fig1c_real / sizeof *fig1c_real},
	{"P1_Fig2_Polypterus_bichir_2.63um.tif", 71.9, fig2_gone, sizeof fig2_gone / sizeof *fig2_gone, fig2_real,
	 sizeof fig2_real / sizeof *fig2_real},
};

void lattice_judged_check(const judged_figure *f, const fs_tubercle_list *T, int dx, int dy,
			  judged_agreement *out)
{
	memset(out, 0, sizeof *out);
	double r = 0.15 * f->pitch;
	for (size_t k = 0; k < f->n_gone; k++) {
		long i = nearest_tubercle(T, f->gone[k].x - dx, f->gone[k].y - dy, r);
		if (i >= 0 && T->items[i].source == FS_SOURCE_LATTICE) {
			if (out->back < sizeof out->back_at / sizeof *out->back_at)
				out->back_at[out->back] = f->gone[k];
			out->back++;
		}
	}
	for (size_t k = 0; k < f->n_real; k++) {
		if (nearest_tubercle(T, f->real[k].x - dx, f->real[k].y - dy, r) < 0) {
			if (out->lost < sizeof out->lost_at / sizeof *out->lost_at)
				out->lost_at[out->lost] = f->real[k];
			out->lost++;
		}
	}
}
