// compare.js - the Compare page: choosing sets (search, "all Base sets of my
// images", a saved comparison, an image from the workspace link), their
// group labels, and showing what the server draws: the chart's SVG (one
// drawing, rendered in C; this script only adds hover, click and keyboard),
// the distributions, and the table as the chart's text alternative (sortable).
// Saved comparisons are created, changed and deleted here.

import { api, errorText, url } from './api.js';
import { $, $$, el, confirmDialog, fmt, modal, toast } from './dom.js';

const state = {
  chosen: [],          // [{set_id, label, name, calibrated}]
  comparison: null,    // the saved comparison open, or null
  data: null,          // the last /api/compare answer
  sort: { key: null, dir: 1 },
  drawing: 0,          // sequence number of the latest draw request
};

// ---- the selection in the address bar (so a chart can be linked) ----

function selectionQuery() {
  const p = new URLSearchParams();
  p.set('sets', state.chosen.map(c => c.set_id).join(','));
  for (const c of state.chosen) if (c.label) p.set(`group.${c.set_id}`, c.label);
  return p;
}

function remember() {
  const p = state.chosen.length ? selectionQuery() : new URLSearchParams();
  if (state.comparison) p.set('comparison', state.comparison.id);
  const q = p.toString();
  history.replaceState(null, '', q ? `?${q}` : location.pathname);
}

// ---- the chosen sets ----

function renderChosen() {
  const body = $('#cmp-chosen tbody');
  body.replaceChildren();
  for (const c of state.chosen) {
    const input = el('input', {
      type: 'text', value: c.label, maxLength: 64, className: 'cmp-label', 'aria-label': `Group label of ${c.name}`,
      dataset: { id: c.set_id },
    });
    input.setAttribute('list', 'cmp-labels');
    input.addEventListener('change', () => { c.label = input.value.trim(); renderLabels(); remember(); });
    body.append(el('tr', { dataset: { id: c.set_id } },
      el('td', null, c.name),
      el('td', null, input),
      el('td', null, c.calibrated ? 'calibrated' : el('span', { className: 'badge warn' }, 'uncalibrated')),
      el('td', null, el('button', {
        type: 'button', className: 'cmp-remove', 'aria-label': `Remove ${c.name}`,
        onclick: () => { state.chosen = state.chosen.filter(x => x !== c); renderChosen(); remember(); },
      }, 'Remove'))));
  }
  $('#cmp-chosen').hidden = !state.chosen.length;
  $('#cmp-none').hidden = !!state.chosen.length;
  $('#cmp-count').textContent = state.chosen.length ? `(${state.chosen.length})` : '';
  renderLabels();
  const cm = state.comparison;
  $('#cmp-current').textContent = cm ? `Saved comparison “${cm.name}” by ${cm.owner_login} (${cm.visibility}).` : '';
  $('#cmp-save-changes').hidden = !(cm && cm.can_manage);
  $('#cmp-delete').hidden = !(cm && cm.can_manage && String(cm.id) === $('#cmp-saved').value);
}

function renderLabels() {
  const labels = [...new Set(state.chosen.map(c => c.label).filter(Boolean))];
  $('#cmp-labels').replaceChildren(...labels.map(l => el('option', { value: l })));
}

function addSets(list) {
  let added = 0;
  for (const s of list) {
    if (state.chosen.some(c => c.set_id === s.set_id)) continue;
    state.chosen.push({ set_id: s.set_id, label: s.label || '', name: s.name, calibrated: s.calibrated });
    added++;
  }
  renderChosen();
  remember();
  return added;
}

function candidateName(s) { return `${s.image_name} / ${s.set_name}`; }

async function findSets(params) {
  const res = await api('GET', 'api/compare/candidates?' + params.toString());
  if (!res.ok) { toast(errorText(res), 'error'); return null; }
  return res.data;
}

async function onSearch(e) {
  e.preventDefault();
  const p = new URLSearchParams();
  const q = $('#cmp-q').value.trim();
  if (q) p.set('q', q);
  if ($('#cmp-mine').checked) p.set('mine', '1');
  if ($('#cmp-first').checked) p.set('first', '1');
  showResults(await findSets(p), q ? `Sets matching “${q}”` : 'Sets you can see');
}

