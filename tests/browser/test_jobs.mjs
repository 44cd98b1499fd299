// Background jobs in the browser: extracting an image over sync_max_pixels
// shows a progress bar that follows the job to its end, after which the set
// holds the result; Cancel stops it and leaves the set as it was; Re-measure
// of such an image's set shows its job's progress in the stats bar and the
// re-measured diameters when done, one step that Undo takes back. Jobs are
// held at their detecting stage by the data directory's hold file (see
// cgi/main_job.c), so nothing depends on how long a detection takes.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, startServer } from './server.mjs';
import { assert, importAnnotationSet, PAPER, uploadThroughLibrary, waitCount, withCleanup, login } from './helpers.mjs';

let site = null;
process.on('exit', () => { if (site) site.stop(); });
async function server() {
  if (!site) {
    site = await startServer({ FISHSCALE_SYNC_MAX_PIXELS: '50000' });
    mkdirSync(path.join(site.data, 'jobs'), { recursive: true });
  }
  return site;
}
const hold = (s) => writeFileSync(path.join(s.data, 'jobs', 'hold'), '');
const release = (s) => rmSync(path.join(s.data, 'jobs', 'hold'), { force: true });

async function openLarge(t) {
  const s = await server();
  t.server = s;
  await login(t.page, s);
  await uploadThroughLibrary(t.page, s, path.join(ROOT, PAPER, 'P1_Fig2_Polypterus_bichir_2.63um.tif'));
  await t.page.click('text="Extraction"');
  return s;
}

export async function testLargeExtractionFollowsTheJobToItsEnd(t) {
  await withCleanup(t, async () => {
    const s = await openLarge(t);
    hold(s);
    try {
      await t.page.click('#extract-all');
      await t.page.waitForSelector('#extract-job:not([hidden])');
      await t.page.waitForFunction(() => /detecting/.test(document.querySelector('#extract-job-text').textContent));
      assert(await t.page.isDisabled('#extract-all'), 'Extract is disabled while the job runs');
      const n = await t.page.evaluate(() => window.fishscale.store.tubercles.size);
      assert(n === 0, 'nothing in the set before the job is done');
    } finally {
      release(s);
    }
    await waitCount(t.page, 'gt', 20, 30000);
    await t.page.waitForSelector('#extract-job', { state: 'hidden' });
    assert(!(await t.page.isDisabled('#extract-all')), 'Extract enabled again');
  });
}

// A reload, or the workspace opened in another tab, while the extraction
// job runs: the page finds the job (GET api/jobs?image_id=&set_id=) and
// shows its progress bar, stage and Cancel again, keeps Extract disabled,
// and shows the result when the job is done.
export async function testAReloadFindsTheRunningExtraction(t) {
  await withCleanup(t, async () => {
    const s = await openLarge(t);
    let other = null;
    hold(s);
    try {
      await t.page.click('#extract-all');
      await t.page.waitForFunction(() => /detecting/.test(document.querySelector('#extract-job-text').textContent));
      await t.page.reload();
      await t.page.click('text="Extraction"');
      await t.page.waitForSelector('#extract-job:not([hidden])');
      await t.page.waitForFunction(() => /Background extraction: running \(detecting\)/.test(document.querySelector('#extract-job-text').textContent));
      assert(await t.page.isDisabled('#extract-all'), 'Extract is disabled while the job found on reload runs');
      other = await t.context.newPage();
      await other.goto(t.page.url());
      await other.click('text="Extraction"');
      await other.waitForSelector('#extract-job:not([hidden])');
      const n = await t.page.evaluate(() => window.fishscale.store.tubercles.size);
      assert(n === 0, 'nothing in the set before the job is done');
    } finally {
      release(s);
    }
    for (const page of [t.page, other]) {
      await waitCount(page, 'gt', 20, 30000);
      await page.waitForSelector('#extract-job', { state: 'hidden' });
      await page.waitForFunction(() => /Extracted \d+ tubercles/.test(document.querySelector('#toasts').textContent));
      assert(!(await page.isDisabled('#extract-all')), 'Extract enabled again');
    }
    await other.close();
  });
}

