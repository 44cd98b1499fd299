// The foundation's pages: login, the (empty) library, About, the admin page.
import { assert, login } from './helpers.mjs';

export async function testLoginShowsEmptyLibrary({ page, server, shot }) {
  await page.goto(server.url);
  assert(page.url().endsWith('/login'), 'redirected to login, got ' + page.url());
  await shot('login');
  await page.fill('input[name=login]', 'admin');
  await page.fill('input[name=password]', 'wrong password');
  await page.click('button[type=submit]');
  assert((await page.textContent('.alert')).includes('Wrong login or password'), 'error shown');
  await login(page, server);
  assert(await page.isVisible('#library-empty'), 'empty library shown');
  assert((await page.textContent('.user-name')) === 'Administrator', 'user name shown');
  await shot('library-empty');
}

export async function testAboutListsVersions({ page, server, shot }) {
  await login(page, server);
  await page.click('text=About');
  await page.waitForSelector('#versions');
  const text = await page.textContent('#versions');
  for (const lib of ['libtiff', 'libpng', 'SQLite', 'libcurl', 'cJSON', 'libfcgi']) assert(text.includes(lib), lib);
  await shot('about');
}

export async function testAdminAddsUserWhoCanLogIn({ page, server, browser, shot }) {
  await login(page, server);
  await page.click('text=Users');
  await page.fill('input[name=login]', 'ines');
  await page.fill('input[name=display_name]', '<script>alert(1)</script>');
  await page.click('form.row button[type=submit]');
  const pw = await page.textContent('#new-password');
  assert(pw && pw.length === 20, 'password shown once');
  const row = await page.textContent('tr[data-login=ines]');
  assert(row.includes('<script>alert(1)</script>'), 'hostile name shown as text');
  await shot('admin-users');
  const ctx2 = await browser.newContext();
  const p2 = await ctx2.newPage();
  await login(p2, server, 'ines', pw);
  assert(await p2.isVisible('#library-empty'), 'new user sees the library');
  assert(!(await p2.isVisible('text=Users')), 'members have no Users link');
  await p2.click('button:has-text("Log out")');
  await p2.waitForURL(/\/login$/);
  await ctx2.close();
}
