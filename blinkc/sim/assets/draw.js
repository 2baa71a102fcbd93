// Drawing Blinks tiles on a canvas: flat-top hexagons on the axial lattice, each face's LED a
// segment of its rim in the tile's 5-bit colour (blinkc/render/png.py draws the same picture).
"use strict";
const BlinkcDraw = (() => {
  const OUTER = 0.93, INNER = 0.58, BUTTON = 0.42;
  const BODY = "rgb(44,44,50)", UNLIT = [70, 70, 78], BACKGROUND = "rgb(24,24,28)";
  const SQ3 = Math.sqrt(3);
  // The hand's strip, in tile sizes; the smallest and largest tile the view draws (pixels).
  // FIT_SIZE: the largest a fit makes them (zooming goes on to MAX_SIZE).
  const TRAY = 2.4, MIN_SIZE = 10, MAX_SIZE = 90, FIT_SIZE = 36;

  // A 5-bit colour (r | g << 5 | b << 10) as 8-bit channels, 31 -> 255 (blinklib/color.py).
  function rgb888(c) {
    if (!c) return UNLIT;
    const ch = (v) => Math.floor((v & 31) * 255 / 31);
    return [ch(c), ch(c >> 5), ch(c >> 10)];
  }
  const css = (rgb) => `rgb(${rgb[0]},${rgb[1]},${rgb[2]})`;

  class View {
    constructor(canvas, size) {
      this.canvas = canvas;
      this.size = size || 36;
      this.ox = canvas.width / 2;
      this.oy = (canvas.height - this.trayHeight()) / 2;
    }
    trayHeight() { return this.size * TRAY; }
    trayTop() { return this.canvas.height - this.trayHeight(); }
    // Centre the lattice on the tiles (once, at the start: later moves keep the view still).
    centreOn(tiles) {
      const placed = tiles.filter((t) => t.pos);
      if (!placed.length) return;
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const t of placed) {
        const [x, y] = this.rel(t.pos[0], t.pos[1]);
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      this.ox = this.canvas.width / 2 - (x0 + x1) / 2;
      this.oy = this.trayTop() / 2 - (y0 + y1) / 2;
    }
    // The largest size (MIN_SIZE..FIT_SIZE) at which every placed tile shows above the tray
    // with two rings of free places round the cluster (room to move tiles to), the cluster
    // centred: the view fits the cluster to a canvas of any size.
    fit(tiles) {
      const placed = tiles.filter((t) => t.pos);
      if (!placed.length) return;
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const t of placed) {
        const x = 1.5 * t.pos[0], y = SQ3 * (t.pos[1] + t.pos[0] / 2);
        x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
      }
      // In units of the size: a tile is 2 wide and SQ3 high, each ring of places round it
      // adds 1.5 and SQ3 on each side; the tray is TRAY sizes high.
      const w = x1 - x0 + 2 + 6, h = y1 - y0 + 5 * SQ3;
      const fits = Math.min(this.canvas.width / w, this.canvas.height / (h + TRAY));
      this.size = Math.max(MIN_SIZE, Math.min(FIT_SIZE, fits));
      this.centreOn(tiles);
    }
    // Zoom by `factor` about the canvas point (px, py), which stays where it is.
    zoomBy(factor, px, py) {
      const size = Math.max(MIN_SIZE, Math.min(MAX_SIZE, this.size * factor));
      const k = size / this.size;
      this.ox = px - (px - this.ox) * k;
      this.oy = py - (py - this.oy) * k;
      this.size = size;
    }
    // Whether every placed tile is wholly on the canvas, above the tray.
    shows(tiles) {
      const s = this.size;
      return tiles.filter((t) => t.pos).every((t) => {
        const [x, y] = this.centre(t.pos[0], t.pos[1]);
        return x - s >= 0 && x + s <= this.canvas.width && y - s >= 0 && y + s <= this.trayTop();
      });
    }
    rel(q, r) { return [this.size * 1.5 * q, this.size * SQ3 * (r + q / 2)]; }
    centre(q, r) { const [x, y] = this.rel(q, r); return [this.ox + x, this.oy + y]; }
    trayCentre(i) {
      return [this.size * 1.3 + i * this.size * 2.1, this.trayTop() + this.trayHeight() / 2];
    }
    // Where each tile is drawn: its place on the lattice, or its slot in the tray (held).
    placeOf(tiles) {
      const out = new Map();
      let slot = 0;
      for (const t of tiles) out.set(t.name, t.pos ? this.centre(t.pos[0], t.pos[1]) : this.trayCentre(slot++));
      return out;
    }
    // The lattice place under a canvas point (axial hex rounding).
    hexAt(px, py) {
      const x = (px - this.ox) / this.size, y = (py - this.oy) / this.size;
      const q = (2 / 3) * x, r = (-1 / 3) * x + (SQ3 / 3) * y;
      let rq = Math.round(q), rr = Math.round(r);
      const rs = Math.round(-q - r), dq = Math.abs(rq - q), dr = Math.abs(rr - r), ds = Math.abs(rs + q + r);
      if (dq > dr && dq > ds) rq = -rr - rs; else if (dr > ds) rr = -rq - rs;
      return [rq, rr];
    }
    corner(cx, cy, radius, k) {
      const a = Math.PI / 3 * k;
      return [cx + radius * Math.cos(a), cy + radius * Math.sin(a)];
    }
    // The middle of the segment showing the face that points in global direction `dir`.
    facePoint(cx, cy, dir) {
      const a = (270 + 60 * dir) * Math.PI / 180;
      const ap = this.size * (OUTER + INNER) / 2 * SQ3 / 2;
      return [cx + ap * Math.cos(a), cy + ap * Math.sin(a)];
    }
    clear(ctx) {
      ctx.fillStyle = BACKGROUND;
      ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
      ctx.fillStyle = "rgb(32,32,38)";
      ctx.fillRect(0, this.trayTop(), this.canvas.width, this.trayHeight());
      ctx.fillStyle = "rgb(120,120,130)";
      ctx.font = "11px sans-serif";
      ctx.textAlign = "right";
      ctx.fillText("in the hand", this.canvas.width - 6, this.trayTop() + 13);
    }
    hexPath(ctx, cx, cy, radius) {
      ctx.beginPath();
      for (let k = 0; k < 6; k++) {
        const [x, y] = this.corner(cx, cy, radius, k);
        if (k) ctx.lineTo(x, y); else ctx.moveTo(x, y);
      }
      ctx.closePath();
    }
    drawTile(ctx, tile, cx, cy, opts) {
      const s = this.size;
      opts = opts || {};
      ctx.globalAlpha = opts.ghost ? 0.45 : 1;
      this.hexPath(ctx, cx, cy, s * OUTER);
      ctx.fillStyle = BODY;
      ctx.fill();
      for (let f = 0; f < 6; f++) {
        const g = (f + tile.rot) % 6;
        const a = this.corner(cx, cy, s * OUTER, g + 4), b = this.corner(cx, cy, s * OUTER, g + 5);
        const c = this.corner(cx, cy, s * INNER, g + 5), d = this.corner(cx, cy, s * INNER, g + 4);
        ctx.beginPath();
        ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.lineTo(c[0], c[1]); ctx.lineTo(d[0], d[1]);
        ctx.closePath();
        ctx.fillStyle = css(rgb888(tile.colors[f]));
        ctx.fill();
      }
      ctx.beginPath();
      ctx.arc(cx, cy, s * BUTTON, 0, 2 * Math.PI);
      ctx.fillStyle = opts.pressed ? "rgb(20,20,24)" : "rgb(56,56,64)";
      ctx.fill();
      // face 0's mark, so rotations show
      const [mx, my] = this.facePoint(cx, cy, tile.rot);
      const kx = cx + (mx - cx) * 0.55, ky = cy + (my - cy) * 0.55;
      ctx.beginPath();
      ctx.arc(kx, ky, Math.max(1.5, s * 0.05), 0, 2 * Math.PI);
      ctx.fillStyle = "rgb(235,235,235)";
      ctx.fill();
      ctx.fillStyle = "rgb(240,240,240)";
      ctx.font = `${Math.round(s * 0.3)}px sans-serif`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(tile.name, cx, cy + s * 0.08);
      if (tile.gesture) {  // what the BIOS just made of the presses, for a moment
        ctx.font = `bold ${Math.round(s * 0.3)}px sans-serif`;
        ctx.fillStyle = "rgb(255,230,120)";
        ctx.fillText(tile.gesture, cx, cy - s * 0.25);
      }
      if (opts.selected || opts.picked) {
        this.hexPath(ctx, cx, cy, s * 0.99);
        ctx.strokeStyle = opts.selected ? "rgb(255,255,255)" : "rgb(143,199,255)";
        ctx.lineWidth = 2;
        ctx.setLineDash(opts.selected ? [] : [4, 3]);
        ctx.stroke();
        ctx.setLineDash([]);
      }
      ctx.globalAlpha = 1;
    }
    draw(ctx, tiles, opts) {
      opts = opts || {};
      this.clear(ctx);
      const places = this.placeOf(tiles);
      for (const t of tiles) {
        if (opts.hidden && opts.hidden.has(t.name)) continue;
        const [x, y] = places.get(t.name);
        this.drawTile(ctx, t, x, y, {selected: opts.selected === t.name,
                                     picked: opts.picked && opts.picked.has(t.name),
                                     pressed: opts.pressed && opts.pressed.has(t.name)});
      }
      return places;
    }
  }
  return {View, rgb888, css, OUTER, INNER, BUTTON, MIN_SIZE, MAX_SIZE, FIT_SIZE};
})();
