/*
 * font.h - a small built-in 5x7 bitmap font (our own glyph data) for labels
 * drawn into RGB buffers: digits, ASCII letters, common punctuation, the
 * micro sign, plus-minus and multiplication sign (UTF-8 "µ", "±", "×").
 * Unknown characters draw as '?'.
 *
 * Drawing clips at the buffer's borders; nothing is allocated or kept.
 */
#ifndef FS_FONT_H
#define FS_FONT_H

#define FS_FONT_WIDTH 5       /* glyph cell width, before scaling */
#define FS_FONT_HEIGHT 7
#define FS_FONT_ADVANCE 6 /* glyph width plus one column of spacing */

/* The next character of s (UTF-8) as seven rows of five bits (bit 4 = the
 * leftmost column), advancing *s past it; returns nonzero for a space or a
 * glyph, and the rows of '?' for an unknown character. */
int fs_font_next_glyph(const char **s, unsigned char rows[FS_FONT_HEIGHT]);

/* Width in pixels of s drawn at integer scale (>= 1). */
int fs_font_text_width(const char *s, int scale);

/*
 * Draws s with its top-left corner at (x, y) into rgb (3 bytes per pixel,
 * width x height, row-major) in colour rgb_color[0..2], each glyph pixel a
 * scale x scale block.
 */
void fs_font_draw(unsigned char *rgb, int width, int height, int x, int y, const char *s, int scale,
		  const unsigned char rgb_color[3]);

#endif
