// The library's surprises (issue 17): a multi-file drop uploads every file,
// each with its own progress and result; Sort and Order apply as soon as
// they change; after a delete the count and Recent follow the list.
import { readFileSync } from 'node:fs';
import { assert, login, PAPER, withCleanup } from './helpers.mjs';

const FILES = ['P2_Fig1e_Polypterus_delhezi_2.19um.tif', 'P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif', 'P1_Fig3_Lepisosteus_osseus_3.79um.tif'];

export async function testMultiFileDropSortOnChangeAndCountsAfterDelete(t) {
  await withCleanup(t, async ({ page, server, shot }) => {
    await login(page, server);
    // the batch's new-set name shows only when a new set is chosen
    assert(await page.isHidden('#batch-new-set-label'), 'hidden for the Base set');
    await page.selectOption('#batch-target', 'new');
    assert(await page.isVisible('#batch-new-set-label'), 'shown for a new set');
    await page.selectOption('#batch-target', 'base');
    // three images and a text file in one drop
    const payload = FILES.map(f => [f.replace('.tif', '_drop.tif'), readFileSync(PAPER + f).toString('base64')]);
    payload.push(['notes.txt', Buffer.from('hello').toString('base64')]);
    const dt = await page.evaluateHandle((files) => {
      const d = new DataTransfer();
      for (const [name, b64] of files) d.items.add(new File([Uint8Array.from(atob(b64), c => c.charCodeAt(0))], name));
      return d;
    }, payload);
    await page.dispatchEvent('#dropzone', 'drop', { dataTransfer: dt });
    await page.waitForSelector('#upload-list li');
    assert(await page.locator('#upload-list li progress').count() === 4, 'a progress bar per file');
    await page.waitForFunction(() => /3 of 4 image\(s\) added, 1 refused/.test(document.querySelector('#upload-status').textContent), null, { timeout: 60000 });
    assert(await page.locator('#upload-list li.done').count() === 3 && await page.locator('#upload-list li.failed').count() === 1, 'each file says how it went');
    assert(/not a TIFF/.test(await page.textContent('#upload-list li.failed')), 'the refusal explained');
    // the list below shows them without a reload
    await page.waitForFunction(() => [...document.querySelectorAll('#library-images .name')].filter(n => n.textContent.endsWith('_drop.tif')).length === 3);
    await shot('library-multi-upload');
    assert(page.url() === server.url, 'stayed on the library');

    // Sort and Order apply on change
    await Promise.all([page.waitForURL(/sort=name/), page.selectOption('select[name=sort]', 'name')]);
    await Promise.all([page.waitForURL(/order=asc/), page.selectOption('select[name=order]', 'asc')]);
    const names = await page.locator('#library-images .name').allTextContents();
    assert(names.join() === [...names].sort((a, b) => a.localeCompare(b)).join(), 'sorted by name, ascending: ' + names);

    // delete one: the count and Recent follow
    await page.waitForSelector('#recent-list li');
    const total = Number(await page.textContent('#library-total'));
    const li = page.locator('#library-images li.image').first();
    const id = await li.getAttribute('data-id');
    assert(await page.locator(`#recent-list a[data-id="${id}"]`).count() === 1, 'in Recent before');
    await li.locator('.delete-image').click();
    await page.waitForSelector('#modal[open]');
    await page.click('#modal-buttons button.danger');
    await page.waitForFunction((i) => !document.querySelector(`#library-images li.image[data-id="${i}"]`), id);
    assert(Number(await page.textContent('#library-total')) === total - 1, 'the count follows');
    assert(await page.locator(`#recent-list a[data-id="${id}"]`).count() === 0, 'gone from Recent');
  });
}
