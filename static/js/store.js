// store.js - the open image and set as the server has them. The server is
// the truth: every edit is one request carrying the revision it is based
// on; the answer's "changed" lists (or reload: true) are applied here, and
// a 409 goes to the conflict handler with the request, so the user's
// change is never silently lost. Polls the revision to notice changes made
// by other users or agents.

import { api, errorText } from './api.js';

export function edgeKey(a, b) {
  return a < b ? `${a}-${b}` : `${b}-${a}`;
}

// GET api/sets/{id}?layout=compact sends one array per field (a quarter of
// the bytes of one object per row for a large set), without the columns
// that follow from the others (the diameters, the lengths in µm, the
// connections' lengths: half the bytes again, and half the parse); these
// make the rows the rest of the page reads, with the derived fields as the
// server computes them (cgi/routes/set_view.c). A null field is left out
// of the row, as the row layout leaves out the ellipse of a tubercle that
// has none. templates/workspace.html preloads the first set's URL: the two
// must stay the same.
const SET_QUERY = '?layout=compact';
const TUB_OPTIONAL = ['major_axis_px', 'minor_axis_px', 'major_axis_um', 'minor_axis_um', 'orientation', 'eccentricity'];
const orNull = (v) => (Number.isFinite(v) ? v : null);
// (the compact layout writes a column without any value as one null)
const NONE = { length: 0 };
function tubercleRows(c, um) {
  if (Array.isArray(c)) return c;
  const out = new Array(c.n);
  const derived = !('diameter_px' in c);
  const col = (k) => c[k] || NONE;
  const radius = col('radius_px'), circ = col('circularity'), fit = col('fit_quality');
  const major = col('major_axis_px'), minor = col('minor_axis_px'), orient = col('orientation'), ecc = col('eccentricity');
  for (let i = 0; i < c.n; i++) {
    const r = radius[i] ?? null;
    const t = {
      id: c.id[i], centroid_x: c.centroid_x[i], centroid_y: c.centroid_y[i], radius_px: r,
      diameter_px: derived ? (r == null ? null : 2 * r) : c.diameter_px[i],
      diameter_um: derived ? (r == null || !(um > 0) ? null : 2 * r * um) : c.diameter_um[i],
      circularity: circ[i] ?? null, fit_quality: fit[i] ?? null, is_boundary: c.is_boundary[i] === 1, source: c.source[i],
    };
    if (derived) {
      if (major[i] != null) {
        t.major_axis_px = major[i];
        t.minor_axis_px = minor[i];
        if (um > 0) { t.major_axis_um = major[i] * um; t.minor_axis_um = minor[i] * um; }
        if (orient[i] != null) t.orientation = orient[i];
        if (ecc[i] != null) t.eccentricity = ecc[i];
      }
    } else {
      for (const k of TUB_OPTIONAL) if (c[k][i] != null) t[k] = c[k][i];
    }
    out[i] = t;
  }
  return out;
}
// A connection read in the compact layout: its ends' ids are its own, its
// lengths are read from its ends when asked for (the Data tab's first
// rows, a fallback of the stats bar), as the server computes them (null
// without both ends, a space null for an unmeasured end, µm null without
// a calibration). 200,000 rows of two fields instead of six made the set's
// open a tenth of a second shorter and left the collector less to do.
class ConnectionRow {
  constructor(id1, id2) {
    this.id1 = id1;
    this.id2 = id2;
  }
  get center_distance_px() {
    const a = this.ends.tubs.get(this.id1), b = this.ends.tubs.get(this.id2);
    return a && b ? Math.hypot(a.centroid_x - b.centroid_x, a.centroid_y - b.centroid_y) : null;
  }
  get edge_distance_px() {
    const a = this.ends.tubs.get(this.id1), b = this.ends.tubs.get(this.id2);
    if (!a || !b || a.radius_px == null || b.radius_px == null) return null;
    return Math.hypot(a.centroid_x - b.centroid_x, a.centroid_y - b.centroid_y) - a.radius_px - b.radius_px;
  }
  get center_distance_um() { return this.ends.um > 0 ? orNull(this.center_distance_px * this.ends.um) : null; }
  get edge_distance_um() { return this.ends.um > 0 ? orNull(this.edge_distance_px * this.ends.um) : null; }
  // what JSON.stringify and a copy see: the row layout's fields
  toJSON() {
    return { id1: this.id1, id2: this.id2, center_distance_um: this.center_distance_um, edge_distance_um: this.edge_distance_um, center_distance_px: this.center_distance_px, edge_distance_px: this.edge_distance_px };
  }
}

