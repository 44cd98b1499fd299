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
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
         '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const server = await startServer();
let passed = 0, failed = 0;
try {
  for (const file of readdirSync(HERE).filter(f => /^test_.*\.mjs$/.test(f)).sort()) {
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
        console.log(`ok   ${full} (${((Date.now() - t0) / 1000).toFixed(2)}s)`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${full}\n${e.stack || e}`);
        try { await page.screenshot({ path: path.join(OUT, `FAILED-${full}.png`) }); } catch {}
      } finally {
        await context.close();
      }
    }
  }
} finally {
  server.stop();
  await browser.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
