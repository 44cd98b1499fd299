// viewer.js - the image on one canvas with a zoom/pan transform. Drawing
// happens on requestAnimationFrame and only after something asked for it
// (request()), so an idle page costs nothing and 5,000 tubercles are
// drawn once per frame at most, in image coordinates through one
// transform (no DOM per tubercle).
//
// Panning does not change what is drawn, only where: when the whole image
// at the current zoom fits in a bitmap of a few screens, image + overlay
// are rendered once into that bitmap and a pan frame is one drawImage.
// Anything else (an edit, a toggle, a zoom) invalidates it via request().
//
// A large image (one with a display pyramid, image.tiles) is drawn from its
// overview PNG stretched to the full size, with the pyramid's tiles on top:
// the level whose pixels are closest to the screen's, only the tiles in
// view, each fetched once (a few at a time) and kept in a bounded cache.
//
// A large set (tileOverlay set by the workspace) zoomed in beyond the
// cached bitmap has its overlay drawn in tiles of 128 device pixels at the
// current zoom, kept while overlayKey() (the workspace: the set's version
// and the drawing options) stays the same: a pan frame is then a few
// drawImage calls, and the tiles entering the view are drawn within a time
// budget per frame (the rest in the next frames), not the whole set. The
// selection and the edit modes' shapes (phase 'live') are drawn over them
// every frame.

export const ZOOM_MIN = 0.1;
export const ZOOM_MAX = 10;

