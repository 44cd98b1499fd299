/*
 * level_calib.h - the level reader's own excess (dome_measure.h's base
 * reading, fs_det_base_level_blur) read on the image's fitted formation,
 * where the base is known, so that it can be divided out of the image's
 * level (issue 13 section 2; h52a in docs/paper-figures.md). Not part of
 * the public API (detect.h).
 *
 * Why: from the simulator's TRUE centres the reader reads the 4-px flat
 * tops +15..+20 % long and the 4-px caps +4..+8 % (h46a, h47a, h49e). It
 * is not the reader's fault (it reads an ideal uniform 4-px disc within
 * 2 %): a rim-bright base blurred is, to a fraction of a per cent of its
 * profile, a larger uniform base less blurred (h47a). The image's
 * formation (dome_fit.h, the templates' weights, fs_dome_tpl_render)
 * holds the rim's contrast, so its lattice rendered at the templates'
 * fill and read by the same reader from the known site says what the
 * reader adds at this formation. h42a tried this at the formation's own
 * blur, which holds the first pass's centres' scatter, and the factor
 * scattered -37..+87 %; h51g's axis calibration worked only once its
 * lattice was rendered at the blur the image's across-axis profile shows
 * (fs_centre_axis.vblur), so that is the blur used here.
 *
 * It did not work (docs/paper-figures.md, h52a): at a 2-px radius the
 * profile's blur reads on 12 of 32 group-A scene-seeds and on none of the
 * caps, and where it reads the rendering holds +1..+8 % where the image's
 * domes read +19..+20 % from the TRUE centres (the templates' fill is
 * itself long, and the excess moves with the fill the weights are solved
 * and rendered at); divided out, the noise band fell 1113 -> 1094. With
 * the weights solved about the TRUE centres at the TRUE fill and blur the
 * rendering does carry the low flat tops' excess, so this stays as an
 * instrument for whoever reads those better.
 *
 * Process-wide switch (fs_level_calib_set; FS_TEST_LEVEL_CALIB for a test
 * or bench, tests/unit/support/test_level_calib.c): 0 off (the default),
 * 1 read and traced only (no bit of the rule moves), 2 read and divided
 * out of the level's readings.
 *
 * The same render read by the walked domes' lit reader, with and without
 * the formation's shadow, is the cast shadow's share of the tall printed
 * domes' reading (fs_level_calib_lit_shadow, below; h53e): it did not
 * work either - the formation's shadow changes the reading by 0.97-1.04
 * where the simulator's adds +3..+6 % of D - and stays off, an
 * instrument.
 *
 * The caller owns every argument; nothing is kept, except the traces'
 * functions and contexts, which stay the caller's until it sets NULL.
 */
#ifndef FS_LEVEL_CALIB_H
#define FS_LEVEL_CALIB_H

#include <stddef.h>

#include "analysis/dome_base_fit.h"
#include "analysis/dome_fit.h"

/* Sub-pixel phases of the rendered site per axis (NPH^2 renders, each
 * read once): the reader's polygon sits on the pixel grid, and a 4-px
 * base's reading moves with the phase. */
#define FS_LEVEL_CALIB_NPH 3

/* What one image's calibration read, for a bench's trace. */
typedef struct fs_level_calib_info {
	double fill;      /* the templates' median fill the lattice was rendered at */
	double blur;      /* the blur it was rendered at, px */
	double form_blur; /* the formation's own blur, px */
	double vblur;     /* the axis step's across-axis profile blur (NAN: none) */
	double mr;        /* the reader's reach (its window FS_DOME_R0..R1 x mr) */
	double ratio;     /* mean reading / rendered base radius (NAN: not read) */
	double ratio_form; /* the same at the formation's own blur (traced only) */
	double ratio_at;   /* the same at fs_level_calib_set_blur's blur (traced only; NAN: none) */
	fs_dome_fit form; /* the formation rendered (its own blur) */
	int nread;        /* phases read */
	int applied;      /* 1: the level's readings divided by ratio */
} fs_level_calib_info;

typedef void (*fs_level_calib_trace_fn)(void *ctx, const fs_level_calib_info *info);

/* A bench's instrument: with a trace set, the lattice is also read at
 * this blur (px; <= 0 none) into fs_level_calib_info.ratio_at - an
 * oracle's blur, e.g. the simulator's. Returns the previous one. */
double fs_level_calib_set_blur(double px);
/* The render's grid, samples a pitch (0, the default: the templates'
 * own, 24; fs_dome_tpl_render_grid says why a finer one, h53a). Returns
 * the previous one. */
int fs_level_calib_set_grid(int g);
/* The switch; returns the previous mode (0 off, 1 trace only, 2 on). */
int fs_level_calib_set(int mode);
int fs_level_calib_on(void);
/* A bench's trace, called once per calibrated image (NULL: none).
 * Process-wide; set before any detection runs. */
