/*
 * databar_synth.h - synthetic SEM images carrying a data bar drawn with real
 * fonts (FreeType; Debian's DejaVu and Liberation TTFs), for the data-bar
 * tests and the benchmark: a tubercle lattice (synth.h) as the scale, then
 * either JEOL-style text and bar over the image or a Zeiss/FEI-style band,
 * light on dark or dark on light, optional end ticks, noise and JPEG.
 *
 * Ownership: dbs_make returns a new fs_image (free with fs_image_free); the
 * option strings are borrowed. Deterministic for the same options.
 */
#ifndef DATABAR_SYNTH_H
#define DATABAR_SYNTH_H

#include <stddef.h>

#include "image/image.h"
#include "image/image_transform.h"

enum { DBS_OVERLAY = 0, DBS_BAND = 1 };
enum { DBS_LABEL_ABOVE = 0, DBS_LABEL_BESIDE = 1 };

typedef struct dbs_opts {
	int width, height;
	int style;           /* DBS_OVERLAY or DBS_BAND */
	int band_top;        /* DBS_BAND: the band at the top instead of the bottom */
	int layout;          /* where the label sits: DBS_LABEL_ABOVE (over the bar in a band,
			      * under it over the image) or DBS_LABEL_BESIDE (right of it) */
	int light_on_dark;   /* light glyphs (on a dark band, or white over the image) */
	const char *font;    /* TTF path */
	int text_px;         /* font pixel size (em) */
	double bar_px;       /* scale-bar length, outer edge to outer edge (fractional) */
	int bar_thickness;   /* rows */
	int ticks;           /* end ticks */
	int separator;       /* DBS_BAND: a 2-px line between the image and the band */
	const char *label;   /* "20 µm" (UTF-8) */
	const char *fields[4]; /* other text ("20kV", "X700"); NULL ends the list */
	double pitch;        /* lattice pitch of the scale surface, px */
	double noise;        /* Gaussian noise on the scale surface (before the data bar) */
	int jpeg_quality;    /* 0 = none, else a JPEG round trip of the whole image */
	unsigned seed;
} dbs_opts;

typedef struct dbs_truth {
	fs_rect rect;        /* bounding box of every glyph and the bar (band: the band) */
	double bar_x0, bar_x1; /* outer ends in pixel-centre coordinates */
	double bar_y;        /* centre row of the bar */
	fs_rect label;       /* bounding box of the label's glyphs */
} dbs_truth;

void dbs_defaults(dbs_opts *o);
/* NULL with a message (font not found, bad options, out of memory). */
fs_image *dbs_make(const dbs_opts *o, dbs_truth *t, char *err, size_t errlen);

/*
 * One random case of the test matrix (seed -> everything): style, polarity,
 * layout, font, text size 14-36 px, bar 50-400 px (fractional) 2-8 px thick,
 * end ticks, a label in nm, µm or mm written in one of the ways
 * microscopes write it ("20µm", "20 um", "5 μm", "200nm", "1 mm"), a
 * magnification and voltage field in the vendor's style, noise, and a JPEG
 * round trip in half the cases. o's strings point into the case itself, so a
 * dbs_case must not be copied once filled.
 */
typedef struct dbs_case {
	dbs_opts o;
	char label[32];
	char field[3][48];
	double label_um;   /* the label's length in µm */
	double mag;        /* the magnification written in the fields */
	double kv;
} dbs_case;
void dbs_random(unsigned seed, dbs_case *c);

/* The fonts the tests draw with (sans and mono, regular and bold). */
extern const char *const dbs_fonts[];
extern const int dbs_n_fonts;

#endif
