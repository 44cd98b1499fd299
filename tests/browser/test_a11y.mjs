// Accessibility and the keyboard (issue 17): the workspace's tab bar as an
// ARIA tablist, dialogs that keep and return the focus, a whole session
// without the mouse (log in, open an image, calibrate, extract, add and
// delete a tubercle, save), and axe-core on every page with no violation of
// impact "serious" or "critical". Also the README's screenshot of the
// workspace (written to docs/ only with UPDATE_SCREENSHOTS=1, so a test run
// leaves the tree as it was).
import path from 'node:path';
import { axeViolations, describe } from './axe.mjs';
import { assert, login, PAPER, uploadThroughLibrary, waitCount, withCleanup, withImage } from './helpers.mjs';
import { ROOT, startServer } from './server.mjs';

const TIF = PAPER + 'P2_Fig1e_Polypterus_delhezi_2.19um.tif';
const NAME = 'P2_Fig1e_Polypterus_delhezi_2.19um.tif';

// Presses Tab (or Shift+Tab) until the focused element matches selector.
async function tabTo(page, selector, { back = false, max = 120 } = {}) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => !!document.activeElement && document.activeElement.matches(s), selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  const at = await page.evaluate(() => document.activeElement && (document.activeElement.id || document.activeElement.outerHTML.slice(0, 80)));
  throw new Error(`Tab never reached ${selector} (focus on ${at})`);
}

const focused = (page) => page.evaluate(() => document.activeElement && (document.activeElement.id || document.activeElement.tagName));

async function focusRingShown(page) {
  return page.evaluate(() => {
    const cs = getComputedStyle(document.activeElement);
    return cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2;
  });
}

export async function testTabBarIsATablistWithArrowsHomeEnd(t) {
  await withImage(t, TIF, async ({ page }) => {
    const tabs = await page.$$eval('#tabs [role=tab]', (b) => b.map(x => x.dataset.tab));
    assert((await page.getAttribute('#tabs', 'role')) === 'tablist', 'a tablist');
    await page.focus('#tabbtn-image');
    const state = () => page.evaluate(() => ({
      selected: [...document.querySelectorAll('#tabs [role=tab]')].filter(b => b.getAttribute('aria-selected') === 'true').map(b => b.dataset.tab),
      focus: document.activeElement.dataset.tab,
      panel: [...document.querySelectorAll('.tab-panel')].filter(p => !p.hidden).map(p => p.dataset.panel),
      tabbable: [...document.querySelectorAll('#tabs [role=tab]')].filter(b => b.tabIndex === 0).length,
    }));
    await page.keyboard.press('ArrowRight');
    let s = await state();
    assert(s.selected.join() === 'calibration' && s.focus === 'calibration' && s.panel.join() === 'calibration' && s.tabbable === 1, 'ArrowRight: ' + JSON.stringify(s));
    await page.keyboard.press('End');
    s = await state();
    assert(s.selected.join() === tabs[tabs.length - 1] && s.panel.join() === tabs[tabs.length - 1], 'End: ' + JSON.stringify(s));
    await page.keyboard.press('ArrowRight');
    s = await state();
    assert(s.selected.join() === tabs[0], 'wraps round: ' + JSON.stringify(s));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Home');
    s = await state();
    assert(s.selected.join() === 'image' && s.focus === 'image', 'Home: ' + JSON.stringify(s));
    assert(await focusRingShown(page), 'the focused tab shows a ring');
    const panel = await page.evaluate(() => { const p = document.querySelector('#tab-image'); return [p.getAttribute('role'), p.getAttribute('aria-labelledby')]; });
    assert(panel[0] === 'tabpanel' && panel[1] === 'tabbtn-image', 'panels are labelled tabpanels: ' + panel);
  });
}