function showResults(data, title) {
  if (!data) return;
  const list = $('#cmp-results-list');
  list.replaceChildren();
  for (const s of data.sets) {
    const already = state.chosen.some(c => c.set_id === s.set_id);
    const box = el('input', { type: 'checkbox', checked: !already, disabled: already, dataset: { id: s.set_id } });
    box._set = s;
    list.append(el('li', null, el('label', null, box, ' ', candidateName(s),
      el('span', { className: 'muted' }, ` · ${s.owner_login} · ${s.n_tubercles} tubercles${s.calibrated ? '' : ' · uncalibrated'}${already ? ' · chosen' : ''}`))));
  }
  $('#cmp-results-note').textContent = data.sets.length
    ? `${title}: ${data.sets.length}${data.more ? ' (more exist: narrow the search)' : ''}. Uncheck what you do not want.`
    : `${title}: none.`;
  $('#cmp-results').hidden = false;
}

function fromCandidates(sets) {
  return sets.map(s => ({ set_id: s.set_id, name: candidateName(s), calibrated: s.calibrated, label: '' }));
}

// ---- saved comparisons ----

async function loadSavedList(selectId) {
  const res = await api('GET', 'api/comparisons');
  if (!res.ok) return;
  const sel = $('#cmp-saved');
  sel.replaceChildren(el('option', { value: '' }, '—'));
  for (const c of res.data.comparisons) {
    sel.append(el('option', { value: c.id },
      `${c.name} (${c.n_sets} sets, ${c.owner_login}${c.visibility === 'private' ? ', private' : ''})`));
  }
  if (selectId) sel.value = String(selectId);
  renderChosen();
}

async function openComparison(id) {
  const res = await api('GET', `api/compare?comparison=${encodeURIComponent(id)}&svg=1`);
  if (!res.ok) { toast(errorText(res), 'error'); return; }
  state.comparison = res.data.comparison;
  state.chosen = res.data.sets.map(s => ({ set_id: s.id, label: s.group, name: s.label, calibrated: s.calibrated }));
  state.comparisonSnapshot = snapshot();
  $('#cmp-saved').value = String(state.comparison.id);
  renderChosen();
  remember();
  show(res.data);
}

async function saveNew() {
  if (!state.chosen.length) { toast('Choose some sets first', 'warning'); return; }
  const name = el('input', { type: 'text', id: 'cmp-save-name', maxLength: 64, value: state.comparison ? state.comparison.name : '' });
  const shared = el('input', { type: 'checkbox', id: 'cmp-save-shared', checked: true });
  const body = el('div', { className: 'stack' },
    el('label', { className: 'stack-label' }, 'Name', name),
    el('label', null, shared, ' Shared with the lab (otherwise only you and administrators see it)'));
  const v = await modal({
    title: 'Save comparison', body,
    buttons: [{ text: 'Cancel', value: null }, { text: 'Save', value: 'ok', primary: true, id: 'cmp-save-ok' }],
    init: () => name.focus(),
  });
  if (v !== 'ok') return;
  const res = await api('POST', 'api/comparisons', {
    name: name.value, visibility: shared.checked ? 'shared' : 'private',
    sets: state.chosen.map(c => ({ set_id: c.set_id, label: c.label })),
  });
  if (!res.ok) { toast('Not saved: ' + errorText(res), 'error', 8000); return; }
  state.comparison = res.data.comparison;
  state.comparisonSnapshot = snapshot();
  toast(`Saved “${state.comparison.name}”`, 'success');
  await loadSavedList(state.comparison.id);
  remember();
  if (state.data) downloads();
}

async function saveChanges() {
  const cm = state.comparison;
  if (!cm) return;
  const res = await api('PATCH', `api/comparisons/${cm.id}`, {
    sets: state.chosen.map(c => ({ set_id: c.set_id, label: c.label })),
  });
  if (!res.ok) { toast('Not saved: ' + errorText(res), 'error', 8000); return; }
  state.comparison = res.data.comparison;
  state.comparisonSnapshot = snapshot();
  toast(`Saved “${cm.name}”`, 'success');
  await loadSavedList(cm.id);
  if (state.data) downloads();
}

async function deleteComparison() {
  const id = $('#cmp-saved').value;
  if (!id) return;
  const name = $('#cmp-saved').selectedOptions[0].textContent;
  if (!(await confirmDialog('Delete comparison', `Delete the saved comparison ${name}? The sets stay as they are.`, 'Delete', true))) return;
  const res = await api('DELETE', `api/comparisons/${id}`);
  if (!res.ok) { toast(errorText(res), 'error'); return; }
  if (state.comparison && String(state.comparison.id) === id) state.comparison = null;
  await loadSavedList();
  remember();
}

