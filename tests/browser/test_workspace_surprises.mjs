// Issue 17's surprises, one test each where it is behaviour (the stats bar
// in pixels before a calibration rides along with Revert): toasts in one
// area off the panel, at most two, errors kept until dismissed; measuring
// on the image ends on Apply and on Escape and says what was applied; a
// rotation leaves the set saved; Revert clears Unsaved; set names up to 64
// characters, ellipsised; another user's new set appears without a reload;
// the Delete Multiple hint, auto-size feedback and the region's bound; the
// import report; the overlay download's name; the view refitting on resize;
// the overlay legend; the light theme on the whole page; number fields wide
// enough for their values.
import { addUser, assert, clickImage, login, openAsMember, PAPER, uploadThroughLibrary, waitCount, withCleanup, withImage } from './helpers.mjs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const TIF = PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif';

const dirty = (page) => page.evaluate(() => window.fishscale.store.set.dirty);
const intersects = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

export async function testToastsOneAreaOffThePanelTwoAtMostErrorsStay(t) {
  await withImage(t, TIF, async ({ page, shot }) => {
    // wording of a refused request: a verb, not "Could not extraction"
    await page.evaluate(() => window.fishscale.store.onError({ status: 422, data: { error: 'probe refusal' } }, 'extraction'));
    await page.waitForSelector('.toast-error');
    const text = await page.textContent('.toast-error .toast-text');
    assert(text === 'Could not extract: probe refusal', 'wording: ' + text);
    await page.evaluate(async () => {
      const { toast } = await import(document.body.dataset.base + 'static/js/dom.js');
      toast('first note', 'info', 600);
      toast('second note', 'success', 600);
      toast('third note', 'warning', 600);
    });
    assert(await page.locator('#toasts .toast').count() <= 2, 'at most two at once');
    await shot('ws-toasts');
    // the area lies over the image, never over the panel's controls
    const box = await page.locator('#toasts').boundingBox();
    const panel = await page.locator('#panel').boundingBox();
    assert(!intersects(box, panel), `toasts ${JSON.stringify(box)} clear of the panel ${JSON.stringify(panel)}`);
    assert((await page.getAttribute('#toasts', 'aria-live')) === 'polite', 'announced');
    assert((await page.getAttribute('.toast-error', 'role')) === 'alert', 'errors are alerts');
    // the notes fade; the error stays until dismissed
    await page.waitForFunction(() => !document.querySelector('#toasts .toast:not(.toast-error)'), null, { timeout: 8000 });
    assert(await page.locator('#toasts .toast-error').count() === 1, 'the error is still shown');
    await page.click('.toast-error .toast-close');
    await page.waitForFunction(() => !document.querySelector('#toasts .toast'));
  });
}

export async function testMeasureModeEndsOnApplyAndEscapeAndShowsWhatIsApplied(t) {
  await withImage(t, TIF, async ({ page }) => {
    await page.click('[data-tab=calibration]');
    assert((await page.textContent('#cal-estimate-value')) === '0.1367', 'the estimate as applied');
    await page.click('#cal-estimate');
    await page.waitForFunction(() => /0\.1367 µm/.test(document.querySelector('#cal-value').textContent));
    // measure, then Apply: the mode ends (banner, line) and the value shows
    await page.click('#cal-measure');
    await clickImage(page, 100, 60);
    await clickImage(page, 200, 60);
    await page.waitForFunction(() => document.querySelector('#cal-bar-px').value !== '');
    assert(await page.isVisible('#mode-banner'), 'measuring');
    await page.fill('#cal-bar-um', '50');
    await page.click('#cal-bar-apply');
    await page.waitForFunction(() => /^Applied: 0\.\d{4} µm\/px/.test(document.querySelector('#cal-measure-status').textContent));
    assert(await page.isHidden('#mode-banner'), 'the banner is gone after Apply');
    assert(await page.evaluate(() => !window.fishscale.store.temp.measure && !window.fishscale.editor.mode), 'no line, no mode');
    // what is shown is what is applied (about 50 µm over 100 px)
    const applied = await page.evaluate(() => window.fishscale.store.umPerPx.toFixed(4));
    assert(Math.abs(Number(applied) - 0.5) < 0.01, 'about 0.5 µm/px: ' + applied);
    assert((await page.textContent('#cal-value')).startsWith(applied) && (await page.textContent('#cal-measure-status')).includes(applied), 'the applied value is shown');
    // measure, then Escape in the µm field: the mode ends too
    await page.click('#cal-measure');
    await clickImage(page, 100, 60);
    await clickImage(page, 150, 60);
    await page.waitForFunction(() => document.activeElement === document.querySelector('#cal-bar-um'));
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !window.fishscale.editor.mode);
    assert(await page.isHidden('#mode-banner'), 'Escape ends measuring');
  });
}

