/*
 * databar_ocr.h - the Tesseract side of reading a data bar: one engine per
 * process (created on first use, behind a mutex so threads take turns),
 * restricted to the characters data bars print, and the rendering of one
 * word of the image as the clean black-on-white line Tesseract reads best
 * (binarised between the ink and background levels the finder measured,
 * scaled so the glyphs are about 40 px tall, with a white margin).
 *
 * img may be compact (image.h): a word's samples are read as the same
 * floats, so the reading is the float image's.
 *
 * Ownership: the caller owns img and the output buffer; the engine is the
 * module's (fs_databar_ocr_shutdown in databar_read.h frees it).
 */
#ifndef FS_DATABAR_OCR_H
#define FS_DATABAR_OCR_H

#include <stddef.h>

#include "analysis/databar.h"
#include "image/image.h"

/*
 * Reads the word at r of img as one line of text. scale multiplies the
 * default rendering size (1.0 default; another value gives a second,
 * independent reading); label_only restricts the characters to those of a
 * scale-bar label (digits, separators, n, m, u). Writes UTF-8 text (trimmed, µ and μ as "µ") into
 * text and Tesseract's confidence (0..100) into *conf. Returns 0, or -1 with
 * a message (no engine, memory).
 */
int fs_databar_ocr_word(const fs_image *img, const fs_databar *bar, fs_rect r, double scale, int label_only,
			char *text, size_t textlen, int *conf, char *err, size_t errlen);

/*
 * Whether the word at r has a glyph reaching below the baseline (by 15 % of
 * the text height): in a scale-bar label only µ (or μ) does, so this tells
 * "µm" from "nm", "um" and "mm" whatever Tesseract made of it.
 */
int fs_databar_word_descender(const fs_image *img, const fs_databar *bar, fs_rect r);

#endif
