/*
 * databar_read.h - reads the data bar that databar.h found: the words with
 * Tesseract (its C API, one engine per process, behind a mutex), then the
 * scale-bar label ("20µm", "20 um", "5 μm", "200nm", "1 mm"), the
 * magnification ("X700", "x 1,000", "x1.00k", "Mag = 700 X"), the
 * accelerating voltage, and where a band carries them the pixel size and the
 * horizontal field width. The label is the length word nearest the bar
 * line; label / bar length gives a calibration in µm per pixel with a
 * confidence in [0, 1].
 *
 * Why a confidence and not a yes/no: the result is a *suggestion* that may
 * be applied without a person looking (fishscale measure --calibration auto,
 * the upload setting) only when confidence >= FS_DATABAR_AUTO_CONFIDENCE.
 * The confidence multiplies Tesseract's word confidence by checks that a
 * misreading rarely passes: the label read the same way at two renderings,
 * a value of the 1-2-5 series microscopes print, the label next to the bar.
 *
 * Magnification: reported as read. It implies a pixel size only through the
 * width the vendor's magnification refers to (fs_databar_mag_um_per_px: the
 * 127 mm (5 in) of the Polaroid print the SEM magnifications were defined
 * on; JEOL, Hitachi, Zeiss, FEI/Thermo and TESCAN all still state it so for
 * stored images), so it is a rough check: a disagreement with the bar is
 * flagged only above 10 %.
 *
 * Ownership: the caller owns img, bar and out; nothing is kept except the
 * process's Tesseract engine (fs_databar_ocr_shutdown frees it; the tests
 * call it so that leak checkers see a clean exit).
 */
#ifndef FS_DATABAR_READ_H
#define FS_DATABAR_READ_H

#include <stddef.h>

#include "analysis/databar.h"
#include "image/image.h"

/* At and above this confidence a reading may be applied without a person. */
#define FS_DATABAR_AUTO_CONFIDENCE 0.80
/* The magnification's reference width (see above), mm. */
#define FS_DATABAR_MAG_REFERENCE_MM 127.0
/* Flags: a bar/magnification disagreement above this fraction. */
#define FS_DATABAR_MAG_TOLERANCE 0.10

#define FS_DATABAR_WORD_TEXT 64

typedef struct fs_databar_reading {
	int found;                /* the image carries a data bar (copied from the finder) */
	int n_words;
	char words[FS_DATABAR_MAX_TEXT][FS_DATABAR_WORD_TEXT]; /* as read, µ/μ kept as "µ" */
	int word_conf[FS_DATABAR_MAX_TEXT];                     /* Tesseract's 0..100 */

	int has_scale;            /* a label was read and tied to the bar: um_per_px is set */
	double label_value;       /* 20 */
	char label_unit[8];       /* "nm", "µm", "mm" */
	double label_um;          /* the label's length in µm */
	int label_word;           /* index into words, -1 when none */
	double bar_px;            /* the bar's length (the finder's sub-pixel length) */
	double um_per_px;         /* label_um / bar_px */
	double confidence;        /* [0, 1]; 0 when !has_scale */
	char source[96];          /* "scale bar 20 µm = 139.0 px" */
	char reason[160];         /* when !has_scale: why ("no scale-bar line", "label unreadable: '2?um'") */

	double magnification;     /* 0 = not read */
	double mag_um_per_px;     /* implied through FS_DATABAR_MAG_REFERENCE_MM; 0 when no magnification */
	int mag_disagrees;        /* |mag - bar| / bar > FS_DATABAR_MAG_TOLERANCE */
	double kv;                /* 0 = not read */
	double pixel_size_um;     /* "Pixel Size = 12.3 nm"; 0 = not read */
	double hfw_um;            /* "HFW = 29.8 µm"; 0 = not read */
	double ocr_ms;            /* time spent in Tesseract */
} fs_databar_reading;

/*
 * Reads bar (found in img by fs_databar_find). Returns 0 with out filled
 * (a data bar that cannot be read is a success with has_scale 0 and a
 * reason), -1 with a message when Tesseract cannot start (no language data)
 * or memory runs out. out is always written.
 */
int fs_databar_read(const fs_image *img, const fs_databar *bar, fs_databar_reading *out, char *err,
		    size_t errlen);

/* fs_databar_find then fs_databar_read. Both accept a compact img (image.h). */
int fs_databar_read_image(const fs_image *img, fs_databar *bar, fs_databar_reading *out, char *err,
			  size_t errlen);

/*
 * The parsing alone, on words already read (for tests and for text from
 * elsewhere): fills everything of out from words/rects except the OCR
 * fields. word_conf may be NULL (100 each). bar may be NULL (no line).
 * image_width: for the pixel size the magnification implies.
 */
void fs_databar_parse(const char *const *words, const int *word_conf, const fs_rect *rects, int n,
		      const fs_databar *bar, int image_width, fs_databar_reading *out);

/* Parses one length: "20µm", "20 um", "5 μm", "200nm", "1 mm", "1,5 µm" -> µm; 0 when it is not one. */
double fs_databar_parse_length(const char *text, double *value, char unit[8]);

/*
 * Parses a label read with the label characters only: the number (l, i ->
 * 1, s -> 5, o -> 0) and the unit; descender says the word has a glyph
 * below the line, i.e. a µ (then any of u, n, m or nothing stands for it).
 * Returns µm, 0 when it is no label.
 */
double fs_databar_parse_label(const char *text, int descender, double *value, char unit[8]);
/* 1 for 1, 2, 2.5, 3, 4, 5 times a power of ten: the values scale bars print. */
int fs_databar_nice_value(double v);
/* Distance in px from the word at r to the bar's line. */
double fs_databar_label_gap(const fs_databar *bar, fs_rect r);

/* Pixel size in µm implied by a magnification for an image width_px wide; 0 when mag <= 0. */
double fs_databar_mag_um_per_px(double mag, int width_px);

/* Frees the process's Tesseract engine (it is created again on the next read). */
void fs_databar_ocr_shutdown(void);

#endif
