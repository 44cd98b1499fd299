/*
 * num_format.h - numbers as text, quickly, for the CSV writers of large
 * results (a 70,000-tubercle set has a million numbers; glibc's printf of
 * one double with "%.6g" costs about half a microsecond, most of the CSV's
 * time).
 *
 * fs_fmt_g6 writes exactly what snprintf(out, n, "%.6g", v) writes, for
 * every double (checked against snprintf in tests/unit/base): a fast path
 * for the usual magnitudes whose rounding is unambiguous, snprintf itself
 * for the rest (ties and near-ties of the rounding, very small or large
 * values, zero, non-finite values).
 *
 * Ownership: the caller's buffer, at least FS_FMT_G6_MAX bytes; the text is
 * NUL-terminated and its length returned.
 */
#ifndef FS_NUM_FORMAT_H
#define FS_NUM_FORMAT_H

#define FS_FMT_G6_MAX 32

int fs_fmt_g6(char *out, double v);

/* Exactly snprintf(out, n, "%.17g", v) (out: at least FS_FMT_G17_MAX
 * bytes): the journal's numbers, which must read back bit for bit (a
 * re-extraction's step holds a million of them). Fast for
 * 1e-4 <= |v| < 1e17 (exact integer arithmetic), snprintf for the rest. */
#define FS_FMT_G17_MAX 40
int fs_fmt_g17(char *out, double v);
/* The 17 significant digits of v (its sign left out) as printf's "%.16e"
 * writes them, into dig (17 characters, no NUL), and their decimal exponent
 * into *x: 0, or -1 where only printf can say (a tie of the rounding, |v|
 * outside 1e-39..1e17, zero, not finite): the caller then asks snprintf.
 * The exports' exact numbers (annotation_write.c) start from them. */
int fs_digits17(double v, char dig[17], int *x);
/* A decimal integer, as "%lld" (out: at least 24 bytes). */
int fs_fmt_int(char *out, long long v);

#endif
