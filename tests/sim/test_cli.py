"""`blinkc sim` on the command line: its first line, its address, its errors."""

from __future__ import annotations

import socket
import subprocess
import sys
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
