// The Calibration tab's suggestion from the SEM data bar: the real JEOL
// image of the fixtures is read after its upload (in the background); the
// tab then shows "20 µm = 139.0 px" with its confidence and the
// magnification, the detected data bar is drawn over the image, and one
// click applies it. A paper figure says it has no data bar.
import { assert, login, PAPER, uploadThroughLibrary, withCleanup, withImage } from './helpers.mjs';

const SEM = 'tests/fixtures/sem/M_kelleri_HLMD-Me_15576_ventral_detail.tif';

export async function testCalibrationTabSuggestsTheDataBarAndAppliesItInOneClick(t) {
  await withImage(t, SEM, async ({ page, shot }) => {
    await page.click('[data-tab=calibration]');
    await page.waitForSelector('#cal-databar:not([hidden])', { timeout: 120000 });
    const src = await page.textContent('#cal-databar-source');
    assert(src === 'scale bar 20 µm = 139.0 px', 'the source names the bar: ' + src);
    const value = parseFloat(await page.textContent('#cal-databar-value'));
    assert(Math.abs(value - 0.1439) <= 0.001, 'suggested 0.1439 µm/px, got ' + value);
    assert(/×700/.test(await page.textContent('#cal-databar-extra')), 'the magnification as read');
    assert(await page.isHidden('#cal-databar-flags'), 'no flag on the real image');
    // the detected data bar is drawn over the image while the tab is open
    const hl = await page.evaluate(() => window.fishscale.store.temp.databar);
    assert(hl && hl.rect.y >= 840 && hl.line && Math.abs(hl.line.x1 - hl.line.x0 - 139) <= 1, 'highlight ' + JSON.stringify(hl));
    await shot('databar-calibration-tab');
    assert((await page.textContent('#cal-value')) === 'Not set', 'suggested, not applied');
    await page.click('#cal-use-databar');
    await page.waitForFunction(() => Math.abs(parseFloat(document.querySelector('#cal-value').textContent) - 0.1438) < 0.001);
    assert((await page.textContent('#cal-method')) === 'Data bar', 'the badge says where it came from');
    // leaving the tab removes the highlight
    await page.click('[data-tab=image]');
    await page.waitForFunction(() => !window.fishscale.store.temp.databar);
  });
}

export async function testPaperFigureHasNoDataBar(t) {
  await withImage(t, PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif', async ({ page }) => {
    await page.click('[data-tab=calibration]');
    await page.waitForFunction(() => /No SEM data bar/.test(document.querySelector('#cal-databar-status').textContent), null, { timeout: 120000 });
    assert(await page.isHidden('#cal-databar'), 'no suggestion');
    assert(!(await page.evaluate(() => window.fishscale.store.temp.databar)), 'nothing drawn');
  });
}

export async function testSettingCalibratesNewUploadsFromTheirDataBar(t) {
  await withCleanup(t, async () => {
    const { page, server } = t;
    await login(page, server);
    // the setting is in the Settings tab of a workspace: open one on a paper figure first
    await uploadThroughLibrary(page, server, PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif');
    await page.click('[data-tab=settings]');
    const box = '#s-auto_calibrate_data_bar';
    assert(!(await page.isChecked(box)), 'off by default');
    await page.check(box);
    await page.waitForFunction(() => window.fishscale && document.querySelector('#settings-status').textContent === 'Saved.');
    try {
      await page.goto(server.url);
      await uploadThroughLibrary(page, server, SEM);
      // read in the background, then applied by itself: the tab follows without a reload
      await page.waitForFunction(() => document.querySelector('#cal-method').textContent === 'Data bar', null, { timeout: 120000 });
      const v = parseFloat(await page.textContent('#cal-value'));
      assert(Math.abs(v - 0.1439) <= 0.001, 'applied 0.1439 µm/px, got ' + v);
    } finally {
      await page.evaluate(async () => {
        const base = document.body.dataset.base, csrf = document.body.dataset.csrf;
        await fetch(base + 'api/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: JSON.stringify({ settings: { auto_calibrate_data_bar: null } }) });
      });
    }
  });
}

// The workspace asks for the image while its settings load: when the image
// comes first, its 'image' event fires before the Image tab listens. The tab
// must still show the image and look at its calibration (a clean-clone make
// test once waited 120 s for the data bar's calibration that the page never
// looked for). Here the settings are held until the image has been answered.
export async function testImageTabRendersWhenTheImageComesBeforeTheSettings(t) {
  await withImage(t, PAPER + 'P1_Fig2_Polypterus_bichir_2.63um.tif', async ({ page }) => {
    let imageAnswered;
    const imageSeen = new Promise((resolve) => { imageAnswered = resolve; });
    page.on('response', (r) => { if (/\/api\/images\/\d+$/.test(new URL(r.url()).pathname)) imageAnswered(); });
    await page.route('**/api/settings', async (route) => { await imageSeen; await route.continue(); });
    await page.reload();
    await page.waitForFunction(() => document.querySelector('#image-info').textContent.includes('×'), null, { timeout: 30000 });
    await page.unroute('**/api/settings');
  });
}
