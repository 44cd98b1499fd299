// scale_region.js - the image's scale region in the workspace: shown over
// the image when the "Scale region" toggle is on (what is not scale surface
// is shaded), and corrected in the Image tab: Edit region, then drag
// rectangles or paint with a round brush that add to the region or erase
// from it, and Save region (one
// PUT of the whole region; the server logs it and every set's history gets
// a scale_region_changed entry). "Back to automatic" drops the correction.
// The region is a grid of cells (GET /api/images/{id}/scale_region): rows of
// half-open runs of cells inside the region.

import { api, errorText } from './api.js';
import { $, toast } from './dom.js';

// rows of runs -> a bitmap of gw x gh cells (1 = scale surface)
function toBits(rows, gw, gh) {
  const bits = new Uint8Array(gw * gh);
  rows.forEach((runs, gy) => {
    for (let i = 0; i + 1 < runs.length; i += 2)
      bits.fill(1, gy * gw + runs[i], gy * gw + runs[i + 1]);
  });
  return bits;
}

function toRows(bits, gw, gh) {
  const rows = [];
  for (let gy = 0; gy < gh; gy++) {
    const runs = [];
    let x = 0;
    while (x < gw) {
      if (!bits[gy * gw + x]) { x++; continue; }
      const s = x;
      while (x < gw && bits[gy * gw + x]) x++;
      runs.push(s, x);
    }
    rows.push(runs);
  }
  return rows;
}

