"""`blinkc sim` on the command line: its first line, its address, its errors."""

from __future__ import annotations

import json
import site
import socket
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from blinkc.cli import main

from .helpers import GAME, SHIP


def _listening_addresses(port: int) -> set[str]:
    """The local addresses listening on `port` (from /proc/net/tcp and tcp6)."""
    out = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port:
                out.add(addr)
    return out


def test_serves_on_loopback_and_prints_the_address_first():
    proc = subprocess.Popen([sys.executable, "-m", "blinkc", "sim", GAME, "--layout", SHIP,
                             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        port = int(url.rsplit(":", 1)[1].rstrip("/"))
        with urllib.request.urlopen(url, timeout=10) as r:
            assert b"<canvas" in r.read()
        if Path("/proc/net/tcp").exists():
            assert _listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize(("args", "message"), [
    (["nothing.py"], "does not exist"),
    ([GAME, "--layout", "nowhere.layout"], "does not exist"),
    ([SHIP, "--layout", SHIP], "give the layout once"),
    ([GAME, "--layout", SHIP, "--faults", "drop=lots"], "--faults: bad drop 'lots'"),
    ([GAME, "--layout", SHIP, "--port", "70000"], "70000 is not in the range"),
])
def test_bad_input_is_one_clear_error(args, message):
    result = CliRunner().invoke(main, ["sim", *args, "--no-browser"])
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_bad_layout_is_one_clear_error(tmp_path):
    bad = tmp_path / "bad.layout"
    bad.write_text("tile a at 0,0 kind=BOAT\n")
    result = CliRunner().invoke(main, ["sim", GAME, "--layout", str(bad), "--no-browser"])
    assert result.exit_code == 1
    assert "bad.layout:1: tile 'a': kind cannot be 'BOAT'" in result.output


def test_a_port_in_use_is_one_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["sim", GAME, "--layout", SHIP, "--no-browser",
                                           "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot serve on 127.0.0.1:{port}:" in result.output
    assert "Traceback" not in result.output


_WATCH_FILES = r'''
import json, os, sys, threading, time, urllib.request
seen = []
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND


def hook(event, args):
    if event == "open":  # (path, mode, flags): a mode from open(), flags from os.open()
        mode, flags = args[1], args[2]
        writes = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool(flags & WRITE)
        seen.append((event, str(args[0]), writes))
    elif event in ("os.listdir", "os.scandir"):
        seen.append((event, str(args[0]), False))


sys.addaudithook(hook)
from blinkc.cli import main
from blinkc.sim.server import ASSETS
game, layout, port = sys.argv[1:4]
threading.Thread(target=lambda: main(["sim", game, "--layout", layout, "--no-browser",
                                      "--port", port], standalone_mode=False),
                 daemon=True).start()
base = f"http://127.0.0.1:{port}"
for _ in range(400):
    try:
        urllib.request.urlopen(base + "/", timeout=5).read()
        break
    except OSError:
        time.sleep(0.05)
for path in ["/", *[f"/assets/{n}" for n in ASSETS], "/export/session.layout",
             "/export/session.scenario", "/export/session.html", "/export/command",
             "/assets/../../firmware/pirates_lasers.py", "/../examples/ship.layout"]:
    try:
        urllib.request.urlopen(base + path, timeout=10).read()
    except OSError:
        pass
print(json.dumps(seen))
'''


def test_reads_no_file_but_the_game_and_the_layout(tmp_path):
    """Every file the command opens while it serves the page, its assets and its exports (and
    refuses other paths) is the game, the layout, or part of Python and its packages."""
    import blinkc

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = subprocess.run([sys.executable, "-c", _WATCH_FILES, GAME, SHIP, str(port)],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path, check=True)
    events = json.loads(out.stdout.splitlines()[-1])
    ours = {str(Path(GAME).resolve()), str(Path(SHIP).resolve())}
    python = tuple(str(Path(p).resolve()) + "/" for p in
                   {sys.prefix, sys.base_prefix, *site.getsitepackages(),
                    str(Path(blinkc.__file__).parent)})
    system = ("/etc/", "/dev/", "/proc/", "/sys/")  # mime types, time zones, urandom
    folders = {str(tmp_path.resolve()), str(Path(tempfile.gettempdir()).resolve())}
    others = []
    for event, path, writes in events:
        full = str((tmp_path / path).resolve())
        if writes:
            others.append((event, path, "written"))  # nothing is written
        elif full in ours or f"{full}/".startswith(python) or full.startswith(system):
            continue
        elif event != "open" and full in folders:
            continue  # imports looking in the working folder (empty), tempfile in its own
        else:
            others.append((event, path, "read"))
    assert others == []
    assert {str((tmp_path / p).resolve()) for e, p, _ in events if e == "open"} >= ours