// ---- drawing: the server's SVG, with interaction added ----

// The SVG comes from our own server; it is parsed as XML (never as HTML)
// and anything scriptable is dropped all the same.
const FIGURE_NAMES = {
  main: 'Chart: mean tubercle diameter against mean intertubercular space of the chosen sets, with the published genus ranges and species. The table below gives the same numbers.',
  ratio: 'Chart: fill ratio against hexagonalness of every chosen set, with the published species\' fill ratios.',
  dist: 'Histograms of the tubercle diameters and spaces of each chosen set.',
};

function importSvg(text, key) {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const svg = doc.documentElement;
  if (svg.nodeName !== 'svg') return el('p', { className: 'alert' }, 'The chart could not be read.');
  for (const n of svg.querySelectorAll('script, foreignObject')) n.remove();
  for (const n of svg.querySelectorAll('*')) {
    for (const a of [...n.attributes]) if (/^on/i.test(a.name) || /href/i.test(a.name)) n.removeAttribute(a.name);
  }
  const node = document.importNode(svg, true);
  node.removeAttribute('width');
  node.removeAttribute('height');
  node.setAttribute('role', 'group');
  node.setAttribute('aria-label', FIGURE_NAMES[key]);
  return node;
}

function setById(id) { return state.data && state.data.sets.find(s => String(s.id) === String(id)); }

function tipText(s) {
  const u = s.unit === 'um' ? 'µm' : 'px';
  const lines = [s.label + (s.group ? ` (${s.group})` : '')];
  lines.push(`D ${fmt(s.mean_diameter)} ± ${fmt(s.sd_diameter)} ${u}, S ${fmt(s.mean_space)} ± ${fmt(s.sd_space)} ${u}`);
  lines.push(`fill ratio ${fmt(s.fill_ratio, 3)}, hexagonalness ${fmt(s.hexagonalness, 3)}, n ${s.statistics.n_tubercles}`);
  if (s.calibrated) lines.push(`genus: ${s.suggested_genus} (${s.classification_confidence})`);
  return lines;
}

function wireFigure(box) {
  const tip = $('#cmp-tip');
  for (const g of box.querySelectorAll('g.set-point, g.set-dist')) {
    const s = setById(g.dataset.setId);
    if (!s) continue;
    g.setAttribute('tabindex', '0');
    g.setAttribute('role', 'link');
    g.setAttribute('aria-label', `${tipText(s).join('; ')}. Open in the workspace.`);
    const showTip = (x, y) => {
      tip.replaceChildren(...tipText(s).map((l, i) => el(i ? 'div' : 'strong', null, l)));
      tip.hidden = false;
      const r = tip.getBoundingClientRect();
      tip.style.left = `${Math.min(window.scrollX + x + 14, window.scrollX + document.documentElement.clientWidth - r.width - 8)}px`;
      tip.style.top = `${window.scrollY + y + 14}px`;
      highlight(s.id, true);
    };
    const hideTip = () => { tip.hidden = true; highlight(s.id, false); };
    g.addEventListener('mousemove', (e) => showTip(e.clientX, e.clientY));
    g.addEventListener('mouseleave', hideTip);
    g.addEventListener('focus', () => { const r = g.getBoundingClientRect(); showTip(r.right, r.top); });
    g.addEventListener('blur', hideTip);
    g.addEventListener('click', () => { location.href = s.workspace_url; });
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); location.href = s.workspace_url; } });
  }
}

function highlight(id, on) {
  for (const n of $$(`[data-set-id="${CSS.escape(String(id))}"]`)) n.classList.toggle('cmp-hot', on);
  const row = $(`#cmp-table tbody tr[data-id="${CSS.escape(String(id))}"]`);
  if (row) row.classList.toggle('cmp-hot', on);
}

function speciesNames() {
  const on = $('#cmp-species-names').checked;
  for (const n of $$('#cmp-main g.species-label')) n.classList.toggle('cmp-hidden', !on);
}

// The open comparison unchanged downloads under its name; anything else as the sets chosen.
function snapshot() { return JSON.stringify(state.chosen.map(c => [c.set_id, c.label])); }

