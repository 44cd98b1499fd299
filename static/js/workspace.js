// workspace.js - the workspace page of one image: wires the viewer, the
// overlay, the store (server state), the editor and the tabs together, and
// owns the stats bar, the set actions, keyboard shortcuts, the panel
// resizer and the conflict dialog.

import { api, errorText, url } from './api.js';
import { $, $$, el, fmt, modal, promptDialog, confirmDialog, toast, setToastSink } from './dom.js';
import { Viewer } from './viewer.js';
import { drawOverlay, levelOfDetail } from './overlay.js';
import { indexOf } from './spatial.js';
import { Store, setUrl } from './store.js';
import { Editor } from './editor.js';
import { initImageTabs } from './tab_image.js';
import { initExtraction } from './tab_extraction.js';
import { initEditTab } from './tab_edit.js';
import { initData } from './tab_data.js';
import { initLog } from './tab_log.js';
import { initSettings, applyTheme } from './tab_settings.js';
import { initAgentExtraction } from './tab_agent_extraction.js';
import { initAgentEdit } from './tab_agent_edit.js';
import { initKeyboardCursor } from './keyboard_cursor.js';
import { followJob, onResume, resumeJobs } from './job_follow.js';

const root = $('#workspace');
// The server's limit on a set's name (FS_SET_NAME_MAX), the same in every dialog.
export const SET_NAME_MAX = 64;
const imageId = Number(root.dataset.imageId);

const ws = {
  store: new Store(imageId),
  settings: {},
  defaults: {},
  canManage: root.dataset.canManage === 'true',
  toggles: {},
  tabs: {},
  modeListeners: [],
  selectionListeners: [],
};
window.fishscale = ws; // for tests and the benchmark: read-only inspection

const store = ws.store;

ws.overlayOptions = () => {
  const s = ws.settings, t = ws.toggles;
  return {
    showTubes: t.tubes, showItcs: t.itcs, showTubeIds: t.tubeIds, showItcIds: t.itcIds,
    scaleBar: t.scale, grid: t.grid, ellipses: t.ellipses, colorMode: t.colorMode,
    tubercleColor: s.tubercle_color, connectionColor: s.connection_color, selectedColor: s.selected_color,
    boundaryColor: s.boundary_color, manualColor: s.manual_color, gridColor: s.grid_color,
    gridOpacity: s.grid_opacity, tubercleWidth: s.tubercle_line_width, connectionWidth: s.connection_line_width,
    endpoints: s.connection_endpoints, idTextSize: s.id_text_size, scalePosition: s.scale_bar_position,
  };
};

let overlayOpts = null;
ws.overlayHooks = []; // extra layers (the agent tabs' approval preview)
ws.viewer = new Viewer($('#canvas'), $('#viewer'), (ctx, view, phase) => {
  drawOverlay(ctx, view, store, overlayOpts || (overlayOpts = ws.overlayOptions()), phase);
  // the hooks' layers are live (the viewer's 'set' tiles do not hold them)
  if (phase !== 'set') for (const f of ws.overlayHooks) f(ctx, view, phase === 'live' ? 'image' : phase);
});
let renderGen = 0;
ws.render = () => { overlayOpts = ws.overlayOptions(); renderGen++; ws.viewer.request(); };
ws.viewer.overlayKey = () => `${store.version}:${renderGen}`;
// A large set is drawn at the level of detail of what is on screen, and
// zoomed in its overlay is kept in tiles (viewer.js, overlay.js).
const LARGE_SET = 10000;
ws.viewer.overlayLod = (rect) => levelOfDetail(store, rect).lod;
// for tests and the benchmark: what the current view shows
ws.viewInfo = () => ({ ...levelOfDetail(store, ws.viewer.visibleRect()), drawn: store.drawn || null, tiled: ws.viewer.tileOverlay && !ws.viewer.cache });
ws.viewer.onViewChange = (v) => { $('#zoom-readout').textContent = Math.round(v.scale * 100) + '%'; };

