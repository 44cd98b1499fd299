/* Unit tests for the SEM metadata parsers and the resolution rule (sem_metadata.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "image/sem_metadata.h"

static int zeiss(const char *s, double *um)
{
	return fs_sem_zeiss_pixel_size(s, strlen(s), um);
}

static int fei(const char *s, double *um)
{
	return fs_sem_fei_pixel_size(s, strlen(s), um);
}

static void zeiss_units_are_converted_to_um(void **state)
{
	(void)state;
	double um = 0;
	assert_int_equal(zeiss("Image Pixel Size = 12.3 nm", &um), 0);
	assert_float_equal(um, 0.0123, 1e-12);
	assert_int_equal(zeiss("Image Pixel Size = 1.5 \xc2\xb5m", &um), 0);
	assert_float_equal(um, 1.5, 1e-12);
	assert_int_equal(zeiss("Image Pixel Size = 0.25 um", &um), 0);
	assert_float_equal(um, 0.25, 1e-12);
	assert_int_equal(zeiss("Image Pixel Size = 800 pm", &um), 0);
	assert_float_equal(um, 0.0008, 1e-12);
	assert_int_equal(zeiss("AP_PIXEL_SIZE\r\nPixel Size = 3.2 nm\r\n", &um), 0);
	assert_float_equal(um, 0.0032, 1e-12);
}

static void zeiss_without_a_usable_value_is_absent(void **state)
{
	(void)state;
	double um = 42;
	assert_int_equal(zeiss("Image Pixel Size = nm", &um), -1);
	assert_int_equal(zeiss("Image Pixel Size = 12.3 parsecs", &um), -1);
	assert_int_equal(zeiss("Image Pixel Size : 12.3 nm", &um), -1);
	assert_int_equal(zeiss("Image Pixel Size = 0 nm", &um), -1);
	assert_int_equal(zeiss("Image Pixel Size = 5 m", &um), -1); /* metres per pixel: not an SEM */
	assert_int_equal(zeiss("", &um), -1);
	assert_int_equal(fs_sem_zeiss_pixel_size(NULL, 5, &um), -1);
	assert_true(um == 42);
}

static void zeiss_text_need_not_be_terminated(void **state)
{
	(void)state;
	const char text[] = "Image Pixel Size = 12.3 nmXXXX";
	double um = 0;
	/* length stops right after "1": must read "1 n..." -> no unit, not 12.3 */
	assert_int_equal(fs_sem_zeiss_pixel_size(text, 20, &um), -1);
	assert_int_equal(fs_sem_zeiss_pixel_size(text, 26, &um), 0);
	assert_float_equal(um, 0.0123, 1e-12);
}

static void fei_pixel_width_is_read_from_the_scan_section(void **state)
{
	(void)state;
	double um = 0;
	assert_int_equal(fei("[User]\r\nPixelWidth=9\r\n[Scan]\r\nPixelWidth=1.2e-08\r\n", &um), 0);
	assert_float_equal(um, 0.012, 1e-12);
	assert_int_equal(fei("[Scan]\nPixelHeight=1e-08\nPixelWidth = 2.5e-9\n", &um), 0);
	assert_float_equal(um, 0.0025, 1e-12);
}

static void fei_without_scan_section_is_absent(void **state)
{
	(void)state;
	double um = 0;
	assert_int_equal(fei("[User]\r\nPixelWidth=1.2e-08\r\n", &um), -1);
	assert_int_equal(fei("[Scan]\r\nPixelWidth=abc\r\n", &um), -1);
	assert_int_equal(fei("[Scan]\r\nPixelWidth=1.2e-08junk\r\n", &um), -1);
	assert_int_equal(fei("[Scan]\r\nPixelWidth=-1e-08\r\n", &um), -1);
}

static void screen_dpi_is_rejected_and_fine_resolution_accepted(void **state)
{
	(void)state;
	double um = 0;
	assert_int_equal(fs_resolution_um_per_px(72, 25400, &um), -1);
	assert_int_equal(fs_resolution_um_per_px(96, 25400, &um), -1);
	assert_int_equal(fs_resolution_um_per_px(300, 25400, &um), -1);
	assert_int_equal(fs_resolution_um_per_px(2540, 25400, &um), -1); /* exactly 10 µm */
	assert_int_equal(fs_resolution_um_per_px(25400, 25400, &um), 0);
	assert_float_equal(um, 1.0, 1e-12);
	assert_int_equal(fs_resolution_um_per_px(100000, 10000, &um), 0);
	assert_float_equal(um, 0.1, 1e-12);
	assert_int_equal(fs_resolution_um_per_px(0, 25400, &um), -1);
	assert_int_equal(fs_resolution_um_per_px(1e6, 0, &um), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(zeiss_units_are_converted_to_um),
		cmocka_unit_test(zeiss_without_a_usable_value_is_absent),
		cmocka_unit_test(zeiss_text_need_not_be_terminated),
		cmocka_unit_test(fei_pixel_width_is_read_from_the_scan_section),
		cmocka_unit_test(fei_without_scan_section_is_absent),
		cmocka_unit_test(screen_dpi_is_rejected_and_fine_resolution_accepted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
