// The measurement version in Chromium: a set whose diameters come from an
// older measurement (here: an imported file that does not say, version 0)
// shows it in the stats bar with Re-measure; Re-measure is one step that
// keeps the centres, Undo brings the old diameters and version back; Compare
// marks the set and links to the workspace's Re-measure. Also a tubercle
// without a measured diameter: drawn, counted in the stats bar.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assert, PAPER, waitCount, withImage } from './helpers.mjs';

const IMG = PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif';

function importFile(dir) {
  const file = path.join(dir, 'old_annotations.json');
  writeFileSync(file, JSON.stringify({
    format: 'fish-scale-annotations', version: '3.0', image_name: 'old.tif',
    sets: [{ id: 'set_1', name: 'Old measurement',
      tubercles: [{ id: 1, centroid_x: 200, centroid_y: 200, radius_px: 5 }, { id: 2, centroid_x: 260, centroid_y: 200, radius_px: 5 },
        { id: 3, centroid_x: 230, centroid_y: 250, radius_px: null, diameter_px: null, circularity: 0.8 }],
      edges: [{ id1: 1, id2: 2 }, { id1: 2, id2: 3 }] }],
  }));
  return file;
}

const tubs = (page) => page.evaluate(() => [...window.fishscale.store.tubercles.values()]
  .map(t => [t.id, t.centroid_x, t.centroid_y, t.radius_px]).sort((a, b) => a[0] - b[0]));

export async function testRemeasureFromTheStatsBarAndUndo(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs-remeasure-'));
  try {
    await withImage(t, IMG, async ({ page, shot }) => {
      await page.click('[data-tab=data]');
      await page.setInputFiles('#import-file', importFile(dir));
      await page.click('#import-button');
      await page.waitForFunction(() => window.fishscale.store.set && window.fishscale.store.set.name === 'Old measurement');
      await waitCount(page, 'eq', 3);
      // the unmeasured one is counted, not averaged
      await page.waitForFunction(() => !document.querySelector('#st-unmeasured-wrap').hidden);
      assert(await page.textContent('#st-unmeasured') === '1', 'one unmeasured tubercle in the stats bar');
      // and in the Data tab's table without a circularity, as without a
      // diameter (no outline was measured; it showed the file's 80 % before h33f)
      const cells = (id) => page.$$eval(`#tub-table tbody tr[data-id="${id}"] td`, (tds) => tds.map((td) => td.textContent));
      await page.waitForSelector('#tub-table tbody tr[data-id="3"]');
      const c3 = await cells(3), c1 = await cells(1);
      assert(c3[3] === 'unmeasured' && c3[4] === '', 'unmeasured: no diameter, no circularity: ' + JSON.stringify(c3));
      assert(c1[4] === '100%', 'a measured one keeps its circularity: ' + JSON.stringify(c1));
      await page.waitForFunction(() => document.querySelector('#st-mver').textContent === 'v0');
      assert(await page.isVisible('#remeasure'), 'Re-measure offered for a set measured before versioning');
      await shot('ws-measurement-old');
      const before = await tubs(page);
      await page.click('#remeasure');
      await page.waitForFunction(() => window.fishscale.store.set.measurement_version >= 1 && !window.fishscale.store.busy);
      await page.waitForFunction(() => document.querySelector('#remeasure').hidden);
      const after = await tubs(page);
      assert(JSON.stringify(after.map(x => x.slice(0, 3))) === JSON.stringify(before.map(x => x.slice(0, 3))), 'centres and ids kept');
      assert(after.some((x, i) => x[3] !== before[i][3]), 'diameters measured again');
      await shot('ws-measurement-remeasured');
      // one step: Undo restores the old diameters and version
      await page.click('[data-tab=edit]');
      await page.click('#undo');
      await page.waitForFunction(() => window.fishscale.store.set.measurement_version === 0 && !window.fishscale.store.busy);
      const back = await tubs(page);
      assert(JSON.stringify(back) === JSON.stringify(before), 'undo restores the diameters exactly: ' + JSON.stringify(back));
      assert(await page.isVisible('#remeasure'), 'Re-measure offered again after the undo');
      // Compare marks it and links here
      const sid = await page.evaluate(() => window.fishscale.store.set.id);
      await page.goto(page.url().replace(/workspace\/.*/, `compare?sets=${sid}`));
      await page.waitForSelector('body[data-ready="1"]');
      await page.waitForSelector(`#cmp-table tbody tr[data-id="${sid}"] .cmp-mver-old a.cmp-remeasure`);
      assert((await page.textContent(`#cmp-table tbody tr[data-id="${sid}"] .cmp-mver`)).includes('v0'), 'version shown');
      await shot('compare-measurement-old');
      await page.click(`#cmp-table tbody tr[data-id="${sid}"] a.cmp-remeasure`);
      await page.waitForSelector('#workspace[data-ready="1"]');
      await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'remeasure');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The Extraction tab shows the chosen method's parameters; the others are
// greyed with the reason, and the optimiser offers only the used ones.
export async function testExtractionTabGreysParametersTheMethodDoesNotUse(t) {
  await withImage(t, IMG, async ({ page, shot }) => {
    await page.click('[data-tab=extraction]');
    await page.selectOption('#p-method', 'auto');
    await page.dispatchEvent('#p-method', 'change');
    await page.waitForFunction(() => document.querySelector('#p-threshold').disabled);
    const why = await page.getAttribute('.param[data-key=threshold]', 'title');
    assert(/Not used by auto/.test(why) && /prominence/.test(why), 'reason shown: ' + why);
    assert(!(await page.isDisabled('#p-auto_prominence')), 'auto_prominence is auto\'s');
    assert(await page.isDisabled('#opt-params input[value=threshold]'), 'the optimiser does not offer threshold under auto');
    assert(!(await page.isDisabled('#opt-params input[value=auto_prominence]')), 'the optimiser offers prominence');
    // auto_smoothing is auto's under the outline rule only: the dome rule's
    // candidates are circle votes and its dome template (params.h)
    const dome = await page.evaluate(() => window.fishscale.store.set.current_measurement_rule) === 'dome';
    assert(await page.isDisabled('#p-auto_smoothing') === dome, 'auto_smoothing greyed only under the dome rule');
    assert(await page.isDisabled('#opt-params input[value=auto_smoothing]') === dome, 'the optimiser offers smoothing only under the outline rule');
    if (dome) {
      const whyS = await page.getAttribute('.param[data-key=auto_smoothing]', 'title');
      assert(/dome rule/.test(whyS), 'the dome rule named as the reason: ' + whyS);
    }
    await shot('ws-params-auto');
    await page.selectOption('#p-method', 'log');
    await page.dispatchEvent('#p-method', 'change');
    await page.waitForFunction(() => !document.querySelector('#p-threshold').disabled);
    assert(await page.isDisabled('#p-auto_prominence'), 'prominence greyed under log');
    assert(await page.isDisabled('#opt-params input[value=auto_smoothing]'), 'no smoothing for log');
  });
}
