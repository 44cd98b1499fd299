// The library page: upload with the file picker and by drag-and-drop, the
// list (thumbnail, owner, visibility), search, recent images, refused
// uploads explained, delete through the modal confirmation.
import { assert, login, PAPER, uploadThroughLibrary, withCleanup } from './helpers.mjs';
import { readFileSync } from 'node:fs';

export async function testUploadListSearchDelete(t) {
  await withCleanup(t, testUploadListSearchDeleteBody);
}

async function testUploadListSearchDeleteBody({ page, server, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  await page.goto(server.url);
  // drag-and-drop a second file onto the drop zone
  const bytes = readFileSync(PAPER + 'P2_Fig1c_Paralepidosteus_sp_Acre_5.73um.tif').toString('base64');
  const dt = await page.evaluateHandle((b64) => {
    const bin = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
    const d = new DataTransfer();
    d.items.add(new File([bin], 'dropped.tif', { type: 'image/tiff' }));
    return d;
  }, bytes);
  await Promise.all([page.waitForURL(/\/workspace\/\d+$/), page.dispatchEvent('#dropzone', 'drop', { dataTransfer: dt })]);
  await page.goto(server.url);
  await page.waitForSelector('#recent-list li');
  const names = await page.locator('#library-images .name').allTextContents();
  assert(names.includes('dropped.tif') && names.some(n => n.startsWith('P2_Fig1e')), 'both listed: ' + names);
  // other tests' images may share the admin's library: check these two
  for (const n of ['dropped.tif', 'P2_Fig1e']) {
    const item = page.locator('#library-images li.image', { hasText: n });
    assert(await item.locator('img').count() === 1, 'thumbnail of ' + n);
  }
  const recent = await page.locator('#recent-list a').allTextContents();
  assert(recent[0] === 'dropped.tif', 'recent images, newest first: ' + recent);
  await shot('library-list');

  await page.fill('input[name=q]', 'dropped');
  await page.click('#library-search button[type=submit]');
  await page.waitForURL(/q=dropped/);
  assert((await page.locator('#library-images .name').allTextContents()).join() === 'dropped.tif', 'search filters');

  // clicking an image opens its workspace
  await Promise.all([page.waitForURL(/\/workspace\/\d+$/), page.click('#library-images li.image .open')]);
  await page.goto(server.url);

  // a refused upload is explained, nothing navigates
  await page.setInputFiles('#upload-input', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
  await page.waitForSelector('.toast-error');
  assert((await page.textContent('#upload-status')).includes('not a TIFF'), 'refusal shown');
  await page.setInputFiles('#upload-input', { name: 'fake.png', mimeType: 'image/png', buffer: Buffer.from('not a png at all') });
  await page.waitForFunction(() => /fake\.png: /.test(document.querySelector('#upload-status').textContent));

  // delete with the modal
  const before = await page.locator('#library-images li.image').count();
  await page.click('#library-images li.image >> nth=0 >> .delete-image');
  await page.waitForSelector('#modal[open]');
  await shot('library-delete-modal');
  await page.click('#modal-buttons button.danger');
  await page.waitForFunction((n) => document.querySelectorAll('#library-images li.image').length === n - 1, before);
  await page.reload();
  assert(await page.locator('#library-images li.image').count() === before - 1, 'deleted on the server');
}

export async function testVisibilityToggle(t) {
  await withCleanup(t, testVisibilityToggleBody);
}

async function testVisibilityToggleBody({ page, server }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  await page.goto(server.url);
  await page.click('.toggle-visibility');
  await page.waitForFunction(() => document.querySelector('.visibility').textContent === 'private');
  await page.reload();
  assert((await page.textContent('.visibility')) === 'private', 'stored');
}
