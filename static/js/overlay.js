// overlay.js - draws a set over the image: connections, tubercles (colour
// by mode, batched into one path per colour), ids, ellipses, grid, scale
// bar, selections and the temporary shapes of the edit modes. Everything is
// in image coordinates; line widths are divided by the zoom so they keep
// their on-screen size. Only what lies in the visible rectangle is drawn,
// found through the set's spatial grid (spatial.js).
//
// Level of detail: when more than LOD_FULL_MAX tubercles are in view (a
// large montage zoomed out), circles and connections would be a few pixels
// each and cost seconds: the tubercles are drawn as dots (one pixel buffer,
// no path), connections, ellipses and ids are left out. Above LOD_THIN_MIN
// the outlines and connections are one device pixel wide ('thin'): the
// rasteriser's hairlines cost a tenth of a 1.5- or 2-pixel stroke.

import { indexOf } from './spatial.js';

const SOURCE_COLORS = { agent: '#ff00ff', lattice: '#00bfff' };
export const LOD_FULL_MAX = 12000;
export const LOD_THIN_MIN = 4000;

// An unmeasured tubercle (its base could not be measured: radius_px null)
// has no circle to draw: it is drawn as a cross on its centre, and picked
// and highlighted within a few screen pixels of it.
export const measured = (t) => typeof t.radius_px === 'number' && t.radius_px > 0;
const MARK_PX = 5;
const markR = (t, px) => (measured(t) ? t.radius_px : MARK_PX * px);
const MARGIN = 60; // image px around the view: outlines and labels reaching in

function tubColor(t, o) {
  if (o.colorMode === 'boundary') return t.is_boundary ? o.boundaryColor : o.tubercleColor;
  if (o.colorMode === 'source') {
    if (t.source === 'manual') return o.manualColor;
    return SOURCE_COLORS[t.source] || o.tubercleColor;
  }
  return o.tubercleColor;
}

const grow = (r, g) => ({ x0: r.x0 - g, y0: r.y0 - g, x1: r.x1 + g, y1: r.y1 + g });

// What a view of the set shows: 'full', 'thin' or 'dots', and how many
// tubercles lie in (the cells of) the visible rectangle.
export function levelOfDetail(m, rect) {
  const n = indexOf(m).countTubs(rect);
  return { lod: n > LOD_FULL_MAX ? 'dots' : n > LOD_THIN_MIN ? 'thin' : 'full', tubercles: n };
}

