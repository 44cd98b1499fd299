/* Unit tests for sorting.h and stable_sort.h: sorting in parts in threads,
 * and the merge sort with its comparator inlined, give the order of
 * a stable sort (ties in their first order) for any count of threads and
 * any size, and selection gives the value sorting gives at every rank,
 * duplicates and the median of two middle values included; the shared
 * comparator of doubles is ascending and the medians are the sorted middle
 * values to the bit (against an insertion sort of the test's own). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/sorting.h"
#include "base/stable_sort.h"

#include "test_rng.h"

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

/* n items keyed by nkeys values about 0 in their first order (pos), the
 * same sorted to the stable order (ref) and room for a sort under test
 * (got); each the caller's to free */
static void tied_items(size_t n, unsigned *seed, int nkeys, struct item **in, struct item **ref, struct item **got)
{
	*in = malloc((n ? n : 1) * sizeof **in);
	*ref = malloc((n ? n : 1) * sizeof **ref);
	*got = malloc((n ? n : 1) * sizeof **got);
	assert_non_null(*in);
	assert_non_null(*ref);
	assert_non_null(*got);
	for (size_t i = 0; i < n; i++)
		(*in)[i] = (struct item){(int)(test_lcg32(seed) % (unsigned)nkeys) - nkeys / 2, (unsigned)i};
	memcpy(*ref, *in, n * sizeof **in);
	qsort(*ref, n, sizeof **ref, cmp_key_pos); /* a total order: the stable one */
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
		struct item *in, *ref, *got;
		tied_items(n, &seed, 97, &in, &ref, &got);
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

/* stable_sort.h's sort with cmp_key inlined: the stable order too, at
 * sizes on both sides of its insertion runs (8) and of qsort's own paths,
 * ties in their first order (pos), and qsort's order for the comparator
 * alone (glibc's qsort is the stable merge sort sorting.h relies on) */
FS_STABLE_SORT_DEFINE(sort_items_inline, struct item, cmp_key)

static void inline_sort_is_the_stable_order(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 2, 7, 8, 9, 16, 17, 100, 1023, 4097};
	unsigned seed = 3;
	for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
		size_t n = sizes[si];
		struct item *in, *ref, *got;
		tied_items(n, &seed, 13, &in, &ref, &got);
		memcpy(got, in, n * sizeof *in);
		sort_items_inline(got, n);
		assert_memory_equal(got, ref, n * sizeof *ref);
		memcpy(got, in, n * sizeof *in);
		qsort(got, n, sizeof *got, cmp_key);
		assert_memory_equal(got, ref, n * sizeof *ref);
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
			v[i] = (double)(test_lcg32(&seed) % 9) * 0.5; /* many duplicates */
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
			a[i] = pass == 0 ? (double)(test_lcg32(&seed) % 100000) / 7 : pass == 1 ? (double)i : (double)(N - i);
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

/* The reference for the shared comparator and medians: insertion sort with
 * the < of C (no library code), on arrays without NAN. */
static void insertion_sort(double *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		double x = a[i];
		size_t j = i;
		for (; j > 0 && x < a[j - 1]; j--)
			a[j] = a[j - 1];
		a[j] = x;
	}
}

static void comparator_is_the_ascending_order(void **state)
{
	(void)state;
	const double v[] = {-INFINITY, -3.5, -1e-300, 0.0, 1e-300, 2.0, 2.0, 7.25, INFINITY, NAN};
	size_t nv = sizeof v / sizeof v[0];
	for (size_t i = 0; i < nv; i++)
		for (size_t j = 0; j < nv; j++) {
			double x = v[i], y = v[j];
			/* the copies' definition: a NAN equal to everything */
			int want = x < y ? -1 : x > y ? 1 : 0;
			assert_int_equal(fs_cmp_double(&v[i], &v[j]), want);
		}
	/* qsort with it gives the sorted order */
	unsigned seed = 11;
	double a[300], b[300];
	for (size_t i = 0; i < 300; i++)
		a[i] = b[i] = ((double)(test_lcg32(&seed) % 2001) - 1000) / 8;
	qsort(a, 300, sizeof *a, fs_cmp_double);
	insertion_sort(b, 300);
	assert_memory_equal(a, b, sizeof a);
}

static void medians_are_the_sorted_middle_values(void **state)
{
	(void)state;
	assert_true(isnan(fs_median_upper(NULL, 0)));
	assert_true(isnan(fs_median_double(NULL, 0)));
	unsigned seed = 5;
	for (int pass = 0; pass < 3; pass++)
		for (size_t n = 1; n <= 41; n++) {
			double v[41], s[41], w[41], u[41];
			for (size_t i = 0; i < n; i++) {
				unsigned r = test_lcg32(&seed);
				/* many duplicates; spread values; a sorted run */
				v[i] = pass == 0   ? (double)(r % 7) - 3
				       : pass == 1 ? ((double)(r % 100003) - 50000) / 3
						   : (double)(n - i) * 0.1;
			}
			memcpy(s, v, n * sizeof *v);
			insertion_sort(s, n);
			double hi = s[n / 2], mid = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
			memcpy(w, v, n * sizeof *v);
			double got = fs_median_upper(w, n);
			assert_memory_equal(&got, &hi, sizeof got);
			/* only reordered */
			memcpy(u, w, n * sizeof *w);
			insertion_sort(u, n);
			assert_memory_equal(u, s, n * sizeof *s);
			memcpy(w, v, n * sizeof *v);
			got = fs_median_double(w, n);
			assert_memory_equal(&got, &mid, sizeof got);
			memcpy(u, w, n * sizeof *w);
			insertion_sort(u, n);
			assert_memory_equal(u, s, n * sizeof *s);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sorted_in_parts_is_the_stable_order),
		cmocka_unit_test(inline_sort_is_the_stable_order),
		cmocka_unit_test(selection_gives_the_sorted_value_at_every_rank),
		cmocka_unit_test(comparator_is_the_ascending_order),
		cmocka_unit_test(medians_are_the_sorted_middle_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