// tubs: the set's tubercles by id (a connection's lengths are its ends')
function edgeRows(c, tubs, um) {
  if (Array.isArray(c)) return c.map(e => ({ id1: e.id1, id2: e.id2, center_distance_um: e.center_distance_um, edge_distance_um: e.edge_distance_um, center_distance_px: e.center_distance_px, edge_distance_px: e.edge_distance_px }));
  const out = new Array(c.n);
  if (!c.center_distance_px) {
    // one class per set read: the ends are on its prototype, not in each row
    class Row extends ConnectionRow {}
    Object.defineProperty(Row.prototype, 'ends', { value: { tubs, um } });
    const id1 = c.id1, id2 = c.id2;
    for (let i = 0; i < c.n; i++) out[i] = new Row(id1[i], id2[i]);
    return out;
  }
  for (let i = 0; i < c.n; i++) {
    out[i] = { id1: c.id1[i], id2: c.id2[i], center_distance_um: c.center_distance_um[i], edge_distance_um: c.edge_distance_um[i], center_distance_px: c.center_distance_px[i], edge_distance_px: c.edge_distance_px[i] };
  }
  return out;
}
export const setUrl = (id) => `api/sets/${id}${SET_QUERY}`;

export class Store extends EventTarget {
  constructor(imageId) {
    super();
    this.imageId = imageId;
    this.image = null;
    this.sets = [];
    this.set = null;
    this.revision = -1;
    this.tubercles = new Map();
    this.edges = [];
    this.edgeKeys = new Set(); // see edgeSet
    // grows with every change applied here: the drawing's spatial index
    // (spatial.js) is rebuilt when it differs
    this.version = 0;
    this.stats = null;
    this.width = 0;
    this.height = 0;
    this.umPerPx = 0;
    this.selection = { tub: null, edge: null };
    this.multi = { tubs: new Set(), edges: new Set() };
    this.temp = {};
    this.busy = 0;
    this.queue = Promise.resolve();
    this.onConflict = null;
    this.onError = null;
    this.pollTimer = null;
  }