export async function testRotationLeavesTheSetSavedAndRotatingBackAsksNothing(t) {
  await withImage(t, TIF, async ({ page }) => {
    await page.evaluate(async () => {
      const s = window.fishscale.store;
      await s.change('POST', 'tubercles', { x: 40, y: 40, radius_px: 6 });
      await s.change('POST', 'save', {});
    });
    await page.waitForFunction(() => !window.fishscale.store.set.dirty && window.fishscale.store.tubercles.size === 1);
    const w0 = await page.evaluate(() => window.fishscale.store.width);
    await page.click('[data-tab=image]');
    await page.click('#rotate-right');
    await page.waitForFunction((w) => window.fishscale.store.width !== w && !window.fishscale.store.busy, w0);
    assert(!(await dirty(page)) && await page.isHidden('#dirty-badge'), 'a rotation leaves the set saved');
    await page.click('#rotate-left');
    await page.waitForFunction((w) => window.fishscale.store.width === w && !window.fishscale.store.busy, w0);
    assert(!(await page.isVisible('#modal[open]')), 'rotating back asks nothing');
    assert(!(await dirty(page)) && await page.isHidden('#dirty-badge'), 'still saved');
  });
}

export async function testRevertClearsUnsaved(t) {
  await withImage(t, TIF, async ({ page }) => {
    await page.evaluate(() => window.fishscale.store.change('POST', 'tubercles', { x: 40, y: 40, radius_px: 6 }));
    await page.waitForSelector('#dirty-badge:not([hidden])');
    // uncalibrated, the stats bar gives the figures in pixels with their SD
    await page.waitForFunction(() => document.querySelector('#st-diam').textContent === '12.0 ± 0.0 px');
    await page.click('#set-menu summary');
    await page.click('#set-revert');
    await page.waitForSelector('#modal[open]');
    await page.click('#modal-buttons button.danger');
    await page.waitForFunction(() => window.fishscale.store.tubercles.size === 0 && !window.fishscale.store.busy);
    await page.waitForSelector('#dirty-badge', { state: 'hidden' });
    assert(!(await dirty(page)), 'not unsaved after Revert');
  });
}

export async function testSetNamesUpTo64CharactersEverywhereAndEllipsised(t) {
  await withImage(t, TIF, async ({ page }) => {
    const long = 'Polypterus delhezi, left flank, scale 12, second operator pass'.padEnd(64, 'x');
    await page.click('#set-new');
    await page.waitForSelector('#modal[open]');
    assert((await page.getAttribute('#new-set-name', 'maxlength')) === '64', 'New allows 64');
    await page.fill('#new-set-name', long + 'overflow');
    await page.click('#new-set-create');
    await page.waitForFunction((n) => window.fishscale.store.set && window.fishscale.store.set.name === n, long);
    await page.click('#set-menu summary');
    await page.click('#set-rename');
    await page.waitForSelector('#modal[open]');
    assert((await page.getAttribute('#modal-input', 'maxlength')) === '64', 'Rename allows 64 too');
    await page.keyboard.press('Escape');
    // the stats bar keeps its width: the name is ellipsised, the bar does not grow
    const sel = await page.evaluate(() => {
      const s = document.querySelector('#set-select');
      const cs = getComputedStyle(s);
      return { w: s.getBoundingClientRect().width, overflow: cs.textOverflow };
    });
    assert(sel.w <= 16 * 15 + 1 && sel.overflow === 'ellipsis', 'long names ellipsised: ' + JSON.stringify(sel));
  });
}

