/*
 * cpu_features.h - what the processor running us can do, asked once.
 *
 * The build targets plain x86-64; the few loops written for AVX (the
 * blurs in preprocess.c, the disk filter) call them only where this says
 * the processor has it, and give the same bits either way. The SSE2
 * loops written with intrinsics beside a plain twin (the circle votes'
 * combination, the image's extremes) ask fs_cpu_has_sse2, which every
 * x86-64 processor answers 1: the question exists so that a test can
 * forbid them too.
 */
#ifndef FS_CPU_FEATURES_H
#define FS_CPU_FEATURES_H

/* 1 if the processor executes AVX instructions, else 0 (always 0 on a
 * compiler without __builtin_cpu_supports). Thread-safe: every thread
 * finds the same answer. */
int fs_cpu_has_avx(void);

/* 1 where the build may take its SSE2 intrinsic loops (compiled for
 * SSE2, which x86-64 always is), else 0. Thread-safe. */
int fs_cpu_has_sse2(void);

/* What fs_cpu_forbid forbids, each level including the ones before it. */
enum {
	FS_CPU_ALLOW_ALL = 0,   /* the processor's answers */
	FS_CPU_FORBID_AVX = 1,  /* fs_cpu_has_avx answers 0 */
	FS_CPU_FORBID_SSE2 = 2, /* fs_cpu_has_avx and fs_cpu_has_sse2 answer 0: every plain loop */
};

/* For tests: from now on answer as if the processor lacked what level
 * forbids (FS_CPU_*), so the plain loops run on a processor that has AVX
 * and SSE2 too; FS_CPU_ALLOW_ALL gives the processor's answers back. Why:
 * every AVX or SSE2 loop promises its plain twin's bits, and on a machine
 * with AVX nothing else runs the plain ones (test_avx_same_bits). Not to
 * be called while another thread measures. */
void fs_cpu_forbid(int level);

#endif
