"""Shared pieces of the simulator's tests: a ship session, and replaying an export."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from blinkc.sim import Session, load_source
from blinkc.sim.export import layout_text, scenario_text

ROOT = Path(__file__).resolve().parents[2]
GAME = str(ROOT / "firmware" / "pirates_lasers.py")
SHIP = str(ROOT / "examples" / "ship.layout")
#: The ship's links are up and every face has heard from its neighbour by then.
BOOTED_MS = 5000.0


def ship_session(boot: bool = True, faults: str | None = None, seed: int = 0) -> Session:
    session = Session(load_source(GAME, SHIP, seed=seed, faults_text=faults))
    if boot:
        session.run_until(BOOTED_MS)
    return session


def replay_with_emulate(session: Session, folder: Path) -> list[dict]:
    """Write the session's export into `folder` and run the command its scenario names."""
    (folder / "session.layout").write_text(layout_text(session), encoding="utf-8")
    text = scenario_text(session)
    (folder / "session.scenario").write_text(text, encoding="utf-8")
    line = next(l for l in text.splitlines() if l.startswith("#   blinkc emulate"))
    words = shlex.split(line[len("#   "):])
    assert words[:2] == ["blinkc", "emulate"]
    out = subprocess.run([sys.executable, "-m", "blinkc", "emulate", *words[2:], "--json"],
                         cwd=folder, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["tiles"]


def colours(snapshot: list[dict]) -> dict[str, list[int]]:
    return {t["name"]: t["colors"] for t in snapshot}
