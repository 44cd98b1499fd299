/*
 * fuzz_loader.c - libFuzzer target for fs_load_memory (TIFF, PNG, JPEG).
 *
 * A small pixel limit keeps each run cheap and makes the size checks part
 * of what is fuzzed. The last input byte picks page 0 or 1 so TIFF
 * directory switching is exercised too. The header-only probe runs first on
 * the same bytes: it must never return pixels or a size over the limit. A
 * successful load is repeated compact (image.h), which must give the same
 * floats. Built and run by tests/fuzz/run.sh.
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
		/* the compact load (image.h) of the same bytes: the same size and,
		 * sample for sample, the same floats, or the same refusal */
		fs_loaded c;
		o.compact = 1;
		if (fs_load_memory(data, size, &o, &c, err, sizeof err) != 0 || c.image->width != l.image->width ||
		    c.image->height != l.image->height)
			__builtin_trap();
		float row[64];
		for (int y = 0; y < c.image->height; y++)
			for (int x = 0; x < c.image->width; x += 64) {
				int k = c.image->width - x < 64 ? c.image->width - x : 64;
				const float *v = fs_image_span(c.image, x, y, k, row);
				if (memcmp(v, l.image->data + (size_t)y * l.image->width + x, (size_t)k * sizeof *v))
					__builtin_trap();
			}
		fs_loaded_free(&c);
		fs_loaded_free(&l);
	} else if (err[0] == '\0' || l.image) {
		__builtin_trap(); /* a refusal must always say why and leave nothing behind */
	}
	return 0;
}