ws.canEdit = () => !!store.set;
ws.emitMode = (mode, prev) => { for (const f of ws.modeListeners) f(mode, prev); };
ws.selectionChanged = (fromCanvas) => {
  for (const f of ws.selectionListeners) f(fromCanvas);
  ws.viewer.request();
};
ws.defaultDiameterUm = () => Number(ws.settings.editor_default_diameter_um) || 0;

ws.log = (event_type, details) => api('POST', 'api/log', { event_type, image_id: imageId, details });
setToastSink((type, message) => { ws.log(`toast_${type}`, { message }); });

// ---- settings ----
ws.saveSettings = async (patch) => {
  Object.assign(ws.settings, patch);
  ws.render();
  const res = await api('PUT', 'api/settings', { settings: patch });
  if (!res.ok) { toast('Setting not saved: ' + errorText(res), 'error'); return false; }
  ws.settings = res.data.settings;
  ws.render();
  return true;
};

// ---- image ----
function displayUrl(u, revision) {
  return u + (u.includes('?') ? '&' : '?') + 'r=' + revision;
}

// meta: a promise of the image's JSON (its tiles, for a large image)
ws.loadImagePixels = (src, meta) => new Promise((resolve) => {
  const img = new Image();
  img.onload = async () => {
    try { await img.decode(); } catch { /* drawn anyway */ }
    let m = store.image;
    try { if (meta) m = await meta; } catch { /* drawn untiled */ }
    ws.viewer.setImage(img, m);
    $('#viewer-loading').hidden = true;
    resolve(true);
  };
  img.onerror = () => { $('#viewer-loading').textContent = 'The image could not be loaded.'; resolve(false); };
  img.src = src || displayUrl(store.image.urls.display, store.image.revision);
});

ws.reloadImage = async () => {
  ws.imageChanging = true;
  try {
    await store.loadImage();
    await ws.loadImagePixels();
    await store.reload();
  } finally {
    ws.imageChanging = false;
  }
};
store.addEventListener('image-stale', async () => {
  if (ws.imageChanging) return;
  try {
    await ws.reloadImage();
  } catch (e) {
    imageGone(e);
    return;
  }
  ws.viewer.fit();
  toast('The image was rotated or cropped (or that was undone) elsewhere: shown as it is now', 'info');
});

// The image was deleted (or became invisible) while open: say so once and
// stop asking the server about it.
function imageGone(e) {
  if (ws.gone) return;
  ws.gone = true;
  store.stopPolling();
  toast(`This image is no longer available (${e && e.message ? e.message : 'deleted'}): go back to the library`, 'error');
}
store.addEventListener('gone', (e) => imageGone(e.detail));

// ---- stats bar and sets ----
function renderStats() {
  const s = store.stats || {};
  $('#st-tub').textContent = store.tubercles.size;
  $('#st-itc').textContent = store.edges.length;
  const cal = store.umPerPx > 0 && store.tubercles.size > 0;
  if (cal) {
    $('#st-diam').textContent = s.mean_diameter_um != null ? `${fmt(s.mean_diameter_um)} ± ${fmt(s.std_diameter_um)} µm` : '-';
    $('#st-space').textContent = s.mean_space_um != null ? `${fmt(s.mean_space_um)} ± ${fmt(s.std_space_um)} µm` : '-';
  } else {
    // uncalibrated: the same figures in pixels (sample SD, negative space as 0,
    // unmeasured tubercles left out: the conventions of lib/analysis/metrics.h),
    // so the bar is never blank; the server's own when its statistics are of
    // these tubercles, all measured (70,000 of them cost a tenth of a second
    // here; an unmeasured one leaves spaces out, which the server's figures
    // do not tell apart from a zero)
    const ours = s.n_tubercles === store.tubercles.size && s.n_edges === store.edges.length && !s.n_unmeasured && s.mean_diameter_px != null;
    const d = ours ? [s.mean_diameter_px, s.std_diameter_px] : meanSd([...store.tubercles.values()].filter(t => t.radius_px != null).map(t => 2 * t.radius_px));
    const sp = ours ? (s.n_edges ? [s.mean_space_px, s.std_space_px] : null) : meanSd(store.edges.filter(e => e.edge_distance_px != null).map(e => Math.max(0, e.edge_distance_px)));
    $('#st-diam').textContent = d ? `${fmt(d[0], 1)} ± ${fmt(d[1], 1)} px` : '-';
    $('#st-space').textContent = sp ? `${fmt(sp[0], 1)} ± ${fmt(sp[1], 1)} px` : '-';
  }
  // tubercles without a measured base: left out of the means, counted here
  $('#st-unmeasured').textContent = s.n_unmeasured || 0;
  $('#st-unmeasured-wrap').hidden = !(s.n_unmeasured > 0);
  const hex = $('#st-hex');
  hex.textContent = s.reliability === 'none' || s.hexagonalness_score == null ? '-' : fmt(s.hexagonalness_score, 3);
  hex.classList.toggle('hex-low', s.reliability === 'low');
}

