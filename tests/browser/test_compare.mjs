// The Compare page: a member picks three sets and gives them two labels; the
// chart (the server's SVG) shows three points and two group means where the
// plot's own axes put the sets' statistics; hovering names a set; the CSV
// download matches the statistics; an uncalibrated set goes to the
// fill-ratio chart only; another user's private set is never offered and
// answers 404; a comparison is saved; clicking a point opens its set in the
// workspace.
import { addUser, assert, login, waitWorkspaceReady, wsState, withCleanup } from './helpers.mjs';

// Creates, through the API from the logged-in page, an image (a PNG drawn
// here, distinct per name) with one imported set: a hexagonal patch of
// 6 x 5 tubercles of radius r px (varying by ±12 %) at pitch px.
async function makeSet(page, name, r, pitch, um, priv = false) {
  return page.evaluate(async ([name, r, pitch, um, priv]) => {
    const base = document.body.dataset.base, csrf = document.body.dataset.csrf;
    const c = document.createElement('canvas');
    c.width = 300; c.height = 220;
    const g = c.getContext('2d');
    g.fillStyle = '#222'; g.fillRect(0, 0, 300, 220);
    g.fillStyle = '#ddd'; g.font = '20px sans-serif'; g.fillText(name, 10, 110);
    const blob = await new Promise(done => c.toBlob(done, 'image/png'));
    const fd = new FormData();
    fd.append('visibility', priv ? 'private' : 'shared');
    // the image is named apart from the set, so a search for the set finds only it
    fd.append('file', blob, 'pic ' + name.replace(/-/g, ' ') + '.png');
    let res = await fetch(base + 'api/images', { method: 'POST', body: fd, headers: { 'X-CSRF-Token': csrf } });
    if (!res.ok) throw new Error('upload: ' + res.status);
    const image = (await res.json()).image;
    if (um) {
      res = await fetch(base + `api/images/${image.id}/calibration`, {
        method: 'POST', headers: { 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' },
        body: JSON.stringify({ um_per_px: um, method: 'direct' }),
      });
      if (!res.ok) throw new Error('calibration: ' + res.status);
    }
    const tub = [], edges = [];
    for (let j = 0; j < 5; j++) for (let i = 0; i < 6; i++) {
      tub.push({ id: tub.length + 1, centroid_x: 20 + i * pitch + (j % 2) * pitch / 2,
        centroid_y: 20 + j * pitch * Math.sqrt(3) / 2, radius_px: r * (1 + 0.06 * (((i * 7 + j * 3) % 5) - 2)), circularity: 1 });
    }
    for (const a of tub) for (const b of tub) {
      if (a.id < b.id && Math.abs(Math.hypot(a.centroid_x - b.centroid_x, a.centroid_y - b.centroid_y) - pitch) < 0.01 * pitch) edges.push({ id1: a.id, id2: b.id });
    }
    const doc = { format: 'fish-scale-annotations', version: '3.0', sets: [{ id: 's', name, tubercles: tub, edges }] };
    res = await fetch(base + `api/images/${image.id}/import`, {
      method: 'POST', headers: { 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' }, body: JSON.stringify(doc),
    });
    if (!res.ok) throw new Error('import: ' + res.status);
    return { image: image.id, set: (await res.json()).sets[0].id, name };
  }, [name, r, pitch, um, priv]);
}

function stats(page, setId) {
  return page.evaluate(async (id) => (await (await fetch(document.body.dataset.base + `api/sets/${id}/statistics`)).json()).statistics, setId);
}

// Every set-point / group-mean of a figure: its data attributes and the
// centre of its marker, and the plot's axis mapping.
function readFigure(page, box) {
  return page.evaluate((box) => {
    const root = document.querySelector(box + ' svg');
    const plot = root.querySelector('g.plot');
    const ax = {};
    for (const k of ['xMin', 'xMax', 'yMin', 'yMax', 'left', 'right', 'top', 'bottom']) ax[k] = Number(plot.dataset[k]);
    const centre = (g) => {
      const shape = g.querySelector('circle, rect, polygon');
      if (shape.tagName === 'circle') return [Number(shape.getAttribute('cx')), Number(shape.getAttribute('cy'))];
      if (shape.tagName === 'rect') return [Number(shape.getAttribute('x')) + Number(shape.getAttribute('width')) / 2, Number(shape.getAttribute('y')) + Number(shape.getAttribute('height')) / 2];
      const p = shape.getAttribute('points').trim().split(/\s+/).map(s => s.split(',').map(Number));
      const xs = p.map(q => q[0]), ys = p.map(q => q[1]);
      return [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
    };
    const read = (sel) => [...root.querySelectorAll(sel)].map(g => ({ ...g.dataset, at: centre(g) }));
    return { ax, points: read('g.set-point'), means: read('g.group-mean') };
  }, box);
}

function place(ax, vx, vy) {
  return [ax.left + (vx - ax.xMin) / (ax.xMax - ax.xMin) * (ax.right - ax.left),
    ax.bottom - (vy - ax.yMin) / (ax.yMax - ax.yMin) * (ax.bottom - ax.top)];
}

function near(a, b, what) {
  assert(Math.abs(a[0] - b[0]) < 0.05 && Math.abs(a[1] - b[1]) < 0.05, `${what} at ${a}, expected ${b}`);
}

async function addBySearch(page, q) {
  await page.fill('#cmp-q', q);
  await page.click('#cmp-search button[type=submit]');
  await page.waitForFunction((q) => document.querySelector('#cmp-results-note').textContent.includes(q), q);
  await page.click('#cmp-add-checked');
}

async function drawn(page, n, box = '#cmp-main') {
  await page.waitForFunction(([box, n]) => document.querySelectorAll(box + ' svg g.set-point').length === n, [box, n]);
}

export async function testCompareChartTableCsvAndAccess(t) {
  await withCleanup(t, compareBody);
}

async function compareBody({ page, server, browser, shot }) {
  // the admin's private image: its set must stay out of reach
  const adminCtx = await browser.newContext();
  const ap = await adminCtx.newPage();
  await login(ap, server);
  const priv = await makeSet(ap, 'bt-cmp-private', 8, 30, 0.2, true);

  const pw = addUser(server, 'carla', null);
  await login(page, server, 'carla', pw);
  const sets = [
    await makeSet(page, 'bt-cmp-cal-1', 8, 30, 0.2),
    await makeSet(page, 'bt-cmp-cal-2', 9.5, 31, 0.2),
    await makeSet(page, 'bt-cmp-cal-3', 12, 30, 0.25),
  ];
  const uncal = await makeSet(page, 'bt-cmp-uncal', 10, 32, 0);

  await page.goto(server.url + 'compare');
  await page.waitForSelector('body[data-ready="1"]');
  await addBySearch(page, 'bt-cmp-cal');
  await drawn(page, 3);
  // two labels: Specimen A for the first two, Specimen B for the third
  const labels = ['Specimen A', 'Specimen A', 'Specimen B'];
  for (let i = 0; i < 3; i++) {
    await page.fill(`#cmp-chosen input.cmp-label[data-id="${sets[i].set}"]`, labels[i]);
    await page.dispatchEvent(`#cmp-chosen input.cmp-label[data-id="${sets[i].set}"]`, 'change');
  }
  await page.click('#cmp-draw');
  await page.waitForFunction(() => document.querySelectorAll('#cmp-main svg g.group-mean').length === 2);
  await shot('compare-chart');

  // three points and two group means where the plot's axes put the statistics
  const fig = await readFigure(page, '#cmp-main');
  assert(fig.points.length === 3, 'three points: ' + fig.points.length);
  const st = [];
  for (const s of sets) st.push(await stats(page, s.set));
  for (let i = 0; i < 3; i++) {
    const p = fig.points.find(q => Number(q.setId) === sets[i].set);
    assert(p, 'a point for set ' + sets[i].set);
    assert(p.group === labels[i], 'its group ' + p.group);
    near(p.at, place(fig.ax, st[i].mean_space_um, st[i].mean_diameter_um), `set ${i + 1}`);
  }
  assert(fig.means.length === 2, 'two group means');
  const ma = fig.means.find(m => m.group === 'Specimen A'), mb = fig.means.find(m => m.group === 'Specimen B');
  near(ma.at, place(fig.ax, (st[0].mean_space_um + st[1].mean_space_um) / 2, (st[0].mean_diameter_um + st[1].mean_diameter_um) / 2), 'mean of A');
  near(mb.at, place(fig.ax, st[2].mean_space_um, st[2].mean_diameter_um), 'mean of B');

  // hover names the set; the table holds the same numbers as text
  await page.hover(`#cmp-main g.set-point[data-set-id="${sets[2].set}"]`);
  await page.waitForSelector('#cmp-tip:not([hidden])');
  const tip = await page.textContent('#cmp-tip');
  assert(tip.includes('bt-cmp-cal-3') && tip.includes('Specimen B'), 'tooltip: ' + tip);
  const row = await page.textContent(`#cmp-table tbody tr[data-id="${sets[0].set}"]`);
  assert(row.includes(st[0].mean_diameter_um.toFixed(2)) && row.includes('Specimen A'), 'table row: ' + row);
  // sorting by D puts the largest diameter first when descending
  await page.click('#cmp-table th[data-key="d"] button');
  await page.click('#cmp-table th[data-key="d"] button');
  const first = await page.getAttribute('#cmp-table tbody tr:first-child', 'data-id');
  assert(Number(first) === sets[2].set, 'sorted by D, descending: ' + first);
  assert(await page.getAttribute('#cmp-table th[data-key="d"]', 'aria-sort') === 'descending', 'aria-sort');

  // the CSV download is the table
  const csvHref = await page.getAttribute('#cmp-dl-csv', 'href');
  const csv = await page.evaluate(async (h) => (await fetch(h)).text(), csvHref);
  const lines = csv.trim().split('\n').map(l => l.split(','));
  const head = lines[0];
  const col = (name) => head.indexOf(name);
  for (let i = 0; i < 3; i++) {
    const r = lines.find(l => l[0] === 'set' && Number(l[1]) === sets[i].set);
    assert(r, 'a CSV row for set ' + sets[i].set);
    assert(Math.abs(Number(r[col('mean_diameter')]) - st[i].mean_diameter_um) < 1e-4, 'CSV D');
    assert(Math.abs(Number(r[col('sd_diameter')]) - st[i].std_diameter_um) < 1e-4, 'CSV SD of D');
    assert(Math.abs(Number(r[col('mean_space')]) - st[i].mean_space_um) < 1e-4, 'CSV S');
    assert(Math.abs(Number(r[col('hexagonalness')]) - st[i].hexagonalness_score) < 1e-4, 'CSV hexagonalness');
    assert(r[col('group')] === labels[i], 'CSV group');
    assert(Number(r[col('n_tubercles')]) === st[i].n_tubercles, 'CSV n');
  }
  assert(lines.filter(l => l[0] === 'group_mean').length === 2, 'two group rows');

  // an uncalibrated set goes to the fill-ratio chart only
  await addBySearch(page, 'bt-cmp-uncal');
  await drawn(page, 4, '#cmp-ratio');
  const main = await readFigure(page, '#cmp-main');
  assert(main.points.length === 3 && !main.points.some(p => Number(p.setId) === uncal.set), 'not on the µm chart');
  const ratio = await readFigure(page, '#cmp-ratio');
  const u = ratio.points.find(p => Number(p.setId) === uncal.set);
  assert(u && u.calibrated === '0', 'on the fill-ratio chart');
  const ust = await stats(page, uncal.set);
  near(u.at, place(ratio.ax, ust.size_pitch_ratio, ust.hexagonalness_score), 'the uncalibrated set');
  await shot('compare-ratio');

  // another user's private set: never offered, and 404 when asked for
  await page.fill('#cmp-q', 'bt-cmp-private');
  await page.click('#cmp-search button[type=submit]');
  await page.waitForFunction(() => /bt-cmp-private”: none\./.test(document.querySelector('#cmp-results-note').textContent));
  const status = await page.evaluate(async (id) => (await fetch(document.body.dataset.base + `api/compare?sets=${id}`)).status, priv.set);
  assert(status === 404, 'the private set answers 404: ' + status);
  const saveRes = await page.evaluate(async (id) => (await fetch(document.body.dataset.base + 'api/comparisons', {
    method: 'POST', headers: { 'X-CSRF-Token': document.body.dataset.csrf, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'sneaky', sets: [{ set_id: id }] }),
  })).status, priv.set);
  assert(saveRes === 404, 'cannot be saved into a comparison: ' + saveRes);

  // save the comparison; it is listed and reopens with its labels
  await page.click('#cmp-save');
  await page.fill('#cmp-save-name', 'Carla specimens');
  await page.click('#cmp-save-ok');
  await page.waitForFunction(() => document.querySelector('.toast-error') || [...document.querySelectorAll('#cmp-saved option')].some(o => o.textContent.startsWith('Carla specimens')));
  const refused = await page.$('.toast-error');
  assert(!refused, 'saved: ' + (refused && await refused.textContent()));
  await page.goto(server.url + 'compare');
  await page.waitForSelector('body[data-ready="1"]');
  await page.selectOption('#cmp-saved', { label: (await page.locator('#cmp-saved option', { hasText: 'Carla specimens' }).textContent()) });
  await page.click('#cmp-open');
  await drawn(page, 3);
  assert(await page.inputValue(`#cmp-chosen input.cmp-label[data-id="${sets[0].set}"]`) === 'Specimen A', 'labels saved');
  assert(/comparison=\d+/.test(page.url()), 'the address names the comparison: ' + page.url());

  // a linked selection of the private set shows the refusal
  await page.goto(server.url + `compare?sets=${priv.set}`);
  await page.waitForSelector('.toast-error');
  assert((await page.textContent('.toast-error')).includes('no such set'), 'the refusal is shown');

  // clicking a point opens its set in the workspace
  await page.goto(server.url + `compare?sets=${sets[1].set},${sets[2].set}`);
  await drawn(page, 2);
  await Promise.all([
    page.waitForURL(new RegExp(`/workspace/${sets[1].image}\\?set=${sets[1].set}$`)),
    page.click(`#cmp-main g.set-point[data-set-id="${sets[1].set}"]`),
  ]);
  await waitWorkspaceReady(page);
  const ws = await wsState(page);
  assert(ws.set.id === sets[1].set && ws.n === 30, 'the workspace opened that set: ' + JSON.stringify(ws.set));

  await ap.evaluate(async (id) => fetch(document.body.dataset.base + `api/images/${id}`, { method: 'DELETE', headers: { 'X-CSRF-Token': document.body.dataset.csrf } }), priv.image);
  await adminCtx.close();
}
