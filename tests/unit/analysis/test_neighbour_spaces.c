/*
 * test_neighbour_spaces.c - the statistics' mean space S is the edge-to-edge
 * space between NEIGHBOURS (issue 13: "edge-to-edge spaces between true
 * neighbours"), also where lattice sites are missing.
 *
 * The SEM simulator's truth (sem_sim.h) lists the pairs of lattice
 * neighbours whose sites both hold a dome, with their spaces. On scenes
 * with a fifth to a third of the sites missing, the default neighbour
 * graph (fs_graph_build with fs_params_default's graph and culling) on the
 * true centres and radii must give the truth's mean space within 3 %: an
 * edge across a missing site (sqrt(3) or 2 pitches between centres) is no
 * neighbour pair, and each such edge adds about a pitch of space. The same
 * scenes culled at the old default factor (1.8) read S 10-28 % too large,
 * which this test also asserts, so that it keeps showing that its scenes
 * have holes the graph must not bridge.
 *
 * Only the truth is used: the scenes are rendered raw at one sample per
 * pixel (sem_opts.raw, .supersample), about 0.1 s each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "analysis/graph.h"
#include "analysis/metrics.h"
#include "analysis/params.h"
#include "sem_sim.h"

/* Mean space (px) of the graph of l under type and cull factor. */
static double graph_mean_space(fs_tubercle_list *l, fs_graph type, double cull)
{
	fs_edge_list e = {0};
	char err[128];
	assert_int_equal(fs_graph_build(l, type, 1, cull, &e, err, sizeof err), 0);
	fs_stats st;
	assert_int_equal(fs_stats_compute(l, &e, 1.0, NULL, 0, 0, &st), 0);
	fs_edge_list_free(&e);
	return st.mean_space_um; /* um_per_px 1: pixels */
}

typedef struct scene {
	double pitch, fill, missing, jitter, angle;
	unsigned seed;
} scene;

static void spaces_between_neighbours(void **state)
{
	(void)state;
	/* tightly packed domes (Atractosteus-like fill) make a bridged hole
	 * costly: the space across it is about 1 pitch against 0.27 */
	static const scene sc[] = {
		{24, 0.73, 0.20, 0.06, 0.31, 7},
		{24, 0.73, 0.30, 0.10, 0.77, 11},
		{40, 0.55, 0.30, 0.06, 0.12, 13},
		{16, 0.73, 0.20, 0.10, 0.95, 17},
	};
	fs_params p;
	fs_params_default(&p);
	for (size_t k = 0; k < sizeof sc / sizeof sc[0]; k++) {
		sem_opts o;
		sem_defaults(&o);
		o.pitch = sc[k].pitch;
		o.fill = sc[k].fill;
		o.missing = sc[k].missing;
		o.pos_jitter = sc[k].jitter;
		o.angle = sc[k].angle;
		o.seed = sc[k].seed;
		o.width = (int)(14 * o.pitch);
		o.height = (int)(11 * o.pitch);
		o.raw = 1;
		o.supersample = 1;
		sem_truth t;
		fs_image *img = sem_make(&o, &t);
		assert_non_null(img);
		fs_tubercle_list l = {0};
		for (size_t i = 0; i < t.n; i++) {
			fs_tubercle tb;
			fs_tubercle_init(&tb);
			tb.id = (int)i + 1;
			tb.centroid_x = t.x[i];
			tb.centroid_y = t.y[i];
			tb.radius_px = 0.5 * t.d[i];
			assert_int_equal(fs_tubercle_list_append(&l, &tb), 0);
		}
		double truth = 0;
		for (size_t q = 0; q < t.n_pairs; q++)
			truth += t.space[q];
		assert_true(t.n_pairs > 100);
		truth /= (double)t.n_pairs;
		double s = graph_mean_space(&l, p.neighbor_graph, p.cull_factor);
		double s_old = graph_mean_space(&l, p.neighbor_graph, 1.8);
		double err = 100 * (s - truth) / truth, err_old = 100 * (s_old - truth) / truth;
		printf("pitch %.0f fill %.2f missing %.2f jitter %.2f: %zu domes, truth S %.3f px, default graph "
		       "(cull %.2f) %+.2f %%, cull 1.8 %+.2f %%\n",
		       o.pitch, o.fill, o.missing, o.pos_jitter, t.n, truth, p.cull_factor, err, err_old);
		assert_true(fabs(err) < 3);
		assert_true(err_old > 5);
		fs_tubercle_list_free(&l);
		sem_truth_free(&t);
		fs_image_free(img);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spaces_between_neighbours),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
