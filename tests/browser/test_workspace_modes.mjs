// Chain mode (click to add and connect, arrows to walk the chain) and the
// custom panel theme (colours kept on the server, applied as CSS variables,
// reset to the dark theme) in Chromium. Waits on conditions only.
import { assert, PAPER, clickImage, waitCount, withImage } from './helpers.mjs';

const IMG = PAPER + 'P3_Fig4_Obaichthys_laevis_5.0um.tif';


const selected = (page) => page.evaluate(() => window.fishscale.store.selection.tub);

export async function testChainModeAddsConnectsAndWalks(t) {
  await withImage(t, IMG, async ({ page, shot }) => {
    await page.click('[data-tab=edit]');
    await page.click('[data-mode=add_chain]');
    await page.waitForSelector('#chain-hint:not([hidden])');
    // three empty spots on one row, away from any tubercle the set may hold
    const spots = await page.evaluate(() => {
      const s = window.fishscale.store;
      const free = (x, y) => [...s.tubercles.values()].every(t => Math.hypot(t.centroid_x - x, t.centroid_y - y) > 3 * t.radius_px + 12);
      for (let y = 15; y < s.height - 15; y += 5)
        for (let x = 15; x + 60 < s.width - 15; x += 5)
          if (free(x, y) && free(x + 30, y) && free(x + 60, y)) return [[x, y], [x + 30, y], [x + 60, y]];
      return null;
    });
    assert(spots, 'found three empty spots');
    const n0 = await page.evaluate(() => window.fishscale.store.tubercles.size);
    const e0 = await page.evaluate(() => window.fishscale.store.edges.length);
    const ids = [];
    for (const [x, y] of spots) {
      await clickImage(page, x, y);
      await waitCount(page, 'eq', n0 + ids.length + 1);
      // the chain's new tubercle becomes the current (selected) one
      await page.waitForFunction((k) => {
        const s = window.fishscale.store;
        return !s.busy && s.edges.length === k;
      }, e0 + ids.length);
      ids.push(await selected(page));
    }
    assert(new Set(ids).size === 3 && ids.every(id => id != null), 'three new tubercles, got ' + ids);
    const linked = await page.evaluate(([a, b, c]) => {
      const has = (p, q) => window.fishscale.store.edges.some(e => (e.id1 === p && e.id2 === q) || (e.id1 === q && e.id2 === p));
      return [has(a, b), has(b, c), has(a, c)];
    }, ids);
    assert(linked[0] && linked[1] && !linked[2], 'chain connected in order, got ' + linked);
    await shot('ws-chain-mode');

    // arrows: left goes back along the chain, right follows a connection
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, ids[1]);
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, ids[0]);
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, ids[1]);
    // clicking an existing tubercle continues the chain from it
    await clickImage(page, spots[0][0], spots[0][1]);
    await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, ids[0]);
    const n = await page.evaluate(() => window.fishscale.store.tubercles.size);
    assert(n === n0 + 3, 'clicking a tubercle adds nothing, got ' + n);
  });
}

const panelBg = (page) => page.evaluate(() => document.documentElement.style.getPropertyValue('--panel-bg').trim());

export async function testCustomThemeColoursAreKeptAndReset(t) {
  await withImage(t, IMG, async ({ page, shot }) => {
    await page.click('[data-tab=settings]');
    await page.selectOption('#s-theme', 'custom');
    await page.waitForSelector('#s-custom_panel_bg', { state: 'visible' });
    await page.evaluate(() => {
      const i = document.querySelector('#s-custom_panel_bg');
      i.value = '#123456';
      i.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await page.waitForFunction(() => document.documentElement.style.getPropertyValue('--panel-bg').trim() === '#123456');
    await page.waitForSelector('#settings-status:has-text("Saved")');
    await shot('ws-theme-custom');
    // kept on the server: a reload applies it again
    await page.reload();
    await page.waitForSelector('#workspace[data-ready="1"]', { timeout: 15000 });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'custom');
    assert((await panelBg(page)) === '#123456', 'custom panel colour after reload, got ' + (await panelBg(page)));
    // reset: back to the dark theme's colours
    await page.click('[data-tab=settings]');
    await page.click('#theme-reset');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    assert((await panelBg(page)) === '#1e293b', 'dark panel colour after reset, got ' + (await panelBg(page)));
    const stored = await page.evaluate(async () => (await (await fetch(document.body.dataset.base + 'api/settings')).json()));
    const s = stored.settings || stored;
    assert(s.theme === 'dark', 'theme reset on the server, got ' + s.theme);
  });
}
