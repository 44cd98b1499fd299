// Image steps and undo that respects whose step it is: a crop whose dialog
// says what will happen, that leaves the set saved, and that the Image
// tab's history undoes exactly; Ctrl+Z taking back the user's own step
// while another user's newer one stays, which the Data tab's step list
// then undoes explicitly, naming its author.
import { addUser, assert, dragImage, login, openAsMember, PAPER, uploadThroughLibrary, waitCount, withCleanup, withImage } from './helpers.mjs';

const TIF = PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif';

const snapshot = (page) => page.evaluate(() => {
  const s = window.fishscale.store;
  return JSON.stringify([...s.tubercles.values()].map(t => [t.id, t.centroid_x, t.centroid_y, t.radius_px]).sort((a, b) => a[0] - b[0]));
});

export async function testCropSaysWhatHappensAndTheImageHistoryUndoesIt(t) {
  await withImage(t, TIF, async ({ page, shot }) => {
    const size0 = await page.evaluate(() => [window.fishscale.store.width, window.fishscale.store.height]);
    await page.evaluate(async () => {
      const s = window.fishscale.store;
      await s.change('POST', 'tubercles', { x: 30.25, y: 40.5, radius_px: 6 });
      await s.change('POST', 'tubercles', { x: 150, y: 120, radius_px: 7 });
      await s.change('POST', 'save', {});
    });
    await page.waitForFunction(() => window.fishscale.store.set && !window.fishscale.store.set.dirty && window.fishscale.store.tubercles.size === 2);
    const before = await snapshot(page);
    await page.click('[data-tab=image]');
    assert(await page.isDisabled('#image-undo') && await page.isDisabled('#image-reset'), 'nothing to undo on a fresh image');
    await page.click('#crop-start');
    await dragImage(page, 100, 80, 300, 260);
    await page.click('#crop-apply');
    await page.waitForSelector('#modal[open]');
    const text = await page.textContent('#modal-body');
    assert(/1 of the 2 tubercles/.test(text) && /hidden/.test(text) && /not deleted/.test(text) && /Image history/.test(text), 'the dialog says what happens: ' + text);
    await shot('transforms-crop-dialog');
    await page.click('#modal-buttons button.primary');
    await page.waitForFunction(([w]) => window.fishscale.store.width < w && !window.fishscale.store.busy && window.fishscale.store.tubercles.size === 1, size0);
    // an image step: the set stays saved
    assert(!(await page.evaluate(() => window.fishscale.store.set.dirty)), 'the crop leaves the set saved');
    assert(await page.isHidden('#dirty-badge'), 'no Unsaved badge');
    await page.waitForSelector('#image-steps li');
    const label = await page.textContent('#image-steps li');
    assert(/crop \d+,\d+ \d+×\d+/.test(label), 'history names the crop: ' + label);
    await shot('transforms-cropped');
    // the image's history undoes it: the image and the hidden tubercle return exactly
    await page.click('#image-undo');
    await page.waitForFunction(([w, h]) => window.fishscale.store.width === w && window.fishscale.store.height === h && window.fishscale.store.tubercles.size === 2 && !window.fishscale.store.busy, size0);
    assert(await snapshot(page) === before, 'every tubercle back where it was');
    await page.waitForFunction(() => !document.querySelector('#image-steps li'));
    assert(await page.isDisabled('#image-undo'), 'nothing left to undo');
    assert(!(await page.evaluate(() => window.fishscale.store.set.dirty)), 'still saved');
  });
}

export async function testCtrlZUndoesOnlyMyOwnSteps(t) {
  await withCleanup(t, async ({ page, server, browser, shot }) => {
    await login(page, server);
    await uploadThroughLibrary(page, server, TIF);
    const wsUrl = page.url();
    const pw = addUser(server, 'dora');
    const { ctx: ctx2, page: p2 } = await openAsMember(browser, server, 'dora', pw, wsUrl);
    try {
      // my step, then Dora's newer one
      await page.evaluate(() => window.fishscale.store.change('POST', 'tubercles', { x: 40, y: 40, radius_px: 6 }));
      await waitCount(page, 'eq', 1);
      await p2.waitForFunction(() => window.fishscale.store.tubercles.size === 1);
      await p2.evaluate(() => window.fishscale.store.change('POST', 'tubercles', { x: 120, y: 90, radius_px: 6 }));
      await page.waitForFunction(() => window.fishscale.store.tubercles.size === 2 && !window.fishscale.store.busy);
      // Ctrl+Z takes back mine; Dora's stays
      await page.focus('#viewer');
      await page.keyboard.press('Control+z');
      await page.waitForFunction(() => window.fishscale.store.tubercles.size === 1 && !window.fishscale.store.busy);
      const left = await page.evaluate(() => [...window.fishscale.store.tubercles.values()].map(t => [t.centroid_x, t.centroid_y]));
      assert(JSON.stringify(left) === '[[120,90]]', "Dora's tubercle stays: " + JSON.stringify(left));
      // Dora's step is undone only from the step list, which names her
      await page.click('[data-tab=data]');
      const row = page.locator('#steps-list li').filter({ hasText: 'DORA' }).first();
      await row.waitFor();
      assert((await row.textContent()).includes('Added tubercle'), 'her step is listed: ' + await row.textContent());
      await shot('transforms-steps-list');
      await row.locator('.step-undo').click();
      // someone else's step: undone only when asked explicitly, naming them
      await page.waitForSelector('#modal[open]');
      assert((await page.textContent('#modal-body')).includes('DORA'), 'the author is named');
      await page.click('#modal-buttons button.primary');
      await page.waitForFunction(() => window.fishscale.store.tubercles.size === 0 && !window.fishscale.store.busy);
    } finally {
      await ctx2.close();
    }
  });
}
