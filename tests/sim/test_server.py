"""The simulator's server: its page and assets, the websocket, the exports (aiohttp's test
client, no browser)."""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from blinkc.sim.server import ASSETS, HOST, SimServer, bind, url_of

from .helpers import ship_session


def run(test: Callable[[TestClient, SimServer], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        server = SimServer(ship_session())
        async with TestClient(TestServer(server.app, host=HOST)) as client:
            return await test(client, server)
    return asyncio.run(main())


async def _next(ws: Any, kind: str) -> dict:
    while True:
        msg = json.loads((await ws.receive(timeout=10)).data)
        if msg["type"] == kind:
            return msg


def test_the_page_and_only_its_assets():
    async def test(client: TestClient, server: SimServer) -> None:
        page = await client.get("/")
        assert page.status == 200 and "<canvas" in await page.text()
        for name in ASSETS:
            if name != "index.html":
                assert (await client.get(f"/assets/{name}")).status == 200
        for bad in ("/assets/session.py", "/assets/..%2f..%2fsource.py", "/assets/replay.html",
                    "/etc/passwd", "/assets/"):
            assert (await client.get(bad)).status == 404, bad
        # the page loads nothing from elsewhere (works offline)
        for name in ASSETS:
            text = await (await client.get("/" if name == "index.html" else f"/assets/{name}")).text()
            assert "http://" not in text and "https://" not in text
    run(test)


def test_websocket_hello_frames_inputs_and_errors():
    async def test(client: TestClient, server: SimServer) -> None:
        ws = await client.ws_connect("/ws")
        hello = await _next(ws, "hello")
        assert hello["title"] == "pirates_lasers.py on ship.layout"
        frame = await _next(ws, "frame")
        assert {t["name"] for t in frame["tiles"]} >= {"z", "h1", "r"}
        assert all(len(t["colors"]) == 6 for t in frame["tiles"])
        await ws.send_json({"op": "press", "tile": "z", "id": 1})
        ok = await _next(ws, "ok")
        assert ok["id"] == 1 and ok["at"] > 5000
        await ws.send_json({"op": "release", "tile": "z", "id": 2})
        assert (await _next(ws, "ok"))["id"] == 2
        await ws.send_json({"op": "select", "tile": "h1", "id": 3})
        detail = await _next(ws, "inspect")
        assert detail["name"] == "h1" and detail["state"]["kind"] == "HULL"
        assert [f["neighbour"] for f in detail["faces"]][3] == ["z", 0]
        trace = await _next(ws, "trace")
        assert trace["tile"] == "h1" and {r["tile"] for r in trace["records"]} <= {"h1", None}
        await ws.send_json({"op": "select", "tile": None, "id": 4})
        while (trace := await _next(ws, "trace"))["tile"] is not None:
            pass
        assert {r["tile"] for r in trace["records"]} >= {"z", "h1"}  # every tile's
        for bad, message in ((b"not json", "a request is JSON"),
                             ({"op": "explode"}, "unknown request 'explode'"),
                             ({"op": "press", "tile": "zz"}, "no tile named 'zz'"),
                             ({"op": "seek", "t": "soon"}, "bad time"),
                             ([1, 2], "a request is a JSON object")):
            if isinstance(bad, bytes):
                await ws.send_str(bad.decode())
            else:
                await ws.send_json(bad)
            assert message in (await _next(ws, "error"))["message"]
        await ws.close()
        assert [i.lines for i in server.session.log] == [("press z",), ("release z",)]
    run(test)


def test_the_ticker_runs_the_world_in_real_time_while_a_page_watches():
    async def test(client: TestClient, server: SimServer) -> None:
        start = server.session.now_ms
        await asyncio.sleep(0.3)
        assert server.session.now_ms == start  # no page open: the world waits
        ws = await client.ws_connect("/ws")
        start = server.session.now_ms
        await asyncio.sleep(0.5)
        ran = server.session.now_ms - start
        assert 300 < ran < 700
        await ws.send_json({"op": "visible", "visible": False, "id": 1})
        await _next(ws, "ok")
        hidden = server.session.now_ms
        await asyncio.sleep(0.2)
        assert server.session.now_ms == hidden  # its only page is a hidden tab
        await ws.send_json({"op": "visible", "visible": "yes", "id": 2})
        assert "visible is true or false" in (await _next(ws, "error"))["message"]
        await ws.send_json({"op": "visible", "visible": True, "id": 3})
        await _next(ws, "ok")
        await asyncio.sleep(0.2)
        assert server.session.now_ms > hidden
        await ws.send_json({"op": "pause", "id": 4})
        await _next(ws, "ok")
        paused = server.session.now_ms
        await asyncio.sleep(0.2)
        assert server.session.now_ms == paused
    run(test)


def test_exports_are_downloads():
    async def test(client: TestClient, server: SimServer) -> None:
        for name in ("session.layout", "session.scenario", "session.html"):
            r = await client.get(f"/export/{name}")
            assert r.status == 200
            assert r.headers["Content-Disposition"] == f'attachment; filename="{name}"'
        reply = await (await client.get("/export/command")).json()
        command = reply["command"]
        assert command[:2] == ["blinkc", "emulate"] and "--time" in command
        assert shlex.split(reply["text"]) == command
        html = await (await client.get("/export/session.html")).text()
        assert "/*DATA*/" not in html and "<script src" not in html and "http" not in html
    run(test)


def test_binds_loopback_only():
    sock = bind(0)
    try:
        host, port = sock.getsockname()
        assert host == "127.0.0.1" and port > 0
        assert url_of(sock) == f"http://127.0.0.1:{port}/"
    finally:
        sock.close()


def test_a_stopped_servers_port_is_free_at_once():
    """`blinkc sim --port N` again right after Ctrl-C: the old connections' TIME_WAIT does not
    hold the port (while another server listening on it still does)."""
    import socket

    sock = bind(0)
    port = sock.getsockname()[1]
    sock.setblocking(True)
    client = socket.create_connection((HOST, port))
    conn, _ = sock.accept()
    conn.close()  # the server closes first: its side waits in TIME_WAIT
    client.close()
    sock.close()
    again = bind(port)
    try:
        assert again.getsockname()[1] == port
        with pytest.raises(OSError):
            bind(port)
    finally:
        again.close()