function downloads() {
  const same = state.comparison && state.comparisonSnapshot === snapshot();
  const p = same ? new URLSearchParams({ comparison: state.comparison.id }) : selectionQuery();
  p.set('download', '1');
  $('#cmp-dl-csv').href = url('api/compare/table.csv?' + p.toString());
  $('#cmp-dl-svg').href = url('api/compare/chart.svg?' + p.toString());
  $('#cmp-dl-png').href = url('api/compare/chart.png?' + p.toString());
}

function show(data) {
  state.data = data;
  for (const [box, key] of [['#cmp-main', 'main'], ['#cmp-ratio', 'ratio'], ['#cmp-dist', 'dist']]) {
    $(box).replaceChildren(importSvg(data.svg[key], key));
    wireFigure($(box));
  }
  speciesNames();
  const left = $('#cmp-left-out');
  left.hidden = !data.left_out;
  left.textContent = data.left_out
    ? `${data.left_out} set(s) of this comparison are on images you cannot see; they were left out.` : '';
  renderTable();
  const ref = data.reference;
  $('#cmp-precedence').textContent = ref.precedence;
  $('#cmp-cites').replaceChildren(...ref.citations.map(c => el('li', null, el('b', null, c.key), ': ', c.text)));
  for (const id of ['#cmp-chart-card', '#cmp-table-card', '#cmp-dist-card', '#cmp-ref-card']) $(id).hidden = false;
  downloads();
}

async function draw() {
  if (!state.chosen.length) { toast('Choose some sets first', 'warning'); return; }
  const seq = ++state.drawing;
  $('#cmp-draw').disabled = true;
  const res = await api('GET', 'api/compare?' + selectionQuery().toString() + '&svg=1');
  $('#cmp-draw').disabled = false;
  if (seq !== state.drawing) return; // overtaken by a newer draw
  if (!res.ok) { toast(errorText(res), 'error', 8000); return; }
  show(res.data);
}

// ---- the table: the chart's text alternative ----

function rows() {
  const d = state.data;
  return d.sets.map(s => ({
    id: s.id, label: s.label, group: s.group, n: s.statistics.n_tubercles, unmeasured: s.statistics.n_unmeasured || 0,
    d: s.mean_diameter, dsd: s.sd_diameter, s: s.mean_space, ssd: s.sd_space,
    fill: s.fill_ratio, hex: s.hexagonalness, unit: s.unit === 'um' ? 'µm' : 'px',
    genus: s.calibrated ? `${s.suggested_genus} (${s.classification_confidence})` : '— (uncalibrated)',
    href: s.workspace_url, mver: s.measurement_version, outdated: !!s.measurement_outdated,
  }));
}

function cmp(a, b) {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'number' && isFinite(a) ? a : -Infinity, y = typeof b === 'number' && isFinite(b) ? b : -Infinity;
    return x - y;
  }
  return String(a).localeCompare(String(b), undefined, { numeric: true });
}

// The measurement version behind a set's diameters; one that is not the
// server's (an older rule, before versioning, or another rule than the
// configured one) is marked with a link that opens the set's workspace at
// its Re-measure button.
function measurementCell(r) {
  const v = r.mver ? `v${r.mver}` : 'v0';
  if (!r.outdated) return el('td', { className: 'num cmp-mver' }, v);
  return el('td', { className: 'num cmp-mver cmp-mver-old', title: r.mver ? `measured with version ${r.mver}, not this server's measurement` : 'measured before versioning' },
    `${v} ⚠ `, el('a', { href: r.href + '&remeasure=1', className: 'cmp-remeasure' }, 'Re-measure'));
}

