// The simulator page: draws the frames the emulator sends and sends it what the mouse does.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const canvas = $("board"), ctx = canvas.getContext("2d");
  const view = new BlinkcDraw.View(canvas, 36);
  let ws = null, hello = null, frame = null, inspect = null, trace = null, centred = false;
  // The view fits the cluster to the canvas (at the start, when the canvas changes size, and
  // when a tile would be off it) until the user zooms; Fit (or 0) goes back to that.
  let autoFit = true;
  let selected = null, drag = null, pressing = null, nextId = 1;
  const picked = new Set();  // tiles picked with ctrl-click: a drag of one moves them all
  const pending = new Map();
  let draws = 0, drawTimes = [], framesIn = 0;

  // ------------------------------------------------------------ connection
  function connect() {
    ws = new WebSocket(`ws://${location.host}/ws`);
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "frame") { frame = m; framesIn++; keepInView(); showStatus(); }
      else if (m.type === "hello") { hello = m; showHello(); }
      else if (m.type === "inspect") { if (m.name === selected) { inspect = m; if (changed("inspect", ev.data)) showInspect(); } }
      else if (m.type === "trace") { if (m.tile === selected) { trace = m; if (changed("trace", ev.data)) showTrace(); } }
      else if (m.type === "error") { say(m.message); settle(m.id, m); }
      else if (m.type === "ok") settle(m.id, m);
    };
    ws.onclose = () => say("the simulator has stopped (the server is gone)");
    // Time runs only while a page shows the world: a hidden tab says so, and so does its return.
    ws.onopen = () => { if (document.hidden) send("visible", {visible: false}); };
  }
  document.addEventListener("visibilitychange", () => {
    if (ws && ws.readyState === WebSocket.OPEN) send("visible", {visible: !document.hidden});
  });

  // ------------------------------------------------------------ the view
  function keepInView() {
    if (!frame.tiles.length) return;
    if (!centred) { view.fit(frame.tiles); centred = true; return; }
    if (autoFit && !drag && !view.shows(frame.tiles)) view.fit(frame.tiles);
  }
  // The canvas takes the room the window gives it (the panels keep theirs), at one canvas
  // pixel per CSS pixel.
  function resize() {
    const stage = $("stage");
    const below = $("timeline").offsetHeight + $("help").offsetHeight + $("message").offsetHeight + 40;
    const width = Math.max(320, Math.floor(stage.clientWidth) - 2);
    const height = Math.max(300, Math.floor(window.innerHeight - canvas.getBoundingClientRect().top - below));
    if (width === canvas.width && height === canvas.height) return;
    const [cx, cy] = [canvas.width / 2, canvas.height / 2];
    canvas.width = width;
    canvas.height = height;
    if (frame && autoFit) view.fit(frame.tiles);
    else { view.ox += width / 2 - cx; view.oy += height / 2 - cy; }
  }
  window.addEventListener("resize", resize);
  resize();
  function zoom(factor, at) {
    autoFit = false;
    const [px, py] = at || [canvas.width / 2, view.trayTop() / 2];
    view.zoomBy(factor, px, py);
  }
  function fitView() { autoFit = true; if (frame) view.fit(frame.tiles); }
  // The panels are rebuilt only when what they show has changed (the page stays light).
  const shown = {};
  function changed(what, text) { if (shown[what] === text) return false; shown[what] = text; return true; }
  function settle(id, m) { const p = pending.get(id); if (p) { pending.delete(id); p(m); } }
  function send(op, args) {
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      ws.send(JSON.stringify(Object.assign({op, id}, args || {})));
    });
  }
  function say(text) { $("message").textContent = text || ""; }

  // ---------------------------------------------------------------- drawing
  function tilesNow() {
    if (!frame) return [];
    if (!drag || !drag.moved) return frame.tiles;
    return frame.tiles;
  }
  function render(ts) {
    const tiles = tilesNow();
    const hidden = drag && drag.moved ? new Set(drag.group) : null;
    for (const name of picked) if (!tiles.some((t) => t.name === name)) picked.delete(name);
    view.draw(ctx, tiles, {selected, picked, hidden, pressed: pressing ? new Set([pressing]) : null});
    if (drag && drag.moved) {
      for (const name of drag.group) {
        const t = tiles.find((x) => x.name === name);
        const target = drag.targets.get(name);
        if (!t) continue;
        if (target) { const [x, y] = view.centre(target[0], target[1]); view.drawTile(ctx, t, x, y, {ghost: true}); }
        const [x, y] = drag.offsetOf(name);
        view.drawTile(ctx, t, x, y, {});
      }
    }
    draws++;
    drawTimes.push(ts);
    while (drawTimes.length && drawTimes[0] < ts - 1000) drawTimes.shift();
    requestAnimationFrame(render);
  }
  requestAnimationFrame(render);

  // ------------------------------------------------------------------ mouse
  function canvasPoint(ev) {
    const r = canvas.getBoundingClientRect();
    return [(ev.clientX - r.left) * canvas.width / r.width, (ev.clientY - r.top) * canvas.height / r.height];
  }
  function tileAt(px, py) {
    if (!frame) return null;
    const places = view.placeOf(frame.tiles);
    let best = null, bestD = Infinity;
    for (const t of frame.tiles) {
      const [x, y] = places.get(t.name), d = Math.hypot(px - x, py - y);
      if (d < view.size * 0.9 && d < bestD) { best = t; bestD = d; }
    }
    return best ? {tile: best, dist: bestD, centre: places.get(best.name)} : null;
  }
  function groupOf(tile) {
    if (!tile.pos) return [tile.name];
    const at = new Map(frame.tiles.filter((t) => t.pos).map((t) => [t.pos.join(","), t]));
    const dirs = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
    const seen = new Set([tile.name]), todo = [tile];
    while (todo.length) {
      const t = todo.pop();
      for (const [dq, dr] of dirs) {
        const n = at.get(`${t.pos[0] + dq},${t.pos[1] + dr}`);
        if (n && !seen.has(n.name)) { seen.add(n.name); todo.push(n); }
      }
    }
    return [...seen];
  }
  canvas.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    const [px, py] = canvasPoint(ev);
    const hit = tileAt(px, py);
    if (!hit) { picked.clear(); select(null); return; }
    if (ev.ctrlKey || ev.metaKey) {  // pick tiles to move together (a part of a cluster)
      const name = hit.tile.name;
      if (picked.has(name)) picked.delete(name); else picked.add(name);
      select(name);
      return;
    }
    canvas.setPointerCapture(ev.pointerId);
    select(hit.tile.name);
    if (!ev.shiftKey && hit.dist < view.size * BlinkcDraw.INNER) {
      pressing = hit.tile.name;  // the tile's button: down now, up when the mouse lets go
      send("press", {tile: pressing});
      return;
    }
    const name = hit.tile.name;
    const group = ev.shiftKey ? groupOf(hit.tile) : picked.has(name) ? [...picked] : [name];
    const places = view.placeOf(frame.tiles);
    drag = {anchor: hit.tile, group, start: [px, py], now: [px, py], moved: false, targets: new Map(),
            offsetOf: (name) => { const [x, y] = places.get(name); return [x + drag.now[0] - drag.start[0], y + drag.now[1] - drag.start[1]]; }};
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (!drag) return;
    const [px, py] = canvasPoint(ev);
    drag.now = [px, py];
    if (Math.hypot(px - drag.start[0], py - drag.start[1]) > 4) drag.moved = true;
    drag.targets = dropTargets();
  });
  function dropTargets() {
    const out = new Map();
    const [ax, ay] = drag.offsetOf(drag.anchor.name);
    if (ay > view.trayTop()) return out;  // over the hand: no place
    const [aq, ar] = view.hexAt(ax, ay);
    const base = drag.anchor.pos || [aq, ar];
    for (const name of drag.group) {
      const t = frame.tiles.find((x) => x.name === name);
      const pos = t.pos || base;
      out.set(name, [pos[0] + aq - base[0], pos[1] + ar - base[1]]);
    }
    return out;
  }
  canvas.addEventListener("pointerup", async () => {
    if (pressing) { const name = pressing; pressing = null; send("release", {tile: name}); return; }
    if (!drag) return;
    const d = drag; drag = null;
    if (!d.moved) return;
    if (!d.targets.size) { await send("lift", {tiles: d.group.filter((n) => frame.tiles.find((t) => t.name === n && t.pos))}); return; }
    const moves = {};
    let same = true;
    for (const [name, pos] of d.targets) {
      moves[name] = pos;
      const t = frame.tiles.find((x) => x.name === name);
      if (!t.pos || t.pos[0] !== pos[0] || t.pos[1] !== pos[1]) same = false;
    }
    if (!same) await send("move", {moves});
  });
  canvas.addEventListener("wheel", (ev) => {
    const point = canvasPoint(ev);
    const hit = tileAt(...point);
    ev.preventDefault();
    if (!hit || ev.ctrlKey) { zoom(ev.deltaY > 0 ? 1 / 1.15 : 1.15, point); return; }  // (a pinch is ctrl-wheel)
    select(hit.tile.name);
    turn(hit.tile.name, ev.deltaY > 0 ? 1 : -1);
  }, {passive: false});
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    if (ev.key === "r" || ev.key === "R") { if (selected) turn(selected, ev.shiftKey ? -1 : 1); }
    else if (ev.key === " ") { ev.preventDefault(); $("play").click(); }
    else if (ev.key === "+" || ev.key === "=") zoom(1.25);
    else if (ev.key === "-") zoom(1 / 1.25);
    else if (ev.key === "0") fitView();
  });
  function turn(name, by) { return send("rotate", {tile: name, by}); }
  function select(name) {
    selected = name;
    inspect = null;
    trace = null;
    shown.inspect = shown.trace = null;
    $("insname").textContent = name || "(click one)";
    $("insbody").textContent = "";
    $("trace").textContent = "";
    send("select", {tile: name});
  }

  // ---------------------------------------------------------------- controls
  $("play").onclick = () => send(frame && frame.running ? "pause" : "play");
  $("step").onclick = () => send("step", selected ? {tile: selected} : {});
  $("speed").onchange = () => send("speed", {speed: Number($("speed").value)});
  $("seek").oninput = () => { $("seekinfo").textContent = secs(Number($("seek").value)); };
  $("seek").onchange = () => send("seek", {t: Number($("seek").value)});
  $("remove").onclick = () => { if (selected) send("lift", {tiles: [selected]}); };
  $("rotl").onclick = () => { if (selected) turn(selected, -1); };
  $("rotr").onclick = () => { if (selected) turn(selected, 1); };
  $("zoomin").onclick = () => zoom(1.25);
  $("zoomout").onclick = () => zoom(1 / 1.25);
  $("fit").onclick = fitView;
  $("add").onclick = async () => {
    const program = $("program").value || null;
    const m = await send("add", {pos: freeSpot(), program});
    if (m.tile) select(m.tile);
  };
  function freeSpot() {
    const placed = frame.tiles.filter((t) => t.pos);
    const taken = new Set(placed.map((t) => t.pos.join(",")));
    // beside the selected tile if it has room, else beside the first tile that has
    const mine = placed.find((t) => t.name === selected);
    const near = mine ? [mine, ...placed.filter((t) => t !== mine)] : placed;
    const dirs = [[0, -1], [1, -1], [1, 0], [0, 1], [-1, 1], [-1, 0]];
    for (const t of near) for (const [dq, dr] of dirs) {
      const p = [t.pos[0] + dq, t.pos[1] + dr];
      if (!taken.has(p.join(","))) return p;
    }
    return [0, 0];
  }
  for (const id of ["drop", "jitter", "skew"]) {
    $(id).oninput = showFaultValues;
    $(id).onchange = () => send("faults", {drop: Number($("drop").value), jitter_ms: Number($("jitter").value), skew: Number($("skew").value)});
  }
  function showFaultValues() {
    $("dropv").textContent = `${Math.round(Number($("drop").value) * 100)} %`;
    $("jitterv").textContent = `${$("jitter").value} ms`;
    $("skewv").textContent = `${(Number($("skew").value) * 100).toFixed(1)} %`;
  }

  // ------------------------------------------------------------------ panels
  const secs = (ms) => `${(ms / 1000).toFixed(3)} s`;
  function showHello() {
    $("title").textContent = hello.title;
    const sel = $("program");
    sel.innerHTML = "";
    const choices = hello.default_program === null ? [["", "the game"]] : [];
    for (const p of hello.programs) choices.push([p, p]);
    for (const [value, label] of choices) { const o = document.createElement("option"); o.value = value; o.textContent = label; sel.appendChild(o); }
  }
  let lastVersion = -1, commandAt = 0, commandT = -1;
  function showCommand() {
    fetch("/export/command").then((r) => r.json()).then((c) => { $("command").textContent = c.text; });
  }
  function showStatus() {
    $("clock").textContent = `t = ${secs(frame.t)}`;
    $("rate").textContent = frame.achieved ? `${frame.achieved.toFixed(1)}× real time` : "";
    $("play").textContent = frame.running ? "Pause" : "Run";
    const seek = $("seek");
    seek.max = String(frame.horizon);
    if (document.activeElement !== seek) { seek.value = String(frame.t); $("seekinfo").textContent = `${secs(frame.t)} of ${secs(frame.horizon)}`; }
    for (const [id, key] of [["drop", "drop"], ["jitter", "jitter_ms"], ["skew", "skew"]]) {
      if (document.activeElement !== $(id)) $(id).value = String(frame.faults[key]);
    }
    showFaultValues();
    // The replay command names the time it ends at: refresh it when the world changes, and
    // as time goes on: at once when paused, at most every second while running.
    const now = performance.now();
    if (frame.version !== lastVersion ||
        (frame.t !== commandT && (!frame.running || now - commandAt > 1000))) {
      lastVersion = frame.version;
      commandAt = now;
      commandT = frame.t;
      showCommand();
    }
  }
  function cell(tr, text, tag) { const td = document.createElement(tag || "td"); td.textContent = text; tr.appendChild(td); return td; }
  function table(rows, head) {
    const t = document.createElement("table");
    if (head) { const tr = document.createElement("tr"); for (const h of head) cell(tr, h, "th"); t.appendChild(tr); }
    for (const r of rows) { const tr = document.createElement("tr"); for (const c of r) cell(tr, c); t.appendChild(tr); }
    return t;
  }
  function section(body, title, rows, head, id) {
    const h = document.createElement("h4");
    h.textContent = title;
    body.appendChild(h);
    const t = table(rows, head);
    t.id = id;
    body.appendChild(t);
  }
  function showInspect() {
    const m = inspect, body = $("insbody");
    body.textContent = "";
    const info = document.createElement("p");
    info.id = "insinfo";
    info.textContent = `${m.program}, millis ${m.millis}, clock ${m.clock_ppm >= 0 ? "+" : ""}${m.clock_ppm} ppm, ${m.passes} passes${m.asleep ? ", asleep" : ""}, button ${m.button.down ? "down" : "up"}${m.button.clicks ? `, last multi click ${m.button.clicks}` : ""}`;
    body.appendChild(info);
    const state = Object.entries(m.state).map(([k, v]) => [k, JSON.stringify(v)]);
    if (state.length) section(body, "State", state, ["field", "value"], "insstate");
    const t = frame && frame.tiles.find((x) => x.name === m.name);
    const faces = m.faces.map((f) => [String(f.face), String(f.out),
      f.expired ? "— (expired)" : `${f.in} (${m.asleep ? "settled" : f.expires_in_ms + " ms"})`,
      f.neighbour ? `${f.neighbour[0]}:${f.neighbour[1]}` : "",
      f.in_flight ? `${f.in_flight.value ?? "datagram " + f.in_flight.datagram.join(" ")} from ${f.in_flight.from}` : "",
      t ? BlinkcDraw.rgb888(t.colors[f.face]).join(",") : ""]);
    section(body, "Faces", faces, ["face", "out", "in (valid for)", "touches", "packet in flight", "LED"], "insfaces");
    if (Object.keys(m.engine).length) {  // a blinkc game: its messages
      const messages = m.messages.map((x) => [String(x.face), x.message, x.where]);
      section(body, "Messages on their way", messages.length ? messages : [["", "none", ""]], ["face", "message", ""], "insmessages");
    }
    if (m.timers.length) {
      section(body, "Timers", m.timers.map((x) => [String(x.timer), x.running ? `${x.left_ms} ms left` : "off"]), ["timer", ""], "instimers");
    }
  }
  function showTrace() {
    const head = trace.tile ? `${trace.tile} (and the world)` : "every tile";
    $("tracewhat").textContent = `${head}, last ${trace.seconds} s`;
    $("trace").textContent = trace.records.slice().reverse().map((r) => {  // newest first
      const {t, tile, ev, ...rest} = r;
      // (colours come named: colors=[RED,OFF,#ff8c00,...])
      const more = Object.entries(rest).map(([k, v]) => `${k}=${k === "colors" ? `[${v.join(",")}]` : JSON.stringify(v)}`).join(" ");
      return `${(t / 1e6).toFixed(3)} ${tile || "-"} ${ev} ${more}`;
    }).join("\n");
  }

  // --------------------------------------------------- for tests and the bench
  window.blinkcSim = {
    frame: () => frame,
    inspect: () => inspect,
    trace: () => trace,
    hello: () => hello,
    ready: () => !!(frame && hello),
    fps: () => drawTimes.length,
    draws: () => draws,
    framesIn: () => framesIn,
    selected: () => selected,
    size: () => view.size,
    canvasSize: () => [canvas.width, canvas.height],
    // every placed tile wholly on the canvas, above the hand
    showsAll: () => view.shows(frame.tiles),
    picked: () => [...picked],
    select,
    send,
    // page coordinates of a tile's centre, of a lattice place, of a face's LED segment
    tileCentre(name) { return toPage(view.placeOf(frame.tiles).get(name)); },
    hexCentre(q, r) { return toPage(view.centre(q, r)); },
    rimPoint(name) { const [x, y] = view.placeOf(frame.tiles).get(name); return toPage([x + view.size * 0.75, y]); },
    trayPoint() { return toPage([canvas.width - view.size * 2, view.trayTop() + view.trayHeight() / 2]); },
    ledPixel(name, face) {
      const t = frame.tiles.find((x) => x.name === name);
      const [cx, cy] = view.placeOf(frame.tiles).get(name);
      const [x, y] = view.facePoint(cx, cy, (face + t.rot) % 6);
      return Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
    },
  };
  function toPage([x, y]) {
    const r = canvas.getBoundingClientRect();
    return [r.left + x * r.width / canvas.width, r.top + y * r.height / canvas.height];
  }
  connect();
})();