// phase 'image': everything that moves with the image (may be cached),
// which is 'set' (the set itself: kept in the viewer's overlay tiles) and
// 'live' (the selection and the edit modes' shapes: cheap, drawn every
// frame over the tiles); phase 'screen': what stays put on the screen (the
// scale bar). view.lod (optional) imposes the level of detail (the overlay
// tiles take the one of the whole screen, not of the tile).
export function drawOverlay(ctx, view, m, o, phase = 'image') {
  if (phase === 'screen') {
    if (o.scaleBar && m.umPerPx > 0) drawScaleBar(ctx, view, m, o);
    return;
  }
  if (phase === 'live') {
    drawSelection(ctx, m, o, 1 / view.scale);
    drawTemp(ctx, m, 1 / view.scale);
    return;
  }
  const live = phase === 'image';
  const s = view.scale;
  const px = 1 / s; // one screen pixel in image units
  const vr = view.visibleRect();
  const margin = MARGIN;
  const inView = (x, y, r = 0) => x + r >= vr.x0 - margin && x - r <= vr.x1 + margin &&
    y + r >= vr.y0 - margin && y - r <= vr.y1 + margin;
  const tubs = m.tubercles;
  const index = indexOf(m);
  const lod = view.lod || levelOfDetail(m, vr).lod;
  const near = grow(vr, margin + Math.max(index.maxRadius, MARK_PX * px));
  const hair = px / (view.dpr || 1); // one device pixel
  const shown = index.tubsIn(near);
  // what the last frame drew (over all its overlay tiles), for tests
  if (!m.drawn || m.drawn.frame !== view.frameNo || m.drawn.lod !== lod) m.drawn = { frame: view.frameNo, lod, tubercles: 0, edges: 0 };

  if (o.grid && m.width) drawGrid(ctx, m, o, px);

  if (lod === 'dots') {
    if (o.showTubes) m.drawn.tubercles += drawDots(ctx, shown, o);
    if (live) { drawSelection(ctx, m, o, px); drawTemp(ctx, m, px); }
    return;
  }

  // a connection up to a cell long crossing the view has both ends within
  // a cell of it (longer ones are in every answer); drawn when its box
  // meets the view, so one crossing a tile's corner is drawn in that tile too
  const edgesShown = (o.showItcs || o.showItcIds) && m.edges.length ? index.edgesIn(grow(vr, margin + index.cell)) : [];
  const bx0 = vr.x0 - margin, by0 = vr.y0 - margin, bx1 = vr.x1 + margin, by1 = vr.y1 + margin;
  if (o.showItcs && edgesShown.length) {
    ctx.beginPath();
    for (const e of edgesShown) {
      const a = tubs.get(e.id1), b = tubs.get(e.id2);
      if (!a || !b) continue;
      const ax = a.centroid_x, ay = a.centroid_y, cx = b.centroid_x, cy = b.centroid_y;
      if ((ax < bx0 && cx < bx0) || (ax > bx1 && cx > bx1) || (ay < by0 && cy < by0) || (ay > by1 && cy > by1)) continue;
      segment(ctx, a, b, o.endpoints === 'edge');
      m.drawn.edges++;
    }
    ctx.strokeStyle = o.connectionColor;
    ctx.lineWidth = lod === 'thin' ? hair : o.connectionWidth * px;
    ctx.stroke();
  }

  if (o.showTubes) {
    const byColor = new Map();
    for (const t of shown) {
      if (!inView(t.centroid_x, t.centroid_y, markR(t, px))) continue;
      const c = tubColor(t, o);
      let list = byColor.get(c);
      if (!list) byColor.set(c, list = []);
      list.push(t);
      m.drawn.tubercles++;
    }
    ctx.lineWidth = lod === 'thin' ? hair : o.tubercleWidth * px;
    for (const [c, list] of byColor) {
      ctx.beginPath();
      for (const t of list) {
        if (!measured(t)) {
          const r = markR(t, px);
          ctx.moveTo(t.centroid_x - r, t.centroid_y); ctx.lineTo(t.centroid_x + r, t.centroid_y);
          ctx.moveTo(t.centroid_x, t.centroid_y - r); ctx.lineTo(t.centroid_x, t.centroid_y + r);
          continue;
        }
        ctx.moveTo(t.centroid_x + t.radius_px, t.centroid_y);
        ctx.arc(t.centroid_x, t.centroid_y, t.radius_px, 0, 2 * Math.PI);
      }
      ctx.strokeStyle = c;
      ctx.stroke();
    }
    if (o.ellipses) {
      ctx.beginPath();
      for (const t of shown) {
        if (!t.major_axis_px || !inView(t.centroid_x, t.centroid_y, t.major_axis_px)) continue;
        const rot = t.orientation || 0;
        ctx.moveTo(t.centroid_x + Math.cos(rot) * t.major_axis_px / 2, t.centroid_y + Math.sin(rot) * t.major_axis_px / 2);
        ctx.ellipse(t.centroid_x, t.centroid_y, t.major_axis_px / 2, t.minor_axis_px / 2, rot, 0, 2 * Math.PI);
      }
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.strokeStyle = '#ffffff';
      ctx.lineWidth = px;
      ctx.stroke();
      ctx.setLineDash([]);
    }
  }

  // Labels are many small text draws: only when legible.
  const fontPx = o.idTextSize * px;
  if ((o.showTubeIds || o.showItcIds) && s * 20 > o.idTextSize) {
    ctx.font = `${fontPx}px sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.lineWidth = 3 * px;
    ctx.strokeStyle = 'rgba(0,0,0,0.7)';
    if (o.showTubeIds) {
      ctx.fillStyle = '#ffffff';
      for (const t of shown) {
        if (!inView(t.centroid_x, t.centroid_y)) continue;
        ctx.strokeText(String(t.id), t.centroid_x, t.centroid_y);
        ctx.fillText(String(t.id), t.centroid_x, t.centroid_y);
      }
    }
    if (o.showItcIds) {
      // a connection's label is its position in the set's list
      ctx.fillStyle = o.connectionColor;
      const number = edgesShown.length ? edgeNumbers(m) : null;
      for (const e of edgesShown) {
        const a = tubs.get(e.id1), b = tubs.get(e.id2);
        if (!a || !b) continue;
        const x = (a.centroid_x + b.centroid_x) / 2, y = (a.centroid_y + b.centroid_y) / 2;
        if (!inView(x, y)) continue;
        const label = String(number.get(e) + 1);
        ctx.strokeText(label, x, y);
        ctx.fillText(label, x, y);
      }
    }
  }

  if (live) { drawSelection(ctx, m, o, px); drawTemp(ctx, m, px); }
}

// Position of each connection in the store's list (its label), per version.
function edgeNumbers(m) {
  const c = m.edgeNumbers;
  if (c && c.version === m.version && c.edges === m.edges && c.n === m.edges.length) return c.map;
  const map = new Map();
  m.edges.forEach((e, i) => map.set(e, i));
  m.edgeNumbers = { version: m.version, edges: m.edges, n: m.edges.length, map };
  return map;
}

// One dot per tubercle into a pixel buffer the size of the target canvas,
// then one drawImage: ~1 ms for 70,000, where 70,000 arcs take seconds.
let dotCanvas = null;
const colorCache = new Map();
function rgba32(css) {
  let v = colorCache.get(css);
  if (v !== undefined) return v;
  const c = (dotCanvas || document.createElement('canvas')).getContext('2d');
  c.fillStyle = '#000';
  c.fillStyle = css;
  const f = c.fillStyle; // normalised: #rrggbb or rgba(r, g, b, a)
  let r = 0, g = 0, b = 0, a = 255;
  if (f[0] === '#') { r = parseInt(f.slice(1, 3), 16); g = parseInt(f.slice(3, 5), 16); b = parseInt(f.slice(5, 7), 16); }
  else { const p = f.match(/[\d.]+/g).map(Number); [r, g, b] = p; if (p.length > 3) a = Math.round(p[3] * 255); }
  v = ((a << 24) | (b << 16) | (g << 8) | r) >>> 0; // little-endian RGBA bytes
  colorCache.set(css, v);
  return v;
}

// The loop is kept plain (indices, no calls per dot but a colour change):
// the first drawing of a large set runs before the optimising compiler
// has compiled it, and on a loaded machine long after.
function drawDots(ctx, list, o) {
  const T = ctx.getTransform();
  const W = ctx.canvas.width, H = ctx.canvas.height;
  if (!dotCanvas) dotCanvas = document.createElement('canvas');
  if (dotCanvas.width !== W || dotCanvas.height !== H) { dotCanvas.width = W; dotCanvas.height = H; }
  const dc = dotCanvas.getContext('2d');
  const img = dc.createImageData(W, H);
  const buf = new Uint32Array(img.data.buffer);
  const a = T.a, b = T.b, c = T.c, d = T.d, e = T.e, f = T.f;
  let n = 0, lastKey = null, lastB = null, col = 0;
  for (let k = 0; k < list.length; k++) {
    const t = list[k];
    const cx = t.centroid_x, cy = t.centroid_y;
    const x = a * cx + c * cy + e, y = b * cx + d * cy + f;
    if (x < -2 || y < -2 || x >= W + 2 || y >= H + 2) continue;
    if (t.source !== lastKey || t.is_boundary !== lastB) { lastKey = t.source; lastB = t.is_boundary; col = rgba32(tubColor(t, o)); }
    // a dot as wide as the tubercle, 1 to 3 device pixels
    const r = t.radius_px;
    let side = typeof r === 'number' && r > 0 ? Math.round(2 * r * a) : Math.round(2 * a);
    side = side < 1 ? 1 : side > 3 ? 3 : side;
    const x0 = Math.round(x - side / 2), y0 = Math.round(y - side / 2);
    const ya = y0 < 0 ? 0 : y0, yb = y0 + side > H ? H : y0 + side;
    const xa = x0 < 0 ? 0 : x0, xb = x0 + side > W ? W : x0 + side;
    for (let yy = ya; yy < yb; yy++) buf.fill(col, yy * W + xa, yy * W + xb);
    n++;
  }
  dc.putImageData(img, 0, 0);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(dotCanvas, 0, 0);
  ctx.restore();
  return n;
}

function segment(ctx, a, b, toEdge) {
  let x1 = a.centroid_x, y1 = a.centroid_y, x2 = b.centroid_x, y2 = b.centroid_y;
  if (toEdge) {
    const dx = x2 - x1, dy = y2 - y1, len = Math.hypot(dx, dy);
    const ra = measured(a) ? a.radius_px : 0, rb = measured(b) ? b.radius_px : 0;
    if (len <= ra + rb) return;
    const ux = dx / len, uy = dy / len;
    x1 += ux * ra; y1 += uy * ra;
    x2 -= ux * rb; y2 -= uy * rb;
  }
  ctx.moveTo(x1, y1);
  ctx.lineTo(x2, y2);
}

function drawGrid(ctx, m, o, px) {
  const step = Math.max(m.width, m.height) / 10;
  ctx.beginPath();
  for (let x = step; x < m.width; x += step) { ctx.moveTo(x, 0); ctx.lineTo(x, m.height); }
  for (let y = step; y < m.height; y += step) { ctx.moveTo(0, y); ctx.lineTo(m.width, y); }
  // a dark edge under the coloured line, so the grid shows on bright and
  // dark image parts alike (one pixel of magenta at 35 % did not)
  ctx.globalAlpha = Math.min(1, o.gridOpacity + 0.2);
  ctx.strokeStyle = 'rgba(0,0,0,0.6)';
  ctx.lineWidth = 3 * px;
  ctx.stroke();
  ctx.globalAlpha = Math.max(0.6, o.gridOpacity);
  ctx.strokeStyle = o.gridColor;
  ctx.lineWidth = 1.5 * px;
  ctx.stroke();
  ctx.globalAlpha = 1;
}

function drawSelection(ctx, m, o, px) {
  const tubs = m.tubercles;
  const sel = m.selection;
  ctx.lineWidth = 3 * px;
  if (m.multi.tubs.size || m.multi.edges.size) {
    ctx.beginPath();
    for (const id of m.multi.tubs) {
      const t = tubs.get(id);
      if (!t) continue;
      ctx.moveTo(t.centroid_x + markR(t, px), t.centroid_y);
      ctx.arc(t.centroid_x, t.centroid_y, markR(t, px), 0, 2 * Math.PI);
    }
    for (const k of m.multi.edges) {
      const [a, b] = k.split('-').map(Number);
      const ta = tubs.get(a), tb = tubs.get(b);
      if (ta && tb) segment(ctx, ta, tb, false);
    }
    ctx.strokeStyle = '#ffff00';
    ctx.stroke();
  }
  if (sel.tub != null && tubs.get(sel.tub)) {
    const t = tubs.get(sel.tub);
    ctx.beginPath();
    ctx.arc(t.centroid_x, t.centroid_y, markR(t, px), 0, 2 * Math.PI);
    ctx.strokeStyle = o.selectedColor;
    ctx.stroke();
  }
  if (sel.edge) {
    const a = tubs.get(sel.edge[0]), b = tubs.get(sel.edge[1]);
    if (a && b) {
      ctx.beginPath();
      segment(ctx, a, b, false);
      ctx.strokeStyle = o.selectedColor;
      ctx.stroke();
    }
  }
}

function drawTemp(ctx, m, px) {
  const tmp = m.temp;
  if (tmp.chainEdge) {
    const a = m.tubercles.get(tmp.chainEdge[0]), b = m.tubercles.get(tmp.chainEdge[1]);
    if (a && b) {
      ctx.beginPath();
      segment(ctx, a, b, false);
      ctx.strokeStyle = '#ff8800';
      ctx.lineWidth = 4 * px;
      ctx.stroke();
    }
  }
  if (tmp.chainCurrent != null) {
    const t = m.tubercles.get(tmp.chainCurrent);
    if (t) {
      ctx.beginPath();
      ctx.arc(t.centroid_x, t.centroid_y, markR(t, px) + 4 * px, 0, 2 * Math.PI);
      ctx.strokeStyle = '#3b82f6';
      ctx.lineWidth = 2 * px;
      ctx.stroke();
    }
  }
  if (tmp.firstItc != null) {
    const t = m.tubercles.get(tmp.firstItc);
    if (t) {
      ctx.beginPath();
      ctx.arc(t.centroid_x, t.centroid_y, markR(t, px) + 3 * px, 0, 2 * Math.PI);
      ctx.strokeStyle = '#3b82f6';
      ctx.lineWidth = 2 * px;
      ctx.stroke();
    }
  }
  if (tmp.rect) {
    const r = tmp.rect;
    const x = Math.min(r.x0, r.x1), y = Math.min(r.y0, r.y1), w = Math.abs(r.x1 - r.x0), h = Math.abs(r.y1 - r.y0);
    if (tmp.rectKind === 'crop' && m.width) {
      ctx.fillStyle = 'rgba(0,0,0,0.5)';
      ctx.beginPath();
      ctx.rect(0, 0, m.width, m.height);
      ctx.rect(x + w, y, -w, h); // hole (opposite winding)
      ctx.fill('evenodd');
      ctx.strokeStyle = '#ffffff';
    } else {
      ctx.fillStyle = 'rgba(0,255,255,0.1)';
      ctx.fillRect(x, y, w, h);
      ctx.strokeStyle = '#00ffff';
    }
    ctx.setLineDash([6 * px, 4 * px]);
    ctx.lineWidth = 1.5 * px;
    ctx.strokeRect(x, y, w, h);
    ctx.setLineDash([]);
  }
  if (tmp.measure) {
    const p = tmp.measure;
    ctx.beginPath();
    ctx.moveTo(p[0][0], p[0][1]);
    if (p[1]) ctx.lineTo(p[1][0], p[1][1]);
    ctx.strokeStyle = '#00ffff';
    ctx.lineWidth = 2 * px;
    ctx.stroke();
    for (const q of p) if (q) { ctx.beginPath(); ctx.arc(q[0], q[1], 4 * px, 0, 2 * Math.PI); ctx.fillStyle = '#00ffff'; ctx.fill(); }
  }
  if (tmp.databar) {
    // the SEM data bar the server found (Calibration tab): its box and its scale-bar line
    const r = tmp.databar.rect;
    ctx.setLineDash([6 * px, 4 * px]);
    ctx.strokeStyle = '#ff00ff';
    ctx.lineWidth = 1.5 * px;
    ctx.strokeRect(r.x, r.y, r.width, r.height);
    ctx.setLineDash([]);
    const l = tmp.databar.line;
    if (l) {
      ctx.beginPath();
      ctx.moveTo(l.x0, l.y);
      ctx.lineTo(l.x1, l.y);
      ctx.strokeStyle = 'rgba(255,0,255,0.8)';
      ctx.lineWidth = 4 * px;
      ctx.stroke();
    }
  }
  if (tmp.region) {
    const r = tmp.region;
    ctx.strokeStyle = '#ff8800';
    ctx.lineWidth = 1.5 * px;
    ctx.strokeRect(r.x, r.y, r.width, r.height);
    if (r.found && measured(r.found)) {
      ctx.beginPath();
      ctx.arc(r.found.centroid_x, r.found.centroid_y, r.found.radius_px, 0, 2 * Math.PI);
      ctx.fillStyle = 'rgba(0,255,0,0.35)';
      ctx.fill();
    }
  }
}

function drawScaleBar(ctx, view, m, o) {
  // drawn in screen space so it keeps its size
  const um = m.umPerPx;
  const targetPx = 120;
  const rawUm = targetPx / view.scale * um;
  const pow = Math.pow(10, Math.floor(Math.log10(rawUm)));
  const nice = [1, 2, 5, 10].map(k => k * pow).filter(v => v <= rawUm).pop() || pow;
  const lenPx = nice / um * view.scale;
  const d = view.dpr;
  ctx.save();
  ctx.setTransform(d, 0, 0, d, 0, 0);
  const pos = o.scalePosition || 'bottom-left';
  const pad = 16;
  let x = pad, y = view.cssH - pad - 24;
  if (pos.endsWith('right')) x = view.cssW - pad - lenPx;
  else if (pos.endsWith('center')) x = (view.cssW - lenPx) / 2;
  if (pos.startsWith('top')) y = pad;
  else if (pos.startsWith('middle')) y = view.cssH / 2 - 12;
  ctx.fillStyle = 'rgba(0,0,0,0.55)';
  ctx.fillRect(x - 6, y - 4, lenPx + 12, 30);
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(x, y + 16, lenPx, 4);
  ctx.font = '12px sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'alphabetic';
  ctx.fillText(`${nice >= 1 ? nice : nice.toPrecision(1)} µm`, x + lenPx / 2, y + 12);
  ctx.restore();
}

// Hit testing as the original: a tubercle within 1.5 × its radius, an
// edge within 10 screen px; inside a tubercle's radius the tubercle wins,
// otherwise the edge wins only if it is at less than half the distance.
export function hitTest(m, x, y, scale) {
  const index = indexOf(m);
  const tol = 10 / scale;
  // nothing farther than 1.5 radii (or the edge tolerance) can be picked
  const reach = { x0: x, y0: y, x1: x, y1: y };
  const around = grow(reach, Math.max(1.5 * Math.max(index.maxRadius, MARK_PX / scale), tol));
  let best = null, bestD = Infinity;
  for (const t of index.tubsIn(around)) {
    const d = Math.hypot(t.centroid_x - x, t.centroid_y - y);
    if (d <= 1.5 * markR(t, 1 / scale) && d < bestD) { best = t; bestD = d; }
  }
  let edge = null, edgeD = Infinity;
  for (const e of index.edgesIn(grow(reach, tol + index.cell))) {
    const a = m.tubercles.get(e.id1), b = m.tubercles.get(e.id2);
    if (!a || !b) continue;
    const d = segDist(x, y, a.centroid_x, a.centroid_y, b.centroid_x, b.centroid_y);
    if (d <= tol && d < edgeD) { edge = e; edgeD = d; }
  }
  if (best && (bestD <= markR(best, 1 / scale) || !edge || edgeD >= bestD / 2)) return { tub: best.id };
  if (edge) return { edge: [edge.id1, edge.id2] };
  return null;
}

function segDist(px, py, x1, y1, x2, y2) {
  const dx = x2 - x1, dy = y2 - y1;
  const l2 = dx * dx + dy * dy;
  let t = l2 ? ((px - x1) * dx + (py - y1) * dy) / l2 : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
}
