"""The simulator's web server: its packaged page and a websocket to the session (aiohttp).

It binds 127.0.0.1 only and serves nothing but its own assets and the session's exports.
A ticker runs the world on in real time (at the session's speed) and sends each page a
frame about 120 times a second; the page sends its inputs on the same websocket. Time runs
only while a page watches: with none open (or every one hidden, a background tab) the world
waits, as a game on the table waits for nobody, and runs on when a page is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import socket
import time
from collections.abc import Callable
from importlib import resources
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from . import export, inputs, view
from .session import Session
from .source import SimError

HOST = "127.0.0.1"
#: Between two frames (s): faster than the display, so a click shows within a frame.
TICK_S = 1 / 120
#: The inspector's view of the selected tile and the trace are sent this often (s).
INSPECT_S = 0.1
#: How long a stopping server waits for requests still being answered (s).
SHUTDOWN_S = 2.0
#: The assets the page may load, with their types; nothing else is served.
ASSETS = {"index.html": "text/html", "sim.css": "text/css", "draw.js": "text/javascript",
          "app.js": "text/javascript"}


def asset(name: str) -> str:
    return resources.files("blinkc.sim").joinpath("assets", name).read_text(encoding="utf-8")


class _Client:
    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.selected: str | None = None
        self.inspected_at = 0.0
        #: The page is shown (not a hidden tab): it says so when that changes.
        self.visible = True


class SimServer:
    """One session, shown to any number of pages."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.clients: set[_Client] = set()
        self.app = web.Application()
        self.app.add_routes([
            web.get("/", self._index),
            web.get("/assets/{name}", self._asset),
            web.get("/ws", self._websocket),
            web.get("/export/session.layout", self._export_layout),
            web.get("/export/session.scenario", self._export_scenario),
            web.get("/export/session.html", self._export_html),
            web.get("/export/command", self._export_command),
        ])
        self.app.on_startup.append(self._start_ticker)
        self.app.on_shutdown.append(self._close_pages)
        self.app.on_cleanup.append(self._stop_ticker)
        self._ticker: asyncio.Task[None] | None = None
        #: The real-time factor the ticker achieved over the last second (for the page).
        self.achieved = 0.0

    @property
    def watched(self) -> bool:
        """Some page shows the world: only then does its time run on."""
        return any(c.visible for c in self.clients)

    # ------------------------------------------------------------------ HTTP
    async def _index(self, request: web.Request) -> web.Response:
        return web.Response(text=asset("index.html"), content_type="text/html")

    async def _asset(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in ASSETS or name == "index.html":
            raise web.HTTPNotFound()
        return web.Response(text=asset(name), content_type=ASSETS[name])

    async def _export_layout(self, request: web.Request) -> web.Response:
        return _download(export.layout_text(self.session), export.LAYOUT_NAME)

    async def _export_scenario(self, request: web.Request) -> web.Response:
        return _download(export.scenario_text(self.session), export.SCENARIO_NAME)

    async def _export_html(self, request: web.Request) -> web.Response:
        return _download(export.html(self.session), "session.html", "text/html")

    async def _export_command(self, request: web.Request) -> web.Response:
        words = export.command(self.session)
        return web.json_response({"command": words, "text": shlex.join(words)})

    # ------------------------------------------------------------- websocket
    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        client = _Client(ws)
        self.clients.add(client)
        src = self.session.src
        await ws.send_json({"type": "hello", "title": src.title, "programs": src.programs(),
                            "default_program": src.default_program, "seed": src.seed})
        await self._send_frame(client, view.frame(self.session))
        try:
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                reply = self.handle(client, msg.data)
                if reply is not None:
                    await ws.send_json(reply)
                await self._send_frame(client, view.frame(self.session), force_inspect=True)
        finally:
            self.clients.discard(client)
        return ws

    def handle(self, client: _Client, text: str) -> dict[str, Any] | None:
        """Carry out one request from a page; an error comes back as a message, never a crash."""
        try:
            request = json.loads(text)
            if not isinstance(request, dict):
                raise SimError("a request is a JSON object")
            op = request.get("op")
            handler = _OPS.get(op) if isinstance(op, str) else None
            if handler is None:
                raise SimError(f"unknown request {op!r}")
            result = handler(self, client, request)
            return {"type": "ok", "op": op, "id": request.get("id"), **(result or {})}
        except json.JSONDecodeError:
            return {"type": "error", "message": "a request is JSON"}
        except SimError as e:
            return {"type": "error", "message": str(e), "id": _id(text)}

    # ---------------------------------------------------------------- ticker
    async def _start_ticker(self, app: web.Application) -> None:
        self._ticker = asyncio.create_task(self._tick_forever())

    async def _close_pages(self, app: web.Application) -> None:
        # Open websockets would hold the shutdown up until its timeout: say goodbye instead.
        for client in list(self.clients):
            with contextlib.suppress(ConnectionError, RuntimeError):
                await client.ws.close(code=WSCloseCode.GOING_AWAY, message=b"blinkc sim stopped")

    async def _stop_ticker(self, app: web.Application) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker

    async def _tick_forever(self) -> None:
        last = time.perf_counter()
        window_start, window_sim = last, 0.0
        next_tick = last
        while True:
            # Ticks keep their cadence whatever each one costs; one that is late starts the
            # cadence again from now rather than running several back to back.
            next_tick += TICK_S
            delay = next_tick - time.perf_counter()
            if delay <= 0:
                next_tick = time.perf_counter()
            await asyncio.sleep(max(0.0, delay))
            now = time.perf_counter()
            wall_ms = min((now - last) * 1000, 100.0) if self.watched else 0.0
            last = now
            try:
                window_sim += self.session.advance(wall_ms, budget_ms=TICK_S * 1000 * 0.8)
            except SimError as e:
                self.session.running = False
                await self._broadcast({"type": "error", "message": str(e)})
            if now - window_start >= 1.0:
                self.achieved = window_sim / ((now - window_start) * 1000)
                window_start, window_sim = now, 0.0
            if self.clients:
                frame = view.frame(self.session)
                frame["achieved"] = self.achieved
                frame["watched"] = self.watched
                for client in list(self.clients):
                    await self._send_frame(client, frame)

    async def _send_frame(self, client: _Client, frame: dict[str, Any],
                          force_inspect: bool = False) -> None:
        ws = client.ws
        if ws.closed:
            return
        with contextlib.suppress(ConnectionError, RuntimeError):
            await ws.send_json(frame)
            now = time.perf_counter()
            if force_inspect or now - client.inspected_at >= INSPECT_S:
                client.inspected_at = now
                if client.selected is not None:
                    detail = view.inspect(self.session, client.selected)
                    if detail is not None:
                        await ws.send_json(detail)
                await ws.send_json(view.trace(self.session, client.selected))

    async def _broadcast(self, message: dict[str, Any]) -> None:
        for client in list(self.clients):
            with contextlib.suppress(ConnectionError, RuntimeError):
                await client.ws.send_json(message)


# ------------------------------------------------------------------ requests
Handler = Callable[[SimServer, _Client, dict[str, Any]], dict[str, Any] | None]


def _act(lines: Callable[[dict[str, Any]], list[str]]) -> Handler:
    def handler(server: SimServer, client: _Client, r: dict[str, Any]) -> dict[str, Any]:
        entry = server.session.act(lines(r))
        return {"at": entry.at_ms}
    return handler


def _select(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
    tile = r.get("tile")
    client.selected = None if tile is None else inputs.name(tile)


def _add(server: SimServer, client: _Client, r: dict[str, Any]) -> dict[str, Any]:
    name = server.session.new_tile_name()
    entry = server.session.act(inputs.add(name, r.get("pos"), r.get("program")))
    return {"at": entry.at_ms, "tile": name}


def _faults(server: SimServer, client: _Client, r: dict[str, Any]) -> dict[str, Any]:
    _, lines = inputs.faults(r.get("drop"), r.get("jitter_ms"), r.get("skew"))
    return {"at": server.session.act(lines).at_ms}


def _set_running(running: bool) -> Handler:
    def handler(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
        server.session.running = running
    return handler


def _visible(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
    visible = r.get("visible")
    if not isinstance(visible, bool):
        raise SimError("visible is true or false")
    client.visible = visible


def _speed(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
    server.session.set_speed(r.get("speed"))  # type: ignore[arg-type]


def _step(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
    server.session.running = False
    tile = r.get("tile")
    server.session.step(None if tile is None else inputs.name(tile))


def _seek(server: SimServer, client: _Client, r: dict[str, Any]) -> None:
    server.session.seek(r.get("t"))  # type: ignore[arg-type]


_OPS: dict[str, Handler] = {
    "press": _act(lambda r: inputs.press(r.get("tile"))),
    "release": _act(lambda r: inputs.release(r.get("tile"))),
    "move": _act(lambda r: inputs.move(r.get("moves"), r.get("rots"))),
    "lift": _act(lambda r: inputs.lift(r.get("tiles"))),
    "rotate": _act(lambda r: inputs.turn(r.get("tile"), r.get("by")) if "by" in r
                   else inputs.rotate(r.get("tile"), r.get("rot"))),
    "add": _add,
    "faults": _faults,
    "select": _select,
    "pause": _set_running(False),
    "play": _set_running(True),
    "speed": _speed,
    "visible": _visible,
    "step": _step,
    "seek": _seek,
}


def _id(text: str) -> Any:
    with contextlib.suppress(ValueError, AttributeError):
        return json.loads(text).get("id")
    return None


def _download(text: str, filename: str, content_type: str = "text/plain") -> web.Response:
    return web.Response(text=text, content_type=content_type,
                        headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def bind(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1 (a free port if 0); OSError if the port is taken."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if os.name == "posix":
        # The port of a server just stopped is free again at once (not after TIME_WAIT); one
        # that another server listens on is still refused.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def url_of(sock: socket.socket) -> str:
    return f"http://{HOST}:{sock.getsockname()[1]}/"


async def serve(server: SimServer, sock: socket.socket,
                started: Callable[[], None] | None = None) -> None:
    """Serve on the bound socket until cancelled; `started()` once the page can load."""
    runner = web.AppRunner(server.app, access_log=None, handle_signals=False,
                           shutdown_timeout=SHUTDOWN_S)
    await runner.setup()
    try:
        await web.SockSite(runner, sock).start()
        if started is not None:
            started()
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
