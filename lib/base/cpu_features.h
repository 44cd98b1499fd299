/*
 * cpu_features.h - what the processor running us can do, asked once.
 *
 * The build targets plain x86-64; the few loops written for AVX (the
 * blurs in preprocess.c, the disk filter) call them only where this says
 * the processor has it, and give the same bits either way.
 */
#ifndef FS_CPU_FEATURES_H
#define FS_CPU_FEATURES_H

/* 1 if the processor executes AVX instructions, else 0 (always 0 on a
 * compiler without __builtin_cpu_supports). Thread-safe: every thread
 * finds the same answer. */
int fs_cpu_has_avx(void);

/* For tests: forbid nonzero makes fs_cpu_has_avx answer 0 from now on,
 * so the plain loops run on a processor that has AVX too; 0 gives the
 * processor's answer back. Why: every AVX loop promises the plain loop's
 * bits, and on a machine with AVX nothing else runs the plain ones
 * (test_avx_same_bits). Not to be called while another thread measures. */
void fs_cpu_forbid_avx(int forbid);

#endif