function renderTable() {
  const list = rows();
  const { key, dir } = state.sort;
  // µm and px do not compare: for D and S the uncalibrated rows stay last
  const apart = key === 'd' || key === 's';
  if (key) list.sort((a, b) => (apart && (a.unit === 'px') !== (b.unit === 'px') ? (a.unit === 'px' ? 1 : -1) : dir * cmp(a[key], b[key])));
  const body = $('#cmp-table tbody');
  body.replaceChildren(...list.map(r => el('tr', { dataset: { id: r.id } },
    el('th', { scope: 'row' }, el('a', { href: r.href }, r.label)),
    el('td', null, r.group || '—'),
    el('td', { className: 'num', title: r.unmeasured ? 'tubercles whose base was not measured are left out of D and S' : '' },
      r.unmeasured ? `${r.n} (${r.unmeasured} unmeasured)` : r.n),
    el('td', { className: 'num' }, `${fmt(r.d)} ± ${fmt(r.dsd)} ${r.unit}`),
    el('td', { className: 'num' }, `${fmt(r.s)} ± ${fmt(r.ssd)} ${r.unit}`),
    el('td', { className: 'num' }, fmt(r.fill, 3)),
    el('td', { className: 'num' }, fmt(r.hex, 3)),
    el('td', null, r.genus),
    measurementCell(r))));
  for (const tr of body.children) {
    tr.addEventListener('mouseenter', () => highlight(tr.dataset.id, true));
    tr.addEventListener('mouseleave', () => highlight(tr.dataset.id, false));
  }
  const foot = $('#cmp-table tfoot');
  foot.replaceChildren(...state.data.groups.map(g => el('tr', { className: 'cmp-group-row' },
    el('th', { scope: 'row' }, `Group mean: ${g.label}`),
    el('td', null, `${g.n_sets} set(s)`),
    el('td', { className: 'num' }, ''),
    el('td', { className: 'num' }, g.n_calibrated ? `${fmt(g.mean_diameter_um)} ± ${fmt(g.sd_diameter_um)} µm` : '—'),
    el('td', { className: 'num' }, g.n_calibrated ? `${fmt(g.mean_space_um)} ± ${fmt(g.sd_space_um)} µm` : '—'),
    el('td', { className: 'num' }, fmt(g.fill_ratio, 3)),
    el('td', { className: 'num' }, fmt(g.hexagonalness, 3)),
    el('td', null, ''),
    el('td', null, ''))));
  for (const th of $$('#cmp-table thead th')) {
    const k = th.dataset.key;
    th.setAttribute('aria-sort', k === key ? (dir > 0 ? 'ascending' : 'descending') : 'none');
  }
}

function sortBy(k) {
  const s = state.sort;
  s.dir = s.key === k ? -s.dir : 1;
  s.key = k;
  renderTable();
}

// ---- start ----

async function start() {
  $('#cmp-search').addEventListener('submit', onSearch);
  $('#cmp-my-base').addEventListener('click', async () => {
    const data = await findSets(new URLSearchParams({ mine: '1', first: '1', limit: '1000' }));
    if (!data) return;
    const n = addSets(fromCandidates(data.sets));
    toast(data.sets.length ? `${n} Base set(s) added` : 'You have no images yet', data.sets.length ? 'success' : 'warning');
    if (data.sets.length) draw();
  });
  $('#cmp-add-checked').addEventListener('click', () => {
    const sets = $$('#cmp-results-list input:checked').filter(b => !b.disabled).map(b => b._set);
    const n = addSets(fromCandidates(sets));
    $('#cmp-results').hidden = true;
    if (n) draw();
  });
  $('#cmp-open').addEventListener('click', () => { const id = $('#cmp-saved').value; if (id) openComparison(id); });
  $('#cmp-saved').addEventListener('change', renderChosen);
  $('#cmp-delete').addEventListener('click', deleteComparison);
  $('#cmp-apply-all').addEventListener('click', () => {
    const v = $('#cmp-label-all').value.trim();
    for (const c of state.chosen) c.label = v;
    renderChosen();
    remember();
  });
  $('#cmp-draw').addEventListener('click', draw);
  $('#cmp-save').addEventListener('click', saveNew);
  $('#cmp-save-changes').addEventListener('click', saveChanges);
  $('#cmp-clear').addEventListener('click', () => { state.chosen = []; state.comparison = null; $('#cmp-saved').value = ''; renderChosen(); remember(); });
  $('#cmp-species-names').addEventListener('change', speciesNames);
  for (const th of $$('#cmp-table thead th')) th.querySelector('button').addEventListener('click', () => sortBy(th.dataset.key));

  const q = new URLSearchParams(location.search);
  await loadSavedList(q.get('comparison'));
  if (q.get('comparison')) {
    await openComparison(q.get('comparison'));
  } else if (q.get('sets')) {
    // a linked selection: labels from group.<id>, names from the answer
    const res = await api('GET', 'api/compare?' + q.toString() + '&svg=1');
    if (!res.ok) { toast(errorText(res), 'error', 8000); }
    else {
      state.chosen = res.data.sets.map(s => ({ set_id: s.id, label: s.group, name: s.label, calibrated: s.calibrated }));
      renderChosen();
      show(res.data);
    }
  } else if (q.get('image')) {
    // from the workspace: offer that image's sets
    showResults(await findSets(new URLSearchParams({ image: q.get('image') })), 'Sets of the image');
  }
  renderChosen();
  document.body.dataset.ready = '1';
}

start();
