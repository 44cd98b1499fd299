// A set of 70,000 tubercles (a hexagonal lattice imported as an annotation
// file onto a plain 4000x3000 image): the workspace opens it, draws it as
// dots when zoomed out (level of detail: no connections), as circles and
// connections of only what is in view when zoomed in (the overlay kept in
// tiles), a click still picks the tubercle under the pointer, and the Data
// tab's tables stay bounded.
// Behaviour only; the timings are in `make bench` (bench_workspace_large.mjs).
import { assert, login, withCleanup, waitWorkspaceReady, clickImage, greyImage, encodePng, uploadWithAnnotation } from './helpers.mjs';

const W = 4000, H = 3000, N = 70000;

// N centres on a hexagonal lattice filling the image, each joined to its
// right and lower neighbours
function lattice() {
  const cols = Math.round(Math.sqrt(N * W / H / 0.866)), rows = Math.ceil(N / cols);
  const p = Math.min((W - 20) / (cols + 0.5), (H - 20) / (rows * 0.866));
  const tubercles = [], edges = [];
  for (let i = 0; i < N; i++) {
    const r = Math.floor(i / cols), c = i % cols;
    tubercles.push({ id: i + 1, centroid_x: 10 + p / 2 + c * p + (r % 2) * p / 2, centroid_y: 10 + p / 2 + r * p * 0.866,
      radius_px: p * 0.3, diameter_px: p * 0.6, circularity: 0.9, is_boundary: false, source: 'extracted' });
    if (c + 1 < cols && i + 1 < N) edges.push({ id1: i + 1, id2: i + 2 });
    if (i + cols < N) edges.push({ id1: i + 1, id2: i + cols + 1 });
  }
  return { format: 'fish-scale-annotations', version: '3.0', image_name: 'large.png', calibration: null, parameters: {},
    sets: [{ id: 'set_large', name: 'Lattice', calibration_um_per_pixel: null, tubercles, edges, parameters: null, history: [] }] };
}

const frames = (page, n = 2) => page.evaluate((k) => new Promise((ok) => {
  const step = (i) => (i ? requestAnimationFrame(() => step(i - 1)) : ok(true));
  step(k);
}), n);

