"""One co-simulated run: a layout and a scenario in, each tile's final state and figures out.

The emulator's own parsers read the layout and the scenario, and a world of the emulator
(never run) plans them: it checks the steps, draws each tile's clock error and serial
number from the seed exactly as `blinkc emulate` does, and keeps track of where the tiles
are. Its tiles hold placeholders; the programs that run are the firmware images `blinkc
build` makes, on simavr cores (cluster.py). A scenario's button contacts become the level
on each tile's button pin, its moves new links between facing faces.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..build import BuildError, build, find_sdk
from ..games import initial_state, layout_errors, load_program
from ..ir.nodes import GlobalVar, Program
from ..world import World
from ..world.emulation import run_time
from ..world.layout import Layout, ProgramError, TileSpec
from ..world.layout_file import load_layout
from ..world.scenario import BUTTON_ACTIONS, Scenario
from ..world.scenario_file import load_scenario
from ..world.syntax import SourceError
from ..world.world import Faults
from .cluster import Cluster
from .firmware import MILLIS_BLOCK, Firmware, FirmwareError, load_firmware
from .tile import CosimTile, clock_at_start

#: What a scenario may do in a co-simulation: a person's hands on buttons and tiles.
SUPPORTED_ACTIONS = (*BUTTON_ACTIONS, "add", "place", "rotate", "lift", "faults", "serial")


class CosimError(Exception):
    """A run that cannot be co-simulated, with what to do about it."""


@dataclass
class CosimOptions:
    seed: int = 0
    faults: Faults = field(default_factory=Faults)
    time_ms: float | None = None
    threads: int = 1
    sdk: str | Path | None = None
    #: Take every tile's colours and state this often (ms), for --compare; None: only at the end.
    sample_ms: float | None = None


@dataclass
class Planned:
    """What one tile of the layout runs."""

    source: Path
    program: Program | None       # a game's IR (its state fields); None for a sketch
    initial: dict[str, int | list[int]]


@dataclass
class CosimResult:
    end_ms: float
    seed: int
    tiles: list[dict]
    #: (time ms, tile, colours, state) every sample_ms, when asked for.
    timeline: list[tuple[float, str, list[int], dict]]
    stats: dict[str, Any]
    #: (time ms, tile, colours): each tile's colours at 0 and at every change a pass
    #: committed, when samples are asked for.
    color_changes: list[tuple[float, str, list[int]]] = field(default_factory=list)
    #: Each tile's BIOS clock (µs) at setup(): where the emulator's tiles start, to compare.
    start_local_us: dict[str, int] = field(default_factory=dict)


class _Placeholder:
    """The planning world's stand-in for a tile's program: the firmware runs elsewhere."""

    def setup(self, api: Any) -> None:
        pass

    def loop(self, api: Any) -> None:
        pass

    def state(self) -> dict:
        return {}


class _SketchPlaceholder(_Placeholder):
    """A sketch's stand-in: a sketch has a service port to send bytes into (`serial`)."""

    def feed_serial(self, data: bytes) -> None:
        pass


def _placeholder(planned: Planned) -> _Placeholder:
    return _Placeholder() if planned.program is not None else _SketchPlaceholder()


def plan_layout(layout_file: str | Path, source: str | Path | None
                ) -> tuple[Layout, dict[str, Planned], Callable[[TileSpec], Any]]:
    """The layout, for each tile the game or sketch it runs (with its initial state), and
    the resolver that plans a tile the same way (a scenario's `add` goes through it too)."""
    plans: dict[str, Planned] = {}

    def resolve(spec: TileSpec) -> Any:
        if spec.name in plans:                  # planned already (the planning world's build)
            return _placeholder(plans[spec.name])
        path = source if source is not None else spec.game
        if spec.program is not None:
            raise ProgramError(f"tile {spec.name!r} runs the built-in program {spec.program!r}, "
                               "which has no firmware", "co-simulation runs what `blinkc build` "
                               "makes: give the tile a game (GAME.py) or a sketch (.ino)")
        if path is None:
            raise ProgramError(f"tile {spec.name!r} has no program",
                               "give the layout a `game` line, or name GAME.py or SKETCH.ino")
        path = Path(path)
        if path.suffix == ".py":
            with layout_errors(path):
                program = load_program(path)
            plans[spec.name] = Planned(path, program, initial_state(program, spec.params,
                                                                    spec.name))
        else:
            if spec.params:
                raise ProgramError(f"tile {spec.name!r}: a sketch takes no settings",
                                   "remove the key=value settings from the layout line")
            plans[spec.name] = Planned(path, None, {})
        return _placeholder(plans[spec.name])

    layout = load_layout(layout_file, resolve)
    for spec in layout.tiles:
        if "start" in spec.params:
            raise CosimError(f"tile {spec.name!r}: co-simulation powers every tile up; "
                             "start= (a BIOS start state) is not modelled: remove it")
    return layout, plans, resolve


