// editor.js - the edit modes on the canvas: mouse (click vs drag: a drag
// pans unless the mode owns the drag, so panning never adds or deletes),
// keyboard shortcuts, and each edit sent to the server as one request
// (a drag-move and a radius slider drag are one undo step each).

import { $, confirmDialog, toast } from './dom.js';
import { hitTest } from './overlay.js';
import { edgeKey } from './store.js';

export const MODES = {
  add_tub: { title: 'Add tubercle', desc: 'Click on the image to add a tubercle. Esc to finish.', cls: 'mode-add', cursor: 'crosshair' },
  add_itc: { title: 'Add connection', desc: 'Click the first tubercle, then the second.', cls: 'mode-add', cursor: 'cell' },
  add_chain: { title: 'Chain mode', desc: 'Click empty space to add and connect; click a tubercle to continue from it. Arrows navigate.', cls: 'mode-add', cursor: 'crosshair' },
  move: { title: 'Move', desc: 'Drag a tubercle to move it (one undo step per drag).', cls: 'mode-move', cursor: 'move' },
  delete_multi: { title: 'Delete multiple', desc: 'Each click deletes the tubercle or connection under the cursor.', cls: 'mode-delete', cursor: 'not-allowed' },
  area_select: { title: 'Area select', desc: 'Drag a rectangle to select tubercles and connections inside it.', cls: 'mode-select', cursor: 'crosshair' },
  crop: { title: 'Crop', desc: 'Drag the rectangle to keep, then Apply Crop in the Image tab.', cls: 'mode-select', cursor: 'crosshair' },
  region: { title: 'Scale region', desc: 'Drag a rectangle or paint with the brush to erase from the scale region or add to it (Image tab), then Save region.', cls: 'mode-select', cursor: 'crosshair' },
  measure: { title: 'Measure scale bar', desc: 'Click the two ends of the scale bar.', cls: 'mode-move', cursor: 'crosshair' },
};

export class Editor {
  constructor(ws) {
    this.ws = ws;
    this.store = ws.store;
    this.viewer = ws.viewer;
    this.mode = null;
    this.chain = { current: null, parent: new Map(), nbIndex: 0 };
    this.bindMouse();
  }

  setMode(mode) {
    if (this.mode === mode) mode = null;
    const prev = this.mode;
    this.mode = mode;
    const t = this.store.temp;
    if (prev === 'crop' || prev === 'area_select' || prev === 'region') t.rect = null;
    if (prev === 'measure') t.measure = null;
    t.firstItc = null;
    t.chainCurrent = null;
    t.chainEdge = null;
    this.chain = { current: null, parent: new Map(), nbIndex: 0 };
    const banner = $('#mode-banner'), badge = $('#mode-badge'), viewer = $('#viewer');
    viewer.className = 'viewer';
    if (mode) {
      const m = MODES[mode];
      banner.hidden = false;
      banner.className = 'mode-banner ' + m.cls;
      $('#mode-title').textContent = m.title;
      $('#mode-desc').textContent = m.desc;
      badge.hidden = false;
      badge.textContent = m.title + ' ×';
      viewer.classList.add(m.cls, 'in-mode');
      this.viewer.canvas.style.cursor = m.cursor;
    } else {
      banner.hidden = true;
      badge.hidden = true;
      this.viewer.canvas.style.cursor = 'grab';
    }
    for (const b of document.querySelectorAll('[data-mode]')) b.classList.toggle('active', b.dataset.mode === mode);
    $('#chain-hint').hidden = mode !== 'add_chain';
    $('#edit-status').textContent = mode ? MODES[mode].desc : 'Select a mode, or click a tubercle to select it.';
    this.ws.emitMode(mode, prev);
    this.viewer.request();
  }