  // The connections as edgeKey strings, made when first asked for after a
  // change (200,000 keys cost a quarter of a second; few changes need them).
  get edgeSet() {
    if (!this.edgeKeys) this.edgeKeys = new Set(this.edges.map(e => edgeKey(e.id1, e.id2)));
    return this.edgeKeys;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  async loadImage() {
    const res = await api('GET', `api/images/${this.imageId}`);
    if (!res.ok) throw new Error(errorText(res));
    this.image = res.data.image;
    this.width = this.image.width;
    this.height = this.image.height;
    this.umPerPx = this.image.calibration ? this.image.calibration.um_per_px : 0;
    this.emit('image', this.image);
    return this.image;
  }

  async loadSets() {
    const res = await api('GET', `api/images/${this.imageId}/sets`);
    if (!res.ok) throw new Error(errorText(res));
    this.sets = res.data.sets;
    this.emit('sets', this.sets);
    return this.sets;
  }

  async openSet(id) {
    const res = await api('GET', setUrl(id));
    if (!res.ok) throw new Error(errorText(res));
    this.openFrom(res.data);
    return this.set;
  }

  // Opens a set from an already fetched GET /api/sets/{id} answer.
  openFrom(data) {
    this.fill(data);
    this.selection = { tub: null, edge: null };
    this.multi = { tubs: new Set(), edges: new Set() };
    this.temp = {};
    this.emit('set', this.set);
    this.emit('data', { full: true });
  }

  fill(d) {
    this.version++;
    this.set = d.set;
    this.revision = d.set.revision;
    const um = d.image ? (d.image.calibration ? d.image.calibration.um_per_px : 0) : this.umPerPx;
    const rows = tubercleRows(d.tubercles, um);
    const tubs = new Map();
    for (const t of rows) tubs.set(t.id, t);
    this.tubercles = tubs;
    this.edges = edgeRows(d.edges, tubs, um);
    this.edgeKeys = null;
    this.stats = d.statistics || null;
    if (d.image) {
      this.width = d.image.width;
      this.height = d.image.height;
      this.umPerPx = d.image.calibration ? d.image.calibration.um_per_px : 0;
      // rotated, cropped or undone elsewhere: the pixels on screen are stale
      if (this.image && typeof d.image.revision === 'number' && d.image.revision !== this.image.revision) this.emit('image-stale', d.image);
    }
    const i = this.sets.findIndex(s => s.id === d.set.id);
    if (i >= 0) this.sets[i] = d.set;
  }

  async reload() {
    if (!this.set) return;
    const keepSel = this.selection;
    const id = this.set.id;
    const res = await api('GET', setUrl(id));
    if (!this.set || this.set.id !== id) return; // another set was opened meanwhile
    // revisions only grow: an answer older than what our own edits brought
    // meanwhile would undo them on screen and make the next edit a 409
    if (res.ok && res.data.set.revision < this.revision) return;
    if (!res.ok) {
      if (res.status === 404) {
        try {
          await this.loadSets();
          if (this.sets.length) await this.openSet(this.sets[0].id);
        } catch (e) {
          this.emit('gone', e);
        }
      }
      return;
    }
    this.fill(res.data);
    if (keepSel.tub != null && !this.tubercles.has(keepSel.tub)) keepSel.tub = null;
    this.selection = keepSel;
    for (const id of [...this.multi.tubs]) if (!this.tubercles.has(id)) this.multi.tubs.delete(id);
    this.emit('set', this.set);
    this.emit('data', { full: true });
  }

  apply(d) {
    if (d.set) {
      this.set = d.set;
      const i = this.sets.findIndex(s => s.id === d.set.id);
      if (i >= 0) this.sets[i] = d.set;
    }
    if (typeof d.revision === 'number') this.revision = d.revision;
    if (d.statistics) this.stats = d.statistics;
    const c = d.changed;
    if (c) {
      this.version++;
      for (const t of c.added) this.tubercles.set(t.id, t);
      for (const t of c.updated) this.tubercles.set(t.id, t);
      for (const id of c.removed) {
        this.tubercles.delete(id);
        this.multi.tubs.delete(id);
        if (this.selection.tub === id) this.selection.tub = null;
      }
      const gone = new Set(c.edges_removed.map(p => edgeKey(p[0], p[1])));
      // edges of removed tubercles go too, whatever the diff says
      const removedIds = new Set(c.removed);
      if (gone.size || removedIds.size) {
        this.edges = this.edges.filter(e => !gone.has(edgeKey(e.id1, e.id2)) && !removedIds.has(e.id1) && !removedIds.has(e.id2));
      }
      for (const e of c.edges_added) this.edges.push({ id1: e.id1, id2: e.id2, center_distance_um: e.center_distance_um, edge_distance_um: e.edge_distance_um, center_distance_px: e.center_distance_px, edge_distance_px: e.edge_distance_px });
      this.edgeKeys = null;
      if (this.selection.edge && !this.edgeSet.has(edgeKey(...this.selection.edge))) this.selection.edge = null;
      this.emit('set', this.set);
      this.emit('data', { full: false, changed: c });
      return Promise.resolve();
    }
    return this.reload();
  }

  // One edit: path relative to api/sets/{id}/ ('' for the set itself).
  // Requests are serialised so each carries the revision of the previous
  // answer. Resolves to the response (res.ok false on refusal).
  change(method, sub, body = {}, what = 'change') {
    const run = async () => {
      if (!this.set) return { ok: false, status: 0, data: { error: 'no set open' } };
      const setId = this.set.id;
      const req = { method, sub, body, what };
      this.busy++;
      try {
        const res = await this.send(setId, req, this.revision);
        if (res.status === 202) {
          // accepted as a background job: the set changes when it is done
          return res;
        } else if (res.ok) {
          await this.apply(res.data);
        } else if (res.status === 409 && this.onConflict) {
          await this.onConflict(req, res);
        } else if (this.onError) {
          this.onError(res, what);
        }
        return res;
      } finally {
        this.busy--;
      }
    };
    const p = this.queue.then(run, run);
    this.queue = p.catch(() => {});
    return p;
  }

  send(setId, req, revision) {
    const path = `api/sets/${setId}${req.sub ? '/' + req.sub : ''}`;
    if (req.method === 'DELETE') return api('DELETE', `${path}?revision=${revision}`);
    return api(req.method, path, { ...req.body, revision });
  }

  // The open set's revision every ms; the image's list of sets every third
  // time, so a set made, renamed or deleted elsewhere shows up here too.
  startPolling(ms = 1000) {
    this.stopPolling();
    let n = 0;
    this.pollTimer = setInterval(() => {
      this.poll();
      if (++n % 3 === 0) this.pollSets();
    }, ms);
  }

  async pollSets() {
    if (this.busy || this.pollingSets) return;
    this.pollingSets = true;
    try {
      const res = await api('GET', `api/images/${this.imageId}/sets`);
      if (!res.ok || this.busy) return;
      const key = (list) => JSON.stringify(list.map(s => [s.id, s.name, !!s.dirty]));
      if (key(res.data.sets) === key(this.sets)) return;
      // the open set's own record stays the one its answers keep current
      this.sets = res.data.sets.map(s => (this.set && s.id === this.set.id ? { ...s, ...this.set, name: s.name } : s));
      this.emit('sets', this.sets);
    } finally {
      this.pollingSets = false;
    }
  }

  stopPolling() {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  async poll() {
    if (!this.set || this.busy || this.polling) return;
    this.polling = true;
    try {
      const id = this.set.id;
      const res = await api('GET', `api/sets/${id}/revision`);
      if (!this.set || this.set.id !== id || this.busy) return;
      if (res.status === 404) {
        this.emit('remote', { deleted: true });
        try {
          await this.loadSets();
          if (this.sets.length) await this.openSet(this.sets[0].id);
        } catch (e) {
          this.emit('gone', e); // the image itself went
        }
        return;
      }
      // an answer sent before one of our own edits landed is older than the
      // revision we hold: not a change made elsewhere
      if (res.ok && res.data.revision > this.revision) {
        await this.reload();
        this.emit('remote', { revision: this.revision });
      } else if (res.ok && this.set && res.data.revision === this.revision && res.data.dirty !== this.set.dirty) {
        this.set.dirty = res.data.dirty;
        this.emit('set', this.set);
      }
    } finally {
      this.polling = false;
    }
  }
}
