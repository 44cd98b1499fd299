// bench_workspace.mjs - the workspace in headless Chromium with a 2048x1536
// image and 5,000 tubercles (a hexagonal lattice imported as an annotation
// file): time to first render (navigation to the first drawn frame with
// the whole set) and frame time while panning. Targets: < 1 s, < 16 ms.
// Starts its own server (tests/browser/server.mjs).
import { chromium } from '../browser/node_modules/playwright-core/index.mjs';
import { startServer } from '../browser/server.mjs';
import { login, greyImage, encodePng, uploadWithAnnotation } from '../browser/helpers.mjs';

// FS_BENCH_WS_N / _W / _H change the scenario (bench_workspace_large.mjs:
// 70,000 tubercles on an 8000x8000 image, tiled and imported by a job).
const W = +process.env.FS_BENCH_WS_W || 2048, H = +process.env.FS_BENCH_WS_H || 1536, N = +process.env.FS_BENCH_WS_N || 5000;
const COLS = N === 5000 ? 80 : Math.round(Math.sqrt(N * W / H / 0.866));
// page loads measured: issue 15's figures are medians of 5 (FS_BENCH_RUNS overrides)
const RUNS = +process.env.FS_BENCH_RUNS >= 1 && +process.env.FS_BENCH_RUNS <= 9 ? +process.env.FS_BENCH_RUNS : 5;
// median of a sorted array
const med = (a) => (a.length % 2 ? a[(a.length - 1) / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2);

// Grey PNG with bright blobs on a hexagonal lattice (pitch p).
function lattice() {
  const cols = COLS, rows = Math.ceil(N / cols);
  const p = Math.min((W - 40) / (cols + 0.5), (H - 40) / (rows * 0.866));
  const pts = [];
  for (let r = 0; r < rows && pts.length < N; r++)
    for (let c = 0; c < cols && pts.length < N; c++)
      pts.push([20 + p / 2 + c * p + (r % 2) * p / 2, 20 + p / 2 + r * p * 0.866]);
  return { pts, p };
}

function png({ pts, p }) {
  const img = greyImage(W, H, 40);
  const rad = p * 0.3;
  for (const [cx, cy] of pts)
    for (let y = Math.floor(cy - rad); y <= cy + rad; y++)
      for (let x = Math.floor(cx - rad); x <= cx + rad; x++)
        if ((x - cx) ** 2 + (y - cy) ** 2 <= rad * rad && x >= 0 && y >= 0 && x < W && y < H) img.set(x, y, 200);
  return encodePng(img);
}

function annotation({ pts, p }) {
  const tubercles = pts.map(([x, y], i) => ({ id: i + 1, centroid_x: x, centroid_y: y, radius_px: p * 0.3, diameter_px: p * 0.6, circularity: 0.9, is_boundary: false, source: 'extracted' }));
  const edges = [];
  const cols = COLS;
  for (let i = 0; i < pts.length; i++) {
    const r = Math.floor(i / cols), c = i % cols;
    if (c + 1 < cols && i + 1 < pts.length) edges.push({ id1: i + 1, id2: i + 2 });
    const below = i + cols;
    if (below < pts.length) edges.push({ id1: i + 1, id2: below + 1 });
    const diag = r % 2 ? below + 1 : below - 1;
    if (diag < pts.length && diag >= 0 && (r % 2 ? c + 1 < cols : c > 0)) edges.push({ id1: i + 1, id2: diag + 1 });
  }
  return { format: 'fish-scale-annotations', version: '3.0', image_name: 'bench.png', calibration: null, parameters: {},
    sets: [{ id: 'set_bench', name: 'Lattice', calibration_um_per_pixel: null, tubercles, edges, parameters: null, history: [] }] };
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
const server = await startServer();
try {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  await login(page, server);
  const lat = lattice();
  const [imageId] = await uploadWithAnnotation(page, png(lat), 'bench.png', annotation(lat));

  const runs = [], inPage = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = Date.now();
    await page.goto(server.url + `workspace/${imageId}`);
    await page.waitForFunction((n) => {
      const w = window.fishscale;
      return w && w.store.tubercles.size === n && w.viewer.image && (w.viewer.tiles || w.viewer.image.complete) && document.querySelector('#workspace').dataset.ready === '1';
    }, N, { polling: 'raf', timeout: 120000 });
    // one more frame so the full set has been drawn
    inPage.push(await page.evaluate(() => Math.round(window.fishscale.firstRenderMs)));
    runs.push(Date.now() - t0);
    if (process.env.DIAG) console.log(await page.evaluate(() => performance.getEntriesByType('resource').filter(e => !/static/.test(e.name)).map(e => `${e.name.replace(/^.*\/\/[^/]+/, '')} ${e.startTime.toFixed(0)}-${e.responseEnd.toFixed(0)}`).join('\n') + '\nmarks ' + JSON.stringify(performance.getEntriesByType('mark').map(m => [m.name, Math.round(m.startTime)]))));
  }
  // A pan frame's cost, honestly: viewer.draw's JS time (lastFrameMs) does
  // not include rasterising the canvas, which Chromium defers until the
  // frame is presented; a 1-pixel getImageData right after the draw (in the
  // same animation frame) forces it, so draw + flush is the main thread's
  // work for the frame. Each frame also records whether the viewer drew at
  // all (frameNo moved), how many overlay tiles it left for later frames
  // (a zoomed pan draws the tiles entering the view within a time budget;
  // the rest show stale or blank for a frame or more) and the interval
  // between animation frames (what a user sees; 16.7 ms at 60 fps, and on
  // a loaded machine the other processes' share too).
  const pan = await page.evaluate(async () => {
    const v = window.fishscale.viewer;
    const ctx = v.ctx;
    const frame = () => new Promise(r => requestAnimationFrame(r));
    async function measure(n, step) {
      const rec = { draw: [], cost: [], interval: [], drawn: 0, holes: 0, missing: 0 };
      let last = await frame();
      for (let i = 0; i < n; i++) {
        const before = v.frameNo || 0;
        step(i);
        const ts = await frame();
        const t0 = performance.now();
        ctx.getImageData(0, 0, 1, 1);
        const flush = performance.now() - t0;
        if ((v.frameNo || 0) > before) {
          rec.drawn++;
          rec.draw.push(v.lastFrameMs);
          rec.cost.push(v.lastFrameMs + flush);
        }
        if (v.overlayMissing) { rec.holes++; rec.missing += v.overlayMissing; }
        rec.interval.push(ts - last);
        last = ts;
      }
      return rec;
    }
    const fit = await measure(120, (i) => v.panBy(i % 40 < 20 ? 4 : -4, i % 60 < 30 ? 2 : -2));
    const fitInfo = window.fishscale.viewInfo ? window.fishscale.viewInfo() : null;
    v.zoomAt(3);
    // the zoomed view settles first (its image and overlay tiles drawn):
    // the pan below measures panning, the settle time is printed apart
    const z0 = performance.now();
    while (v.overlayMissing || (v.tiles && (v.tiles.loading || v.tiles.queue.length)) || v.pending) await frame();
    const settleMs = performance.now() - z0;
    const zoomed = await measure(60, () => v.panBy(5, 3));
    const zoomInfo = window.fishscale.viewInfo ? window.fishscale.viewInfo() : null;
    const stat = (a) => { a = a.slice().sort((x, y) => x - y); return a.length ? { mean: a.reduce((s, x) => s + x, 0) / a.length, p95: a[Math.floor(a.length * 0.95)], max: a[a.length - 1] } : { mean: NaN, p95: NaN, max: NaN }; };
    const sum = (r, n) => ({ n, drawn: r.drawn, holes: r.holes, missing: r.missing, draw: stat(r.draw), cost: stat(r.cost), interval: stat(r.interval) });
    return { fit: sum(fit, 120), zoomed: sum(zoomed, 60), fitInfo, zoomInfo, settleMs };
  });
  const f = (x) => x.toFixed(1);
  runs.sort((a, b) => a - b);
  inPage.sort((a, b) => a - b);
  const tiled = await page.evaluate(() => !!window.fishscale.viewer.tiles);
  // issue 15: a 70,000-tubercle set within 2 s, 1 s for the 5,000 of a paper figure
  const target = N > 10000 ? 2000 : 1000;
  const lod = (i) => (i ? `${i.lod}, ${i.tubercles} in view${i.tiled ? ', overlay tiles' : ''}` : '?');
  console.log(`workspace ${W}x${H} image${tiled ? ' (tiled)' : ''}, ${N} tubercles: first render ${med(inPage)} ms after navigation start (median of ${RUNS}: ${inPage.join(', ')}; as seen by the test driver: ${runs.join(', ')} ms) target < ${target} ms ${med(inPage) < target ? 'OK' : 'SLOW'}`);
  const line = (r) => `${r.drawn} of ${r.n} frames drawn, ${r.holes} left overlay tiles for later frames (${r.missing} tiles in all); ` +
    `draw (JS) mean ${f(r.draw.mean)} ms, p95 ${f(r.draw.p95)} ms; draw + canvas flush mean ${f(r.cost.mean)} ms, p95 ${f(r.cost.p95)} ms, max ${f(r.cost.max)} ms; ` +
    `animation frame interval mean ${f(r.interval.mean)} ms, p95 ${f(r.interval.p95)} ms`;
  console.log(`pan at fit (${lod(pan.fitInfo)}): ${line(pan.fit)}`);
  console.log(`pan zoomed 3x (${lod(pan.zoomInfo)}; settled in ${Math.round(pan.settleMs)} ms): ${line(pan.zoomed)}`);
  const ok = (r) => r.drawn === r.n && r.cost.p95 < 16;
  console.log(`pan target: every frame drawn, draw + flush p95 < 16 ms: ${ok(pan.fit) && ok(pan.zoomed) ? 'OK' : 'SLOW'}` +
    `${pan.zoomed.holes ? ` (zoomed: ${pan.zoomed.holes} of ${pan.zoomed.n} frames showed overlay tiles not yet redrawn)` : ''}`);
} finally {
  server.stop();
  await browser.close();
}
