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

#endif
