// tab_data.js - the Data tab: image and set data, calibration mismatch
// with a Recalculate that re-reads every µm value from the server (µm
// are derived from pixels there), parameters, the tubercle and connection
// tables (row <-> overlay selection), statistics with the hexagonalness
// components, the degree histogram, dataset history with "restore
// parameters", the set's steps (the journal: who made each, undo of any
// one step that still applies, or why it cannot be), downloads and
// import. Tables are rebuilt only while the tab is visible.

import { api, errorText, send, url } from './api.js';
import { $, confirmDialog, el, fmt, toast } from './dom.js';

const HEX_CLASS = (v) => v >= 0.7 ? 'good' : v >= 0.4 ? 'medium' : 'poor';

function relTime(iso) {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return iso || '';
  const s = (Date.now() - t) / 1000;
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ago`;
  if (s < 7 * 86400) return `${Math.floor(s / 86400)}d ago`;
  return new Date(t).toLocaleDateString();
}

export function initData(ws) {
  const store = ws.store;
  let visible = false, stale = true;

  function renderCalibration() {
    const c = store.image && store.image.calibration;
    $('#data-cal').textContent = c ? `${c.um_per_px.toFixed(4)} µm/px` : 'not set';
    $('#data-cal-method').textContent = c ? `(${c.method})` : '';
    const sc = store.set && store.set.calibration_um_per_pixel;
    $('#data-set-cal').textContent = sc ? `${sc.toFixed(4)} µm/px` : 'Legacy (not recorded)';
    $('#cal-mismatch').hidden = !(sc && c && Math.abs(sc - c.um_per_px) >= 0.0001);
  }

  $('#recalculate').addEventListener('click', async () => {
    // the server stores pixels and derives µm from the image's calibration:
    // reloading the set recomputes every µm value and the statistics.
    await store.reload();
    renderCalibration();
    toast('µm values recomputed from pixels at the current calibration', 'success');
  });

  function renderParams() {
    const p = store.set && store.set.parameters;
    const t = $('#data-params');
    if (!p) { t.replaceChildren(el('tr', null, el('td', null, 'No extraction yet'))); return; }
    const rows = [['Method', p.method], ['Threshold', p.threshold], ['Min diam (µm)', p.min_diameter_um], ['Max diam (µm)', p.max_diameter_um],
      ['Min circ', p.min_circularity], ['CLAHE clip', p.clahe_clip], ['CLAHE kernel', p.clahe_kernel], ['Blur', p.blur_sigma], ['Prominence (auto)', p.auto_prominence], ['Smoothing (auto)', p.auto_smoothing], ['Graph', p.neighbor_graph],
      ['Cull', p.cull_long_edges ? `yes (× ${p.cull_factor})` : 'no']];
    t.replaceChildren(...rows.map(([k, v]) => el('tr', null, el('th', null, k), el('td', null, String(v)))));
  }

  // A large set (70,000 tubercles, 200,000 connections) would be millions
  // of table cells: the tables stop at TABLE_MAX rows and say so; the CSV
  // downloads have every row.
  const TABLE_MAX = 2000;
  const moreRow = (cols, n, what) => el('tr', { className: 'table-more' },
    el('td', { colSpan: cols }, `The first ${TABLE_MAX.toLocaleString('en')} of ${n.toLocaleString('en')} ${what}: the CSV downloads below have them all.`));

  function renderTables() {
    const cal = store.umPerPx > 0;
    $('#tub-x-head').textContent = cal ? 'X (µm)' : 'X (px)';
    $('#tub-y-head').textContent = cal ? 'Y (µm)' : 'Y (px)';
    $('#tub-count').textContent = store.tubercles.size;
    $('#itc-count').textContent = store.edges.length;
    const k = cal ? store.umPerPx : 1;
    const tb = $('#tub-table tbody');
    const rows = [];
    for (const t of store.tubercles.values()) {
      if (rows.length === TABLE_MAX) break;
      rows.push(el('tr', { dataset: { id: t.id }, className: store.selection.tub === t.id ? 'selected' : '' },
        el('td', null, t.id), el('td', null, fmt(t.centroid_x * k, cal ? 2 : 1)), el('td', null, fmt(t.centroid_y * k, cal ? 2 : 1)),
        el('td', { title: t.radius_px == null ? 'base not measured' : '' }, t.radius_px == null ? 'unmeasured' : fmt(t.diameter_um)),
        el('td', null, t.circularity == null ? '' : Math.round(t.circularity * 100) + '%'),
        el('td', null, t.is_boundary ? 'Y' : 'N'), el('td', null, t.source || '')));
    }
    if (store.tubercles.size > TABLE_MAX) rows.push(moreRow(7, store.tubercles.size, 'tubercles'));
    tb.replaceChildren(...rows);
    const eb = $('#itc-table tbody');
    const erows = store.edges.slice(0, TABLE_MAX).map(e => el('tr', { dataset: { a: e.id1, b: e.id2 } },
      el('td', null, e.id1), el('td', null, e.id2), el('td', null, fmt(e.center_distance_um)), el('td', null, fmt(e.edge_distance_um))));
    if (store.edges.length > TABLE_MAX) erows.push(moreRow(4, store.edges.length, 'connections'));
    eb.replaceChildren(...erows);
    stale = false;
  }

  $('#tub-table').addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-id]');
    if (!tr) return;
    store.selection = { tub: Number(tr.dataset.id), edge: null };
    ws.selectionChanged(false);
    const t = store.tubercles.get(Number(tr.dataset.id));
    if (t) centerOn(t.centroid_x, t.centroid_y);
  });
  $('#itc-table').addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-a]');
    if (!tr) return;
    store.selection = { tub: null, edge: [Number(tr.dataset.a), Number(tr.dataset.b)] };
    for (const r of document.querySelectorAll('#itc-table tr.selected')) r.classList.remove('selected');
    tr.classList.add('selected');
    ws.selectionChanged(false);
  });
  function centerOn(x, y) {
    const v = ws.viewer;
    const [sx, sy] = v.toScreen(x, y);
    if (sx < 0 || sy < 0 || sx > v.cssW || sy > v.cssH) v.panBy(v.cssW / 2 - sx, v.cssH / 2 - sy);
  }
  ws.selectionListeners.push((fromCanvas) => {
    for (const r of document.querySelectorAll('#tub-table tr.selected')) r.classList.remove('selected');
    const id = store.selection.tub;
    if (id == null) return;
    const tr = document.querySelector(`#tub-table tr[data-id="${id}"]`);
    if (tr) { tr.classList.add('selected'); if (fromCanvas && visible) tr.scrollIntoView({ block: 'nearest' }); }
  });

  function renderStats() {
    const s = store.stats;
    const t = $('#stats-table');
    if (!s) { t.replaceChildren(); return; }
    const cal = store.umPerPx > 0;
    const w = ws.settings;
    const hex = el('td', { className: 'hex ' + HEX_CLASS(s.hexagonalness_score || 0) }, s.reliability === 'none' ? '-' : fmt(s.hexagonalness_score, 3) + ' / 1.0');
    const note = s.reliability === 'low' ? ` (${s.n_nodes} nodes - low confidence)` : s.reliability === 'none' ? ' (insufficient data)' : '';
    const rows = [
      ['Tubercles', `${s.n_tubercles} (${s.n_interior} interior, ${s.n_boundary} boundary)`],
      ['Mean diameter ± SD', cal ? `${fmt(s.mean_diameter_um)} ± ${fmt(s.std_diameter_um)} µm (n = ${s.n_tubercles - (s.n_unmeasured || 0)})` : 'calibrate first'],
      ['Unmeasured', `${s.n_unmeasured || 0}`, s.n_unmeasured ? ' (base not measured: left out of the diameter and space means)' : ''],
      // the rule behind these diameters (the set's measurement version)
      ['Measured with', store.set && store.set.measurement ? store.set.measurement : '-',
        store.set && store.set.measurement_outdated ? ` (this server measures with ${store.set.current_measurement})` : ''],
      ['Connections', s.n_edges],
      ['Mean space ± SD', cal ? `${fmt(s.mean_space_um)} ± ${fmt(s.std_space_um)} µm (n = ${s.n_edges})` : 'calibrate first'],
      ['Classification', s.suggested_genus ? `${s.suggested_genus} (${s.classification_confidence})` : '-'],
      ['Hexagonalness', hex, note],
      [`Spacing uniformity (${Math.round(w.hex_spacing_weight * 100)}%)`, fmt(s.spacing_uniformity, 3)],
      [`Degree score (${Math.round(w.hex_degree_weight * 100)}%)`, fmt(s.degree_score, 3)],
      [`Edge ratio score (${Math.round(w.hex_edge_ratio_weight * 100)}%)`, fmt(s.edge_ratio_score, 3)],
      ['Reliability', s.reliability],
      ['Spacing CV', fmt(s.spacing_cv, 3)],
      ['Mean degree', `${fmt(s.mean_degree)} neighbours`],
    ];
    t.replaceChildren(...rows.map(([k, v, extra]) => el('tr', null, el('th', null, k), v instanceof Node ? v : el('td', null, String(v)), extra ? el('td', { className: 'muted' }, extra) : null)));
    drawHistogram(s.degree_histogram || []);
  }

  function drawHistogram(h) {
    const c = $('#degree-chart');
    const ctx = c.getContext('2d');
    const css = getComputedStyle(document.documentElement);
    ctx.fillStyle = css.getPropertyValue('--chart-bg').trim() || '#1a1a2e';
    ctx.fillRect(0, 0, c.width, c.height);
    const max = Math.max(1, ...h);
    const bw = (c.width - 20) / Math.max(1, h.length);
    ctx.font = '10px sans-serif';
    ctx.textAlign = 'center';
    h.forEach((n, d) => {
      const bh = (c.height - 30) * n / max;
      ctx.fillStyle = d === 6 ? '#22c55e' : '#60a5fa';
      ctx.fillRect(10 + d * bw + 2, c.height - 15 - bh, bw - 4, bh);
      ctx.fillStyle = css.getPropertyValue('--panel-text').trim() || '#e2e8f0';
      ctx.fillText(String(d), 10 + d * bw + bw / 2, c.height - 3);
      if (n) ctx.fillText(String(n), 10 + d * bw + bw / 2, c.height - 18 - bh);
    });
  }

  async function refreshHistory() {
    if (!store.set) return;
    const res = await api('GET', `api/sets/${store.set.id}/history`);
    if (!res.ok) return;
    $('#history-list').replaceChildren(...res.data.history.map(h => {
      const details = [];
      for (const k of ['n_tubercles', 'n_edges', 'method', 'graph_type', 'hexagonalness', 'source_set_name']) if (h[k] !== undefined && h[k] !== null) details.push(`${k}: ${typeof h[k] === 'number' ? +h[k].toFixed(3) : h[k]}`);
      const li = el('li', null, el('b', null, h.type.replace(/_/g, ' ')), ' ', el('span', { className: 'muted', title: h.timestamp }, relTime(h.timestamp)), ' ', h.user ? `by ${h.user}` : '',
        h.summary ? el('div', { className: 'history-summary' }, h.summary) : null, details.length ? el('div', { className: 'muted' }, details.join(', ')) : null);
      if (h.parameters) li.append(el('button', { type: 'button', className: 'link restore', onclick: () => { ws.applyParams(h.parameters); toast('Parameters restored to the Extraction form', 'success'); ws.showTab('extraction'); } }, 'Restore params'));
      return li;
    }));
  }

  // ---- the set's steps ----
  let stepsTimer = null, stepsBusy = false;
  async function refreshSteps() {
    if (!store.set || !visible || stepsBusy) return;
    stepsBusy = true;
    try {
      const id = store.set.id;
      const res = await api('GET', `api/sets/${id}/journal`);
      if (!res.ok || !store.set || store.set.id !== id) return;
      $('#steps-list').replaceChildren(...res.data.actions.map(a => {
        const who = (a.user || 'someone') + (a.agent_run_id ? ` (agent run ${a.agent_run_id})` : '');
        const showWhy = a.state === 'done' && !a.can_undo && a.kind !== 'undo' && a.kind !== 'redo';
        return el('li', { className: 'step state-' + a.state + (a.mine ? ' mine' : ''), dataset: { op: String(a.id) } },
          el('span', { className: 'step-label' }, a.label), ' ',
          el('span', { className: 'step-who muted', title: a.timestamp }, `${who}, ${relTime(a.timestamp)}`), ' ',
          a.state !== 'done' ? el('span', { className: 'badge' }, a.state) : null,
          el('button', { type: 'button', className: 'small step-undo', disabled: !a.can_undo, title: a.can_undo ? 'Undo only this step' : (a.why || ''), onclick: () => undoStep(a) }, 'Undo'),
          showWhy ? el('div', { className: 'step-why warn-text' }, `Cannot undo: ${a.why}`) : null);
      }));
    } finally {
      stepsBusy = false;
    }
  }
  async function undoStep(a) {
    if (!a.mine && !(await confirmDialog('Undo a step of ' + (a.user || 'someone'), `Undo "${a.label}", a step ${a.user || 'someone else'} made? Their later steps stay.`, 'Undo their step'))) return;
    const res = await api('POST', `api/sets/${store.set.id}/journal/${a.id}/undo`);
    if (!res.ok) { toast(`Cannot undo: ${errorText(res)}`, 'error', 6000); refreshSteps(); return; }
    await store.apply(res.data);
    toast(`Undone: ${a.label}`, 'success', 2000);
    refreshSteps();
  }
  function stepsSoon() {
    clearTimeout(stepsTimer);
    stepsTimer = setTimeout(refreshSteps, 250);
  }

  function renderDownloads() {
    if (!store.set) return;
    const id = store.set.id;
    $('#dl-tub-csv').href = url(`api/sets/${id}/tubercles.csv`);
    $('#dl-itc-csv').href = url(`api/sets/${id}/edges.csv`);
    $('#dl-summary-csv').href = url(`api/sets/${id}/summary.csv`);
    $('#dl-json').href = url(`api/images/${store.imageId}/export.json`);
    $('#dl-overlay').href = url(`api/sets/${id}/overlay.png`);
    // the server names it too (Content-Disposition); this is the same name
    const part = (x) => String(x).replace(/[^A-Za-z0-9._-]/g, '_');
    const stem = store.image ? part(store.image.name.replace(/\.[^.]*$/, '')) : 'image';
    $('#dl-overlay').download = `${stem}_${part(store.set.name)}_overlay.png`;
  }

  $('#import-button').addEventListener('click', async () => {
    const f = $('#import-file').files[0];
    if (!f) { toast('Choose an annotation file first', 'warning'); return; }
    const fd = new FormData();
    fd.append('file', f);
    const res = await send('POST', `api/images/${store.imageId}/import`, fd);
    const box = $('#import-report');
    if (!res.ok) {
      box.replaceChildren(el('p', { className: 'warn-text' }, `${f.name}: nothing imported. ${errorText(res)}`));
      box.hidden = false;
      toast('Import refused: ' + errorText(res), 'error');
      return;
    }
    await store.loadSets();
    const first = res.data.sets && res.data.sets[0];
    if (first) await ws.switchSet(first.id);
    // the report: what was read, and what was repaired or renamed on the way
    const d = res.data;
    const lines = d.report || [];
    box.replaceChildren(
      el('h4', null, `Imported from ${f.name} (format version ${d.version})`),
      el('ul', { className: 'plain', id: 'import-sets' }, ...d.sets.map(x => el('li', null, `“${x.name}”: ${x.n_tubercles} tubercles, ${x.n_edges} connections`))),
      lines.length ? el('p', null, 'Repaired or changed on the way:') : el('p', { className: 'muted' }, 'Nothing needed repairing.'),
      lines.length ? el('ul', { id: 'import-notes' }, ...lines.map(l => el('li', null, l))) : null);
    box.hidden = false;
    toast(`Imported ${d.sets.length} set(s)${lines.length ? `, ${lines.length} note(s) in the report` : ''}`, 'success');
  });

  function renderAll() {
    $('#data-set-name').textContent = store.set ? `“${store.set.name}”` : '';
    renderCalibration();
    renderParams();
    renderStats();
    renderDownloads();
    if (visible) renderTables(); else stale = true;
  }
  let timer = null;
  store.addEventListener('data', () => { clearTimeout(timer); timer = setTimeout(renderAll, 30); });
  let lastSet = null;
  store.addEventListener('set', () => {
    if (store.set && store.set.id !== lastSet) { lastSet = store.set.id; refreshHistory(); }
    renderDownloads();
    stepsSoon();
  });
  return {
    renderCalibration, refreshHistory, refreshSteps,
    shown(name) {
      visible = name === 'data';
      if (visible) { renderAll(); refreshHistory(); refreshSteps(); if (stale) renderTables(); }
    },
  };
}
