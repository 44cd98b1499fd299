// The scale region in the workspace: the "Scale region" toggle shades the
// white paper band of P1 Fig2 (and only shows, changes nothing); the Image
// tab's Edit region erases a rectangle and paints part of it back with the
// brush, Save region stores it (source
// "user", the set's history says scale_region_changed), and Back to
// automatic drops the correction.
import { assert, dragImage, PAPER, withImage } from './helpers.mjs';

const TIF = PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif';

// The canvas pixel (r, g, b) at image point (x, y), after two frames.
const pixel = (page, x, y) => page.evaluate(async ([ix, iy]) => {
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const c = document.querySelector('#canvas');
  const p = window.fishscale.viewer.toScreen(ix, iy);
  const dpr = c.width / c.getBoundingClientRect().width;
  const d = c.getContext('2d').getImageData(Math.round(p[0] * dpr), Math.round(p[1] * dpr), 1, 1).data;
  return [d[0], d[1], d[2]];
}, [x, y]);

const region = (page) => page.evaluate(async () => {
  const r = await fetch(document.body.dataset.base + `api/images/${window.fishscale.store.imageId}/scale_region`);
  return r.json();
});

const inside = (g, x, y) => {
  const runs = g.rows[Math.floor(y / g.cell)], cx = Math.floor(x / g.cell);
  for (let i = 0; i + 1 < runs.length; i += 2) if (cx >= runs[i] && cx < runs[i + 1]) return true;
  return false;
};

export async function testScaleRegionToggleAndEdit(t) {
  await withImage(t, TIF, async ({ page, shot }) => {
    // the band is white on the plain image, shaded with the toggle on
    const plain = await pixel(page, 350, 35);
    assert(plain[0] > 200 && Math.abs(plain[0] - plain[2]) < 20, 'the band is white paper: ' + plain);
    await page.check('#tg-region');
    await page.waitForFunction(() => document.querySelector('#tg-region').checked);
    const shaded = await pixel(page, 350, 35);
    assert(shaded[0] - shaded[2] > 40, 'the band is shaded as outside the region: ' + shaded);
    const surface = await pixel(page, 350, 300);
    const surfacePlain = await (async () => { await page.uncheck('#tg-region'); const p = await pixel(page, 350, 300); await page.check('#tg-region'); return p; })();
    assert(JSON.stringify(surface) === JSON.stringify(surfacePlain), 'the scale surface is not shaded');
    await shot('scale-region-toggle');

    // the Image tab says what the region is
    await page.click('[data-tab=image]');
    await page.waitForFunction(() => /found automatically/.test(document.querySelector('#region-status').textContent));
    assert(await page.isDisabled('#region-reset'), 'nothing to reset while automatic');

    // erase a rectangle of the surface and save
    await page.click('#region-edit');
    assert(await page.isEnabled('#region-save'), 'Save region offered while editing');
    await dragImage(page, 20, 350, 220, 560);
    await page.waitForFunction(() => /Erased/.test(document.querySelector('#region-status').textContent));
    await shot('scale-region-erasing');
    // then the brush adds a stroke back across the erased rectangle
    await page.check('input[name="region-shape"][value="brush"]');
    await page.check('input[name="region-op"][value="add"]');
    await page.selectOption('#region-brush-size', '25');
    await dragImage(page, 40, 450, 200, 450);
    await page.waitForFunction(() => /Added \d+ cells with the brush/.test(document.querySelector('#region-status').textContent));
    await page.click('#region-save');
    await page.waitForFunction(() => /corrected by hand/.test(document.querySelector('#region-status').textContent));
    const g = await region(page);
    assert(g.source === 'user', 'stored as a person\'s region');
    assert(!inside(g, 100, 380) && !inside(g, 100, 530) && inside(g, 400, 450) && !inside(g, 350, 30), 'the rectangle is erased, the rest kept');
    assert(inside(g, 120, 450), 'the brush stroke added back');
    const hist = await page.evaluate(async () => {
      const r = await fetch(document.body.dataset.base + `api/sets/${window.fishscale.store.set.id}/history`);
      return (await r.json()).history.map(h => h.type);
    });
    assert(hist[0] === 'scale_region_changed', 'the set\'s history has it: ' + hist.slice(0, 3));
    const erased = await pixel(page, 100, 380);
    assert(erased[0] - erased[2] > 40, 'the erased part is shaded: ' + erased);
    await shot('scale-region-saved');

    // back to automatic
    assert(await page.isEnabled('#region-reset'), 'reset offered');
    await page.click('#region-reset');
    await page.waitForFunction(() => /found automatically/.test(document.querySelector('#region-status').textContent));
    const back = await region(page);
    assert(back.source === 'auto' && inside(back, 100, 380), 'back to the automatic region');
  });
}
