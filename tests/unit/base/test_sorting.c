/* Unit tests for sorting.h: sorting in parts in threads gives the order of
 * a stable sort (ties in their first order) for any count of threads and
 * any size, and selection gives the value sorting gives at every rank,
 * duplicates and the median of two middle values included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/sorting.h"

struct item {
	int key;      /* compared */
	unsigned pos; /* where it was: the stable order's tie-break */
};

static int cmp_key(const void *a, const void *b)
{
	const struct item *p = a, *q = b;
	return (p->key > q->key) - (p->key < q->key);
}

static int cmp_key_pos(const void *a, const void *b)
{
	const struct item *p = a, *q = b;
	int c = cmp_key(a, b);
	return c ? c : (p->pos > q->pos) - (p->pos < q->pos);
}

static unsigned lcg(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* keys from few values, so most compare equal to many others: a sort that
 * swapped equal items across parts would show in their pos */
static void sorted_in_parts_is_the_stable_order(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 10007, 65536, 100003};
	unsigned seed = 1;
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		struct item *in = malloc((n ? n : 1) * sizeof *in);
		struct item *ref = malloc((n ? n : 1) * sizeof *ref);
		struct item *got = malloc((n ? n : 1) * sizeof *got);
		assert_non_null(in);
		assert_non_null(ref);
		assert_non_null(got);
		for (size_t i = 0; i < n; i++)
			in[i] = (struct item){(int)(lcg(&seed) % 97) - 48, (unsigned)i};
		memcpy(ref, in, n * sizeof *in);
		qsort(ref, n, sizeof *ref, cmp_key_pos); /* a total order: the stable one */
		for (int t = 1; t <= 9; t++) {
			memcpy(got, in, n * sizeof *in);
			assert_int_equal(fs_sort_threads(got, n, sizeof *got, cmp_key, t), 0);
			assert_memory_equal(got, ref, n * sizeof *ref);
		}
		free(in);
		free(ref);
		free(got);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void selection_gives_the_sorted_value_at_every_rank(void **state)
{
	(void)state;
	unsigned seed = 7;
	for (size_t n = 1; n <= 40; n++) {
		double v[40], sorted[40], work[40];
		for (size_t i = 0; i < n; i++)
			v[i] = (double)(lcg(&seed) % 9) * 0.5; /* many duplicates */
		memcpy(sorted, v, n * sizeof *v);
		qsort(sorted, n, sizeof *sorted, cmp_double);
		for (size_t k = 0; k < n; k++) {
			memcpy(work, v, n * sizeof *v);
			assert_true(fs_select_kth(work, n, k) == sorted[k]);
			/* partitioned around k: the largest below it is rank k - 1 */
			for (size_t i = 0; i < k; i++)
				assert_true(work[i] <= work[k]);
			for (size_t i = k + 1; i < n; i++)
				assert_true(work[i] >= work[k]);
			if (k) {
				double lo = work[0];
				for (size_t i = 1; i < k; i++)
					lo = work[i] > lo ? work[i] : lo;
				assert_true(lo == sorted[k - 1]);
			}
		}
	}
	/* a large array, sorted and reversed ones (the pivots' worst cases for
	 * a naive choice) */
	enum { N = 200001 };
	double *a = malloc(N * sizeof *a), *s = malloc(N * sizeof *s);
	assert_non_null(a);
	assert_non_null(s);
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < N; i++)
			a[i] = pass == 0 ? (double)(lcg(&seed) % 100000) / 7 : pass == 1 ? (double)i : (double)(N - i);
		memcpy(s, a, N * sizeof *a);
		qsort(s, N, sizeof *s, cmp_double);
		size_t ks[] = {0, N / 2, (size_t)(0.9 * (N - 1)), N - 1};
		for (size_t q = 0; q < 4; q++) {
			double *w = malloc(N * sizeof *w);
			assert_non_null(w);
			memcpy(w, a, N * sizeof *a);
			assert_true(fs_select_kth(w, N, ks[q]) == s[ks[q]]);
			free(w);
		}
	}
	free(a);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sorted_in_parts_is_the_stable_order),
		cmocka_unit_test(selection_gives_the_sorted_value_at_every_rank),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