export async function testCancelLeavesTheSetEmpty(t) {
  await withCleanup(t, async () => {
    const s = await openLarge(t);
    hold(s);
    try {
      await t.page.click('#extract-all');
      await t.page.waitForFunction(() => /detecting/.test(document.querySelector('#extract-job-text').textContent));
      await t.page.click('#extract-job-cancel');
      await t.page.waitForSelector('#extract-job', { state: 'hidden', timeout: 15000 });
    } finally {
      release(s);
    }
    const n = await t.page.evaluate(() => window.fishscale.store.tubercles.size);
    assert(n === 0, `the set stays empty after a cancel (${n})`);
    const toast = await t.page.textContent('#toasts');
    assert(/cancelled/i.test(toast), 'a toast says it was cancelled: ' + toast);
  });
}

// A rotation of a large image (a background job) found again after a
// reload: the Image tab shows its progress and Cancel again, and the image
// as rotated when the job is done.
export async function testAReloadFindsTheRunningRotation(t) {
  await withCleanup(t, async () => {
    const s = await openLarge(t);
    const size = () => t.page.evaluate(() => [window.fishscale.store.width, window.fishscale.store.height]);
    const [w, h] = await size();
    await t.page.click('[data-tab=image]');
    hold(s);
    try {
      await t.page.click('#rotate-right');
      await t.page.waitForFunction(() => /transforming/.test(document.querySelector('#image-job-text').textContent));
      await t.page.reload();
      await t.page.click('[data-tab=image]');
      await t.page.waitForSelector('#image-job:not([hidden])');
      await t.page.waitForFunction(() => /Rotate right \(large image, in the background\): running \(transforming\)/.test(document.querySelector('#image-job-text').textContent));
      assert(await t.page.isVisible('#image-job-cancel'), 'Cancel shown again after the reload');
    } finally {
      release(s);
    }
    await t.page.waitForSelector('#image-job', { state: 'hidden', timeout: 30000 });
    await t.page.waitForFunction(([w, h]) => window.fishscale.store.width === h && window.fishscale.store.height === w, [w, h]);
    await t.page.waitForFunction(() => /Rotate right: done/.test(document.querySelector('#toasts').textContent));
  });
}

// A checkerboard PNG made in the page (no file on disk needed).
async function uploadGenerated(page, name, w, h) {
  return page.evaluate(async ({ name, w, h }) => {
    const c = document.createElement('canvas');
    c.width = w; c.height = h;
    const g = c.getContext('2d');
    g.fillStyle = '#222'; g.fillRect(0, 0, w, h);
    g.fillStyle = '#ddd';
    for (let y = 8; y < h; y += 24) for (let x = 8 + ((y / 24) % 2) * 12; x < w; x += 24) { g.beginPath(); g.arc(x, y, 6, 0, 7); g.fill(); }
    const blob = await new Promise(r => c.toBlob(r, 'image/png'));
    const fd = new FormData();
    fd.append('file', blob, name);
    const r = await fetch(document.body.dataset.base + 'api/images', { method: 'POST', headers: { 'X-CSRF-Token': document.body.dataset.csrf }, body: fd });
    return (await r.json()).image.id;
  }, { name, w, h });
}

export async function testBatchFromTheLibrarySurvivesAReload(t) {
  await withCleanup(t, async () => {
    const s = await server();
    t.server = s;
    await login(t.page, s);
    hold(s);
    try {
      const a = await uploadGenerated(t.page, 'batch-a.png', 240, 200);
      const b = await uploadGenerated(t.page, 'batch-b.png', 260, 220);
      await t.page.reload();
      await t.page.check(`.select-image[data-id="${a}"]`);
      await t.page.check(`.select-image[data-id="${b}"]`);
      assert((await t.page.textContent('#batch-selected')) === '2 ticked', 'two ticked');
      await t.page.selectOption('#batch-target', 'new');
      await t.page.fill('#batch-new-set', 'auto');
      await t.page.click('#batch-start');
      await t.page.waitForSelector('.batch li[data-state="running"]');
      // one job at a time per user: the other waits
      assert(await t.page.$('.batch li[data-state="queued"]'), 'the second image waits its turn');
      await t.page.reload();
      await t.page.waitForSelector('.batch li[data-state="running"]');
    } finally {
      release(s);
    }
    await t.page.waitForFunction(() => /2 of 2 done/.test(document.querySelector('.batch h3')?.textContent || ''), null, { timeout: 30000 });
    const sets = await t.page.evaluate(async () => {
      const base = document.body.dataset.base;
      const out = [];
      for (const li of document.querySelectorAll('.batch li a')) {
        const id = li.getAttribute('href').split('/').pop();
        out.push((await (await fetch(base + `api/images/${id}/sets`)).json()).sets.map(s => [s.name, s.n_tubercles]));
      }
      return out;
    });
    for (const list of sets) {
      const auto = list.find(([n]) => n === 'auto');
      assert(auto && auto[1] > 0, 'each image has a set "auto" with tubercles: ' + JSON.stringify(list));
    }
  });
}

