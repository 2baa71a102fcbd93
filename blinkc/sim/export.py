"""A session, written out: a layout + scenario that `blinkc emulate` replays to the same final
state, and a single HTML file that replays the session offline (its frames computed here)."""

from __future__ import annotations

import json
import shlex
from importlib import resources
from pathlib import Path
from typing import Any

from ..world import World
from ..world.layout import Layout
from .ring import RingTrace
from .session import Session

LAYOUT_NAME = "session.layout"
SCENARIO_NAME = "session.scenario"
#: Frames per second of simulated time in the HTML replay.
REPLAY_FPS = 60


def time_text(t_us: int) -> str:
    """A world time as `blinkc emulate --time` reads it, to the microsecond."""
    ms, us = divmod(t_us, 1000)
    return f"{ms}ms" if not us else f"{ms}.{us:03d}ms"


def layout_text(session: Session) -> str:
    """The session's starting cluster (the tiles it adds are in the scenario)."""
    layout = session.src.layout
    game = layout.game_path
    out = Layout(tiles=list(layout.tiles), program=layout.program,
                 game=str(Path(game).resolve()) if game is not None else None)
    head = f"# The starting cluster of a blinkc sim session ({session.src.title}).\n"
    return head + out.to_text()


def command(session: Session, layout_file: str = LAYOUT_NAME,
            scenario_file: str = SCENARIO_NAME) -> list[str]:
    """The `blinkc emulate` command that replays the session to its final state."""
    src = session.src
    words = ["blinkc", "emulate"]
    if src.program_file is not None:
        words += [str(Path(src.program_file).resolve()), "--layout", layout_file]
    else:
        words.append(layout_file)
    words += ["--script", scenario_file, "--seed", str(src.seed)]
    if src.faults_text is not None:
        words += ["--faults", src.faults_text]
    words += ["--time", time_text(session.world.now), "--world", "python"]
    return words


def scenario_text(session: Session) -> str:
    head = [f"# A blinkc sim session ({session.src.title}), ended at {time_text(session.world.now)}.",
            "# Replay it to the same final state with:",
            "#   " + shlex.join(command(session)), ""]
    return "\n".join(head) + "".join(entry.text() for entry in session.log)


# ------------------------------------------------------------------- HTML
def replay_frames(session: Session, fps: int = REPLAY_FPS) -> dict[str, Any]:
    """The session replayed from its log in a fresh world: each tile's place, rotation and
    colours whenever they change, sampled `fps` times per simulated second, and at the end."""
    src = session.src
    end = session.world.now
    world = World(seed=src.seed, faults=src.faults, trace=RingTrace(0.0, max_records=1))
    src.layout.build(world, src.resolver)
    if session.log:
        session.scenario().apply(world, src.resolver, src.layout, start_ms=0.0)
    period = 1_000_000 // fps
    changes: list[list[Any]] = []
    seen: dict[str, Any] = {}
    t = 0
    while True:
        world.run_until(t / 1000)
        for tile in world.tiles:
            look = [list(tile.pos) if tile.pos is not None else None, tile.rot, world.colors(tile)]
            if seen.get(tile.name) != look:
                seen[tile.name] = look
                changes.append([t / 1000, tile.name, *look])
        if t >= end:
            break
        t = min(t + period, end)
    return {"title": src.title, "end": end / 1000, "fps": fps, "changes": changes,
            "inputs": [[i.at_ms, list(i.lines)] for i in session.log],
            "command": shlex.join(command(session))}


def _asset(name: str) -> str:
    return resources.files("blinkc.sim").joinpath("assets", name).read_text(encoding="utf-8")


def html(session: Session) -> str:
    """One self-contained HTML file (no server, no network) that replays the session."""
    data = json.dumps(replay_frames(session), separators=(",", ":")).replace("</", "<\\/")
    page = _asset("replay.html")
    return (page.replace("/*CSS*/", _asset("sim.css"))
                .replace("/*DRAW*/", _asset("draw.js"))
                .replace("/*REPLAY*/", _asset("replay.js"))
                .replace("/*DATA*/", data))


__all__ = ["command", "html", "layout_text", "replay_frames", "scenario_text"]