export function initScaleRegion(ws) {
  const store = ws.store;
  let region = null;  // {cell, gw, gh, bits, source, width, height}
  let draft = null;   // a copy of bits while editing
  let path = null;    // Path2D of the cells outside (cached per bitmap)
  let pathOf = null;

  const shown = () => $('#tg-region').checked || ws.editor.mode === 'region';

  function outsidePath(bits) {
    if (pathOf === bits && path) return path;
    const p = new Path2D();
    const { cell, gw, gh, width, height } = region;
    for (let gy = 0; gy < gh; gy++) {
      let x = 0;
      while (x < gw) {
        if (bits[gy * gw + x]) { x++; continue; }
        const s = x;
        while (x < gw && !bits[gy * gw + x]) x++;
        const x0 = s * cell, y0 = gy * cell;
        p.rect(x0 - 0.5, y0 - 0.5, Math.min(x * cell, width) - x0, Math.min(cell, height - y0));
      }
    }
    path = p;
    pathOf = bits;
    return p;
  }

  ws.overlayHooks.push((ctx, view, phase) => {
    if (phase !== 'image' || !region || !shown()) return;
    if (region.width !== store.width || region.height !== store.height) return;
    ctx.save();
    ctx.fillStyle = draft ? 'rgba(255, 120, 0, 0.45)' : 'rgba(255, 140, 0, 0.32)';
    ctx.fill(outsidePath(draft || region.bits));
    ctx.restore();
  });

  function describe() {
    const st = $('#region-status');
    if (!region) { st.textContent = 'The scale region is not known yet.'; return; }
    const pct = (100 * region.area).toFixed(1);
    const who = region.source === 'user' ? 'corrected by hand' : 'found automatically';
    st.textContent = draft
      ? 'Editing: drag rectangles or paint with the brush on the image to erase or add, then Save region.'
      : `Scale region ${who}: ${pct} % of the image. Detection, statistics, the agents and autocrop use only this part.`;
    $('#region-reset').disabled = !ws.canManage || region.source !== 'user' || !!draft;
    $('#region-edit').disabled = !ws.canManage || !!draft;
    $('#region-save').disabled = !draft;
    $('#region-cancel').disabled = !draft;
  }

  function take(data) {
    region = {
      cell: data.cell, gw: data.grid_width, gh: data.grid_height, width: data.width, height: data.height,
      source: data.source, area: data.area_fraction, bits: toBits(data.rows, data.grid_width, data.grid_height),
    };
    path = null;
  }

  async function load() {
    const res = await api('GET', `api/images/${store.imageId}/scale_region`);
    if (!res.ok) { region = null; describe(); return; }
    take(res.data);
    describe();
    ws.viewer.request();
  }

  function stopEditing() {
    draft = null;
    if (ws.editor.mode === 'region') ws.editor.setMode(null);
    describe();
    ws.viewer.request();
  }

  $('#region-edit').addEventListener('click', () => {
    if (!region) return;
    draft = region.bits.slice();
    ws.editor.setMode('region');
    describe();
  });
  $('#region-cancel').addEventListener('click', stopEditing);
  ws.modeListeners.push((mode, prev) => {
    if (prev === 'region' && mode !== 'region' && draft) { draft = null; describe(); }
  });

  ws.regionRectDone = (r) => {
    if (!draft || !region) return;
    const { cell, gw, gh } = region;
    const add = document.querySelector('input[name="region-op"]:checked').value === 'add';
    const cx0 = Math.max(0, Math.floor((r.x0 + 0.5) / cell)), cx1 = Math.min(gw - 1, Math.floor((r.x1 + 0.5) / cell));
    const cy0 = Math.max(0, Math.floor((r.y0 + 0.5) / cell)), cy1 = Math.min(gh - 1, Math.floor((r.y1 + 0.5) / cell));
    const next = draft.slice();
    for (let gy = cy0; gy <= cy1; gy++) next.fill(add ? 1 : 0, gy * gw + cx0, gy * gw + cx1 + 1);
    draft = next;
    store.temp.rect = null;
    $('#region-status').textContent = `${add ? 'Added' : 'Erased'} ${cx1 - cx0 + 1} × ${cy1 - cy0 + 1} cells; drag more, or Save region.`;
    ws.viewer.request();
  };

  // the brush: cells whose centre lies within the brush radius of the point
  ws.regionBrush = () => document.querySelector('input[name="region-shape"]:checked').value === 'brush';
  let painted = 0;
  ws.regionPaint = (x, y) => {
    if (!draft || !region) return;
    const { cell, gw, gh } = region;
    const rad = Number($('#region-brush-size').value) || 20;
    const v = document.querySelector('input[name="region-op"]:checked').value === 'add' ? 1 : 0;
    const cx0 = Math.max(0, Math.floor((x - rad) / cell)), cx1 = Math.min(gw - 1, Math.floor((x + rad) / cell));
    const cy0 = Math.max(0, Math.floor((y - rad) / cell)), cy1 = Math.min(gh - 1, Math.floor((y + rad) / cell));
    for (let gy = cy0; gy <= cy1; gy++)
      for (let gx = cx0; gx <= cx1; gx++) {
        const dx = (gx + 0.5) * cell - 0.5 - x, dy = (gy + 0.5) * cell - 0.5 - y;
        if (dx * dx + dy * dy <= rad * rad && draft[gy * gw + gx] !== v) { draft[gy * gw + gx] = v; painted++; }
      }
    path = null;
    ws.viewer.request();
  };
  ws.regionPaintDone = () => {
    const add = document.querySelector('input[name="region-op"]:checked').value === 'add';
    $('#region-status').textContent = `${add ? 'Added' : 'Erased'} ${painted} cells with the brush; paint more, or Save region.`;
    painted = 0;
  };

  $('#region-save').addEventListener('click', async () => {
    if (!draft) return;
    const rows = toRows(draft, region.gw, region.gh);
    const res = await api('PUT', `api/images/${store.imageId}/scale_region`, { cell: region.cell, rows });
    if (!res.ok) { toast(`Saving the scale region failed: ${errorText(res)}`, 'error', 6000); return; }
    take(res.data);
    stopEditing();
    await store.reload(); // the boundary flags follow the region
    if (ws.tabs.data) ws.tabs.data.refreshHistory();
    ws.render();
    toast('Scale region saved', 'success');
  });

  $('#region-reset').addEventListener('click', async () => {
    const res = await api('PUT', `api/images/${store.imageId}/scale_region`, { reset: true });
    if (!res.ok) { toast(`Reset failed: ${errorText(res)}`, 'error', 6000); return; }
    take(res.data);
    describe();
    await store.reload();
    if (ws.tabs.data) ws.tabs.data.refreshHistory();
    ws.render();
    toast('Scale region: back to automatic', 'success');
  });

  $('#tg-region').addEventListener('change', () => ws.viewer.request());
  store.addEventListener('image', () => { if (!draft) load(); });
  // the image's first 'image' event came before this listener (else it
  // loads the region: asked for once, not twice, while the page opens)
  if (store.image) load();
  return { reload: load };
}