void fs_level_calib_set_trace(fs_level_calib_trace_fn fn, void *ctx);

/*
 * The reader's ratio on formation f's lattice (t built from f) rendered
 * at fill and at blur (px; f's own where not > 0), read with reach mr from
 * NPH^2 sub-pixel phases of its site: the mean reading over the rendered
 * base radius 0.5 fill pitch in *ratio, the phases read in *nread.
 * Returns 0 (*ratio NAN where fewer than half the phases read); 1 when
 * the lattice cannot be rendered; -1 on out of memory.
 */
int fs_level_calib_read(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, double blur, double mr,
			double *ratio, int *nread);

/*
 * The last step's (given centres): where the switch is on and vblur is
 * known (a trace is called even where it is not), the lattice of f (t's templates) is rendered at the fill 2
 * median(fr) / pitch of the n sized domes (fr NAN: not sized) and at
 * vblur where that is below f's blur, read with the median of the sized
 * domes' reaches mrs, traced, and in mode 2 every finite lr[k] divided by
 * the ratio. Returns 0 (nothing done where it cannot read); -1 on out of
 * memory.
 */
int fs_level_calib_apply(const fs_dome_tpl *t, const fs_dome_fit *f, const double *fr, const double *mrs, size_t n,
			 double vblur, double *lr);

/*
 * The walked domes' cast-shadow excess (h53e): on tall printed domes the
 * lit reader (fs_det_base_level_lowpassed_lit, far rays out) reads the
 * base +3..+7 % long, from the neighbours' cast shadow darkening the
 * ground at this dome's lit and side feet (h49b: with the simulator's
 * shadow off the same domes read -2..+2 %). The image's formation holds
 * that shadow (its elevation, the dome's height and the shadow's depth,
 * fs_se_shadow over the whole lattice, neighbours included), so its
 * lattice is rendered twice, with and without the shadow's part, and read
 * by the same lit reader from the known site under the same cap: the
 * ratio of the two mean readings is the shadow's share of the reading,
 * whatever the reader's other biases (they are in both).
 *
 * fs_level_calib_lit_shadow: formation f (t built from f) at fill, reach
 * mr, cap (px; NAN free); the phases where both renders read, in *nread;
 * *ratio 1 where t holds no shadow, NAN below half the phases. Returns 0,
 * 1 when the lattice cannot be rendered, -1 on out of memory.
 */
int fs_level_calib_lit_shadow(const fs_dome_tpl *t, const fs_dome_fit *f, double fill, double mr, double cap,
			      double *ratio, int *nread);
/*
 * The switch: 0 off (the default), 1 read only, 2 every walked image's
 * lit readings divided by the ratio, 3 only the images whose lit
 * readings the gate freed (cap NAN). FS_TEST_LIT_SHADOW=0..3
 * (tests/unit/support/test_lit_shadow.c). Returns the previous mode.
 */
int fs_level_calib_set_lit_shadow(int mode);
int fs_level_calib_lit_shadow_on(void);
/*
 * Where the switch is on: the ratio at the fill 2 median(fr) / pitch of
 * the n sized domes and the median reach mrs, in *ratio (NAN: not read),
 * and in modes 2 and 3 every finite lr[k] divided by it. Returns 0, -1
 * on out of memory.
 */
int fs_level_calib_lit_shadow_apply(const fs_dome_tpl *t, const fs_dome_fit *f, const double *fr, const double *mrs,
				    size_t n, double cap, double *lr, double *ratio);
/* What one image's lit-shadow reading read, for a bench's trace. */
typedef struct fs_lit_shadow_info {
	double fill, mr, cap; /* rendered at, read with (cap NAN: free) */
	int shadowed;         /* the templates hold a shadow */
	double ratio;         /* with / without the shadow (NAN: not read) */
	int nread;            /* phases read by both */
	int applied;          /* the image's lit readings divided by it */
	fs_dome_fit form;     /* the formation rendered */
} fs_lit_shadow_info;
typedef void (*fs_lit_shadow_trace_fn)(void *ctx, const fs_lit_shadow_info *info);
/* A bench's trace, called once per image read (NULL: none); process-wide,
 * set before any detection runs. */
void fs_level_calib_set_lit_shadow_trace(fs_lit_shadow_trace_fn fn, void *ctx);
/* A bench's oracle: the rendered geometry and the shadow's weight taken
 * from here instead of the formation (each NAN: the formation's own):
 * h/R, elevation (radians), profile (fs_se_geom's), a factor on the
 * templates' shadow weight, and the shadowed render's reading started
 * that far from the site along the detector's axis (px, + towards it).
 * Process-wide, set before any detection. */
typedef struct fs_lit_shadow_oracle {
	double h_over_r, elevation, profile, depth_x, start;
} fs_lit_shadow_oracle;
void fs_level_calib_set_lit_shadow_oracle(const fs_lit_shadow_oracle *o);

#endif
