/*
 * cpu_features.c - see cpu_features.h.
 */
#include "base/cpu_features.h"

static int forbidden; /* an FS_CPU_* level */

static int forbidden_level(void)
{
#if defined(__GNUC__)
	return __atomic_load_n(&forbidden, __ATOMIC_RELAXED);
#else
	return forbidden;
#endif
}

void fs_cpu_forbid(int level)
{
	level = level < FS_CPU_ALLOW_ALL ? FS_CPU_ALLOW_ALL : level > FS_CPU_FORBID_SSE2 ? FS_CPU_FORBID_SSE2 : level;
#if defined(__GNUC__)
	__atomic_store_n(&forbidden, level, __ATOMIC_RELAXED);
#else
	forbidden = level;
#endif
}

int fs_cpu_has_avx(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (forbidden_level() >= FS_CPU_FORBID_AVX)
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

int fs_cpu_has_sse2(void)
{
#if defined(__SSE2__)
	/* the build's own target: no processor question to ask */
	return forbidden_level() < FS_CPU_FORBID_SSE2;
#else
	return 0;
#endif
}