export async function testLargeSetLevelOfDetailAndPicking(t) {
  await withCleanup(t, async ({ page, server }) => {
    await login(page, server);
    const ann = lattice();
    const first = ann.sets[0].tubercles[0];
    // a flat grey image: the set is imported, not extracted
    const [imageId] = await uploadWithAnnotation(page, encodePng(greyImage(W, H, 90)), 'large.png', ann);

    await page.goto(server.url + `workspace/${imageId}`);
    await waitWorkspaceReady(page);
    await page.waitForFunction((n) => window.fishscale.store.tubercles.size === n, N, { timeout: 60000 });
    const counts = await page.evaluate(() => ({ t: window.fishscale.store.tubercles.size, e: window.fishscale.store.edges.length, shown: document.querySelector('#st-tub').textContent }));
    assert(counts.t === N && counts.e > 2 * N - 1000, 'the whole set is loaded: ' + JSON.stringify(counts));
    assert(counts.shown === String(N), 'the stats bar counts it: ' + counts.shown);
    // the workspace reads the compact layout and derives the diameters and
    // the connections' lengths: they are the columns' values, every one
    const diff = await page.evaluate(async () => {
      const st = window.fishscale.store;
      const c = await (await fetch(`${document.body.dataset.base}api/sets/${st.set.id}?layout=columns`)).json();
      const bad = [];
      const same = (a, b) => (a == null && b == null) || (a != null && b != null && Math.abs(a - b) < 1e-8);
      const tk = ['diameter_px', 'diameter_um', 'radius_px', 'circularity', 'fit_quality', 'major_axis_um'];
      for (let i = 0; i < c.tubercles.n; i++) {
        const t = st.tubercles.get(c.tubercles.id[i]);
        for (const k of tk) if (!same(t[k], c.tubercles[k][i])) bad.push([k, t.id, t[k], c.tubercles[k][i]]);
      }
      const ek = ['center_distance_px', 'edge_distance_px', 'center_distance_um', 'edge_distance_um'];
      for (let i = 0; i < c.edges.n; i++) {
        const e = st.edges[i];
        if (e.id1 !== c.edges.id1[i] || e.id2 !== c.edges.id2[i]) bad.push(['ends', i]);
        for (const k of ek) if (!same(e[k], c.edges[k][i])) bad.push([k, i, e[k], c.edges[k][i]]);
      }
      return { bad: bad.slice(0, 5), n: bad.length, edges: c.edges.n, space: st.edges[0].edge_distance_px };
    });
    assert(diff.n === 0 && diff.edges === counts.e && diff.space > 0, 'derived fields equal the columns: ' + JSON.stringify(diff));
    // the stats bar (uncalibrated: pixels; the server's figures) shows the
    // mean diameter and the mean space of the connections read here
    const bar = await page.evaluate(() => [document.querySelector('#st-diam').textContent, document.querySelector('#st-space').textContent]);
    const p = ann.sets[0].tubercles[0].radius_px * 2;
    const sp = await page.evaluate(() => { const e = window.fishscale.store.edges; return e.reduce((a, x) => a + Math.max(0, x.edge_distance_px), 0) / e.length; });
    assert(bar[0] === `${p.toFixed(1)} ± 0.0 px` && bar[1].startsWith(`${sp.toFixed(1)} ± `), 'the bar in pixels: ' + JSON.stringify([bar, p, sp]));

    // fitted: every tubercle in view, drawn as dots, no connection
    await frames(page);
    let info = await page.evaluate(() => window.fishscale.viewInfo());
    assert(info.lod === 'dots', 'zoomed out, the set is drawn as dots: ' + JSON.stringify(info));
    assert(info.drawn && info.drawn.lod === 'dots' && info.drawn.tubercles > N * 0.9 && info.drawn.edges === 0, 'dots drawn, no connection: ' + JSON.stringify(info));
    // the dots are on the canvas: the tubercle colour shows at the centre
    const coloured = await page.evaluate(() => {
      const c = document.querySelector('#canvas');
      const d = c.getContext('2d').getImageData(Math.floor(c.width / 2) - 30, Math.floor(c.height / 2) - 30, 60, 60).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - d[i + 1]) > 40 || Math.abs(d[i + 1] - d[i + 2]) > 40) n++;
      return n;
    });
    assert(coloured > 100, 'coloured dots over the grey image: ' + coloured);
    await t.shot('large-set-fitted');

    // zoomed in on the first tubercle: circles and connections, only those in view
    // (judged on a frame drawn after the zoom: the fitted view's last frame
    // can already say lod 'full' with every tubercle of the set drawn)
    const frameBefore = await page.evaluate(() => window.fishscale.viewer.frameNo || 0);
    await page.evaluate(([x, y]) => {
      const v = window.fishscale.viewer;
      v.zoomAt(4 / v.scale);
      const [sx, sy] = v.toScreen(x, y);
      v.panBy(v.cssW / 2 - sx, v.cssH / 2 - sy);
      v.request();
    }, [first.centroid_x + 200, first.centroid_y + 150]);
    await page.waitForFunction((before) => {
      const i = window.fishscale.viewInfo();
      return i.lod === 'full' && i.drawn && i.drawn.lod === 'full' && i.drawn.frame > before &&
        !window.fishscale.viewer.overlayMissing;
    }, frameBefore, { polling: 'raf', timeout: 15000 });
    info = await page.evaluate(() => window.fishscale.viewInfo());
    assert(info.tiled, 'a large set zoomed in keeps its overlay in tiles: ' + JSON.stringify(info));
    assert(info.tubercles < 5000, 'only the tubercles near the view are considered: ' + JSON.stringify(info));
    assert(info.drawn.edges > 0 && info.drawn.tubercles > 0 && info.drawn.tubercles < 5000, 'circles and connections of the view drawn: ' + JSON.stringify(info));
    await t.shot('large-set-zoomed');

    // a click picks the tubercle under the pointer
    const target = ann.sets[0].tubercles.find(u => Math.abs(u.centroid_x - first.centroid_x - 200) < 20 && Math.abs(u.centroid_y - first.centroid_y - 150) < 20);
    await clickImage(page, target.centroid_x + 1, target.centroid_y);
    await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, target.id, { timeout: 10000 });

    // panned by dragging: still the tubercles of the new view
    const before = await page.evaluate(() => window.fishscale.viewer.visibleRect());
    const box = await page.locator('#canvas').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 300, box.y + box.height / 2 - 200, { steps: 10 });
    await page.mouse.up();
    await page.waitForFunction(() => !window.fishscale.viewer.overlayMissing && window.fishscale.viewInfo().drawn, null, { polling: 'raf', timeout: 15000 });
    const after = await page.evaluate(() => window.fishscale.viewer.visibleRect());
    assert(after.x0 > before.x0 + 50 && after.y0 > before.y0 + 30, 'the view moved: ' + JSON.stringify([before, after]));
    info = await page.evaluate(() => window.fishscale.viewInfo());
    assert(info.lod === 'full' && info.drawn.tubercles > 0, 'the panned-to view is drawn: ' + JSON.stringify(info));
    // the pan ended with a release, not a click: the selection stays
    assert(await page.evaluate(() => window.fishscale.store.selection.tub) === target.id, 'dragging did not pick');

    // the Data tab's tables stop at 2,000 rows and say where the rest is
    await page.click('[data-tab=data]');
    await page.waitForSelector('#tub-table tr.table-more', { timeout: 30000 });
    const table = await page.evaluate(() => ({
      tubs: document.querySelectorAll('#tub-table tbody tr[data-id]').length,
      edges: document.querySelectorAll('#itc-table tbody tr[data-a]').length,
      note: document.querySelector('#tub-table tr.table-more').textContent,
    }));
    assert(table.tubs === 2000 && table.edges === 2000, 'bounded tables: ' + JSON.stringify(table));
    assert(/70,000 tubercles/.test(table.note) && /CSV/.test(table.note), 'the note says so: ' + table.note);
  });
}
