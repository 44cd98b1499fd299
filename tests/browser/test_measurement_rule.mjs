// The measurement rule in Chromium: a set measured by another rule than the
// site's (measurement_rule, README "Measurement rule") says in the stats bar
// which rule measured it - "measured with the outline rule (version 1)" on a
// site measuring with the dome rule, "... the dome rule (version 2)" on one
// measuring with the outline rule - names the site's rule in its title and
// offers Re-measure; after Re-measure the note and the button go, Undo
// brings them back. The imported file names the rule the site does not use,
// so the test means the same under either configuration.
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { assert, PAPER, waitCount, withImage } from './helpers.mjs';

const IMG = PAPER + 'P1_Fig4_Atractosteus_simplex_7.07um.tif';
const RULES = { 1: 'outline', 2: 'dome' };

function importFile(dir, version) {
  const file = path.join(dir, 'other_rule.json');
  writeFileSync(file, JSON.stringify({
    format: 'fish-scale-annotations', version: '3.0', image_name: 'fig4.tif',
    sets: [{ id: 'set_1', name: 'Other rule', measurement_version: version,
      tubercles: [{ id: 1, centroid_x: 200, centroid_y: 200, radius_px: 6 }, { id: 2, centroid_x: 262, centroid_y: 200, radius_px: 6 },
        { id: 3, centroid_x: 231, centroid_y: 254, radius_px: 6 }],
      edges: [{ id1: 1, id2: 2 }, { id1: 2, id2: 3 }, { id1: 1, id2: 3 }] }],
  }));
  return file;
}

export async function testASetMeasuredByTheOtherRuleSaysSoAndOffersRemeasure(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs-rule-'));
  try {
    await withImage(t, IMG, async ({ page, shot }) => {
      const current = await page.evaluate(() => window.fishscale.store.set.current_measurement_version);
      assert(current === 1 || current === 2, 'the site measures with version 1 or 2: ' + current);
      const other = current === 1 ? 2 : 1;
      await page.click('[data-tab=data]');
      await page.setInputFiles('#import-file', importFile(dir, other));
      await page.click('#import-button');
      await page.waitForFunction(() => window.fishscale.store.set && window.fishscale.store.set.name === 'Other rule');
      await waitCount(page, 'eq', 3);
      await page.waitForFunction((v) => document.querySelector('#st-mver').textContent === `v${v}`, other);
      assert(await page.isVisible('#st-mver-note'), 'the rule is said in the stats bar');
      const note = await page.textContent('#st-mver-note');
      assert(note === `measured with the ${RULES[other]} rule (version ${other})`, 'note: ' + note);
      const title = await page.getAttribute('#st-mver-note', 'title');
      assert(title.includes(`the ${RULES[current]} rule (version ${current})`), 'the site\'s rule named: ' + title);
      assert(await page.isVisible('#remeasure'), 'Re-measure offered');
      await shot(`ws-measurement-rule-v${other}-on-v${current}`);
      await page.click('#remeasure');
      await page.waitForFunction((v) => window.fishscale.store.set.measurement_version === v && !window.fishscale.store.busy, current);
      await page.waitForFunction(() => document.querySelector('#remeasure').hidden && document.querySelector('#st-mver-note').hidden);
      assert(await page.textContent('#st-mver') === `v${current}`, 'the site\'s version after Re-measure');
      await page.click('[data-tab=edit]');
      await page.click('#undo');
      await page.waitForFunction((v) => window.fishscale.store.set.measurement_version === v && !window.fishscale.store.busy, other);
      await page.waitForFunction(() => !document.querySelector('#st-mver-note').hidden);
      assert(await page.isVisible('#remeasure'), 'Re-measure offered again after the undo');
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The Extraction tab says which rule its extractions measure with (the
// site's), the extraction's toast which rule measured the set it made, the
// stats bar the set's version as the site's own, and the Data tab's
// statistics the rule ("Measured with"). Under either rule:
// the expectation is read from the set the server sends, and must agree
// with the version the extraction stored.
export async function testTheExtractionTabSaysWhichRuleMeasures(t) {
  await withImage(t, IMG, async ({ page, shot }) => {
    await page.waitForFunction(() => window.fishscale.store.set && window.fishscale.store.set.current_measurement_version);
    const current = await page.evaluate(() => window.fishscale.store.set.current_measurement_version);
    assert(current === 1 || current === 2, 'the site measures with version 1 or 2: ' + current);
    const name = `the ${RULES[current]} rule (version ${current})`;
    await page.click('[data-tab=extraction]');
    assert(await page.isVisible('#extract-rule'), 'the rule is said on the Extraction tab');
    const said = await page.textContent('#extract-rule-name');
    assert(said === name, 'the Extraction tab names the site\'s rule: ' + said);
    await page.click('#extract-all');
    await waitCount(page, 'gt', 10, 60000);
    await page.waitForFunction((n) => document.querySelector('#toasts').textContent.includes(`connections, measured with ${n}`), name);
    const stored = await page.evaluate(() => window.fishscale.store.set.measurement_version);
    assert(stored === current, `the extraction stored version ${stored}, the site measures with ${current}`);
    assert(await page.textContent('#st-mver') === `v${current}`, 'the stats bar shows the set\'s version');
    const title = await page.getAttribute('#st-mver', 'title');
    assert(title === `Measured with ${name}, this server's measurement`, 'stats bar title: ' + title);
    assert(await page.isHidden('#st-mver-note') && await page.isHidden('#remeasure'), 'no Re-measure for a set of the site\'s rule');
    await shot(`ws-extraction-rule-v${current}`);
    // the Data tab's statistics say it too
    await page.click('[data-tab=data]');
    await page.waitForFunction((n) => [...document.querySelectorAll('#stats-table tr')].some(
      (tr) => tr.cells[0].textContent === 'Measured with' && tr.cells[1].textContent === n), name);
  });
}
