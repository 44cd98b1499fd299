// The workspace of one image in Chromium: calibrate by two clicks, extract,
// edit (add, move, delete, area delete), undo/redo, save, reload, CSV
// download, sets, tabs. Waits on conditions only.
import { readFileSync } from 'node:fs';
import { assert, login, PAPER, uploadThroughLibrary, wsState, clickImage, dragImage, waitCount, waitWorkspaceReady, withCleanup } from './helpers.mjs';

const IMG = PAPER + 'P1_Fig3_Lepisosteus_osseus_3.79um.tif';

async function calibrateByTwoClicks(page) {
  await page.click('[data-tab=calibration]');
  await page.click('#cal-measure');
  await clickImage(page, 100, 100);
  await clickImage(page, 300, 100);
  await page.waitForFunction(() => document.querySelector('#cal-bar-px').value !== '');
  const px = Number(await page.inputValue('#cal-bar-px'));
  assert(Math.abs(px - 200) < 1.5, 'measured 200 px, got ' + px);
  await page.fill('#cal-bar-um', '40');
  await page.click('#cal-bar-apply');
  await page.waitForFunction(() => Math.abs(parseFloat(document.querySelector('#cal-value').textContent) - 0.2) < 0.002);
  await page.keyboard.press('Escape');
}

async function extract(page) {
  await page.click('[data-tab=extraction]');
  await page.click('#extract-all');
  await waitCount(page, 'gt', 10, 60000);
}

export async function testCalibrateExtractEditSaveReload(t) {
  await withCleanup(t, testCalibrateExtractEditSaveReloadBody);
}

async function testCalibrateExtractEditSaveReloadBody({ page, server, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, IMG);
  await shot('ws-image-tab');
  await calibrateByTwoClicks(page);
  let st = await wsState(page);
  assert(Math.abs(st.um - 0.2) < 0.002, 'calibration 40 µm / 200 px, got ' + st.um);
  await shot('ws-calibration-tab');
  await extract(page);
  st = await wsState(page);
  assert(st.e > 0, 'connections extracted');
  assert((await page.textContent('#st-tub')) === String(st.n), 'stats bar counts tubercles');
  await shot('ws-extraction-tab');

  // add a tubercle in the top-left corner region (outside any hit area)
  await page.click('[data-tab=edit]');
  await page.click('[data-mode=add_tub]');
  const free = await page.evaluate(() => {
    const s = window.fishscale.store;
    for (let y = 20; y < s.height - 20; y += 7) for (let x = 20; x < s.width - 20; x += 7) {
      let ok = true;
      for (const t of s.tubercles.values()) if (Math.hypot(t.centroid_x - x, t.centroid_y - y) < 3 * t.radius_px + 12) { ok = false; break; }
      if (ok) return [x, y];
    }
    return null;
  });
  assert(free, 'found an empty spot');
  const before = st.n;
  await clickImage(page, free[0], free[1]);
  await waitCount(page, 'eq', before + 1);
  const added = await page.evaluate(() => Math.max(...window.fishscale.store.tubercles.keys()));
  await shot('ws-edit-added');

  // move it by dragging: one request on release
  await page.click('[data-mode=move]');
  await dragImage(page, free[0], free[1], free[0] + 6, free[1] + 5);
  // wait for the answer to the move, not merely for an idle store
  await page.waitForFunction(([id, x, y]) => {
    const s = window.fishscale.store, t = s.tubercles.get(id);
    return !s.busy && t && Math.abs(t.centroid_x - x) < 1.5 && Math.abs(t.centroid_y - y) < 1.5;
  }, [added, free[0] + 6, free[1] + 5]);
  // the server holds the moved position (polled: the request may still be on its way)
  const handle = await page.waitForFunction(async ([id, x, y]) => {
    const s = window.fishscale.store;
    const r = await fetch(document.body.dataset.base + `api/sets/${s.set.id}`);
    const t = (await r.json()).tubercles.find(t => t.id === id);
    return t && Math.abs(t.centroid_x - x) < 1.5 && Math.abs(t.centroid_y - y) < 1.5 ? t : null;
  }, [added, free[0] + 6, free[1] + 5], { timeout: 10000 });
  const moved = await handle.jsonValue();
  assert(moved.centroid_x > 0, `moved on the server: ${moved.centroid_x},${moved.centroid_y}`);

  // delete it: select by clicking, Delete key, confirm in the modal
  await page.keyboard.press('Escape');
  await clickImage(page, moved.centroid_x, moved.centroid_y);
  await page.waitForFunction((id) => window.fishscale.store.selection.tub === id, added);
  await page.keyboard.press('Delete');
  await page.waitForSelector('#modal[open]');
  await shot('ws-delete-confirm');
  await page.click('#modal-buttons button.danger');
  await waitCount(page, 'eq', before);

  // area select + delete
  await page.click('[data-mode=area_select]');
  await dragImage(page, 150, 150, 330, 330);
  const nSel = await page.evaluate(() => window.fishscale.store.multi.tubs.size);
  assert(nSel > 0, 'area selected some tubercles');
  await page.click('#area-delete');
  await page.click('#modal-buttons button.danger');
  await waitCount(page, 'eq', before - nSel);
  await shot('ws-area-deleted');

  // undo / redo with the keyboard
  await page.keyboard.press('Escape');
  await page.locator('#viewer').focus();
  await page.keyboard.press('Control+z');
  await waitCount(page, 'eq', before);
  await page.keyboard.press('Control+y');
  await waitCount(page, 'eq', before - nSel);
  await page.click('#undo');
  await waitCount(page, 'eq', before);

  // save, reload, find everything
  await page.click('#set-save');
  await page.waitForFunction(() => !window.fishscale.store.set.dirty);
  const saved = await wsState(page);
  await page.reload();
  await waitWorkspaceReady(page);
  const again = await wsState(page);
  assert(again.n === saved.n && again.e === saved.e && !again.set.dirty, 'same set after reload');
  assert(Math.abs(again.um - 0.2) < 0.002, 'calibration kept');

  // CSV download has one row per tubercle
  await page.click('[data-tab=data]');
  await page.waitForFunction((n) => document.querySelectorAll('#tub-table tbody tr').length === n, again.n);
  await shot('ws-data-tab');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-tub-csv')]);
  const csv = readFileSync(await dl.path(), 'utf8').trim().split('\n');
  assert(csv.length === again.n + 1, `CSV has ${again.n} rows + header, got ${csv.length}`);

  // table row -> overlay selection
  await page.click('#tub-table tbody tr:nth-child(3)');
  const selId = await page.evaluate(() => window.fishscale.store.selection.tub);
  assert(selId === Number(await page.getAttribute('#tub-table tbody tr:nth-child(3)', 'data-id')), 'row selects on the overlay');
}