// The measurement version of the set's diameters. One that is not the
// server's (an older rule, v0 = before versioning, or another rule than the
// configured one, older or newer) says which rule measured it, names the
// server's in its title, and offers Re-measure.
function renderMeasurement() {
  const set = store.set;
  const v = set ? set.measurement_version : null;
  const old = !!(set && set.measurement_outdated);
  const b = $('#st-mver');
  b.textContent = v == null ? '-' : `v${v}`;
  b.classList.toggle('hex-low', old);
  const note = $('#st-mver-note');
  note.textContent = old ? `measured ${v ? 'with ' : ''}${set.measurement}` : '';
  note.title = old ? `This server measures with ${set.current_measurement}; Re-measure measures every diameter again with it` : '';
  note.hidden = !old;
  b.title = !set ? '' : old ? `Measured ${v ? 'with ' : ''}${set.measurement}; this server measures with ${set.current_measurement}` : `Measured with ${set.measurement}, this server's measurement`;
  $('#remeasure').hidden = !old;
}

function remeasuredToast(m) {
  toast(`Re-measured: ${m.n_changed} of ${m.n_tubercles} diameters changed${m.n_unmeasured ? `, ${m.n_unmeasured} unmeasured` : ''} (Undo restores them)`, 'success');
}

// A large image's set is re-measured by a background job (202): its
// progress shows beside the button and the set reloads when it is done.
// The job stores nothing when the set was edited meanwhile, and says so.
// A job found running when the page opens is followed the same way.
async function followRemeasure(started) {
  const job = await followJob(started, { box: $('#remeasure-job'), bar: $('#remeasure-job-bar'),
    text: $('#remeasure-job-text'), cancel: $('#remeasure-job-cancel'), label: 'Re-measuring' });
  if (!job) return;
  if (job.state === 'done') {
    await store.poll();
    remeasuredToast(job.result);
  } else if (job.state === 'cancelled') {
    toast('Re-measure cancelled: the set is unchanged', 'info');
  } else {
    toast('Re-measure failed: ' + (job.error || job.state), 'error', 10000);
  }
}

async function remeasuring(work) {
  const btn = $('#remeasure');
  btn.disabled = true;
  try {
    await work();
  } finally {
    btn.disabled = false;
  }
}

function remeasure() {
  return remeasuring(async () => {
    const res = await store.change('POST', 'remeasure', {}, 're-measure');
    if (res.status === 202) await followRemeasure(res.data.job);
    else if (res.ok && res.data.remeasure) remeasuredToast(res.data.remeasure);
  });
}
onResume('remeasure', (job) => remeasuring(() => followRemeasure(job)));

function meanSd(v) {
  if (!v.length) return null;
  const m = v.reduce((a, b) => a + b, 0) / v.length;
  const sd = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - m) * (b - m), 0) / (v.length - 1)) : 0;
  return [m, sd];
}

