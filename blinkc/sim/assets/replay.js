// Replays a recorded session from its frames: each tile's place, rotation and colours as they
// changed, sampled 60 times a simulated second (blinkc/sim/export.py writes them).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("data").textContent);
  const canvas = $("board"), ctx = canvas.getContext("2d");
  const view = new BlinkcDraw.View(canvas, 36);
  const changes = data.changes;  // [t_ms, name, pos, rot, colors], in time order
  let t = 0, index = 0, playing = false, last = null;
  const tiles = new Map();
  function reset() { tiles.clear(); index = 0; }
  function seek(to) {
    to = Math.max(0, Math.min(data.end, to));
    if (to < t) reset();
    while (index < changes.length && changes[index][0] <= to) {
      const [, name, pos, rot, colors] = changes[index++];
      tiles.set(name, {name, pos, rot, colors});
    }
    t = to;
    $("clock").textContent = `t = ${(t / 1000).toFixed(3)} s`;
    if (document.activeElement !== $("seek")) $("seek").value = String(t);
    $("seekinfo").textContent = `${(t / 1000).toFixed(3)} s of ${(data.end / 1000).toFixed(3)} s`;
  }
  function frame(ts) {
    if (playing && last !== null) {
      seek(t + (ts - last) * Number($("speed").value));
      if (t >= data.end) { playing = false; $("play").textContent = "Play"; }
    }
    last = ts;
    view.draw(ctx, [...tiles.values()]);
    requestAnimationFrame(frame);
  }
  $("title").textContent = data.title;
  $("command").textContent = data.command;
  $("inputs").textContent = data.inputs.map(([at, lines]) => lines.map((l) => `at ${at}ms ${l}`).join("\n")).join("\n");
  $("seek").max = String(data.end);
  $("seek").oninput = () => seek(Number($("seek").value));
  $("play").onclick = () => {
    if (t >= data.end) seek(0);
    playing = !playing;
    $("play").textContent = playing ? "Pause" : "Play";
  };
  seek(0);
  view.centreOn([...tiles.values()]);
  requestAnimationFrame(frame);
  window.blinkcReplay = {
    end: data.end,
    seek,
    time: () => t,
    tiles: () => [...tiles.values()],
    play: () => { if (!playing) $("play").click(); },
    ledPixel(name, face) {
      const list = [...tiles.values()], tile = tiles.get(name);
      view.draw(ctx, list);
      const [cx, cy] = view.placeOf(list).get(name);
      const [x, y] = view.facePoint(cx, cy, (face + tile.rot) % 6);
      return Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
    },
  };
})();