export async function testSetsCreateSwitchRename(t) {
  await withCleanup(t, testSetsCreateSwitchRenameBody);
}

async function testSetsCreateSwitchRenameBody({ page, server, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  await page.click('[data-tab=edit]');
  await page.click('[data-mode=add_tub]');
  await clickImage(page, 50, 50);
  await waitCount(page, 'eq', 1);
  await page.click('#set-new');
  await page.fill('#new-set-name', 'Second');
  await page.click('#new-set-create');
  await page.waitForFunction(() => window.fishscale.store.set.name === 'Second');
  assert((await wsState(page)).n === 0, 'new empty set');
  await page.selectOption('#set-select', { label: 'Base *' });
  await waitCount(page, 'eq', 1);
  await page.click('#set-next');
  await page.waitForFunction(() => window.fishscale.store.set.name === 'Second');
  await page.click('#set-menu summary');
  await page.click('#set-rename');
  await page.fill('#modal-input', 'Renamed');
  await page.click('#modal-ok');
  await page.waitForFunction(() => window.fishscale.store.set.name === 'Renamed');
  const names = (await wsState(page)).sets;
  assert(names.includes('Renamed') && names.includes('Base'), 'sets listed: ' + names);
  await shot('ws-sets');
  // a reload opens the set that was open, not the image's first
  await page.reload();
  await page.waitForSelector('#workspace[data-ready]');
  assert(await page.evaluate(() => window.fishscale.store.set.name) === 'Renamed', 'reload keeps the open set');
  assert(/[?&]set=\d+/.test(page.url()), 'the address names the set: ' + page.url());
}

export async function testTabsScreenshots(t) {
  await withCleanup(t, testTabsScreenshotsBody);
}

async function testTabsScreenshotsBody({ page, server, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif');
  for (const t of ['image', 'calibration', 'extraction', 'edit', 'data', 'log', 'settings', 'about']) {
    await page.click(`[data-tab=${t}]`);
    await page.waitForSelector(`#tab-${t}:not([hidden])`);
    if (t === 'log') await page.waitForSelector('#log-table tbody tr');
    if (t === 'about') await page.waitForSelector('#about-table tr');
    await shot('tab-' + t);
  }
  const about = await page.textContent('#about-table');
  assert(about.includes('SQLite'), 'about lists versions');
  const log = await page.textContent('#log-table');
  assert(log.includes('image loaded') || log.includes('image uploaded') || log.length > 20, 'log shows events');
}

export async function testSettingSurvivesReload(t) {
  await withCleanup(t, async () => {
    try {
      await testSettingSurvivesReloadBody(t);
    } finally {
      // settings belong to the (shared) admin account: put them back
      await t.page.evaluate(() => fetch(document.body.dataset.base + 'api/settings/reset', { method: 'POST', headers: { 'X-CSRF-Token': document.body.dataset.csrf } })).catch(() => {});
    }
  });
}

async function testSettingSurvivesReloadBody({ page, server }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  await page.click('[data-tab=settings]');
  await page.selectOption('#s-theme', 'light');
  await page.waitForFunction(() => window.fishscale.settings.theme === 'light' && document.querySelector('#settings-status').textContent === 'Saved.');
  await page.fill('#s-id_text_size', '17');
  await page.press('#s-id_text_size', 'Tab');
  await page.waitForFunction(() => window.fishscale.settings.id_text_size === 17);
  await page.reload();
  await waitWorkspaceReady(page);
  const s = await page.evaluate(() => [window.fishscale.settings.theme, window.fishscale.settings.id_text_size, document.documentElement.dataset.theme]);
  assert(s[0] === 'light' && s[1] === 17 && s[2] === 'light', 'settings kept: ' + s);
}

export async function testUnknownWorkspaceIs404(t) {
  await withCleanup(t, testUnknownWorkspaceIs404Body);
}

async function testUnknownWorkspaceIs404Body({ page, server }) {
  await login(page, server);
  const r = await page.goto(server.url + 'workspace/999999');
  assert(r.status() === 404, 'unknown image is 404, got ' + r.status());
}

export async function testRotateAndCropMoveTubercles(t) {
  await withCleanup(t, rotateCropBody);
}

async function rotateCropBody({ page, server, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P1_Fig4_Atractosteus_simplex_7.07um.tif');
  const { w, h } = await page.evaluate(() => ({ w: window.fishscale.store.width, h: window.fishscale.store.height }));
  await page.click('[data-tab=edit]');
  await page.click('[data-mode=add_tub]');
  await clickImage(page, 60, 40);
  await waitCount(page, 'eq', 1);
  await page.keyboard.press('Escape');
  await page.click('[data-tab=image]');
  // a rotation asks nothing: it is a step of the image, undone in its history
  await page.click('#rotate-right');
  // the image reloads first, then the set with its moved tubercles
  await page.waitForFunction(() => [...window.fishscale.store.tubercles.values()][0].centroid_x > 100);
  const p = await page.evaluate(() => { const t = [...window.fishscale.store.tubercles.values()][0]; return [t.centroid_x, t.centroid_y]; });
  assert((await page.evaluate(() => window.fishscale.store.width)) === h, 'width and height swapped');
  assert(Math.abs(p[0] - (h - 40)) < 2 && Math.abs(p[1] - 60) < 2, `rotated with the image: ${p}`);
  await shot('ws-rotated');
  // crop away the left 20 px: the tubercle moves by -20 in x
  await page.click('#crop-start');
  await dragImage(page, 20, 0, h - 1, w - 1);
  await page.waitForFunction(() => !document.querySelector('#crop-apply').disabled);
  await page.click('#crop-apply');
  await page.waitForSelector('#modal[open]');
  await page.click('#modal-buttons button.primary');
  await page.waitForFunction((x) => [...window.fishscale.store.tubercles.values()][0].centroid_x < x - 10, p[0]);
  const q = await page.evaluate(() => { const t = [...window.fishscale.store.tubercles.values()][0]; return [t.centroid_x, t.centroid_y]; });
  assert(Math.abs(q[0] - (p[0] - 20)) < 2 && Math.abs(q[1] - p[1]) < 2, `cropped with the image: ${q}`);
}
