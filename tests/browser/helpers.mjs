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
