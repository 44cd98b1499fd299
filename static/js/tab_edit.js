// tab_edit.js - the Edit tab: mode buttons, default diameter and
// auto-size options (stored as settings), the radius slider (previewed
// while dragging, sent once on release), regenerate connections, area
// delete, clear all, undo/redo, and the selection status.

import { $, confirmDialog, fmt, toast } from './dom.js';

export function initEditTab(ws) {
  const store = ws.store;
  const ed = ws.editor;

  for (const b of document.querySelectorAll('[data-mode]')) {
    b.addEventListener('click', () => ed.setMode(b.dataset.mode));
  }

  // ---- options kept on the server ----
  const dd = $('#default-diameter');
  const auto = $('#auto-size');
  const region = $('#region-factor');
  const showRegion = $('#show-region');
  const noConfirm = $('#no-confirm');
  function renderOptions() {
    const s = ws.settings;
    dd.value = s.editor_default_diameter_um > 0 ? s.editor_default_diameter_um : '';
    auto.checked = !!s.editor_auto_size;
    region.value = s.editor_region_factor || 6;
    $('#region-factor-value').textContent = region.value + '×';
    showRegion.checked = !!s.editor_show_region;
    noConfirm.checked = !!s.editor_delete_without_confirm;
    const cal = store.umPerPx > 0;
    dd.disabled = !cal;
    auto.disabled = !cal;
    const mean = store.stats && store.stats.mean_diameter_um;
    $('#default-diameter-hint').textContent = !cal ? 'Calibrate the image first.'
      : s.editor_default_diameter_um > 0 ? `Default: ${fmt(s.editor_default_diameter_um, 3)} µm`
        : `Auto: ${mean ? fmt(mean, 3) + ' µm (mean)' : '10 px radius'}`;
    renderDeleteMulti();
    renderRegion();
  }
  // Delete Multiple deletes without asking, so it waits for the tick that
  // allows that; the hint says so while it waits.
  function renderDeleteMulti() {
    $('#delete-multi-mode').disabled = !noConfirm.checked;
    $('#delete-multi-hint').hidden = noConfirm.checked;
  }
  // The auto-size region is factor × the largest diameter (the Extraction
  // tab's max_diameter_um): the slider stops where that square would reach
  // past half the image's shorter side, and says the region's size.
  function largestDiameterPx() {
    const p = ws.tabs.extraction ? ws.tabs.extraction.current() : null;
    const um = p && Number(p.max_diameter_um);
    return store.umPerPx > 0 && um > 0 ? um / store.umPerPx : 0;
  }
  function regionMax() {
    const d = largestDiameterPx();
    if (!d || !store.width) return 10;
    return Math.max(1, Math.min(10, Math.floor(Math.min(store.width, store.height) / 2 / d)));
  }
  ws.regionFactor = () => Math.min(Number(ws.settings.editor_region_factor) || 6, regionMax());
  function renderRegion() {
    const max = regionMax();
    region.max = String(max);
    region.value = String(ws.regionFactor());
    const d = largestDiameterPx();
    const side = d ? Math.max(16, Math.round(region.value * d)) : 0;
    $('#region-factor-value').textContent = side
      ? `${region.value}× the largest diameter = ${side} px${max < 10 ? ` (at most ${max}× on this image)` : ''}`
      : `${region.value}×`;
  }
  // What auto-size did with the last click (editor.addTubercle).
  ws.autoSizeResult = (a, t) => {
    const out = $('#auto-size-status');
    if (!a) { out.textContent = ''; return; }
    out.textContent = a.found && t
      ? `Auto-size found a tubercle of ${fmt(2 * t.radius_px * store.umPerPx, 2)} µm (radius ${fmt(t.radius_px, 1)} px) in a ${a.region.width} × ${a.region.height} px region.`
      : `Auto-size found no tubercle there${a.reason ? ` (${a.reason})` : ''}: added with the default size.`;
    out.classList.toggle('warn-text', !a.found);
  };
  dd.addEventListener('change', () => ws.saveSettings({ editor_default_diameter_um: Number(dd.value) > 0 ? Number(dd.value) : 0 }).then(renderOptions));
  auto.addEventListener('change', () => ws.saveSettings({ editor_auto_size: auto.checked }));
  region.addEventListener('input', () => { ws.settings.editor_region_factor = Number(region.value); renderRegion(); });
  region.addEventListener('change', () => ws.saveSettings({ editor_region_factor: Number(region.value) }));
  showRegion.addEventListener('change', () => ws.saveSettings({ editor_show_region: showRegion.checked }));
  noConfirm.addEventListener('change', () => {
    ws.saveSettings({ editor_delete_without_confirm: noConfirm.checked });
    renderDeleteMulti();
    if (!noConfirm.checked && ed.mode === 'delete_multi') ed.setMode(null);
  });

  $('#delete-selected').addEventListener('click', () => ed.deleteSelected());
  $('#area-delete').addEventListener('click', () => ed.deleteMulti());
  $('#clear-all').addEventListener('click', async () => {
    if (!store.tubercles.size && !store.edges.length) return;
    if (!(await confirmDialog('Clear all', `Remove all ${store.tubercles.size} tubercles and ${store.edges.length} connections from "${store.set.name}"? (Undo brings them back.)`, 'Clear all', true))) return;
    await store.change('POST', 'clear', {}, 'clear all');
  });
  $('#regen-connections').addEventListener('click', async () => {
    if (store.tubercles.size < 2) { toast('At least 2 tubercles are needed', 'warning'); return; }
    const p = ws.tabs.extraction ? ws.tabs.extraction.current() : {};
    const res = await store.change('POST', 'connections', {
      graph_type: $('#regen-graph').value, cull_long_edges: p.cull_long_edges !== false,
      cull_factor: p.cull_factor || 1.4,
    }, 'regenerate connections');
    if (res.ok) toast(`${store.edges.length} connections`, 'success');
  });

  async function undo() {
    if (store.set && !store.set.can_undo) { toast('Nothing to undo', 'info'); return; }
    await store.change('POST', 'undo', {}, 'undo');
  }
  async function redo() {
    if (store.set && !store.set.can_redo) { toast('Nothing to redo', 'info'); return; }
    await store.change('POST', 'redo', {}, 'redo');
  }
  $('#undo').addEventListener('click', undo);
  $('#redo').addEventListener('click', redo);

  // ---- radius ----
  const slider = $('#radius-slider');
  function selected() { return store.selection.tub != null ? store.tubercles.get(store.selection.tub) : null; }
  function renderRadius() {
    const t = selected();
    for (const id of ['radius-slider', 'radius-minus', 'radius-plus']) $('#' + id).disabled = !t;
    const r = t && typeof t.radius_px === 'number' ? t.radius_px : null; // null: base not measured
    $('#radius-readout').textContent = t ? `#${t.id}: ${r != null ? r.toFixed(1) + 'px' : 'unmeasured'}` : '-';
    if (t && r != null) slider.value = r;
  }
  let sliderOrig = null;
  slider.addEventListener('input', () => {
    const t = selected();
    if (!t) return;
    if (sliderOrig == null) sliderOrig = t.radius_px;
    t.radius_px = Number(slider.value);
    $('#radius-readout').textContent = `#${t.id}: ${t.radius_px.toFixed(1)}px`;
    ws.viewer.request();
  });
  slider.addEventListener('change', async () => {
    const t = selected();
    if (!t) return;
    const r = Number(slider.value), orig = sliderOrig;
    sliderOrig = null;
    const res = await store.change('PATCH', `tubercles/${t.id}`, { radius_px: r }, 'resize');
    if (!res.ok && orig != null && store.tubercles.get(t.id) === t) { t.radius_px = orig; renderRadius(); ws.viewer.request(); }
  });
  async function bump(d) {
    const t = selected();
    if (!t) return;
    const r = typeof t.radius_px === 'number' ? t.radius_px : Number(slider.value); // an unmeasured one starts from the slider
    await store.change('PATCH', `tubercles/${t.id}`, { radius_px: Math.max(2, r + d) }, 'resize');
  }
  $('#radius-minus').addEventListener('click', () => bump(-1));
  $('#radius-plus').addEventListener('click', () => bump(1));

  // Arrow-key nudges collapse into one move: sent after the key rests.
  let nudge = null;
  function nudgeKey(key) {
    const t = selected();
    if (!t) return;
    const dx = key === 'ArrowLeft' ? -1 : key === 'ArrowRight' ? 1 : 0;
    const dy = key === 'ArrowUp' ? -1 : key === 'ArrowDown' ? 1 : 0;
    t.centroid_x += dx;
    t.centroid_y += dy;
    ws.viewer.request();
    clearTimeout(nudge);
    nudge = setTimeout(() => {
      store.change('PATCH', `tubercles/${t.id}`, { x: t.centroid_x, y: t.centroid_y }, 'move');
    }, 400);
  }

  function renderStatus() {
    const n = store.multi.tubs.size, m = store.multi.edges.size;
    $('#area-delete').textContent = `Delete Selected (${n + m})`;
    $('#area-delete').disabled = n + m === 0;
    $('#multi-status').textContent = n + m ? `${n} tubercle(s), ${m} connection(s) selected` : '';
    $('#undo').disabled = !(store.set && store.set.can_undo);
    $('#redo').disabled = !(store.set && store.set.can_redo);
  }

  ws.selectionListeners.push(() => { renderRadius(); renderStatus(); });
  store.addEventListener('set', () => { renderStatus(); renderOptions(); });
  store.addEventListener('data', () => { renderRadius(); renderStatus(); });
  store.addEventListener('image', renderOptions);
  ws.modeListeners.push((mode) => { if (mode === 'add_tub' || mode === 'add_chain') renderRegion(); });
  renderOptions();
  return { undo, redo, nudge: nudgeKey, renderOptions };
}
