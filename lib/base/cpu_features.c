/*
 * cpu_features.c - see cpu_features.h.
 */
#include "base/cpu_features.h"

static int forbidden;

void fs_cpu_forbid_avx(int forbid)
{
#if defined(__GNUC__)
	__atomic_store_n(&forbidden, forbid != 0, __ATOMIC_RELAXED);
#else
	forbidden = forbid != 0;
#endif
}

int fs_cpu_has_avx(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (__atomic_load_n(&forbidden, __ATOMIC_RELAXED))
		return 0;
	static int known = -1; /* a race writes the same answer twice */
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("avx") ? 1 : 0;
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v;
#else
	return 0;
#endif
}