  pos(e) {
    const r = this.viewer.canvas.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  bindMouse() {
    const c = this.viewer.canvas;
    let drag = null;
    c.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return;
      const [sx, sy] = this.pos(e);
      const [ix, iy] = this.viewer.toImage(sx, sy);
      drag = { sx, sy, ix, iy, moved: false, kind: 'pan' };
      if (this.mode === 'region' && this.ws.regionBrush()) {
        drag.kind = 'paint';
        this.ws.regionPaint(ix, iy);
      } else if (this.mode === 'area_select' || this.mode === 'crop' || this.mode === 'region') {
        drag.kind = 'rect';
      } else if (this.mode === 'move' && this.ws.canEdit()) {
        const h = hitTest(this.store, ix, iy, this.viewer.scale);
        if (h && h.tub != null) {
          const t = this.store.tubercles.get(h.tub);
          drag.kind = 'move';
          drag.tub = t;
          drag.orig = [t.centroid_x, t.centroid_y];
          this.store.selection = { tub: t.id, edge: null };
          this.ws.selectionChanged();
        }
      }
      e.preventDefault();
    });
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      const [sx, sy] = this.pos(e);
      if (!drag.moved && Math.hypot(sx - drag.sx, sy - drag.sy) < 4) return;
      drag.moved = true;
      const [ix, iy] = this.viewer.toImage(sx, sy);
      if (drag.kind === 'pan') {
        this.viewer.canvas.style.cursor = 'grabbing';
        this.viewer.panBy(e.movementX, e.movementY);
      } else if (drag.kind === 'paint') {
        this.ws.regionPaint(ix, iy);
      } else if (drag.kind === 'rect') {
        this.store.temp.rect = { x0: drag.ix, y0: drag.iy, x1: ix, y1: iy };
        this.store.temp.rectKind = this.mode;
        this.viewer.request();
      } else if (drag.kind === 'move') {
        // local preview only; the server hears about it once, on release
        drag.tub.centroid_x = drag.orig[0] + (ix - drag.ix);
        drag.tub.centroid_y = drag.orig[1] + (iy - drag.iy);
        this.viewer.request();
      }
    });
    window.addEventListener('mouseup', (e) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      const [sx, sy] = this.pos(e);
      const [ix, iy] = this.viewer.toImage(sx, sy);
      if (d.kind === 'pan') {
        this.viewer.canvas.style.cursor = this.mode ? MODES[this.mode].cursor : 'grab';
        if (!d.moved && e.target === this.viewer.canvas) this.click(ix, iy);
      } else if (d.kind === 'paint') {
        this.ws.regionPaintDone();
      } else if (d.kind === 'rect') {
        if (d.moved) this.rectDone(this.store.temp.rect);
      } else if (d.kind === 'move') {
        if (d.moved) this.moveDone(d.tub, d.orig);
      }
    });
    c.addEventListener('wheel', (e) => {
      if (!this.ws.settings.scroll_zoom) return;
      e.preventDefault();
      const [sx, sy] = this.pos(e);
      this.viewer.zoomStep(e.deltaY < 0 ? 1 : -1, sx, sy);
    }, { passive: false });
  }

  async moveDone(t, orig) {
    const x = Math.max(0, Math.min(this.store.width - 0.01, t.centroid_x));
    const y = Math.max(0, Math.min(this.store.height - 0.01, t.centroid_y));
    const res = await this.store.change('PATCH', `tubercles/${t.id}`, { x, y }, 'move');
    if (!res.ok) {
      const cur = this.store.tubercles.get(t.id);
      if (cur === t) { t.centroid_x = orig[0]; t.centroid_y = orig[1]; }
      this.viewer.request();
    }
  }

  rectDone(r) {
    if (!r) return;
    const x0 = Math.min(r.x0, r.x1), x1 = Math.max(r.x0, r.x1), y0 = Math.min(r.y0, r.y1), y1 = Math.max(r.y0, r.y1);
    if (this.mode === 'crop') {
      this.ws.cropRectChanged({ x0, y0, x1, y1 });
      return;
    }
    if (this.mode === 'region') {
      this.ws.regionRectDone({ x0, y0, x1, y1 });
      return;
    }
    const inside = (t) => t.centroid_x >= x0 && t.centroid_x <= x1 && t.centroid_y >= y0 && t.centroid_y <= y1;
    const tubs = new Set();
    for (const t of this.store.tubercles.values()) if (inside(t)) tubs.add(t.id);
    const edges = new Set();
    for (const e of this.store.edges) if (tubs.has(e.id1) && tubs.has(e.id2)) edges.add(edgeKey(e.id1, e.id2));
    this.store.multi = { tubs, edges };
    this.ws.selectionChanged();
  }

  async click(ix, iy) {
    const st = this.store;
    const hit = hitTest(st, ix, iy, this.viewer.scale);
    const inImage = ix >= 0 && iy >= 0 && ix < st.width && iy < st.height;
    switch (this.mode) {
      case 'add_tub':
        if (inImage && this.ws.canEdit()) await this.addTubercle(ix, iy);
        return;
      case 'add_itc':
        if (!hit || hit.tub == null) { toast('Click on a tubercle', 'warning'); return; }
        if (st.temp.firstItc == null) { st.temp.firstItc = hit.tub; this.viewer.request(); return; }
        if (st.temp.firstItc === hit.tub) { toast('Choose a different tubercle', 'warning'); return; }
        if (st.edgeSet.has(edgeKey(st.temp.firstItc, hit.tub))) { toast('Connection already exists', 'warning'); st.temp.firstItc = null; this.viewer.request(); return; }
        await st.change('POST', 'edges', { id1: st.temp.firstItc, id2: hit.tub }, 'add connection');
        st.temp.firstItc = null;
        this.viewer.request();
        return;
      case 'add_chain':
        return this.chainClick(hit, ix, iy, inImage);
      case 'delete_multi':
        if (!hit) return;
        if (hit.tub != null) await st.change('DELETE', `tubercles/${hit.tub}`, {}, 'delete tubercle');
        else await st.change('DELETE', `edges/${hit.edge[0]}/${hit.edge[1]}`, {}, 'delete connection');
        return;
      case 'measure': {
        const m = st.temp.measure;
        if (!m || m[1]) st.temp.measure = [[ix, iy]];
        else { m[1] = [ix, iy]; this.ws.measureDone(m); }
        this.viewer.request();
        return;
      }
      case 'move':
        // a click (no drag) moves the selected tubercle there, like the original
        if (st.selection.tub != null && (!hit || hit.tub === st.selection.tub) && inImage && !hit) {
          await st.change('PATCH', `tubercles/${st.selection.tub}`, { x: ix, y: iy }, 'move');
          return;
        }
        break;
      default:
        break;
    }
    st.selection = hit ? { tub: hit.tub ?? null, edge: hit.edge || null } : { tub: null, edge: null };
    this.ws.selectionChanged(true);
  }

  async addTubercle(ix, iy, extra = {}) {
    const ws = this.ws;
    const body = { x: ix, y: iy, ...extra };
    const dd = ws.defaultDiameterUm();
    if (dd > 0 && this.store.umPerPx > 0) body.radius_px = dd / 2 / this.store.umPerPx;
    if (ws.settings.editor_auto_size && this.store.umPerPx > 0) {
      body.auto_size = true;
      body.region_factor = ws.regionFactor ? ws.regionFactor() : ws.settings.editor_region_factor;
      delete body.radius_px;
    }
    const res = await this.store.change('POST', 'tubercles', body, 'add tubercle');
    if (res.ok && ws.autoSizeResult) ws.autoSizeResult(res.data.analysis, res.data.analysis && this.store.tubercles.get(res.data.id));
    if (res.ok && res.data.analysis && ws.settings.editor_show_region) {
      const a = res.data.analysis;
      const found = a.found ? this.store.tubercles.get(res.data.id) : null;
      this.store.temp.region = { ...a.region, found };
      this.viewer.request();
      clearTimeout(this.regionTimer);
      this.regionTimer = setTimeout(() => { this.store.temp.region = null; this.viewer.request(); }, 3000);
    }
    return res.ok ? res.data.id : null;
  }

  async chainClick(hit, ix, iy, inImage) {
    const st = this.store;
    if (hit && hit.tub != null) {
      if (!this.chain.parent.has(hit.tub)) this.chain.parent.set(hit.tub, this.chain.current);
      this.setChainCurrent(hit.tub);
      return;
    }
    if (!inImage || !this.ws.canEdit()) return;
    const prev = this.chain.current;
    const id = await this.addTubercle(ix, iy);
    if (id == null) return;
    if (prev != null && st.tubercles.has(prev) && this.ws.settings.editor_chain_auto_connect !== false) {
      await st.change('POST', 'edges', { id1: prev, id2: id }, 'add connection');
    }
    this.chain.parent.set(id, prev);
    this.setChainCurrent(id);
  }

  neighbours(id) {
    const out = [];
    for (const e of this.store.edges) {
      if (e.id1 === id) out.push(e.id2);
      else if (e.id2 === id) out.push(e.id1);
    }
    return out;
  }

  setChainCurrent(id) {
    this.chain.current = id;
    this.chain.nbIndex = 0;
    const st = this.store;
    st.temp.chainCurrent = id;
    const nb = this.neighbours(id);
    st.temp.chainEdge = nb.length ? [id, nb[0]] : null;
    st.selection = { tub: id, edge: null };
    this.ws.selectionChanged();
  }

  chainKey(key) {
    const cur = this.chain.current;
    if (cur == null) return false;
    const nb = this.neighbours(cur);
    if (key === 'ArrowLeft') {
      const p = this.chain.parent.get(cur);
      if (p != null && this.store.tubercles.has(p)) this.setChainCurrent(p);
    } else if (key === 'ArrowRight') {
      if (nb.length) {
        const next = nb[this.chain.nbIndex % nb.length];
        if (!this.chain.parent.has(next)) this.chain.parent.set(next, cur);
        this.setChainCurrent(next);
      }
    } else if (key === 'ArrowUp' || key === 'ArrowDown') {
      if (nb.length) {
        this.chain.nbIndex = (this.chain.nbIndex + (key === 'ArrowUp' ? nb.length - 1 : 1)) % nb.length;
        this.store.temp.chainEdge = [cur, nb[this.chain.nbIndex]];
        this.viewer.request();
      }
    } else {
      return false;
    }
    return true;
  }

  async deleteSelected() {
    const st = this.store;
    const noConfirm = this.ws.settings.editor_delete_without_confirm;
    if (st.multi.tubs.size || st.multi.edges.size) return this.deleteMulti();
    if (st.selection.tub != null) {
      if (!noConfirm && !(await confirmDialog('Delete tubercle', `Delete tubercle #${st.selection.tub} and its connections?`, 'Delete', true))) return;
      await st.change('DELETE', `tubercles/${st.selection.tub}`, {}, 'delete tubercle');
    } else if (st.selection.edge) {
      const [a, b] = st.selection.edge;
      if (!noConfirm && !(await confirmDialog('Delete connection', `Delete the connection ${a}–${b}?`, 'Delete', true))) return;
      await st.change('DELETE', `edges/${a}/${b}`, {}, 'delete connection');
    } else {
      toast('Nothing is selected', 'warning');
    }
  }

  async deleteMulti() {
    const st = this.store;
    const tubs = [...st.multi.tubs];
    const edges = [...st.multi.edges].map(k => k.split('-').map(Number));
    if (!tubs.length && !edges.length) return;
    if (!this.ws.settings.editor_delete_without_confirm &&
        !(await confirmDialog('Delete selection', `Delete ${tubs.length} tubercle(s) and ${edges.length} connection(s)?`, 'Delete', true))) return;
    const res = await st.change('POST', 'delete', { tubercles: tubs, edges }, 'delete selection');
    if (res.ok) {
      st.multi = { tubs: new Set(), edges: new Set() };
      st.temp.rect = null;
      this.ws.selectionChanged();
    }
  }
}