export async function testDialogsKeepAndReturnTheFocus(t) {
  await withImage(t, TIF, async ({ page }) => {
    await page.focus('#set-new');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#modal[open]');
    assert(await focused(page) === 'new-set-name', 'the name field has the focus');
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press(i % 3 === 2 ? 'Shift+Tab' : 'Tab');
      assert(await page.evaluate(() => document.querySelector('#modal').contains(document.activeElement)), 'focus stays in the dialog');
    }
    await page.keyboard.press('Escape');
    await page.waitForSelector('#modal:not([open])', { state: 'attached' });
    assert(await focused(page) === 'set-new', 'focus back on + New, got ' + await focused(page));
  });
}

export async function testKeyboardOnlySession(t) {
  // the image is there before the session (uploaded by this test's setup)
  await withCleanup(t, async ({ page, server, browser, shot }) => {
    await login(page, server);
    await uploadThroughLibrary(page, server, TIF);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const k = await ctx.newPage();
    const errors = [];
    k.on('pageerror', e => errors.push(String(e)));
    try {
      const key = (x) => k.keyboard.press(x);
      // log in
      await k.goto(server.url + 'login');
      await tabTo(k, 'input[name=login]');
      await k.keyboard.type(server.admin.login);
      await key('Tab');
      await k.keyboard.type(server.admin.password);
      await Promise.all([k.waitForURL(server.url), key('Enter')]);
      // open the image
      await tabTo(k, `#library-images a.open[aria-label="Open ${NAME}"]`);
      assert(await focusRingShown(k), 'the focused image card shows a ring');
      await Promise.all([k.waitForURL(/\/workspace\/\d+$/), key('Enter')]);
      await k.waitForSelector('#workspace[data-ready="1"]');
      // calibrate: the tab bar, → to Calibration, the direct value, Enter
      await tabTo(k, '#tabbtn-image');
      await key('ArrowRight');
      assert(await focused(k) === 'tabbtn-calibration', 'on the Calibration tab');
      await tabTo(k, '#cal-direct');
      await k.keyboard.type('0.5');
      await key('Enter');
      await k.waitForFunction(() => window.fishscale.store.umPerPx === 0.5);
      // extract
      await tabTo(k, '#tabbtn-calibration', { back: true });
      await key('ArrowRight');
      await tabTo(k, '#extract-all');
      await key('Enter');
      await waitCount(k, 'gt', 5, 60000);
      const n = await k.evaluate(() => window.fishscale.store.tubercles.size);
      // add a tubercle: Add Tubercle, then the image: arrows move the pointer, Enter adds
      await tabTo(k, '#tabbtn-extraction', { back: true });
      for (let i = 0; i < 10 && await focused(k) !== 'tabbtn-edit'; i++) await key('ArrowRight');
      assert(await focused(k) === 'tabbtn-edit', 'on the Edit tab');
      await tabTo(k, '[data-mode=add_tub]');
      await key('Enter');
      await tabTo(k, '#viewer', { back: true });
      assert(await focusRingShown(k), 'the image shows a focus ring');
      for (let i = 0; i < 3; i++) await key('ArrowUp');
      await key('Enter');
      await waitCount(k, 'eq', n + 1);
      await shot('keyboard-added');
      // delete one: Escape ends adding, Tab in the image selects, Delete asks, Enter confirms
      await key('Escape');
      await key('Tab');
      const sel = await k.evaluate(() => window.fishscale.store.selection.tub);
      assert(sel != null && await focused(k) === 'viewer', 'Tab in the image selected a tubercle');
      await key('Delete');
      await k.waitForSelector('#modal[open]');
      await key('Enter');
      await waitCount(k, 'eq', n);
      assert(await focused(k) === 'viewer', 'the focus is back on the image after the dialog');
      // save
      assert(await k.evaluate(() => window.fishscale.store.set.dirty), 'unsaved before Ctrl+S');
      await key('Control+s');
      await k.waitForFunction(() => !window.fishscale.store.set.dirty && !window.fishscale.store.busy);
      assert(!errors.length, 'no page errors: ' + errors.join('; '));
    } finally {
      await ctx.close();
    }
  });
}