export async function testAnotherUsersNewSetAppearsWithoutReload(t) {
  await withCleanup(t, async ({ page, server, browser }) => {
    await login(page, server);
    await uploadThroughLibrary(page, server, TIF);
    const wsUrl = page.url();
    const pw = addUser(server, 'greta');
    const { ctx: ctx2, page: p2 } = await openAsMember(browser, server, 'greta', pw, wsUrl);
    try {
      await p2.evaluate(() => window.fishscale.createSet('Greta’s pass', 0));
      await page.waitForFunction(() => [...document.querySelectorAll('#set-select option')].some(o => o.textContent.startsWith('Greta’s pass')), null, { timeout: 8000 });
    } finally {
      await ctx2.close();
    }
  });
}

export async function testDeleteMultipleHintAutoSizeFeedbackAndRegionBound(t) {
  await withImage(t, TIF, async ({ page, shot }) => {
    await page.click('[data-tab=edit]');
    assert(await page.isDisabled('#delete-multi-mode') && await page.isVisible('#delete-multi-hint'), 'disabled with a hint');
    await page.check('#no-confirm');
    await page.waitForSelector('#delete-multi-hint', { state: 'hidden' });
    assert(!(await page.isDisabled('#delete-multi-mode')), 'enabled once ticked');
    // calibrate at 0.25 µm/px: the largest diameter (10 µm) is 40 px, and
    // the 357 × 219 image allows 219 / 2 / 40 = 2× at most
    await page.evaluate(async () => {
      const base = document.body.dataset.base, csrf = document.body.dataset.csrf;
      await fetch(base + `api/images/${window.fishscale.store.imageId}/calibration`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: JSON.stringify({ um_per_px: 0.25 }) });
      await window.fishscale.store.loadImage();
      // the calibration is a step in every set's history (a new revision): catch up as the poll would
      await window.fishscale.store.reload();
    });
    await page.waitForFunction(() => !document.querySelector('#auto-size').disabled);
    await page.check('#auto-size');
    await page.waitForFunction(() => document.querySelector('#region-factor').max === '2');
    const label = await page.textContent('#region-factor-value');
    assert(/2× the largest diameter = 80 px \(at most 2× on this image\)/.test(label), 'region bound said: ' + label);
    await page.click('[data-mode=add_tub]');
    await clickImage(page, 180, 110);
    await page.waitForFunction(() => document.querySelector('#auto-size-status').textContent !== '');
    const said = await page.textContent('#auto-size-status');
    assert(/^Auto-size found (a tubercle of [\d.]+ µm|no tubercle there)/.test(said), 'feedback: ' + said);
    await shot('ws-auto-size');
  });
}

