/*
 * fuzz_loader.c - libFuzzer target for fs_load_memory (TIFF, PNG, JPEG).
 *
 * A small pixel limit keeps each run cheap and makes the size checks part
 * of what is fuzzed. The last input byte picks page 0 or 1 so TIFF
 * directory switching is exercised too. The header-only probe runs first on
 * the same bytes: it must never return pixels or a size over the limit. Built and run by tests/fuzz/run.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "image/image_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fs_load_opts o = {.max_pixels = 1 << 18, .page = 0};
	fs_loaded l;
	char err[256];

	if (size > 0 && (data[size - 1] & 1) && fs_format_sniff(data, size) == FS_FORMAT_TIFF)
		o.page = 1;
	/* the header-only probe (used to refuse bombs and to pick a job) on the same bytes */
	err[0] = '\0';
	if (fs_probe_memory(data, size, &o, &l, err, sizeof err) == 0) {
		if (l.image || l.width <= 0 || l.height <= 0 || (long long)l.width * l.height > o.max_pixels)
			__builtin_trap();
	} else if (err[0] == '\0' || l.image) {
		__builtin_trap();
	}
	err[0] = '\0';
	if (fs_load_memory(data, size, &o, &l, err, sizeof err) == 0) {
		/* Touch every pixel so a short buffer cannot hide. */
		volatile float sink = 0;
		size_t n = (size_t)l.image->width * (size_t)l.image->height;
		for (size_t i = 0; i < n; i++)
			sink += l.image->data[i];
		(void)sink;
		fs_loaded_free(&l);
	} else if (err[0] == '\0' || l.image) {
		__builtin_trap(); /* a refusal must always say why and leave nothing behind */
	}
	return 0;
}
