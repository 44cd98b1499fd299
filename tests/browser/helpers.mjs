// Small helpers shared by the browser tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
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

// Imports a set named setName holding tubercles and edges (annotation file
// format 3.0, which says nothing of the measurement's version) into the
// workspace's image through the Data tab's file picker; resolves once the
// store holds it.
export async function importAnnotationSet(page, setName, tubercles, edges) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fs-import-'));
  try {
    const file = path.join(dir, 'annotations.json');
    writeFileSync(file, JSON.stringify({
      format: 'fish-scale-annotations', version: '3.0', image_name: 'imported.tif',
      sets: [{ id: 'set_1', name: setName, tubercles, edges }],
    }));
    await page.click('[data-tab=data]');
    await page.setInputFiles('#import-file', file);
    await page.click('#import-button');
    await page.waitForFunction((n) => window.fishscale.store.set && window.fishscale.store.set.name === n, setName);
    await waitCount(page, 'eq', tubercles.length);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Adds a member through the CLI with the password the tests give one
// (`<name>-password-123`) and the display name given (by default the login
// in capitals, which the step lists and dialogs show; null: none given, the
// server's default); a member made by an earlier test or run is kept.
// Returns the password.
export function addUser(server, name, displayName = name.toUpperCase()) {
  const pw = `${name}-password-123`;
  const args = ['user', 'add', name];
  if (displayName !== null) args.push('--name', displayName);
  try { server.cli(args, pw + '\n'); } catch { /* made by an earlier test or run */ }
  return pw;
}

// A second member's own browser context, logged in and on url (a
// workspace) once it is ready; the page's errors go to errors when given.
// Returns { ctx, page }: the caller closes ctx (closed here when the page
// could not be made ready).
export async function openAsMember(browser, server, name, pw, url, errors = null) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await ctx.newPage();
    if (errors) page.on('pageerror', e => errors.push(String(e)));
    await login(page, server, name, pw);
    await page.goto(url);
    await waitWorkspaceReady(page);
    return { ctx, page };
  } catch (e) {
    await ctx.close();
    throw e;
  }
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

// ---- large-image fixtures (test_workspace_large_set.mjs, test_tiles.mjs,
// tests/bench/bench_workspace.mjs) ----

function crc32(buf) {
  let c, crc = 0xffffffff;
  for (let n = 0; n < buf.length; n++) {
    c = (crc ^ buf[n]) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

// An 8-bit grey image of w x h pixels, all at level, kept as PNG scanlines
// (a filter byte, then the row) so encodePng needs no copy; set(x, y, v)
// paints one pixel.
export function greyImage(w, h, level = 0) {
  const raw = Buffer.alloc((w + 1) * h, level);
  for (let y = 0; y < h; y++) raw[y * (w + 1)] = 0; // filter type "none"
  return { width: w, height: h, raw, set(x, y, v) { raw[y * (w + 1) + 1 + x] = v; } };
}

// The PNG file of a greyImage, written here rather than by a library so a
// test can make a montage of any size without a dependency.
export function encodePng(img) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(img.width, 0); ihdr.writeUInt32BE(img.height, 4); ihdr[8] = 8; ihdr[9] = 0;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(img.raw)), pngChunk('IEND', Buffer.alloc(0))]);
}

// Uploads png (a Buffer) as name through the API of the logged-in page,
// waits for the background import job a large image gets (202), imports the
// annotation file ann (an object) onto it and deletes the empty Base set,
// so the workspace opens the imported set. Resolves to [imageId, setId].
export function uploadWithAnnotation(page, png, name, ann) {
  return page.evaluate(async ([b64, fileName, annText]) => {
    const csrf = document.body.dataset.csrf, base = document.body.dataset.base;
    const fd = new FormData();
    fd.append('file', new File([Uint8Array.from(atob(b64), c => c.charCodeAt(0))], fileName, { type: 'image/png' }));
    const r = await fetch(base + 'api/images', { method: 'POST', body: fd, headers: { 'X-CSRF-Token': csrf } });
    const up = await r.json();
    let id = up.image && up.image.id;
    if (r.status === 202) { // a large upload is finished by a background job
      let job = up.job;
      while (['queued', 'starting', 'running'].includes(job.state)) {
        await new Promise(ok => setTimeout(ok, 100)); // a poll interval: the loop waits for the job's state
        job = (await (await fetch(base + `api/jobs/${job.id}`)).json()).job;
      }
      if (job.state !== 'done') throw new Error('upload job: ' + job.error);
      id = job.result.image_id;
    }
    if (!id) throw new Error('upload: ' + JSON.stringify(up));
    const imp = await (await fetch(base + `api/images/${id}/import`, { method: 'POST', body: annText, headers: { 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' } })).json();
    if (!imp.success) throw new Error('import: ' + imp.error);
    const sets = (await (await fetch(base + `api/images/${id}/sets`)).json()).sets;
    const b = sets.find(s => s.name === 'Base');
    if (b) await fetch(base + `api/sets/${b.id}?revision=${b.revision}`, { method: 'DELETE', headers: { 'X-CSRF-Token': csrf } });
    return [id, imp.sets[0].id];
  }, [png.toString('base64'), name, JSON.stringify(ann)]);
}
