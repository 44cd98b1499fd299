/*
 * sorting.h - qsort's order of a large array with the work shared between
 * threads, and the k-th smallest of doubles without sorting them (the
 * serial steps of the 100 MP measurement that sorted everything: issue 15),
 * with the ascending comparison of doubles and the medians built on it
 * (one definition for the modules that each had their own copy).
 *
 * Ownership: the caller's arrays are reordered in place; the functions
 * keep nothing.
 */
#ifndef FS_SORTING_H
#define FS_SORTING_H

#include <stddef.h>

/*
 * Sorts base (n items of size bytes) by cmp into the order of a stable
 * sort (items that compare equal keep their order; with a comparator that
 * is a total order, the only order): up to `threads` parts (1 .. the tile
 * pool's most) are sorted with qsort in the tile pool's threads, then
 * merged, the earlier part first on ties. glibc's qsort is such a stable
 * merge sort, so this gives its order to the byte. Small arrays, or one
 * thread, are sorted by qsort alone. Returns 0, or -1 when out of memory
 * for the merge's buffer (base then is sorted by qsort alone).
 */
int fs_sort_threads(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *), int threads);

/*
 * The k-th smallest (0-based, k < n) of a[0..n), which must hold no NAN:
 * the value sorting a and taking a[k] gives. a is reordered so that
 * a[0..k) <= a[k] <= a[k + 1..n) (Wirth's selection, linear time on
 * average). The largest of a[0..k) is then the (k-1)-th smallest.
 */
double fs_select_kth(double *a, size_t n, size_t k);

/*
 * qsort's comparator of doubles, ascending: -1, 0 or 1. A NAN compares
 * equal to everything (as the copies it replaces did; qsort's order is then
 * unspecified, so callers filter NANs first).
 */
int fs_cmp_double(const void *a, const void *b);

/*
 * The medians of a[0..n) (no NAN, n >= 1; NAN when n is 0), a reordered as
 * fs_select_kth leaves it. fs_median_upper: the value sorting a and taking
 * a[n / 2] gives (the upper of the two middle values when n is even);
 * fs_median_double: that value when n is odd, the mean of the two middle
 * values, 0.5 * (lower + upper), when it is even. The same value as the
 * sort to the bit, but for the sign of a zero: -0.0 and +0.0 compare equal,
 * so which of them stands at a middle index depends on the order of
 * equal items, which selection does not keep (nothing here divides by a
 * median that may be zero).
 */
double fs_median_upper(double *a, size_t n);
double fs_median_double(double *a, size_t n);

#endif