export async function testAxeFindsNoSeriousViolations(t) {
  await withCleanup(t, async ({ page, server }) => {
    const found = [];
    const check = async (what) => {
      const v = await axeViolations(page);
      if (v.length) found.push(`${what}:\n  ${describe(v)}`);
    };
    await page.goto(server.url + 'login');
    await check('login');
    await login(page, server);
    await check('library (empty)');
    await uploadThroughLibrary(page, server, TIF);
    await page.evaluate(() => window.fishscale.store.change('POST', 'extract', { parameters: {} }, 'extraction'));
    await waitCount(page, 'gt', 5, 60000);
    for (const tab of await page.$$eval('#tabs [role=tab]', (b) => b.map(x => x.dataset.tab))) {
      await page.click(`#tabbtn-${tab}`);
      await page.waitForFunction((n) => !document.querySelector('#tab-' + n).hidden, tab);
      await check('workspace, ' + tab + ' tab');
    }
    // the light theme's colours too
    await page.click('#tabbtn-settings');
    await page.selectOption('#s-theme', 'light');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
    for (const tab of ['settings', 'data', 'edit', 'calibration']) {
      await page.click(`#tabbtn-${tab}`);
      await check('workspace in the light theme, ' + tab + ' tab');
    }
    await page.click('#tabbtn-settings');
    await page.selectOption('#s-theme', 'dark');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await page.goto(server.url);
    await page.waitForSelector('#library-images li.image');
    await check('library');
    await page.goto(server.url + 'admin');
    await check('Users page');
    await page.goto(server.url + 'static/help/calibration.html');
    await check('help page');
    await page.goto(server.url + 'about');
    await check('About page');
    await page.goto(server.url);
    assert(!found.length, 'axe-core, serious or critical:\n' + found.join('\n'));
  });
}

// The agent tabs exist only with FISH_SCALE_AGENT_TABS: a site of their own.
export async function testAxeOnTheAgentTabs({ browser }) {
  const server = await startServer({ FISH_SCALE_AGENT_TABS: '1' });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  try {
    const page = await ctx.newPage();
    await login(page, server);
    await uploadThroughLibrary(page, server, TIF);
    const found = [];
    for (const tab of ['agentic-extraction', 'agentic-edit']) {
      await page.click(`#tabbtn-${tab}`);
      await page.waitForFunction((n) => !document.querySelector('#tab-' + n).hidden, tab);
      const v = await axeViolations(page);
      if (v.length) found.push(`${tab}:\n  ${describe(v)}`);
    }
    assert(!found.length, 'axe-core on the agent tabs:\n' + found.join('\n'));
  } finally {
    await ctx.close();
    server.stop();
  }
}

export async function testWorkspaceScreenshotForTheReadme(t) {
  await withImage(t, TIF, async ({ page, out }) => {
    await page.setViewportSize({ width: 1280, height: 760 });
    await page.evaluate(async () => {
      const base = document.body.dataset.base, csrf = document.body.dataset.csrf;
      await fetch(base + `api/images/${window.fishscale.store.imageId}/calibration`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: JSON.stringify({ um_per_px: 0.25 }) });
      await window.fishscale.store.loadImage();
      await window.fishscale.store.change('POST', 'extract', { parameters: {} }, 'extraction');
    });
    await waitCount(page, 'gt', 5, 60000);
    await page.click('#tabbtn-data');
    await page.waitForFunction(() => document.querySelector('#st-diam').textContent.includes('µm'));
    // the statistics in view: the tables folded away
    await page.evaluate(() => { for (const d of document.querySelectorAll('#tab-data details')) d.open = false; });
    await page.waitForFunction(() => /Hexagonalness/.test(document.querySelector('#stats-table').textContent));
    await page.mouse.move(0, 0);
    const file = process.env.UPDATE_SCREENSHOTS ? path.join(ROOT, 'docs', 'workspace.png') : path.join(out, 'workspace-readme.png');
    await page.screenshot({ path: file });
  });
}
