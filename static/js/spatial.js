// spatial.js - a uniform grid over a set's tubercles and connections, so
// drawing and picking look only at the cells in view instead of at every
// element (a 100-megapixel montage holds 70,000 tubercles and 200,000
// connections; looping over all of them took 100 ms a frame).
//
// indexOf(store) builds the grid once per store.version (the store bumps it
// on every change it applies) and keeps it on the store. The grid holds
// references to the store's tubercle objects and the indices of its
// connections; it owns only its arrays. A tubercle moved in place (the
// editor's drag preview) stays in its old cell until the change lands,
// which is close enough for culling with a margin.

const PER_CELL = 32; // tubercles per cell on average

export class SpatialIndex {
  constructor(tubercles, edges) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity, n = 0;
    for (const t of tubercles.values()) {
      if (t.centroid_x < x0) x0 = t.centroid_x;
      if (t.centroid_x > x1) x1 = t.centroid_x;
      if (t.centroid_y < y0) y0 = t.centroid_y;
      if (t.centroid_y > y1) y1 = t.centroid_y;
      n++;
    }
    if (!n) { x0 = y0 = 0; x1 = y1 = 1; }
    const area = Math.max(1, (x1 - x0) * (y1 - y0));
    this.cell = Math.max(8, Math.sqrt(area / Math.max(1, n) * PER_CELL));
    this.x0 = x0;
    this.y0 = y0;
    this.cols = Math.max(1, Math.floor((x1 - x0) / this.cell) + 1);
    this.rows = Math.max(1, Math.floor((y1 - y0) / this.cell) + 1);
    const cells = this.cols * this.rows;
    this.tubs = Array.from({ length: cells }, () => []);
    this.size = n;
    this.maxRadius = 0;
    // cellOf inlined: the first frame of a large set runs this before the
    // optimising compiler has compiled it
    const cell = this.cell, cols = this.cols, rows = this.rows, tubs = this.tubs;
    let maxR = 0;
    for (const t of tubercles.values()) {
      let cx = Math.floor((t.centroid_x - x0) / cell), cy = Math.floor((t.centroid_y - y0) / cell);
      cx = cx < 0 ? 0 : cx >= cols ? cols - 1 : cx;
      cy = cy < 0 ? 0 : cy >= rows ? rows - 1 : cy;
      tubs[cy * cols + cx].push(t);
      if (t.radius_px > maxR) maxR = t.radius_px;
    }
    this.maxRadius = maxR;
    this.tubsMap = tubercles;
    this.edges = edges;
    this.edgeCells = null; // made by the first edgesIn (edgeGrid)
  }

  // A connection sits in the cells of both its ends, so it is found from
  // either side; seen[] (one stamp per connection) removes the doubles.
  // One longer than a cell (drawn by hand across the image) is in every
  // answer, so a query never needs to look further than a cell around.
  // Made when first asked for, or when the page is idle after a set is read
  // (workspace.js): a large set opened at fit is drawn as dots without
  // connections, and 200,000 of them cost a fifth of a second.
  edgeGrid() {
    if (this.edgeCells) return;
    const tubercles = this.tubsMap, edges = this.edges, cell2 = this.cell * this.cell;
    const cells = this.cols * this.rows;
    this.edgeCells = Array.from({ length: cells }, () => []);
    this.long = [];
    for (let i = 0; i < edges.length; i++) {
      const e = edges[i];
      const a = tubercles.get(e.id1), b = tubercles.get(e.id2);
      if (!a || !b) continue;
      const dx = a.centroid_x - b.centroid_x, dy = a.centroid_y - b.centroid_y;
      if (dx * dx + dy * dy > cell2) { this.long.push(i); continue; }
      const ca = this.cellOf(a.centroid_x, a.centroid_y), cb = this.cellOf(b.centroid_x, b.centroid_y);
      this.edgeCells[ca].push(i);
      if (cb !== ca) this.edgeCells[cb].push(i);
    }
    this.seen = new Uint32Array(edges.length);
    this.stamp = 0;
  }

  col(x) { return Math.max(0, Math.min(this.cols - 1, Math.floor((x - this.x0) / this.cell))); }
  row(y) { return Math.max(0, Math.min(this.rows - 1, Math.floor((y - this.y0) / this.cell))); }
  cellOf(x, y) { return this.row(y) * this.cols + this.col(x); }

  // Calls fn(cellIndex) for every cell meeting rect {x0, y0, x1, y1}.
  cells(r, fn) {
    if (r.x1 < this.x0 - this.cell || r.y1 < this.y0 - this.cell) return;
    const c0 = this.col(r.x0), c1 = this.col(r.x1), r0 = this.row(r.y0), r1 = this.row(r.y1);
    for (let y = r0; y <= r1; y++) for (let x = c0; x <= c1; x++) fn(y * this.cols + x);
  }

  // Tubercles of the cells meeting r (a superset of those inside r).
  tubsIn(r) {
    const out = [];
    this.cells(r, (c) => { for (const t of this.tubs[c]) out.push(t); });
    return out;
  }

  countTubs(r) {
    let n = 0;
    this.cells(r, (c) => { n += this.tubs[c].length; });
    return n;
  }

  // Connections with an end in a cell meeting r, and the long ones; each once.
  edgesIn(r) {
    this.edgeGrid();
    const out = this.long.map(i => this.edges[i]);
    if (++this.stamp === 0xffffffff) { this.seen.fill(0); this.stamp = 1; }
    const s = this.stamp, seen = this.seen, edges = this.edges;
    this.cells(r, (c) => {
      for (const i of this.edgeCells[c]) {
        if (seen[i] === s) continue;
        seen[i] = s;
        out.push(edges[i]);
      }
    });
    return out;
  }
}

export function indexOf(m) {
  const ix = m.spatialIndex;
  if (ix && ix.version === m.version && ix.map === m.tubercles && ix.edges === m.edges && ix.nEdges === m.edges.length) return ix;
  const fresh = new SpatialIndex(m.tubercles, m.edges);
  fresh.version = m.version;
  fresh.map = m.tubercles;
  fresh.nEdges = m.edges.length;
  m.spatialIndex = fresh;
  return fresh;
}
