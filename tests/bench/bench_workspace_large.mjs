// bench_workspace_large.mjs - bench_workspace.mjs with 70,000 tubercles on
// an 8000x8000 image (tiled; imported by a background job). Targets: the
// set open within 2 s, panning at 60 frames per second (< 16 ms a frame).
process.env.FS_BENCH_WS_N = process.env.FS_BENCH_WS_N || '70000';
process.env.FS_BENCH_WS_W = process.env.FS_BENCH_WS_W || '8000';
process.env.FS_BENCH_WS_H = process.env.FS_BENCH_WS_H || '8000';
await import('./bench_workspace.mjs');