def build_images(plans: dict[str, Planned], sdk: str | Path | None,
                 out: Path) -> dict[Path, Firmware]:
    """Each distinct program built once with `blinkc build`, into `out`."""
    found = find_sdk(sdk)
    images: dict[Path, Firmware] = {}
    for i, source in enumerate(dict.fromkeys(p.source for p in plans.values())):
        result = build(source, out / f"{i}-{source.stem}", sdk=found)
        images[source] = load_firmware(result.with_bootloader, result.elf)
    return images


def check_scenario(scenario: Scenario | None) -> None:
    for step in scenario.steps if scenario is not None else ():
        if step.action not in SUPPORTED_ACTIONS:
            where = f" (line {step.where.line})" if step.where and step.where.line else ""
            raise CosimError(f"`{step.action}`{where} is not co-simulated: a co-simulation runs "
                             f"the firmware as it is, and a person can only "
                             f"{', '.join(SUPPORTED_ACTIONS)}")


def initial_bytes(firmware: Firmware, program: Program, values: dict[str, int | list[int]]
                  ) -> dict[int, int]:
    """A layout's settings as bytes of the game's globals (found by their names in the ELF)."""
    fields = {g.name: g for g in program.state_fields}
    out: dict[int, int] = {}
    for name, value in values.items():
        sym = firmware.objects.get(name)
        if sym is None:
            raise CosimError(f"the firmware of {program.name} has no variable {name!r} "
                             "(was it optimised away?), so its setting cannot be applied")
        items = value if isinstance(value, list) else [value]
        width = sym.size // len(items)
        signed = fields[name].type.signed
        for k, v in enumerate(items):
            raw = (v & ((1 << 8 * width) - 1)) if signed else v
            for j, byte in enumerate(raw.to_bytes(width, "little")):
                out[sym.address + k * width + j] = byte
    return out


def read_state(tile: CosimTile, program: Program | None) -> dict[str, Any]:
    """The game's state fields, from the tile's RAM, shown as the emulator shows them."""
    if program is None:
        return {}
    out: dict[str, Any] = {}
    for g in program.state_fields:
        sym = tile.firmware.objects.get(g.name)
        if sym is None:
            continue
        raw = tile.read(sym.address, sym.size)
        count = g.size or 1
        width = sym.size // count
        values = [_shown(g, int.from_bytes(raw[k * width:(k + 1) * width], "little",
                                           signed=g.type.signed), program)
                  for k in range(count)]
        out[g.name] = values if g.size is not None else values[0]
    return out


def _shown(g: GlobalVar, v: int, program: Program) -> Any:
    if g.is_bool:
        return bool(v)
    if g.enum is not None:
        members = program.enums[g.enum]
        return members[v] if 0 <= v < len(members) else v
    return v


def cosimulate(layout_file: str | Path, source: str | Path | None = None,
               script_file: str | Path | None = None,
               options: CosimOptions | None = None) -> CosimResult:
    """Co-simulate the layout's tiles (running `source`, or the layout's game) through the
    scenario. Raises SourceError for bad inputs, BuildError / FirmwareError for images that
    cannot be made, CosimError for what co-simulation cannot do, HarnessUnavailable without
    simavr."""
    opts = options or CosimOptions()
    layout, plans, resolve = plan_layout(layout_file, source)
    scenario = load_scenario(script_file) if script_file is not None else None
    check_scenario(scenario)
    plan = _plan(layout, scenario, resolve, opts)     # (plans the tiles it adds too)
    with tempfile.TemporaryDirectory(prefix="blinkc-cosim-") as tmp:
        images = build_images(plans, opts.sdk, Path(tmp))
        return _run(plan, plans, images, opts)


@dataclass
class _Plan:
    """The planning world (never run) and what its scenario does, in the order it does it."""

    world: World
    end_ms: float
    #: (ms, order, the step's action in the planning world)
    events: list[tuple[float, int, Callable[[], None]]]
    #: Button contacts the last action made: (tile, down).
    contacts: list[tuple[str, bool]]
    fault_changes: list[Faults]
    #: Bytes the last action sent into a tile's service port: (tile, bytes).
    serial: list[tuple[str, bytes]]


def _plan(layout: Layout, scenario: Scenario | None, resolve: Callable[[TileSpec], Any],
          opts: CosimOptions) -> _Plan:
    world = World(seed=opts.seed, faults=opts.faults)
    layout.build(world, resolve)
    plan = _Plan(world, run_time(scenario, opts.time_ms), [], [], [], [])
    # The planning world schedules the scenario into our list, and hands us its contacts.
    world.call_at = lambda at_ms, fn: plan.events.append((at_ms, len(plan.events), fn))  # type: ignore
    world.button = lambda name, down, at_ms=None: plan.contacts.append((name, down))  # type: ignore
    world.set_faults = plan.fault_changes.append  # type: ignore[method-assign]
    world.serial_input = lambda name, data: plan.serial.append((name, bytes(data)))  # type: ignore
    if scenario is not None:
        scenario.apply(world, resolve, layout=layout, start_ms=0.0)
    return plan


