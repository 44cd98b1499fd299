// Browser tests: headless Debian Chromium driven by playwright-core against the
// real nginx + FastCGI. Runs every export named test* of every test_*.mjs file
// in this directory; each test gets a fresh browser context. Screenshots go to
// tests/out/browser/. Ends with one line "N passed, N failed".
import { readdirSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, startServer } from './server.mjs';

const HERE = path.join(ROOT, 'tests', 'browser');
export const OUT = path.join(ROOT, 'tests', 'out', 'browser');
mkdirSync(OUT, { recursive: true });

const filter = process.argv[2] || '';
// Files run on WORKERS sites at once (FS_BROWSER_WORKERS, default 2: the
// tests mostly wait for the page, so two keep the two cores busier and the
// phase shorter). Each worker has its own server (port, data directory) and
// runs whole files, in order, so a file's tests share their site as before;
// the output is printed file by file in name order.
const workers = Math.max(1, Number(process.env.FS_BROWSER_WORKERS) || 2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const files = readdirSync(HERE).filter(f => /^test_.*\.mjs$/.test(f)).sort();
const servers = [];
let passed = 0, failed = 0;

// Runs the tests of one file on server; returns its report lines.
async function runFile(file, server) {
  const lines = [];
  const mod = await import(path.join(HERE, file));
  for (const [name, fn] of Object.entries(mod)) {
    if (!name.startsWith('test') || typeof fn !== 'function') continue;
    const full = `${file.replace(/\.mjs$/, '')}.${name}`;
    if (filter && !full.includes(filter)) continue;
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    const t0 = Date.now();
    try {
      await fn({ browser, context, page, server, out: OUT, shot: (n) => page.screenshot({ path: path.join(OUT, `${n}.png`), fullPage: true }) });
      if (errors.length) throw new Error('page errors: ' + errors.join('; '));
      passed++;
      lines.push(`ok   ${full} (${((Date.now() - t0) / 1000).toFixed(2)}s)`);
    } catch (e) {
      failed++;
      lines.push(`FAIL ${full}\n${e.stack || e}`);
      try { await page.screenshot({ path: path.join(OUT, `FAILED-${full}.png`) }); } catch {}
    } finally {
      await context.close();
    }
  }
  return lines;
}

const reports = new Array(files.length);
let next = 0, shown = 0;
// A worker takes the next file until none is left; reports are printed as
// soon as every earlier file's is.
async function worker() {
  const server = await startServer();
  servers.push(server);
  while (next < files.length) {
    const i = next++;
    try {
      reports[i] = await runFile(files[i], server);
    } catch (e) {
      failed++;
      reports[i] = [`FAIL ${files[i]} (loading the file)\n${e.stack || e}`];
    }
    while (shown < files.length && reports[shown]) for (const l of reports[shown++]) console.log(l);
  }
}

try {
  await Promise.all(Array.from({ length: Math.min(workers, files.length) }, worker));
} finally {
  for (const s of servers) s.stop();
  await browser.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
