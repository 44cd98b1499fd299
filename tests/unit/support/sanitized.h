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

#endif