function renderSets() {
  const sel = $('#set-select');
  sel.replaceChildren(...store.sets.map(s => el('option', { value: String(s.id), selected: store.set && s.id === store.set.id }, s.name + (s.dirty ? ' *' : ''))));
  const dirty = store.set && store.set.dirty;
  $('#dirty-badge').hidden = !dirty;
  $('#edit-set-name').textContent = store.set ? store.set.name : '';
  document.title = `${store.image ? store.image.name : ''}${dirty ? ' *' : ''} · fishscale`;
}

store.addEventListener('set', () => { renderSets(); renderStats(); renderMeasurement(); });
store.addEventListener('sets', renderSets);
store.addEventListener('data', (e) => {
  ws.viewer.tileOverlay = store.tubercles.size > LARGE_SET;
  renderStats();
  ws.viewer.request();
  // a set read whole: its connections' grid (spatial.js), which a view at
  // fit does not need, is made once the page is idle, before a zoom asks
  if (e.detail && e.detail.full && store.edges.length > LARGE_SET) {
    const v = store.version;
    const build = () => { if (store.version === v) indexOf(store).edgeGrid(); };
    if (window.requestIdleCallback) requestIdleCallback(build); else setTimeout(build, 500);
  }
});
store.addEventListener('remote', (e) => {
  if (ws.agentQuiet && !e.detail.deleted) return; // an agent tab is following its own run
  if (e.detail.deleted) toast('The set was deleted by someone else', 'warning');
  else toast('The set was changed elsewhere: updated', 'info');
});

// The address names the open set, so a reload or a copied link opens that
// set again (the page route reads ?set=ID) rather than the image's first.
store.addEventListener('set', () => {
  if (!store.set) return;
  const q = new URLSearchParams(location.search);
  if (q.get('set') === String(store.set.id)) return;
  q.set('set', String(store.set.id));
  history.replaceState(history.state, '', `${location.pathname}?${q}`);
});

async function switchSet(id) {
  if (!id || (store.set && store.set.id === id)) return;
  await store.queue;
  ws.editor.setMode(null);
  try {
    await store.openSet(id);
  } catch (e) {
    toast(String(e.message || e), 'error');
  }
}
ws.switchSet = switchSet;

function stepSet(dir) {
  if (!store.sets.length || !store.set) return;
  const i = store.sets.findIndex(s => s.id === store.set.id);
  const n = store.sets[(i + dir + store.sets.length) % store.sets.length];
  switchSet(n.id);
}

async function createSet(name, copyFrom) {
  const body = { name };
  if (copyFrom) body.copy_from = copyFrom;
  const res = await api('POST', `api/images/${imageId}/sets`, body);
  if (!res.ok) { toast(errorText(res), 'error'); return null; }
  await store.loadSets();
  await store.openSet(res.data.set.id);
  return res.data.set;
}
ws.createSet = createSet;

async function newSetDialog() {
  const name = el('input', { type: 'text', id: 'new-set-name', maxLength: SET_NAME_MAX, value: `Set ${store.sets.length + 1}` });
  const from = el('select', { id: 'new-set-from' },
    el('option', { value: '' }, 'Empty'),
    ...store.sets.map(s => el('option', { value: String(s.id) }, 'Copy from: ' + s.name)));
  const body = el('div', { className: 'stack' }, el('label', null, 'Name', name), el('label', null, 'Contents', from));
  const v = await modal({ title: 'New set', body, buttons: [{ text: 'Cancel', value: null }, { text: 'Create', value: 'ok', primary: true, id: 'new-set-create' }], init: () => name.select() });
  if (v !== 'ok') return;
  const set = await createSet(name.value.trim(), Number(from.value) || 0);
  if (set) toast(`Set "${set.name}" created`, 'success');
}

async function saveSet() {
  await store.queue;
  if (!store.set) return;
  const res = await store.change('POST', 'save', {}, 'save');
  if (res.ok) { toast(`Set "${store.set.name}" saved`, 'success'); ws.tabs.data && ws.tabs.data.refreshHistory(); }
}
ws.saveSet = saveSet;

