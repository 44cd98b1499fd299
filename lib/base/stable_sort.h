/*
 * stable_sort.h - a stable merge sort of one item type with its comparator
 * inlined, for the hot sorts that called qsort.
 *
 * Why: glibc's qsort is a stable merge sort (sorting.h relies on it too),
 * but it calls the comparator through a pointer and copies items by a
 * size switch; on the dome rule's few thousand centres a comparison cost
 * some 45 instructions that the inlined one makes in a few. A stable sort
 * puts items that compare equal in their input order, so for any
 * comparator that is a consistent order (no NAN keys) every stable sort
 * gives the same order as qsort's to the byte, ties included.
 *
 * FS_STABLE_SORT_DEFINE(NAME, T, CMP) defines
 *     static inline void NAME(T *base, size_t n)
 * sorting base[0..n) by CMP (a qsort comparator of two const T *, called
 * directly, so inlined where the compiler can). Runs of up to 8 items are
 * sorted by insertion, longer ones by halves merged (the earlier half's
 * item first on a tie), through a buffer of n items; where that buffer
 * cannot be had the array is sorted by qsort with CMP (the same order).
 * Ownership: base is the caller's, reordered in place; nothing is kept.
 */
#ifndef FS_STABLE_SORT_H
#define FS_STABLE_SORT_H

#include <stdlib.h>
#include <string.h>

#define FS_STABLE_SORT_DEFINE(NAME, T, CMP)                                                              \
	static inline void NAME##_runs(T *b, size_t n, T *tmp)                                                \
	{                                                                                                \
		if (n <= 8) {                                                                            \
			/* insertion: an item moves left past greater ones only */                       \
			for (size_t a_ = 1; a_ < n; a_++) {                                              \
				T v_ = b[a_];                                                            \
				size_t c_ = a_;                                                          \
				for (; c_ > 0 && CMP(&b[c_ - 1], &v_) > 0; c_--)                         \
					b[c_] = b[c_ - 1];                                               \
				b[c_] = v_;                                                              \
			}                                                                                \
			return;                                                                          \
		}                                                                                        \
		size_t n1 = n / 2, n2 = n - n1;                                                          \
		T *b1 = b, *b2 = b + n1, *o = tmp;                                                       \
		NAME##_runs(b1, n1, tmp);                                                                \
		NAME##_runs(b2, n2, tmp);                                                                \
		while (n1 > 0 && n2 > 0) {                                                               \
			if (CMP(b1, b2) <= 0) {                                                          \
				*o++ = *b1++;                                                            \
				n1--;                                                                    \
			} else {                                                                         \
				*o++ = *b2++;                                                            \
				n2--;                                                                    \
			}                                                                                \
		}                                                                                        \
		/* what is left of the second half is in place already */                                \
		if (n1 > 0)                                                                              \
			memcpy(o, b1, n1 * sizeof *o);                                                   \
		memcpy(b, tmp, (n - n2) * sizeof *b);                                                    \
	}                                                                                                \
	static inline void NAME(T *base, size_t n)                                                            \
	{                                                                                                \
		if (n <= 1)                                                                              \
			return;                                                                          \
		T *tmp = n > 8 ? malloc(n * sizeof *tmp) : NULL;                                         \
		if (n > 8 && !tmp) {                                                                     \
			qsort(base, n, sizeof *base, CMP);                                               \
			return;                                                                          \
		}                                                                                        \
		NAME##_runs(base, n, tmp);                                                               \
		free(tmp);                                                                               \
	}

#endif
