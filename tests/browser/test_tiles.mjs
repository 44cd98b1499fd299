// A large image (its larger side above tile_min_side = 4096) opens from its
// overview and is drawn from its pyramid's tiles when zoomed in: only the
// tiles in view are fetched, and panning fetches the next ones and shows
// their pixels. The image's fine pattern (a 2-pixel checkerboard) is grey in
// the overview and only shows in the full-resolution tiles.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assert, uploadThroughLibrary, withCleanup, login, greyImage, encodePng } from './helpers.mjs';

const W = 5000, H = 1200;

function checkerPng(W = 5000, H = 1200) {
  const img = greyImage(W, H);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) img.set(x, y, ((x >> 1) + (y >> 1)) & 1 ? 230 : 25);
  return encodePng(img);
}

// Standard deviation of the canvas's red channel in a 40x40 box at the centre.
function centreContrast(page) {
  return page.evaluate(() => {
    const c = document.querySelector('#canvas');
    const d = c.getContext('2d').getImageData(Math.floor(c.width / 2) - 20, Math.floor(c.height / 2) - 20, 40, 40).data;
    let s = 0, s2 = 0, n = 0;
    for (let i = 0; i < d.length; i += 4) { s += d[i]; s2 += d[i] * d[i]; n++; }
    return Math.sqrt(Math.max(0, s2 / n - (s / n) ** 2));
  });
}

export async function testLargeImagePansByTiles(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs_tiles_'));
  const file = path.join(dir, 'montage.png');
  writeFileSync(file, checkerPng());
  const tiles = [];
  t.page.on('request', (r) => { const m = /\/tiles\/(\d+)-(\d+)-(\d+)\.jpg/.exec(r.url()); if (m) tiles.push(m.slice(1).map(Number)); });
  try {
    await withCleanup(t, async ({ page, server }) => {
      await login(page, server);
      await uploadThroughLibrary(page, server, file);
      const info = await page.evaluate(() => {
        const v = window.fishscale.viewer;
        return { tiled: !!v.tiles, w: v.image.width, h: v.image.height, levels: v.tiles && v.tiles.levels, ow: v.image.overview && v.image.overview.naturalWidth };
      });
      assert(info.tiled && info.w === W && info.h === H, 'the viewer is tiled at full size: ' + JSON.stringify(info));
      assert(info.ow === 4096, 'the overview is 4096 wide: ' + info.ow);
      // fitted (about 0.24 screen pixels an image pixel): the overview is sharp enough, no tile
      assert(tiles.length === 0, 'no tile fetched when fitted: ' + JSON.stringify(tiles));
      assert(await centreContrast(page) < 40, 'the fitted overview shows the checkerboard as grey');

      // 1:1 at the image's left part: level 0 tiles, only those in view
      await page.evaluate(() => {
        const v = window.fishscale.viewer;
        v.zoomAt(1 / v.scale / (window.devicePixelRatio || 1));
        v.panBy(-v.toScreen(1000, 600)[0] + v.cssW / 2, -v.toScreen(1000, 600)[1] + v.cssH / 2);
        v.request();
      });
      await page.waitForFunction(() => {
        const v = window.fishscale.viewer, r = v.visibleRect();
        for (let y = Math.max(0, Math.floor(r.y0 / 256)); y <= Math.min(4, Math.floor(r.y1 / 256)); y++)
          for (let x = Math.max(0, Math.floor(r.x0 / 256)); x <= Math.min(19, Math.floor(r.x1 / 256)); x++) {
            const img = v.tiles.cache.get(`0-${x}-${y}`);
            if (!img || !img.complete || !img.naturalWidth) return false;
          }
        return true;
      }, null, { timeout: 15000 });
      const first = tiles.filter(([z]) => z === 0);
      assert(first.length > 0, 'level-0 tiles fetched');
      assert(first.length <= 30, 'only the tiles in view were fetched: ' + first.length);
      assert(first.every(([, x]) => x <= 8), 'no tile far right of the view: ' + JSON.stringify(first));
      await page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))));
      const sharp = await centreContrast(page);
      assert(sharp > 60, 'the tiles show the full-resolution checkerboard: contrast ' + sharp);

      // pan right by tiles: the next columns are fetched and shown
      const before = tiles.length;
      for (let i = 0; i < 6; i++) {
        await page.evaluate(() => window.fishscale.viewer.panBy(-400, 0));
        await page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => ok(true))));
      }
      await page.waitForFunction(() => {
        const v = window.fishscale.viewer, r = v.visibleRect();
        const cx = Math.floor((r.x0 + r.x1) / 2 / 256), cy = Math.floor((r.y0 + r.y1) / 2 / 256);
        const img = v.tiles.cache.get(`0-${cx}-${cy}`);
        return img && img.complete && img.naturalWidth > 0;
      }, null, { timeout: 15000 });
      const fresh = tiles.slice(before).filter(([z]) => z === 0);
      assert(fresh.length > 0 && Math.max(...fresh.map(([, x]) => x)) >= 12, 'panning fetched tiles further right: ' + JSON.stringify(fresh));
      await page.waitForFunction(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))));
      const after = await centreContrast(page);
      assert(after > 60, 'the panned-to tiles are drawn: contrast ' + after);
      await t.shot('tiles-panned');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Above sync_max_pixels (8 MP by default) a rotation is a background job:
// the Image tab shows its progress and the workspace then shows the rotated
// image, tiled at its new size.
export async function testRotatingALargeImageRunsAsAJob(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs_tiles_'));
  const file = path.join(dir, 'wide.png');
  writeFileSync(file, checkerPng(5000, 1800));
  const answers = [];
  t.page.on('response', (r) => { if (/\/rotate$/.test(r.url())) answers.push(r.status()); });
  try {
    await withCleanup(t, async ({ page, server }) => {
      await login(page, server);
      await uploadThroughLibrary(page, server, file);
      await page.click('#tabs [data-tab="image"]');
      await page.click('#rotate-left');
      await page.waitForFunction(() => window.fishscale.store.width === 1800 && window.fishscale.viewer.image.width === 1800 && !!window.fishscale.viewer.tiles, null, { timeout: 60000 });
      assert(answers[0] === 202, 'the rotation answered 202 (a job): ' + JSON.stringify(answers));
      assert(await page.evaluate(() => document.querySelector('#image-job').hidden), 'the progress box is gone when done');
      const steps = await page.textContent('#image-steps');
      assert(/Rotate/i.test(steps), 'the image history lists the rotation: ' + steps);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