async function saveAs() {
  const name = await promptDialog('Save As', 'Name of the new set', store.set.name + ' copy', 'Save');
  if (!name) return;
  const set = await createSet(name, store.set.id);
  if (set) { await store.change('POST', 'save', {}, 'save'); toast(`Saved as "${set.name}"`, 'success'); }
}

async function renameSet() {
  const name = await promptDialog('Rename set', 'New name', store.set.name, 'Rename');
  if (!name) return;
  const res = await store.change('PATCH', '', { name }, 'rename');
  if (res.ok) { await store.loadSets(); toast('Set renamed', 'success'); }
}

async function duplicateSet() {
  const name = await promptDialog('Duplicate set', 'Name of the copy', store.set.name + ' (2)', 'Duplicate');
  if (!name) return;
  const res = await api('POST', `api/sets/${store.set.id}/duplicate`, { name });
  if (!res.ok) { toast(errorText(res), 'error'); return; }
  await store.loadSets();
  await store.openSet(res.data.set.id);
  toast(`Set "${res.data.set.name}" created`, 'success');
}

async function deleteSet() {
  if (store.sets.length <= 1) { toast('The last set cannot be deleted', 'warning'); return; }
  if (!(await confirmDialog('Delete set', `Delete the set "${store.set.name}" with its ${store.tubercles.size} tubercles? This cannot be undone.`, 'Delete', true))) return;
  const res = await store.change('DELETE', '', {}, 'delete set');
  if (res.ok) {
    await store.loadSets();
    if (store.sets.length) await store.openSet(store.sets[0].id);
    toast('Set deleted', 'success');
  }
}

async function revertSet() {
  if (!(await confirmDialog('Revert set', 'Go back to the last saved state of this set?', 'Revert', true))) return;
  const res = await store.change('POST', 'revert', {}, 'revert');
  if (res.ok) toast('Back to the last saved state', 'success');
}

// ---- conflicts and errors ----
// what a request was, as the end of "Could not …" (callers name some by a noun)
const WHAT_VERB = { extraction: 'extract', connections: 'regenerate the connections', 'optimiser step': 'run the optimiser step', change: 'change the set' };
store.onError = (res, what) => {
  toast(`Could not ${WHAT_VERB[what] || what}: ${errorText(res)}`, 'error');
};

store.onConflict = async (req, res) => {
  const body = el('div', null,
    el('p', null, `Someone else changed the set "${store.set.name}" while you were working (it is now at revision ${res.data.revision}). Your ${req.what} was not applied.`),
    el('p', null, 'Reload shows their version (your change is dropped). "Save mine as a new set" copies the current set into a new set and applies your change there, so both versions are kept.'));
  const choice = await modal({
    title: 'The set has changed', body,
    buttons: [{ text: 'Reload', value: 'reload', primary: true, id: 'conflict-reload' }, { text: 'Save mine as a new set', value: 'fork', id: 'conflict-fork' }],
  });
  if (choice === 'fork') {
    const base = store.set;
    const name = [...base.name].slice(0, SET_NAME_MAX - 7).join('') + ' (mine)';
    const cr = await api('POST', `api/images/${imageId}/sets`, { name, copy_from: base.id });
    if (!cr.ok) { toast('Could not create the new set: ' + errorText(cr), 'error'); await store.reload(); return; }
    await store.loadSets();
    await store.openSet(cr.data.set.id);
    const again = await store.send(store.set.id, req, store.revision);
    if (again.ok) {
      await store.apply(again.data);
      toast(`Your ${req.what} is in the new set "${store.set.name}"`, 'success');
    } else {
      toast(`Your ${req.what} could not be applied to the copy: ${errorText(again)}`, 'error', 8000);
    }
    return;
  }
  await store.reload();
  toast('Reloaded the current version', 'info');
};

