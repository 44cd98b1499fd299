// Small helpers shared by the browser tests.
export function assert(cond, msg) {
  if (!cond) throw new Error('assertion failed: ' + msg);
}

export async function login(page, server, login = server.admin.login, password = server.admin.password) {
  await page.goto(server.url + 'login');
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForURL(server.url), page.click('button[type=submit]')]);
}

// ---- workspace helpers (test_workspace*.mjs, test_library.mjs) ----
export const PAPER = 'tests/fixtures/paper/';

// Uploads a file through the library's file picker; resolves on the workspace.
export async function uploadThroughLibrary(page, server, file) {
  if (!page.url().startsWith(server.url) || /login/.test(page.url())) await page.goto(server.url);
  await page.setInputFiles('#upload-input', file);
  await page.waitForURL(/\/workspace\/\d+$/);
  await waitWorkspaceReady(page);
}

export async function waitWorkspaceReady(page) {
  await page.waitForSelector('#workspace[data-ready="1"]', { timeout: 15000 });
}

// The in-page store (read-only inspection).
export function wsState(page) {
  return page.evaluate(() => {
    const s = window.fishscale.store;
    return { n: s.tubercles.size, e: s.edges.length, rev: s.revision, set: s.set && { id: s.set.id, name: s.set.name, dirty: s.set.dirty }, um: s.umPerPx, sets: s.sets.map(x => x.name) };
  });
}

// Clicks the canvas at image coordinates (x, y).
export async function clickImage(page, x, y) {
  const [sx, sy] = await screenPoint(page, x, y);
  await page.mouse.click(sx, sy);
}

// A layout change (a mode banner appearing after a click) resizes the canvas
// at once but refits the view only in the next frame's ResizeObserver
// callback; reading the view before then gave a stale point (a click 13 px
// off in CI). So wait two frames, then read view and canvas box together.
export async function screenPoint(page, x, y) {
  return page.evaluate(async ([ix, iy]) => {
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const p = window.fishscale.viewer.toScreen(ix, iy);
    const box = document.querySelector('#canvas').getBoundingClientRect();
    return [box.x + p[0], box.y + p[1]];
  }, [x, y]);
}

export async function dragImage(page, x0, y0, x1, y1) {
  const [a, b] = await screenPoint(page, x0, y0);
  const [c, d] = await screenPoint(page, x1, y1);
  await page.mouse.move(a, b);
  await page.mouse.down();
  await page.mouse.move((a + c) / 2, (b + d) / 2, { steps: 4 });
  await page.mouse.move(c, d, { steps: 4 });
  await page.mouse.up();
}

// Waits until the store's tubercle count is n (cmp 'eq') or above n ('gt'),
// with no request in flight. (Functions, not strings: the CSP forbids eval.)
export async function waitCount(page, cmp, n, timeout = 10000) {
  await page.waitForFunction(([c, k]) => {
    const s = window.fishscale.store;
    return !s.busy && (c === 'gt' ? s.tubercles.size > k : s.tubercles.size === k);
  }, [cmp, n], { timeout });
}

// Runs body(t), then (also when it failed) deletes the images of the user
// logged in on t.page, so the next test starts from an empty library.
export async function withCleanup(t, body) {
  try {
    await body(t);
  } finally {
    const p = t.page;
    if (!p.isClosed() && /\/\/[^/]+\//.test(p.url()) && !/login/.test(p.url())) await deleteMyImages(p).catch(() => {});
  }
}

// Logs in as the admin, uploads file through the library and runs body(t)
// in its workspace, cleaning up as withCleanup.
export function withImage(t, file, body) {
  return withCleanup(t, async () => {
    await login(t.page, t.server);
    await uploadThroughLibrary(t.page, t.server, file);
    await body(t);
  });
}

// Deletes every image the logged-in user may manage, so the next test (of
// any file: they share one server) starts from an empty library.
export async function deleteMyImages(page) {
  await page.evaluate(async () => {
    const base = document.body.dataset.base, csrf = document.body.dataset.csrf;
    if (!csrf) return;
    for (;;) {
      const r = await fetch(base + 'api/images?per_page=100');
      if (!r.ok) return;
      const mine = (await r.json()).images.filter(i => i.can_manage);
      if (!mine.length) return;
      for (const i of mine) await fetch(base + `api/images/${i.id}`, { method: 'DELETE', headers: { 'X-CSRF-Token': csrf } });
    }
  });
}
