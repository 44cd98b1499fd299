/*
 * FS_TEST_SANITIZED: 1 when this test binary is built with AddressSanitizer
 * (make test's second unit build, SAN=1, which adds UBSan), else 0.
 *
 * Why: under the sanitizers a test looks for memory errors and undefined
 * behaviour, not for accuracy, and runs several times slower. The heaviest
 * matrices (every method on every real image, every bad start of the
 * optimiser, the simulator's corner scenes) run a stated subset there that
 * still takes every code path of the full one (each method, each variant,
 * each image at least once); the plain build asserts the full matrix.
 * DEVELOPERS.md, "How make test spends its time", lists them.
 *
 * fs_test_subset(): whether this run takes the subset, the one switch
 * every test asks (h37g: the tests that read the macro directly now ask
 * it too). The build's kind by default; FS_TEST_SUBSET=1 in the
 * environment asks a plain binary for the sanitizers' subset,
 * FS_TEST_SUBSET=0 a sanitized binary for the whole matrix (a coverage
 * build compares the two runs' lib/ lines and branches,
 * docs/paper-figures.md h36b; a release can run the whole matrix under the
 * sanitizers). The macro is only its default: a test that read it would
 * not follow FS_TEST_SUBSET, and no test needs the build's kind for
 * anything but choosing its subset.
 */
#ifndef FS_TEST_SANITIZED_H
#define FS_TEST_SANITIZED_H

#if defined(__SANITIZE_ADDRESS__)
#define FS_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FS_TEST_SANITIZED 1
#endif
#endif
#ifndef FS_TEST_SANITIZED
#define FS_TEST_SANITIZED 0
#endif

#include <stdlib.h>

static inline int fs_test_subset(void)
{
	const char *e = getenv("FS_TEST_SUBSET");
	if (e && (e[0] == '0' || e[0] == '1') && !e[1])
		return e[0] == '1';
	return FS_TEST_SANITIZED;
}

#endif
