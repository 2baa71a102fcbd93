"""Smoke runs: every sketch under a folder (an SDK's examples, or your own), each on a small
cluster in the emulator with a few clicks, a long press and tiles moved; which run, which
fail and why (`blinkc examples`, docs/native.md#running-every-example-of-the-sdk)."""

from __future__ import annotations

import re
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .native.build import NativeBuildError
from .native.loader import HostIntWarning, load_sketch
from .native.sketch import SketchError
from .world import World, WorldError
from .world.emulation import EmulationOptions, emulate
from .world.layout_file import parse_layout
from .world.scenario_file import parse_scenario

#: Three tiles in a triangle and one in the hand.
SMOKE_LAYOUT = "tile a at 0,0\ntile b at 1,0\ntile c at 0,1\ntile d held\n"
#: A person's first minute, shortened: each kind of press, tiles taken away and put back.
SMOKE_SCENARIO = """\
at 500ms click a
double b
multi c
long a
place d at 1,-1
click d
lift b
wait 1s
place b at -1,1 rot 2
rotate c +1
long d 3500ms
wait 2s
"""


@dataclass(frozen=True)
class SmokeResult:
    """How one sketch fared: `error` is None when it ran to the end."""

    name: str
    path: Path
    error: str | None = None
    passes: int = 0
    seconds: float = 0.0
    #: What else a run that went on to its end showed: tiles that froze, what they printed.
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    def line(self) -> str:
        if self.ok:
            head = f"ok    {self.name}  ({self.passes:,} passes, {self.seconds:.1f} s)"
            return "\n".join([head, *(f"      {note}" for note in self.notes)])
        return f"FAIL  {self.name}: {self.error}"


def find_sketches(folder: Path) -> list[Path]:
    """Every sketch under `folder`: X/X.ino, as the Arduino IDE lays them out, by name."""
    found = [p for p in folder.rglob("*.ino") if p.stem == p.parent.name]
    return sorted(found, key=lambda p: (p.stem.lower(), str(p)))


def smoke_run(path: Path, seed: int = 0) -> SmokeResult:
    """Compile the sketch for the host and play the smoke scenario on four of its tiles."""
    start = time.monotonic()
    name = path.stem
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HostIntWarning)
            sketch = load_sketch(path.parent)
    except (NativeBuildError, SketchError) as e:
        return SmokeResult(name, path, f"does not compile: {_first_error(str(e))}")
    try:
        done = emulate(parse_layout(SMOKE_LAYOUT, "<smoke>"), parse_scenario(SMOKE_SCENARIO),
                       EmulationOptions(seed=seed, resolver=lambda spec: sketch()))
    except WorldError as e:  # a TileHangError above all: the sketch's setup() never returned
        return SmokeResult(name, path, _hang_reason(str(e)), seconds=time.monotonic() - start)
    except Exception as e:  # a sketch that breaks the emulator is reported, not raised
        return SmokeResult(name, path, f"{type(e).__name__}: {_first_line(str(e))}",
                           seconds=time.monotonic() - start)
    return SmokeResult(name, path, None, done.world.stats["passes"], time.monotonic() - start,
                       freeze_notes(done.world))


#: Lines of a frozen tile's service-port output shown under its sketch's line.
SERIAL_LINES = 2


def freeze_notes(world: World) -> tuple[str, ...]:
    """The tiles that froze (one line: which, when, why), and what each printed first."""
    freezes = world.freezes
    if not freezes:
        return ()
    tiles = ", ".join(f"{f.tile!r} at {f.when}" for f in freezes)
    reasons = sorted({f.why() for f in freezes})
    notes = [f"froze: tile{'s' if len(freezes) > 1 else ''} {tiles}: {'; '.join(reasons)}"]
    for f in freezes:
        printed = world.tile(f.tile).serial_text.replace("\r\n", "\n").splitlines()
        notes += [f"service port {f.tile}| {line}" for line in printed[:SERIAL_LINES]]
        if len(printed) > SERIAL_LINES:
            notes.append(f"service port {f.tile}| ... ({len(printed) - SERIAL_LINES} more lines)")
    return tuple(notes)


def smoke_all(folder: Path, seed: int = 0) -> Iterator[SmokeResult]:
    """smoke_run every sketch under `folder`, in name order (ToolMissing: no g++ at all)."""
    for path in find_sketches(folder):
        yield smoke_run(path, seed)


def _hang_reason(message: str) -> str:
    # The line names the sketch, and so does ours: keep the tile and what it did.
    first = re.sub(r" \(sketch [^)]*\)", "", _first_line(message).removeprefix("Error: "))
    if "setup() did not return" in first:
        return (f"{first} Its game never starts: setup() ends in an endless loop such as "
                "`while (1);`.")
    return first


def _first_error(text: str) -> str:
    """The compiler's first `error:` line (file:line: error: ...), else the message's first."""
    for line in text.splitlines():
        if "error:" in line:
            return line.strip()
    return _first_line(text)


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else "(no message)"