// ---- tabs and panel ----
// The tab bar is an ARIA tablist: one tab in the Tab order (the selected
// one), arrows move between tabs (and show them), Home and End go to the ends.
function showTab(name) {
  for (const b of $$('#tabs [data-tab]')) {
    const on = b.dataset.tab === name;
    b.classList.toggle('active', on);
    b.setAttribute('aria-selected', on ? 'true' : 'false');
    b.tabIndex = on ? 0 : -1;
  }
  for (const p of $$('.tab-panel')) p.hidden = p.dataset.panel !== name;
  for (const t of Object.values(ws.tabs)) if (t && t.shown) t.shown(name);
}
ws.showTab = showTab;

function initTablist() {
  const tabs = $$('#tabs [data-tab]');
  for (const b of tabs) {
    b.id = 'tabbtn-' + b.dataset.tab;
    b.setAttribute('aria-controls', 'tab-' + b.dataset.tab);
    const panel = $('#tab-' + b.dataset.tab);
    if (panel) { panel.setAttribute('role', 'tabpanel'); panel.setAttribute('aria-labelledby', b.id); panel.tabIndex = 0; }
  }
  $('#tabs').setAttribute('aria-label', 'Workspace tabs');
  $('#tabs').addEventListener('keydown', (e) => {
    const i = tabs.indexOf(document.activeElement);
    if (i < 0) return;
    let j = null;
    if (e.key === 'ArrowRight' || e.key === 'ArrowDown') j = (i + 1) % tabs.length;
    else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') j = (i - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = tabs.length - 1;
    if (j === null) return;
    e.preventDefault();
    e.stopPropagation();
    showTab(tabs[j].dataset.tab);
    tabs[j].focus();
  });
  const active = tabs.find(b => b.classList.contains('active')) || tabs[0];
  showTab(active.dataset.tab);
}

function initPanel() {
  $('#tabs').addEventListener('click', (e) => { const b = e.target.closest('[data-tab]'); if (b) showTab(b.dataset.tab); });
  initTablist();
  const panel = $('#panel');
  const setWidth = (w) => {
    const max = window.innerWidth * 0.8;
    panel.style.width = Math.max(300, Math.min(max, w)) + 'px';
  };
  setWidth(ws.settings.tabs_panel_width || 420);
  const rz = $('#resizer');
  rz.addEventListener('pointerdown', (e) => {
    rz.setPointerCapture(e.pointerId);
    const move = (ev) => setWidth(window.innerWidth - ev.clientX);
    const up = () => {
      rz.removeEventListener('pointermove', move);
      rz.removeEventListener('pointerup', up);
      ws.saveSettings({ tabs_panel_width: Math.round(panel.getBoundingClientRect().width) });
    };
    rz.addEventListener('pointermove', move);
    rz.addEventListener('pointerup', up);
  });
}

function initToggles() {
  const t = ws.toggles;
  const map = { tubeIds: 'tg-tube-ids', tubes: 'tg-tubes', itcIds: 'tg-itc-ids', itcs: 'tg-itcs', scale: 'tg-scale', grid: 'tg-grid', ellipses: 'tg-ellipses' };
  $('#tg-tube-ids').checked = !!ws.settings.show_tubercle_ids;
  $('#tg-scale').checked = ws.settings.show_scale_bar !== false;
  $('#tg-color-mode').value = ws.settings.tubercle_color_mode || 'source';
  const read = () => {
    for (const [k, id] of Object.entries(map)) t[k] = $('#' + id).checked;
    t.colorMode = $('#tg-color-mode').value;
    renderLegend();
    ws.render();
  };
  $('#toggles').addEventListener('change', read);
  read();
}

