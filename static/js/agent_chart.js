// agent_chart.js - small canvas line charts for the agent tabs: iteration
// on x, a 0..1 score on y, one or more series, the best point marked, an
// optional dashed target line, and a hover read-out of the nearest
// iteration. No library: the page's CSP allows only our own scripts.

const PAD = { l: 38, r: 12, t: 22, b: 26 };

export class LineChart {
  // series: [{key, label, color, scale (value multiplier, e.g. 0.01 for %)}]
  constructor(canvas, { series, target = null, bestKey = null, xMax = 10, describe = null }) {
    this.canvas = canvas;
    this.series = series;
    this.target = target;
    this.bestKey = bestKey;
    this.xMax = xMax;
    this.points = [];
    this.hover = null;
    this.describe = describe || ((p) => series.map(s => `${s.label}: ${fmtVal(p[s.key], s)}`).join(', '));
    canvas.addEventListener('mousemove', (e) => this.onMove(e));
    canvas.addEventListener('mouseleave', () => { this.hover = null; this.draw(); });
  }

  setData(points, xMax) {
    this.points = points.filter(p => typeof p.iteration === 'number');
    if (xMax) this.xMax = xMax;
    this.draw();
  }

  setTarget(t) { this.target = t; this.draw(); }

  bestIndex() {
    if (!this.bestKey || !this.points.length) return -1;
    let b = -1;
    this.points.forEach((p, i) => { if (typeof p[this.bestKey] === 'number' && (b < 0 || p[this.bestKey] > this.points[b][this.bestKey])) b = i; });
    return b;
  }

  geometry() {
    const w = this.canvas.width, h = this.canvas.height;
    const maxX = Math.max(this.xMax, ...this.points.map(p => p.iteration), 1);
    const minX = Math.min(0, ...this.points.map(p => p.iteration));
    const x = (i) => PAD.l + (i - minX) / Math.max(1e-9, maxX - minX) * (w - PAD.l - PAD.r);
    const y = (v) => PAD.t + (1 - Math.max(0, Math.min(1, v))) * (h - PAD.t - PAD.b);
    return { w, h, x, y, minX, maxX };
  }

  draw() {
    const c = this.canvas, ctx = c.getContext('2d');
    if (!ctx) return;
    const g = this.geometry();
    const css = getComputedStyle(c);
    const fg = css.color || '#888';
    ctx.clearRect(0, 0, g.w, g.h);
    ctx.font = '10px sans-serif';
    ctx.lineWidth = 1;
    // axes and grid
    ctx.strokeStyle = 'rgba(128,128,128,0.35)';
    ctx.fillStyle = fg;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let v = 0; v <= 1.0001; v += 0.25) {
      ctx.beginPath(); ctx.moveTo(PAD.l, g.y(v)); ctx.lineTo(g.w - PAD.r, g.y(v)); ctx.stroke();
      ctx.fillText(v.toFixed(2), PAD.l - 4, g.y(v));
    }
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    const step = Math.max(1, Math.ceil((g.maxX - g.minX) / 8));
    for (let i = Math.ceil(g.minX); i <= g.maxX; i += step) ctx.fillText(String(i), g.x(i), g.h - PAD.b + 4);
    ctx.textAlign = 'right';
    ctx.fillText('Iteration', g.w - PAD.r, g.h - 11);
    // target
    if (typeof this.target === 'number') {
      ctx.save();
      ctx.setLineDash([5, 5]);
      ctx.strokeStyle = '#ff9800';
      ctx.beginPath(); ctx.moveTo(PAD.l, g.y(this.target)); ctx.lineTo(g.w - PAD.r, g.y(this.target)); ctx.stroke();
      ctx.restore();
      ctx.fillStyle = '#ff9800';
      ctx.textBaseline = 'bottom';
      ctx.fillText(`Target ${this.target.toFixed(2)}`, g.w - PAD.r, g.y(this.target) - 2);
    }
    // series
    for (const s of this.series) {
      const pts = this.points.filter(p => typeof p[s.key] === 'number');
      ctx.strokeStyle = s.color;
      ctx.fillStyle = s.color;
      ctx.lineWidth = 2;
      ctx.beginPath();
      pts.forEach((p, i) => {
        const X = g.x(p.iteration), Y = g.y(p[s.key] * (s.scale || 1));
        if (i) ctx.lineTo(X, Y); else ctx.moveTo(X, Y);
      });
      ctx.stroke();
      for (const p of pts) { ctx.beginPath(); ctx.arc(g.x(p.iteration), g.y(p[s.key] * (s.scale || 1)), 2.5, 0, 2 * Math.PI); ctx.fill(); }
    }
    // best
    const b = this.bestIndex();
    if (b >= 0) {
      const p = this.points[b], s = this.series.find(x => x.key === this.bestKey);
      const X = g.x(p.iteration), Y = g.y(p[this.bestKey] * ((s && s.scale) || 1));
      ctx.strokeStyle = '#ffd700';
      ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(X, Y, 6, 0, 2 * Math.PI); ctx.stroke();
      ctx.fillStyle = fg;
      ctx.textAlign = 'center';
      ctx.textBaseline = 'bottom';
      ctx.fillText('best', X, Y - 7);
    }
    // legend
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    let lx = PAD.l;
    for (const s of this.series) {
      ctx.fillStyle = s.color;
      ctx.fillRect(lx, 6, 10, 3);
      ctx.fillText(s.label, lx + 14, 2);
      lx += 24 + ctx.measureText(s.label).width;
    }
    // hover
    if (this.hover != null && this.points[this.hover]) {
      const p = this.points[this.hover];
      const X = g.x(p.iteration);
      ctx.strokeStyle = 'rgba(128,128,128,0.8)';
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(X, PAD.t); ctx.lineTo(X, g.h - PAD.b); ctx.stroke();
      const text = `#${p.iteration}  ${this.describe(p)}`;
      const tw = ctx.measureText(text).width + 10;
      const bx = Math.min(Math.max(PAD.l, X - tw / 2), g.w - tw - 2);
      ctx.fillStyle = 'rgba(20,20,20,0.85)';
      ctx.fillRect(bx, PAD.t, tw, 16);
      ctx.fillStyle = '#fff';
      ctx.fillText(text, bx + 5, PAD.t + 3);
    }
    this.canvas.dataset.points = String(this.points.length);
    this.canvas.dataset.best = b >= 0 ? String(this.points[b].iteration) : '';
  }

  onMove(e) {
    if (!this.points.length) return;
    const r = this.canvas.getBoundingClientRect();
    const mx = (e.clientX - r.left) * (this.canvas.width / r.width);
    const g = this.geometry();
    let best = 0, d = Infinity;
    this.points.forEach((p, i) => { const dd = Math.abs(g.x(p.iteration) - mx); if (dd < d) { d = dd; best = i; } });
    if (best !== this.hover) { this.hover = best; this.draw(); }
    this.canvas.title = `Iteration ${this.points[best].iteration}: ${this.describe(this.points[best])}`;
  }
}

function fmtVal(v, s) {
  if (typeof v !== 'number') return '-';
  return s.unit === '%' ? v.toFixed(1) + '%' : v.toFixed(3);
}
