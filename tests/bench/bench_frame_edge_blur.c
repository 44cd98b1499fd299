/*
 * bench_frame_edge_blur - what the frame's own sharp edges say about the
 * image's blur (issue 13; docs/paper-figures.md, h42l). Asserts nothing.
 *
 * Why: a calibration of the dome rule's level reader by the formation's
 * rendered dome needs the image's blur to about 0.01 px on the 4-px domes
 * (h42a) and C's screened flat tops need the total blur to about 0.1 px
 * (h42d). The domes' mean patch reads it only as well as its centres are
 * home; a reading that needs no centres would be the frame's sharp
 * features: the scale bar (a 4-px white bar on the black surround) and
 * the paper margin. In the simulator (sem_sim.c's form_image) those are
 * drawn after the beam and the detector, before the screen and the scan
 * blur - as on a real figure, where the bar and the label are burned in
 * by the SEM's software and the margin is the print's. So their edges can
 * carry only the reproduction's blur, never the beam's; this measures
 * what they read on the scene's image and on the measurement image the
 * rule reads its sizes on (fs_detect_measure_image: the screen's
 * low-pass and the rule's smoothing), against the blurs the scene was
 * made with.
 *
 * The reading: the scale bar's profile across its length (rows H-32 ..
 * H-13, averaged over the middle half of its columns) fitted by a
 * background plus the bar's 4 rows convolved with a Gaussian sampled on
 * the pixel lattice (fs_gaussian_blur's kind), sigma searched 0-3 px in
 * 0.005 steps with the background and the height solved linearly; the
 * residual's RMS beside it (frame_bar_sigma, frame_bar.h). Only scenes
 * with a frame (corner k % 4 == 3: C and the fill-0.8 flat tops at pitch
 * 16).
 *
 * Usage: bench_frame_edge_blur [--seed-add N] [SCENE...] (default the
 * framed corner scenes 3 7 19 23 (unscreened) 11 15 27 31 (screened, pitch
 * 16) 35 39 51 55 (C unscreened) 43 47 59 63 (C screened)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detect_methods.h"
#include "frame_bar.h"
#include "sem_scene.h"

int main(int argc, char **argv)
{
	unsigned seed_add = 0;
	int scenes[64], ns = 0, bad = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed-add") && i + 1 < argc)
			seed_add = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (ns < 64 && atoi(argv[i]) >= 0 && atoi(argv[i]) < 64)
			scenes[ns++] = atoi(argv[i]);
	}
	if (!ns) {
		static const int def[] = {3, 7, 19, 23, 11, 15, 27, 31, 35, 39, 51, 55, 43, 47, 59, 63};
		for (size_t i = 0; i < sizeof def / sizeof *def; i++)
			scenes[ns++] = def[i];
	}
	printf("the scale bar's edge blur (sigma, px; the profile fit's residual RMS), seeds +%u: on the scene's image "
	       "and on the rule's measurement image; the scene's beam, scan blur and the measurement smoothing\n",
	       seed_add);
	printf("%-5s %-6s %-7s %-9s %-9s %-9s %-9s %-6s %-6s %-6s\n", "scene", "screen", "pitch", "bar img", "rms",
	       "bar meas", "rms", "beam", "scan", "msig");
	for (int i = 0; i < ns; i++) {
		int k = scenes[i];
		sem_opts o;
		sem_corner_scene(k, &o);
		o.seed += seed_add;
		sem_scene sim;
		if (sem_scene_render(&sim, &o)) {
			printf("%d: %s\n", k, sim.err);
			bad = 1;
			continue;
		}
		double msig = sim.tr.pitch >= 40 ? 1.0 : 0.5, r1, r2, s1, s2 = NAN;
		s1 = frame_bar_sigma(sim.img, &o, &r1);
		fs_image *meas = NULL;
		char err[256];
		r2 = NAN;
		if (!fs_detect_measure_image(sim.img, &sim.p, msig, &meas, err, sizeof err)) {
			if (meas->width == sim.img->width && meas->height == sim.img->height)
				s2 = frame_bar_sigma(meas, &o, &r2);
			fs_image_free(meas);
		}
		/* the scan blur applies only where the image is reproduced
		 * (sem_sim.c: a screen, resampling or JPEG) */
		int scanned = o.halftone > 0 || o.resample != 1 || o.jpeg_quality > 0;
		printf("%-5d %-6g %-7g %-9.3f %-9.4f %-9.3f %-9.4f %-6.2f %-6.2f %-6.2f\n", k, o.halftone, o.pitch, s1, r1,
		       s2, r2, o.beam_blur, scanned ? o.scan_blur : 0, msig);
		sem_scene_close(&sim);
	}
	return bad;
}
