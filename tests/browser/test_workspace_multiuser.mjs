// Two users on one set: the second sees the first one's saved change within
// two seconds (revision polling), and a stale edit gets a clear conflict
// dialog that keeps the user's change in a new set; a poll answered before
// the user's own edit landed is not taken for someone else's. Plus an XSS
// probe.
import { addUser, assert, login, openAsMember, PAPER, uploadThroughLibrary, wsState, clickImage, waitCount, waitWorkspaceReady, withCleanup } from './helpers.mjs';

export async function testSecondUserSeesChangeAndGetsConflict(t) {
  await withCleanup(t, testSecondUserSeesChangeAndGetsConflictBody);
}

async function testSecondUserSeesChangeAndGetsConflictBody({ page, server, browser, shot }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  const wsUrl = page.url();
  const pw = addUser(server, 'bruno');
  const errors = [];
  const { ctx: ctx2, page: p2 } = await openAsMember(browser, server, 'bruno', pw, wsUrl, errors);
  try {
    // user 1 adds and saves; user 2 sees it within 2 s
    await page.click('[data-tab=edit]');
    await page.click('[data-mode=add_tub]');
    await clickImage(page, 40, 40);
    await waitCount(page, 'eq', 1);
    await page.click('#set-save');
    await page.waitForFunction(() => !window.fishscale.store.set.dirty);
    const t0 = Date.now();
    await p2.waitForFunction(() => window.fishscale.store.tubercles.size === 1, null, { timeout: 2500 });
    assert(Date.now() - t0 < 2500, 'noticed within 2 s');
    await shot('multi-second-user-sees');

    // user 2 stops polling (as if in the middle of a stale view); user 1 edits
    await p2.evaluate(() => window.fishscale.store.stopPolling());
    await clickImage(page, 80, 80);
    await waitCount(page, 'eq', 2);
    // user 2's edit is now based on an old revision: 409 -> dialog
    await p2.click('[data-tab=edit]');
    await p2.click('[data-mode=add_tub]');
    await clickImage(p2, 120, 60);
    await p2.waitForSelector('#conflict-fork');
    const text = await p2.textContent('#modal-body');
    assert(/changed/.test(text) && /not applied/.test(text), 'conflict explained: ' + text);
    await p2.screenshot({ path: server.shotDir ? server.shotDir + '/conflict.png' : 'tests/out/browser/multi-conflict.png' });
    await p2.click('#conflict-fork');
    await p2.waitForFunction(() => window.fishscale.store.set.name.includes('(mine)') && window.fishscale.store.tubercles.size === 3 && !window.fishscale.store.busy);
    const st2 = await wsState(p2);
    assert(st2.sets.length === 2, 'their version kept in a new set: ' + st2.sets);
    // user 1's set is untouched by user 2's change
    const st1 = await wsState(page);
    assert(st1.n === 2, 'the original set keeps user 1 version');
    assert(!errors.length, 'no page errors for user 2: ' + errors.join('; '));
  } finally {
    await ctx2.close();
  }
}

export async function testXssProbeStaysInert(t) {
  await withCleanup(t, testXssProbeStaysInertBody);
}

async function testXssProbeStaysInertBody({ page, server }) {
  let dialogs = 0;
  page.on('dialog', d => { dialogs++; d.dismiss(); });
  await login(page, server);
  await page.goto(server.url);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAAAAACPAi4CAAAAcklEQVR4nGNgYOHgERCRkFFQ0dAxMLGwcXDx8AkIiYhJSMnIKSipqGlo6eiZMGXGnAVLVqzZsGXHngNHTpy5cOXGnQdPXrz58OXHH4ZRA0YNGDVg1IBRA0YNGDVg1IBRA0YNGDVg1IBRA0YNGDVguBsAAHs24GoF0r8MAAAAAElFTkSuQmCC', 'base64');
  const evil = '<script>alert(2)<script><img src=x onerror=alert(1)>.png'; // no '/': names are cut there
  await page.setInputFiles('#upload-input', { name: evil, mimeType: 'image/png', buffer: png });
  await page.waitForURL(/\/workspace\/\d+$/);
  await waitWorkspaceReady(page);
  assert((await page.textContent('#file-name')) === evil, 'file name shown as text');
  await page.click('#set-menu summary');
  await page.click('#set-rename');
  // set names may not hold < > (server rule): the refusal is shown as text
  await page.fill('#modal-input', '<b onmouseover=alert(3)>x');
  await page.click('#modal-ok');
  await page.waitForSelector('.toast-error');
  assert((await page.textContent('.toast-error')).includes('set name'), 'refusal explained');
  await page.click('[data-tab=data]');
  await page.click('[data-tab=log]');
  await page.waitForSelector('#log-table tbody tr');
  await page.goto(server.url);
  assert((await page.textContent('#library-images .name')).includes('<script>'), 'library shows the name as text');
  assert(await page.locator('img[src=x]').count() === 0 && await page.locator('b[onmouseover]').count() === 0, 'no injected elements');
  assert(dialogs === 0, 'no script ran');
}

export async function testOwnEditDuringAPollIsNotReportedAsRemote(t) {
  await withCleanup(t, ownEditDuringPollBody);
}

async function ownEditDuringPollBody({ page, server }) {
  await login(page, server);
  await uploadThroughLibrary(page, server, PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif');
  await page.evaluate(() => { window.remoteEvents = 0; window.fishscale.store.addEventListener('remote', () => window.remoteEvents++); });
  await page.click('[data-tab=edit]');
  await page.click('[data-mode=add_tub]');
  // the next revision poll reaches the server now, but its answer is held
  // until the edit below has landed: it is then one revision behind
  const held = [];
  let asked = false;
  await page.route(/\/api\/sets\/\d+\/revision$/, async (route) => {
    if (asked) return route.continue();
    asked = true;
    const answer = await route.fetch();
    held.push(() => route.fulfill({ response: answer }));
  });
  await page.waitForFunction(() => window.fishscale.store.polling);
  while (!held.length) await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  const rev0 = (await wsState(page)).rev;
  await clickImage(page, 40, 40);
  await waitCount(page, 'eq', 1);
  const rev1 = (await wsState(page)).rev;
  assert(rev1 === rev0 + 1, `one revision per edit: ${rev0} -> ${rev1}`);
  for (const release of held) await release();
  await page.unroute(/\/api\/sets\/\d+\/revision$/);
  await page.waitForFunction(() => !window.fishscale.store.polling);
  const after = await page.evaluate(() => ({ remote: window.remoteEvents, n: window.fishscale.store.tubercles.size, rev: window.fishscale.store.revision }));
  assert(after.remote === 0, `own edit reported as a change made elsewhere (${after.remote} time(s))`);
  assert(after.n === 1 && after.rev === rev1, 'the edit stays on screen: ' + JSON.stringify(after));
}
