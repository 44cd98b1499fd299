/*
 * sorting.h - qsort's order of a large array with the work shared between
 * threads, and the k-th smallest of doubles without sorting them (the
 * serial steps of the 100 MP measurement that sorted everything: issue 15).
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

#endif