def _run(plan: _Plan, plans: dict[str, Planned], images: dict[Path, Firmware],
         opts: CosimOptions) -> CosimResult:
    world, end = plan.world, plan.end_ms
    started = time.perf_counter()
    with Cluster(seed=opts.seed, threads=opts.threads) as cluster:
        tiles: dict[str, CosimTile] = {}
        changes: list[tuple[float, str, list[int]]] = []
        start_local: dict[str, int] = {}
        clocks: dict[Path, int] = {}

        def power_up(name: str, at_ms: float) -> None:
            """Tile `name` of the planning world on its own core: booted alone, so that its
            game starts at `at_ms`, as the emulator starts it (at 0, or when it is added)."""
            t, planned = world.tile(name), plans[name]
            firmware = images[planned.source]
            if MILLIS_BLOCK in firmware.objects:   # (the BIOS's start does not use the serial)
                if planned.source not in clocks:
                    clocks[planned.source] = clock_at_start(firmware, t.api.serial)
                start_local[name] = clocks[planned.source]
            tile = CosimTile(name, firmware, t.api.serial, t.clock.ppm)
            if planned.program is not None:
                tile.set_initial(initial_bytes(firmware, planned.program, planned.initial))
            tile.boot()
            cluster.add(tile)
            if opts.sample_ms:
                tile.watch_colors()
                changes.append((at_ms, name, tile.colors()))
            tiles[name] = tile

        for t in world.tiles:
            power_up(t.name, 0.0)
        cluster.faults(opts.faults.drop, opts.faults.jitter_ms)

        def relink() -> None:
            cluster.link((t.name, f, n.name, nf) for t in world.tiles
                         for f, n, nf in world.neighbours_of(t))

        relink()
        timeline: list[tuple[float, str, list[int], dict]] = []
        samples = _sample_times(opts.sample_ms, end)
        todo = sorted([(at, 1, seq, fn) for at, seq, fn in plan.events if at <= end]
                      + [(at, 0, i, None) for i, at in enumerate(samples)])
        for at, _, _, fn in todo:
            cluster.run_until(at)
            changes += cluster.color_changes()
            if fn is None:
                for name, tile in tiles.items():
                    timeline.append((at, name, tile.colors(), read_state(tile, plans[name].program)))
                continue
            fn()
            for t in world.tiles:
                if t.name not in tiles:       # a scenario's `add`
                    power_up(t.name, at)
            for name, down in plan.contacts:
                tiles[name].button(down)
            plan.contacts.clear()
            for name, data in plan.serial:
                tiles[name].feed_serial(data)
            plan.serial.clear()
            for faults in plan.fault_changes:
                cluster.faults(faults.drop, faults.jitter_ms)
            plan.fault_changes.clear()
            relink()
        cluster.run_until(end)
        changes += cluster.color_changes()
        if opts.sample_ms:
            for name, tile in tiles.items():
                timeline.append((end, name, tile.colors(), read_state(tile, plans[name].program)))
        wall = time.perf_counter() - started
        snapshot = [_snapshot(world, t.name, tiles[t.name], plans[t.name].program)
                    for t in world.tiles]
        stats = {"flashes": cluster.flashes, "wall_s": round(wall, 3),
                 "speed": round(end / 1000 / wall, 3) if wall > 0 else None}
    return CosimResult(end_ms=end, seed=opts.seed, tiles=snapshot, timeline=timeline, stats=stats,
                       color_changes=changes, start_local_us=start_local)


def _sample_times(every: float | None, end: float) -> list[float]:
    if not every:
        return []
    n = int(end // every)
    return [k * every for k in range(1, n + 1) if k * every < end]


def _snapshot(world: World, name: str, tile: CosimTile, program: Program | None) -> dict:
    placed = world.tile(name)
    out: dict[str, Any] = {
        "name": name,
        "pos": list(placed.pos) if placed.pos is not None else None,
        "rot": placed.rot,
        "millis": tile.millis(),
        "colors": tile.colors(),
        "state": read_state(tile, program),
    }
    out.update({k: v for k, v in tile.figures().items() if k in ("stack_free_min", "loop_max_us")})
    text = tile.service_output()
    if text:
        out["serial"] = text.decode("latin-1")
    if tile.crashed:
        out["crashed"] = f"the core stopped at pc {tile.pc:#06x}"
    return out


__all__ = ["BuildError", "CosimError", "CosimOptions", "CosimResult", "FirmwareError",
           "SourceError", "cosimulate"]