// Re-measure of a set on an image over sync_max_pixels: a job whose progress
// shows beside the button (again after a reload mid-job); the diameters
// change when it is done, centres kept, and one Undo brings the old ones
// back.
export async function testRemeasureOfALargeImageFollowsItsJob(t) {
  await withCleanup(t, async () => {
    const s = await server();
    t.server = s;
    const page = t.page;
    await login(page, s);
    await uploadThroughLibrary(page, s, path.join(ROOT, PAPER, 'P1_Fig2_Polypterus_bichir_2.63um.tif'));
    // a set measured before versioning (an import that does not say)
    await importAnnotationSet(page, 'Old measurement',
      [{ id: 1, centroid_x: 200, centroid_y: 200, radius_px: 5 }, { id: 2, centroid_x: 260, centroid_y: 200, radius_px: 5 },
        { id: 3, centroid_x: 230, centroid_y: 250, radius_px: 5 }],
      [{ id1: 1, id2: 2 }, { id1: 2, id2: 3 }]);
    const tubs = () => page.evaluate(() => [...window.fishscale.store.tubercles.values()]
      .map(x => [x.id, x.centroid_x, x.centroid_y, x.radius_px]).sort((a, b) => a[0] - b[0]));
    const before = await tubs();
    hold(s);
    try {
      await page.click('#remeasure');
      await page.waitForSelector('#remeasure-job:not([hidden])');
      await page.waitForFunction(() => /Re-measuring: running \(measuring\)/.test(document.querySelector('#remeasure-job-text').textContent));
      assert(await page.isDisabled('#remeasure'), 'Re-measure is disabled while its job runs');
      assert(JSON.stringify(await tubs()) === JSON.stringify(before), 'nothing changes before the job is done');
      // reloaded mid-job (on this set: a reload opens the image's first
      // set): the page finds the job and follows it again
      const sid = await page.evaluate(() => window.fishscale.store.set.id);
      await page.goto(page.url().replace(/[?#].*$/, '') + `?set=${sid}`);
      await page.waitForFunction(() => /Re-measuring: running \(measuring\)/.test(document.querySelector('#remeasure-job-text').textContent));
      assert(await page.isVisible('#remeasure-job-cancel'), 'Cancel shown again after the reload');
      assert(await page.isDisabled('#remeasure'), 'Re-measure is disabled while the job found on reload runs');
    } finally {
      release(s);
    }
    await page.waitForFunction(() => window.fishscale.store.set.measurement_version >= 1 && !window.fishscale.store.busy, null, { timeout: 30000 });
    await page.waitForSelector('#remeasure-job', { state: 'hidden' });
    const after = await tubs();
    assert(JSON.stringify(after.map(x => x.slice(0, 3))) === JSON.stringify(before.map(x => x.slice(0, 3))), 'centres and ids kept');
    assert(after.some((x, i) => x[3] !== before[i][3]), 'diameters measured again: ' + JSON.stringify(after));
    assert(/Re-measured: \d+ of 3 diameters changed/.test(await page.textContent('#toasts')), 'a toast says what changed');
    await page.click('[data-tab=edit]');
    await page.click('#undo');
    await page.waitForFunction(() => window.fishscale.store.set.measurement_version === 0 && !window.fishscale.store.busy);
    assert(JSON.stringify(await tubs()) === JSON.stringify(before), 'one undo restores the diameters');
  });
}