export class Viewer {
  constructor(canvas, container, drawOverlay) {
    this.canvas = canvas;
    this.container = container;
    this.ctx = canvas.getContext('2d');
    this.drawOverlay = drawOverlay;
    this.image = null;
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.pending = false;
    this.cache = null;
    this.cacheValid = false;
    this.onViewChange = null;
    this.lastFrameMs = 0;
    this.tileOverlay = false;
    this.overlayLod = null; // (rect) => the level of detail of the screen's view
    this.overlayKey = null; // () => what the overlay tiles show; they are redrawn when it changes
    this.otiles = null;
    this.generation = 0; // grows with request(): cached overlay tiles are stale
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  // A new size (window, panel, a banner) refits an image the user has not
  // zoomed or panned; one they have keeps the point at the centre there.
  resize() {
    const r = this.container.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const oldW = this.cssW, oldH = this.cssH;
    this.cssW = Math.max(1, Math.floor(r.width));
    this.cssH = Math.max(1, Math.floor(r.height));
    if (this.image && this.userMoved && oldW) {
      this.tx += (this.cssW - oldW) / 2;
      this.ty += (this.cssH - oldH) / 2;
    }
    this.canvas.width = Math.floor(this.cssW * dpr);
    this.canvas.height = Math.floor(this.cssH * dpr);
    this.canvas.style.width = this.cssW + 'px';
    this.canvas.style.height = this.cssH + 'px';
    this.dpr = dpr;
    if (this.image && !this.userMoved) this.fit();
    this.request();
  }

  // img: the loaded display image; meta (optional): the image's JSON, whose
  // width/height/tiles make a tiled image of a large one.
  setImage(img, meta) {
    this.tiles = null;
    if (meta && meta.tiles && meta.tiles.url) {
      this.image = { width: meta.width, height: meta.height, overview: img };
      this.tiles = { ...meta.tiles, cache: new Map(), loading: 0, queue: [], requested: 0 };
    } else {
      this.image = img;
    }
    this.userMoved = false;
    this.fit();
  }

  // The image's pixels into ctx, whose transform maps image coordinates;
  // rect: the part in view (image coordinates); px: device pixels per image pixel.
  drawBase(ctx, rect, px) {
    const im = this.image;
    if (!this.tiles) { ctx.drawImage(im, 0, 0); return; }
    // only the part of the overview in view: scaling all of it every frame
    // costs more than the tiles
    const ox0 = Math.max(0, rect.x0), oy0 = Math.max(0, rect.y0);
    const ox1 = Math.min(im.width, rect.x1), oy1 = Math.min(im.height, rect.y1);
    if (ox1 <= ox0 || oy1 <= oy0) return;
    const fx = im.overview.width / im.width, fy = im.overview.height / im.height;
    const overview = () => ctx.drawImage(im.overview, ox0 * fx, oy0 * fy, (ox1 - ox0) * fx, (oy1 - oy0) * fy, ox0, oy0, ox1 - ox0, oy1 - oy0);
    const t = this.tiles, side = t.size;
    // the overview already has this many image pixels per display pixel
    const over = im.width / im.overview.width;
    let z = Math.floor(Math.log2(1 / Math.max(px, 1e-9)));
    z = Math.max(0, Math.min(t.levels - 1, z));
    if (2 ** z >= over) { overview(); return; } // the overview is as sharp as the level would be
    const f = 2 ** z, span = side * f;
    const lw = Math.ceil(im.width / f), lh = Math.ceil(im.height / f);
    const x0 = Math.max(0, Math.floor(rect.x0 / span)), x1 = Math.min(Math.ceil(lw / side) - 1, Math.floor(rect.x1 / span));
    const y0 = Math.max(0, Math.floor(rect.y0 / span)), y1 = Math.min(Math.ceil(lh / side) - 1, Math.floor(rect.y1 / span));
    const got = [];
    for (let ty = y0; ty <= y1; ty++) for (let tx = x0; tx <= x1; tx++) got.push([tx, ty, this.tile(z, tx, ty)]);
    // the overview under the tiles only where one is still missing: a
    // scaled full-screen copy is the most expensive part of a pan frame
    if (got.some(g => !g[2])) overview();
    for (const [tx, ty, img] of got) if (img) ctx.drawImage(img, tx * span, ty * span, img.naturalWidth * f, img.naturalHeight * f);
  }

  // A loaded tile, or null after asking for it (drawn by a later frame).
  tile(z, x, y) {
    const t = this.tiles, key = `${z}-${x}-${y}`;
    const hit = t.cache.get(key);
    if (hit) {
      t.cache.delete(key); // most recently used last
      t.cache.set(key, hit);
      return hit.complete && hit.naturalWidth ? hit : null;
    }
    const img = new Image();
    t.cache.set(key, img);
    t.requested++;
    const start = () => {
      t.loading++;
      const done = () => {
        t.loading--;
        const next = t.queue.shift();
        if (next) next();
        this.request();
      };
      // decoded off the main thread before it is drawn: a first drawImage
      // of a JPEG decodes it there, in the middle of a pan frame
      img.onload = () => img.decode().then(done, done);
      img.onerror = () => { t.cache.delete(key); done(); };
      img.src = t.url.replace('{z}', z).replace('{x}', x).replace('{y}', y);
    };
    if (t.loading < 6) start(); else t.queue.push(start);
    // a bounded cache: the least recently drawn tiles go first
    while (t.cache.size > 400) t.cache.delete(t.cache.keys().next().value);
    return null;
  }

  // 95 % of the container, centred, as the original's zoom-to-fit.
  fit() {
    if (!this.image) return;
    const s = Math.min(this.cssW / this.image.width, this.cssH / this.image.height) * 0.95;
    this.scale = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, s));
    this.tx = (this.cssW - this.image.width * this.scale) / 2;
    this.ty = (this.cssH - this.image.height * this.scale) / 2;
    this.changed();
  }

  zoomAt(factor, sx = this.cssW / 2, sy = this.cssH / 2) {
    const ns = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, this.scale * factor));
    const [ix, iy] = this.toImage(sx, sy);
    this.scale = ns;
    this.tx = sx - ix * ns;
    this.ty = sy - iy * ns;
    this.userMoved = true;
    this.changed();
  }

  // The original's wheel step: ±0.25 of zoom, centred on the cursor.
  zoomStep(dir, sx, sy) {
    const target = Math.max(ZOOM_MIN, Math.min(ZOOM_MAX, this.scale + dir * 0.25 * Math.max(this.scale, 0.4)));
    this.zoomAt(target / this.scale, sx, sy);
  }

  panBy(dx, dy) {
    this.tx += dx;
    this.ty += dy;
    this.userMoved = true;
    if (this.onViewChange) this.onViewChange(this);
    this.frame();
  }

  changed() {
    if (this.onViewChange) this.onViewChange(this);
    this.request();
  }

  toImage(sx, sy) {
    return [(sx - this.tx) / this.scale, (sy - this.ty) / this.scale];
  }

  toScreen(ix, iy) {
    return [ix * this.scale + this.tx, iy * this.scale + this.ty];
  }

  // Image-space rectangle visible on screen, for culling.
  visibleRect() {
    const [x0, y0] = this.toImage(0, 0);
    const [x1, y1] = this.toImage(this.cssW, this.cssH);
    return { x0, y0, x1, y1 };
  }

  // Something drawn changed: rebuild the cached bitmap on the next frame.
  request() {
    this.cacheValid = false;
    this.generation++;
    this.frame();
  }

  frame() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  draw() {
    const t0 = performance.now();
    this.frameNo = (this.frameNo || 0) + 1;
    const ctx = this.ctx;
    const d = this.dpr;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.image) return;
    if (this.cacheable()) {
      if (!this.cacheValid || this.cache.scale !== this.scale) this.buildCache();
      const c = this.cache;
      ctx.drawImage(c.canvas, Math.round((this.tx - c.margin) * d), Math.round((this.ty - c.margin) * d));
    } else {
      this.cache = null;
      ctx.setTransform(this.scale * d, 0, 0, this.scale * d, this.tx * d, this.ty * d);
      ctx.imageSmoothingEnabled = this.scale < 2;
      this.drawBase(ctx, this.visibleRect(), this.scale * d);
      if (this.drawOverlay && this.tileOverlay) this.drawOverlayTiles(ctx, t0);
      else if (this.drawOverlay) this.drawOverlay(ctx, this, 'image');
    }
    if (this.drawOverlay) {
      ctx.setTransform(this.scale * d, 0, 0, this.scale * d, this.tx * d, this.ty * d);
      this.drawOverlay(ctx, this, 'screen');
    }
    this.lastFrameMs = performance.now() - t0;
  }

  // The overlay from tiles of T device pixels in a grid anchored at the
  // image's origin at this zoom; missing ones are drawn nearest the centre
  // first while the frame's budget lasts.
  drawOverlayTiles(ctx, t0) {
    const T = 128, s = this.scale, d = this.dpr, k = s * d;
    const lod = this.overlayLod ? this.overlayLod(this.visibleRect()) : undefined;
    const generation = this.overlayKey ? this.overlayKey() : this.generation;
    let o = this.otiles;
    if (!o || o.scale !== s || o.dpr !== d || o.generation !== generation || o.lod !== lod) {
      // after an edit, a tile not yet redrawn shows its previous state for
      // a frame or two rather than a hole
      const same = o && o.scale === s && o.dpr === d && o.lod === lod;
      const spare = o ? o.spare.concat([...o.stale.values()], same ? [] : [...o.map.values()]) : [];
      o = this.otiles = { scale: s, dpr: d, generation, lod, map: new Map(), stale: same ? o.map : new Map(), spare };
    }
    const ox = Math.round(this.tx * d), oy = Math.round(this.ty * d);
    const W = this.canvas.width, H = this.canvas.height;
    const i0 = Math.floor(-ox / T), i1 = Math.floor((W - 1 - ox) / T);
    const j0 = Math.floor(-oy / T), j1 = Math.floor((H - 1 - oy) / T);
    const want = [];
    for (let j = j0; j <= j1; j++) for (let i = i0; i <= i1; i++) want.push([i, j]);
    const render = (i, j) => {
      const c = o.stale.get(i + ',' + j) || o.spare.pop() || document.createElement('canvas');
      o.stale.delete(i + ',' + j);
      c.width = T; c.height = T;
      const tc = c.getContext('2d');
      tc.setTransform(k, 0, 0, k, -i * T, -j * T);
      const view = {
        scale: s, dpr: d, tx: -i * T / d, ty: -j * T / d, cssW: T / d, cssH: T / d, lod, frameNo: this.frameNo,
        visibleRect: () => ({ x0: i * T / k, y0: j * T / k, x1: (i + 1) * T / k, y1: (j + 1) * T / k }),
      };
      this.drawOverlay(tc, view, 'set');
      o.map.set(i + ',' + j, c);
      return c;
    };
    // a view that moved since the last frame (a pan) keeps its frame short;
    // one at rest (after a zoom or an edit) fills in faster
    const at = `${s},${this.tx},${this.ty}`;
    const budget = at === o.at ? 40 : 8;
    o.at = at;
    const ci = (i0 + i1) / 2, cj = (j0 + j1) / 2;
    want.sort((a, b) => Math.hypot(a[0] - ci, a[1] - cj) - Math.hypot(b[0] - ci, b[1] - cj));
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    let missing = 0;
    for (const [i, j] of want) {
      const key = i + ',' + j;
      let c = o.map.get(key);
      if (!c) {
        if (performance.now() - t0 > budget && o.map.size) {
          missing++;
          const old = o.stale.get(key);
          if (old) ctx.drawImage(old, i * T + ox, j * T + oy);
          continue;
        }
        c = render(i, j);
      } else {
        o.map.delete(key); // most recently used last
        o.map.set(key, c);
      }
      ctx.drawImage(c, i * T + ox, j * T + oy);
    }
    ctx.restore();
    this.drawOverlay(ctx, this, 'live');
    const cap = Math.max(160, 3 * want.length);
    while (o.map.size > cap) {
      const first = o.map.keys().next().value;
      o.spare.push(o.map.get(first));
      o.map.delete(first);
    }
    o.spare.length = Math.min(o.spare.length, 32);
    this.overlayMissing = missing;
    if (missing) this.frame();
  }

  // The whole zoomed image (plus a margin for outlines and labels) within
  // three screens of pixels.
  cacheable() {
    const m = 40;
    const w = (this.image.width * this.scale + 2 * m) * this.dpr, h = (this.image.height * this.scale + 2 * m) * this.dpr;
    return w * h <= 3 * this.canvas.width * this.canvas.height && w <= 8192 && h <= 8192;
  }

  buildCache() {
    const margin = 40, d = this.dpr, s = this.scale;
    const w = Math.ceil((this.image.width * s + 2 * margin) * d), h = Math.ceil((this.image.height * s + 2 * margin) * d);
    let c = this.cache;
    if (!c || c.canvas.width !== w || c.canvas.height !== h) {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      c = this.cache = { canvas, ctx: canvas.getContext('2d') };
    }
    c.scale = s;
    c.margin = margin;
    const ctx = c.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.setTransform(s * d, 0, 0, s * d, margin * d, margin * d);
    ctx.imageSmoothingEnabled = s < 2;
    this.drawBase(ctx, { x0: 0, y0: 0, x1: this.image.width, y1: this.image.height }, s * d);
    // the overlay sees a view whose visible rectangle is the whole image
    const view = {
      scale: s, dpr: d, tx: margin, ty: margin, cssW: w / d, cssH: h / d, frameNo: this.frameNo,
      visibleRect: () => ({ x0: -margin / s, y0: -margin / s, x1: this.image.width + margin / s, y1: this.image.height + margin / s }),
    };
    if (this.drawOverlay) this.drawOverlay(ctx, view, 'image');
    this.cacheValid = true;
  }
}