export async function testImportReportNotUnsavedAndOneErrorPrefix(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs-import17-'));
  const good = path.join(dir, 'probe_annotations.json'), bad = path.join(dir, 'list.json');
  writeFileSync(good, JSON.stringify({
    format: 'fish-scale-annotations', version: '3.0', image_name: 'probe.tif',
    sets: [{ id: 'set_1', name: 'Imported probe',
      tubercles: [{ id: 5, centroid_x: 30, centroid_y: 40, radius_px: 5 }, { id: 9, centroid_x: 60, centroid_y: 40, radius_px: 5 }],
      edges: [{ id1: 5, id2: 9 }] }],
  }));
  writeFileSync(bad, '[1, 2]');
  try {
    await withImage(t, TIF, async ({ page, shot }) => {
      await page.click('[data-tab=data]');
      await page.setInputFiles('#import-file', good);
      await page.click('#import-button');
      await page.waitForSelector('#import-report:not([hidden]) #import-sets li');
      const report = await page.textContent('#import-report');
      assert(/Imported from probe_annotations\.json/.test(report) && /“Imported probe”: 2 tubercles, 1 connections/.test(report), 'report: ' + report);
      assert(/renumbered/.test(report), 'the repair is reported: ' + report);
      await page.waitForFunction(() => window.fishscale.store.set.name === 'Imported probe');
      assert(!(await dirty(page)) && await page.isHidden('#dirty-badge'), 'an imported set is not unsaved');
      await shot('ws-import-report');
      await page.setInputFiles('#import-file', bad);
      await page.click('#import-button');
      await page.waitForFunction(() => /nothing imported/.test(document.querySelector('#import-report').textContent));
      const msg = await page.textContent('#import-report');
      assert((msg.match(/not an annotation file/g) || []).length === 1, 'said once: ' + msg);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function testOverlayDownloadIsNamedAfterImageAndSet(t) {
  await withImage(t, TIF, async ({ page }) => {
    await page.click('[data-tab=data]');
    const name = await page.getAttribute('#dl-overlay', 'download');
    assert(name === 'P2_Fig1e_Polypterus_delhezi_2.19um_Base_overlay.png', 'download name: ' + name);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#dl-overlay')]);
    assert(dl.suggestedFilename() === name, 'the browser saves it as ' + dl.suggestedFilename());
  });
}

export async function testViewRefitsOnResizeLegendLightThemeAndWideFields(t) {
  await withImage(t, TIF, async ({ page, shot }) => {
    const fits = () => page.evaluate(() => {
      const v = window.fishscale.viewer;
      const w = v.image.width * v.scale, h = v.image.height * v.scale;
      return v.tx >= -1 && v.ty >= -1 && v.tx + w <= v.cssW + 1 && v.ty + h <= v.cssH + 1 && (w > 0.9 * v.cssW || h > 0.9 * v.cssH);
    });
    assert(await fits(), 'fitted at first');
    await page.setViewportSize({ width: 900, height: 700 });
    await page.waitForFunction(() => {
      const v = window.fishscale.viewer;
      return v.image.width * v.scale <= v.cssW + 1 && v.image.height * v.scale <= v.cssH + 1;
    });
    assert(await fits(), 'refitted after the window shrank');
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.waitForFunction(() => window.fishscale.viewer.cssW > 700);
    await page.waitForFunction(() => { const v = window.fishscale.viewer; return v.image.width * v.scale > 0.9 * v.cssW || v.image.height * v.scale > 0.9 * v.cssH; });
    // the legend says what the colours mean in each mode
    await page.selectOption('#tg-color-mode', 'boundary');
    await page.waitForFunction(() => /boundary/.test(document.querySelector('#overlay-legend').textContent));
    await page.selectOption('#tg-color-mode', 'source');
    await page.waitForFunction(() => /manual/.test(document.querySelector('#overlay-legend').textContent) && /agent/.test(document.querySelector('#overlay-legend').textContent));
    // the scale region's shade is named while it is shown
    assert(!/not scale surface/.test(await page.textContent('#overlay-legend')), 'region named while hidden');
    await page.check('#tg-region');
    await page.waitForFunction(() => /not scale surface/.test(document.querySelector('#overlay-legend').textContent));
    await page.uncheck('#tg-region');
    await page.waitForFunction(() => !/not scale surface/.test(document.querySelector('#overlay-legend').textContent));
    // at the panel's narrowest (300 px) no control sticks out of it (the profile list did)
    await page.evaluate(() => { document.querySelector('#panel').style.width = '300px'; });
    for (const tab of ['extraction', 'edit', 'calibration', 'data']) {
      await page.click(`[data-tab=${tab}]`);
      const out = await page.evaluate(() => {
        const r = document.querySelector('#panel').getBoundingClientRect();
        return [...document.querySelectorAll('#panel select, #panel input, #panel button')].filter(e => e.offsetParent && e.getBoundingClientRect().right > r.right + 0.5).map(e => e.id || e.tagName);
      });
      assert(!out.length, `${tab}: controls past the panel's edge: ${out}`);
    }
    await page.evaluate(() => { document.querySelector('#panel').style.width = '420px'; });
    // number fields show their values whole
    await page.click('[data-tab=calibration]');
    await page.fill('#cal-direct', '0.4032');
    const cut = await page.evaluate(() => { const i = document.querySelector('#cal-direct'); return i.scrollWidth > i.clientWidth; });
    assert(!cut, '0.4032 fits its field');
    // the light theme reaches the bars and the image's surround, not only the panel
    await page.click('[data-tab=settings]');
    await page.selectOption('#s-theme', 'light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    const light = await page.evaluate(() => ['.stats-bar', '.toolbar', '.toggles', '.ws', '.ws-right'].map(sel => {
      const m = getComputedStyle(document.querySelector(sel)).backgroundColor.match(/\d+/g).map(Number);
      return [sel, (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255];
    }));
    for (const [sel, lum] of light) assert(lum > 0.7, `${sel} is light (${lum.toFixed(2)})`);
    await shot('ws-light-theme');
    await page.selectOption('#s-theme', 'dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
  });
}