// What the overlay's colours mean in the current colour mode (the same
// colours overlay.js draws with).
function renderLegend() {
  const s = ws.settings, mode = ws.toggles.colorMode;
  const items = [];
  if (mode === 'source') items.push([s.tubercle_color, 'extracted'], [s.manual_color, 'manual'], ['#ff00ff', 'agent'], ['#00bfff', 'lattice']);
  else if (mode === 'boundary') items.push([s.tubercle_color, 'interior'], [s.boundary_color, 'boundary']);
  else items.push([s.tubercle_color, 'tubercle']);
  items.push([s.connection_color, 'connection', 'line'], [s.selected_color, 'selected']);
  if (ws.toggles.grid) items.push([s.grid_color, 'grid', 'line']);
  // the same shade scale_region.js draws outside the scale surface
  if ($('#tg-region') && $('#tg-region').checked) items.push(['rgba(255, 140, 0, 0.32)', 'not scale surface']);
  $('#overlay-legend').replaceChildren(...items.map(([c, label, kind]) =>
    el('span', { className: 'legend-item' }, el('span', { className: 'swatch' + (kind === 'line' ? ' line' : ''), 'aria-hidden': 'true', dataset: { color: c || '' } }), label)));
  for (const sw of $$('#overlay-legend .swatch')) sw.style.setProperty('--swatch', sw.dataset.color);
}
ws.renderLegend = renderLegend;

function initStatsBar() {
  $('#set-select').addEventListener('change', (e) => switchSet(Number(e.target.value)));
  $('#set-prev').addEventListener('click', () => stepSet(-1));
  $('#set-next').addEventListener('click', () => stepSet(1));
  $('#set-new').addEventListener('click', newSetDialog);
  $('#set-save').addEventListener('click', saveSet);
  $('#set-save-as').addEventListener('click', saveAs);
  const menu = $('#set-menu');
  const close = (f) => () => { menu.open = false; f(); };
  $('#set-rename').addEventListener('click', close(renameSet));
  $('#set-duplicate').addEventListener('click', close(duplicateSet));
  $('#set-delete').addEventListener('click', close(deleteSet));
  $('#set-revert').addEventListener('click', close(revertSet));
  $('#zoom-in').addEventListener('click', () => ws.viewer.zoomStep(1));
  $('#zoom-out').addEventListener('click', () => ws.viewer.zoomStep(-1));
  $('#zoom-fit').addEventListener('click', () => ws.viewer.fit());
  $('#mode-exit').addEventListener('click', () => ws.editor.setMode(null));
  $('#mode-badge').addEventListener('click', () => ws.editor.setMode(null));
}

// Tab in the image selects the next tubercle; after the last one it lets
// the focus go on (the image never traps the keyboard). True when it took
// the key.
function cycleSelection() {
  const ids = [...store.tubercles.keys()];
  if (!ids.length) return false;
  const i = store.selection.tub == null ? -1 : ids.indexOf(store.selection.tub);
  if (i === ids.length - 1) {
    store.selection = { tub: null, edge: null };
    ws.selectionChanged(true);
    return false;
  }
  store.selection = { tub: ids[i + 1], edge: null };
  ws.selectionChanged(true);
  return true;
}

