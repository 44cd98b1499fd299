// overlay.js - draws a set over the image: connections, tubercles (colour
// by mode, batched into one path per colour), ids, ellipses, grid, scale
// bar, selections and the temporary shapes of the edit modes. Everything is
// in image coordinates; line widths are divided by the zoom so they keep
// their on-screen size. Only what lies in the visible rectangle is drawn.

const SOURCE_COLORS = { agent: '#ff00ff', lattice: '#00bfff' };

// An unmeasured tubercle (its base could not be measured: radius_px null)
// has no circle to draw: it is drawn as a cross on its centre, and picked
// and highlighted within a few screen pixels of it.
export const measured = (t) => typeof t.radius_px === 'number' && t.radius_px > 0;
const MARK_PX = 5;
const markR = (t, px) => (measured(t) ? t.radius_px : MARK_PX * px);

function tubColor(t, o) {
  if (o.colorMode === 'boundary') return t.is_boundary ? o.boundaryColor : o.tubercleColor;
  if (o.colorMode === 'source') {
    if (t.source === 'manual') return o.manualColor;
    return SOURCE_COLORS[t.source] || o.tubercleColor;
  }
  return o.tubercleColor;
}

// phase 'image': everything that moves with the image (may be cached);
// phase 'screen': what stays put on the screen (the scale bar).
export function drawOverlay(ctx, view, m, o, phase = 'image') {
  if (phase === 'screen') {
    if (o.scaleBar && m.umPerPx > 0) drawScaleBar(ctx, view, m, o);
    return;
  }
  const s = view.scale;
  const px = 1 / s; // one screen pixel in image units
  const vr = view.visibleRect();
  const margin = 60;
  const inView = (x, y, r = 0) => x + r >= vr.x0 - margin && x - r <= vr.x1 + margin &&
    y + r >= vr.y0 - margin && y - r <= vr.y1 + margin;
  const tubs = m.tubercles;

  if (o.grid && m.width) drawGrid(ctx, m, o, px);

  if (o.showItcs && m.edges.length) {
    ctx.beginPath();
    for (const e of m.edges) {
      const a = tubs.get(e.id1), b = tubs.get(e.id2);
      if (!a || !b) continue;
      if (!inView(a.centroid_x, a.centroid_y) && !inView(b.centroid_x, b.centroid_y)) continue;
      segment(ctx, a, b, o.endpoints === 'edge');
    }
    ctx.strokeStyle = o.connectionColor;
    ctx.lineWidth = o.connectionWidth * px;
    ctx.stroke();
  }

  if (o.showTubes) {
    const byColor = new Map();
    for (const t of tubs.values()) {
      if (!inView(t.centroid_x, t.centroid_y, markR(t, px))) continue;
      const c = tubColor(t, o);
      let list = byColor.get(c);
      if (!list) byColor.set(c, list = []);
      list.push(t);
    }
    ctx.lineWidth = o.tubercleWidth * px;
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
      for (const t of tubs.values()) {
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
      for (const t of tubs.values()) {
        if (!inView(t.centroid_x, t.centroid_y)) continue;
        ctx.strokeText(String(t.id), t.centroid_x, t.centroid_y);
        ctx.fillText(String(t.id), t.centroid_x, t.centroid_y);
      }
    }
    if (o.showItcIds) {
      ctx.fillStyle = o.connectionColor;
      m.edges.forEach((e, i) => {
        const a = tubs.get(e.id1), b = tubs.get(e.id2);
        if (!a || !b) return;
        const x = (a.centroid_x + b.centroid_x) / 2, y = (a.centroid_y + b.centroid_y) / 2;
        if (!inView(x, y)) return;
        ctx.strokeText(String(i + 1), x, y);
        ctx.fillText(String(i + 1), x, y);
      });
    }
  }

  drawSelection(ctx, m, o, px);
  drawTemp(ctx, m, px);
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
  let best = null, bestD = Infinity;
  for (const t of m.tubercles.values()) {
    const d = Math.hypot(t.centroid_x - x, t.centroid_y - y);
    if (d <= 1.5 * markR(t, 1 / scale) && d < bestD) { best = t; bestD = d; }
  }
  let edge = null, edgeD = Infinity;
  const tol = 10 / scale;
  for (const e of m.edges) {
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