function initKeys() {
  document.addEventListener('keydown', (e) => {
    const inInput = e.target.closest && e.target.closest('input, select, textarea');
    if ($('#modal').open) return;
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && e.key.toLowerCase() === 's') { e.preventDefault(); saveSet(); return; }
    if (e.key === 'Escape') {
      // Escape in a field (the scale bar's µm after measuring) also ends the mode
      if (inInput) { e.target.blur(); if (ws.editor.mode) ws.editor.setMode(null); return; }
      if (ws.editor.mode) ws.editor.setMode(null);
      else if (store.multi.tubs.size || store.multi.edges.size) { store.multi = { tubs: new Set(), edges: new Set() }; store.temp.rect = null; ws.selectionChanged(); }
      else { store.selection = { tub: null, edge: null }; ws.selectionChanged(); }
      return;
    }
    if (inInput) {
      // Enter in a field of a row applies it (the row's first button)
      if (e.key === 'Enter' && e.target.matches('input[type=number], input[type=text]')) {
        const row = e.target.closest('.ws-right .row');
        const b = row && [...row.querySelectorAll('button')].find(x => !x.disabled);
        if (b) { e.preventDefault(); b.click(); }
      }
      return;
    }
    if (e.target.closest && e.target.closest('[role=tablist]')) return;
    if (ctrl && e.key.toLowerCase() === 'z') { e.preventDefault(); ws.tabs.edit.undo(); return; }
    if (ctrl && e.key.toLowerCase() === 'y') { e.preventDefault(); ws.tabs.edit.redo(); return; }
    if (ctrl && e.key.toLowerCase() === 'n') { e.preventDefault(); newSetDialog(); return; }
    if (ctrl && /^[1-9]$/.test(e.key)) { e.preventDefault(); const s = store.sets[Number(e.key) - 1]; if (s) switchSet(s.id); return; }
    if (ctrl) return;
    if (e.key === '+' || e.key === '=') ws.viewer.zoomStep(1);
    else if (e.key === '-') ws.viewer.zoomStep(-1);
    else if (e.key === '0') ws.viewer.fit();
    else if (e.key === 'Delete' || e.key === 'Backspace') { e.preventDefault(); ws.editor.deleteSelected(); }
    else if (e.key === 'Tab' && e.target === $('#viewer') && !e.shiftKey) { if (cycleSelection()) e.preventDefault(); }
    else if (e.key === 'F1' || e.key === '?') { e.preventDefault(); window.open(url('static/help/shortcuts.html'), '_blank', 'noopener'); }
    else if (e.key.startsWith('Arrow')) {
      if (ws.editor.mode === 'add_chain') { if (ws.editor.chainKey(e.key)) e.preventDefault(); }
      else if (store.selection.tub != null) { e.preventDefault(); ws.tabs.edit.nudge(e.key); }
    }
  });
  window.addEventListener('beforeunload', (e) => {
    if (store.busy) { e.preventDefault(); e.returnValue = ''; }
  });
}

async function main() {
  // everything the first frame needs is requested at once
  const firstSet = Number(root.dataset.firstSet) || 0;
  const pSettings = api('GET', 'api/settings');
  const pImage = store.loadImage();
  const pSets = store.loadSets();
  const pSet = firstSet ? api('GET', setUrl(firstSet)) : null;
  const pixels = ws.loadImagePixels(displayUrl(root.dataset.display, root.dataset.revision), pImage);
  const sr = await pSettings;
  if (sr.ok) { ws.settings = sr.data.settings; ws.defaults = sr.data.defaults || {}; }
  applyTheme(ws.settings);
  initPanel();
  initToggles();
  initStatsBar();
  ws.editor = new Editor(ws);
  ws.editor.setMode(null);
  ws.tabs.image = initImageTabs(ws);
  ws.tabs.extraction = initExtraction(ws);
  ws.tabs.edit = initEditTab(ws);
  ws.tabs.data = initData(ws);
  ws.tabs.log = initLog(ws);
  ws.tabs.settings = initSettings(ws);
  ws.tabs.agentExtraction = initAgentExtraction(ws);
  ws.tabs.agentEdit = initAgentEdit(ws);
  initKeys();
  ws.keyboardCursor = initKeyboardCursor(ws);
  try {
    await pImage;
    await pSets;
    const first = pSet ? await pSet : null;
    performance.mark('set-fetched');
    if (first && first.ok) store.openFrom(first.data);
    else if (store.sets.length) await store.openSet(store.sets[0].id);
    performance.mark('set-opened');
    await pixels;
    performance.mark('pixels');
  } catch (e) {
    toast('Could not load the image: ' + (e.message || e), 'error', 10000);
    return;
  }
  $('#image-size').textContent = `${store.width} × ${store.height}`;
  $('#remeasure').addEventListener('click', remeasure);
  // Compare's "Re-measure" link opens the set here with the button in view
  if (new URLSearchParams(location.search).get('remeasure') && !$('#remeasure').hidden) {
    $('#remeasure').focus();
    $('#remeasure').classList.add('flash');
  }
  store.startPolling(1000);
  // a job on this set started before a reload or in another tab
  resumeJobs(store);
  // the viewer's frame was requested first, so this runs right after it
  requestAnimationFrame(() => { ws.firstRenderMs = performance.now(); root.dataset.ready = '1'; });
}

main();
