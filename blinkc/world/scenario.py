"""Scenarios: what a person does to a cluster, and when.

A scenario is a list of timed steps (the text format is described in
docs/scenarios.md):

    click k                 # a single click, with a human's timing
    wait 1s
    at 5s double k          # absolute time
    long k 2s               # hold 2 s
    move b to SE of a rot 3
    add d at 2,1 hops source=true

Time runs on a cursor: `at T` sets it, `wait D` moves it on, and a button
gesture moves it to half a second after the button is let go (so two
`click k` lines are two single clicks, not a double). Adding, lifting,
moving and rotating take no time.

`Scenario` is also the Python API (`Scenario().click("k").wait(500)...`);
`parse_scenario` (scenario_file.py) builds one from text. `Scenario.apply(world)` checks the
steps against the tiles (names, free places, overlapping gestures) and
schedules them with `World.call_at`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .geometry import Pos, neighbour_pos
from .layout import (
    Beside,
    Layout,
    LayoutError,
    Place,
    ProgramError,
    Resolver,
    TileDraft,
    TileSpec,
    resolve_program,
    tile_settings,
    with_defaults,
)
from .syntax import (
    SourceError,
    Where,
    caller_where,
    check_name,
    did_you_mean,
    format_duration,
)
from .world import Faults, World, WorldError

#: A person's click: the button is down this long (ms).
DOWN_MS = 80.0
#: Between the clicks of a double or multi click, the button is up this long (ms).
GAP_MS = 150.0
#: A long press holds the button this long by default: past the 1.2 s mark, short of 3 s.
LONG_MS = 1500.0
#: Clicks in a `multi` gesture by default.
MULTI_COUNT = 3
#: A gesture ends this long after the button is let go: past the 330 ms click
#: window (counted from the last press-down), so the tile has reported it.
SETTLE_MS = 500.0
#: No step may be later than this (a day): a typo, surely.
MAX_TIME_MS = 86_400_000.0

GESTURES = ("click", "double", "multi", "long")
BUTTON_ACTIONS = (*GESTURES, "press", "release")
TILE_ACTIONS = ("add", "lift", "place", "rotate")
#: What the protocol explorer does (docs/scenarios.md): lose one direction of a link for a
#: while, keep a tile busy, make a game send a message or start a flood.
HAND_ACTIONS = ("cut", "stall", "send", "flood")
#: What a person does at the other end of a tile's service port: send it bytes.
PORT_ACTIONS = ("serial",)
#: Steps on the world itself: `faults` changes the drop rate, jitter and skew from then on.
WORLD_ACTIONS = ("faults",)
ALIASES = {"remove": "lift", "move": "place"}
ACTION_WORDS = (*BUTTON_ACTIONS, *TILE_ACTIONS, *HAND_ACTIONS, *PORT_ACTIONS, *WORLD_ACTIONS,
                *ALIASES, "at", "wait")


class ScenarioError(SourceError):
    """A mistake in a scenario, with its file and line."""


@dataclass(frozen=True)
class Step:
    """One thing a person does at one time."""

    at_ms: float
    action: str
    tiles: tuple[str, ...]
    #: Button contact changes, as (ms after at_ms, down?).
    contacts: tuple[tuple[float, bool], ...] = ()
    #: Where `place` puts the tile (or `add` powers it up).
    place: Place = None
    #: The rotation `place`, `add` or `rotate` sets (or adds, if `relative`).
    rot: int | None = None
    relative: bool = False
    #: The new tile of `add`.
    draft: TileDraft | None = None
    #: `cut`: the face; `send`: the face the message goes out of.
    face: int | None = None
    #: `cut` and `stall`: how long.
    duration_ms: float | None = None
    #: `send`: the message, as `blinkc check --verbose` names it (Laser(2)); `flood`: the flood.
    message: str | None = None
    #: `faults`: the faults from then on.
    faults: Faults | None = None
    #: `serial`: the bytes sent into the tile's service port.
    data: bytes | None = None
    #: Extra words for the description (durations, counts).
    detail: str = ""
    where: Where | None = field(default=None, compare=False)

    @property
    def end_ms(self) -> float:
        """When the step is over: a gesture has been recognised, anything else at once."""
        if self.action in GESTURES:
            return self.at_ms + self.contacts[-1][0] + SETTLE_MS
        return self.at_ms

    def describe(self) -> str:
        words = [self.action, *self.tiles]
        if self.action == "add" and self.draft is not None:
            words.append("held" if self.place is None else f"at {_place_text(self.place)}")
            if self.draft.program:
                words.append(self.draft.program)
        elif self.action == "place":
            words.append(f"at {_place_text(self.place)}")
        if self.rot is not None:
            if self.action == "rotate":
                words.append(f"{self.rot:+d}" if self.relative else str(self.rot))
            elif self.action in ("place", "add"):
                words.append(f"rot {self.rot}")
        if self.action == "cut":
            words += [str(self.face), "for", format_duration(self.duration_ms or 0)]
        elif self.action == "stall":
            words.append(format_duration(self.duration_ms or 0))
        elif self.action == "send":
            words += [str(self.message), str(self.face)]
        elif self.action == "flood":
            words.append(str(self.message))
        elif self.action == "serial" and self.data is not None:
            words.append(format_bytes(self.data))
        elif self.action == "faults" and self.faults is not None:
            words.append(format_faults(self.faults))
        if self.detail:
            words.append(self.detail)
        return " ".join(words)


def format_faults(faults: Faults) -> str:
    """Faults as the `faults` step and `--faults` write them: drop=0.1,jitter=2ms,skew=0.01."""
    return (f"drop={faults.drop:g},jitter={format_duration(faults.jitter_ms)},"
            f"skew={faults.skew:g}")


def format_bytes(data: bytes) -> str:
    """Bytes as a `serial` step writes them: a quoted string, \\n, \\r, \\t, \\xHH escapes."""
    out = []
    for b in data:
        ch = chr(b)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif 32 <= b < 127:
            out.append(ch)
        else:
            out.append(f"\\x{b:02x}")
    return '"' + "".join(out) + '"'


def _place_text(place: Place) -> str:
    if isinstance(place, Beside):
        return str(place)
    if place is None:
        return "held"
    return f"{place[0]},{place[1]}"


class Scenario:
    """Timed steps, built from Python or parsed from text."""

    def __init__(self, path: str | None = None) -> None:
        self.path = path
        self.steps: list[Step] = []
        #: The time the next step happens at (ms from the start of the scenario).
        self.cursor_ms = 0.0

    @property
    def end_ms(self) -> float:
        """When the last step is over."""
        return max([self.cursor_ms, *(s.end_ms for s in self.steps)])

    def __len__(self) -> int:
        return len(self.steps)

    # -------------------------------------------------------------- timing
    def at(self, t_ms: float, where: Where | None = None) -> Scenario:
        """Do the next steps at `t_ms` after the start (earlier than the cursor is fine)."""
        self.cursor_ms = self._time(t_ms, "time", where, allow_zero=True)
        return self

    def wait(self, ms: float, where: Where | None = None) -> Scenario:
        self.cursor_ms = self._time(self.cursor_ms + self._time(ms, "wait", where, True),
                                    "time", where, True)
        return self

    def _time(self, ms: float, what: str, where: Where | None, allow_zero: bool = False) -> float:
        ok = isinstance(ms, int | float) and not isinstance(ms, bool) and ms == ms
        if not ok or ms < 0 or (ms == 0 and not allow_zero) or ms > MAX_TIME_MS:
            least = "at least 0" if allow_zero else "more than 0"
            raise ScenarioError(f"bad {what} {ms!r} ms", where or caller_where(),
                                f"it must be {least} and at most a day")
        return float(ms)

    # ------------------------------------------------------------- buttons
    def press(self, *tiles: str, where: Where | None = None) -> Scenario:
        """Push the button down and keep holding it (until `release`)."""
        return self._button("press", tiles, ((0.0, True),), "", where)

    def release(self, *tiles: str, where: Where | None = None) -> Scenario:
        """Let go of a held button."""
        return self._button("release", tiles, ((0.0, False),), "", where)

    def click(self, *tiles: str, down_ms: float = DOWN_MS, where: Where | None = None) -> Scenario:
        """A single click on each of `tiles`, all at once."""
        return self.multi(*tiles, count=1, down_ms=down_ms, where=where, _action="click")

    def double(self, *tiles: str, down_ms: float = DOWN_MS, gap_ms: float = GAP_MS,
               where: Where | None = None) -> Scenario:
        return self.multi(*tiles, count=2, down_ms=down_ms, gap_ms=gap_ms, where=where,
                          _action="double")

    def multi(self, *tiles: str, count: int = MULTI_COUNT, down_ms: float = DOWN_MS,
              gap_ms: float = GAP_MS, where: Where | None = None,
              _action: str = "multi") -> Scenario:
        """`count` clicks in a row (3 or more is a multi click on the tile)."""
        where = where or caller_where()
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 255:
            raise ScenarioError(f"bad click count {count!r}", where, "a count is 1..255")
        down = self._time(down_ms, "button-down time", where)
        gap = self._time(gap_ms, "gap between clicks", where)
        contacts: list[tuple[float, bool]] = []
        t = 0.0
        for _ in range(count):
            contacts += [(t, True), (t + down, False)]
            t += down + gap
        detail = ""
        if _action == "multi":
            detail = str(count)
        if down != DOWN_MS:
            detail = f"{detail} down={format_duration(down)}".strip()
        if count > 1 and gap != GAP_MS:
            detail = f"{detail} gap={format_duration(gap)}".strip()
        return self._button(_action, tiles, tuple(contacts), detail, where)

    def long(self, *tiles: str, hold_ms: float = LONG_MS, where: Where | None = None) -> Scenario:
        """Hold the button for `hold_ms`, then let go (1.2 s or more is a long press)."""
        where = where or caller_where()
        hold = self._time(hold_ms, "hold time", where)
        detail = "" if hold == LONG_MS else format_duration(hold)
        return self._button("long", tiles, ((0.0, True), (hold, False)), detail, where)

    def _button(self, action: str, tiles: Sequence[str], contacts: tuple[tuple[float, bool], ...],
                detail: str, where: Where | None) -> Scenario:
        where = where or caller_where()
        names = self._names(tiles, action, where)
        step = Step(self.cursor_ms, action, names, contacts, detail=detail, where=where)
        self.steps.append(step)
        self.cursor_ms = step.end_ms
        return self

    def _names(self, tiles: Sequence[str], action: str, where: Where) -> tuple[str, ...]:
        if not tiles:
            raise ScenarioError(f"`{action}` needs a tile", where, f"e.g. {action} a")
        for name in tiles:
            if not isinstance(name, str):
                raise ScenarioError(f"{name!r} is not a tile name", where)
            check_name(name, where, ScenarioError)
        if len(set(tiles)) != len(tiles):
            raise ScenarioError(f"`{action}` names a tile twice", where)
        return tuple(tiles)

    # --------------------------------------------------------------- tiles
    def add(self, name: str, pos: Pos | Beside | None = None, rot: int = 0,
            program: str | None = None, where: Where | None = None, **params: Any) -> Scenario:
        """Power up a new tile at `pos` (None: in the hand), running `program`."""
        where = where or caller_where()
        draft = TileDraft(check_name(name, where, ScenarioError), where, pos, True,
                          self._rot(rot, where), program, dict(params))
        return self.add_draft(draft)

    def add_draft(self, draft: TileDraft) -> Scenario:
        if not draft.has_place:
            raise ScenarioError(f"`add {draft.name}` needs a place", draft.where,
                                "e.g. add d at 1,0, add d at SE of a, or add d held")
        self._check_place(draft.place, draft.where)
        step = Step(self.cursor_ms, "add", (draft.name,), place=draft.place, rot=draft.rot,
                    draft=draft, where=draft.where)
        self.steps.append(step)
        return self

    def lift(self, *tiles: str, where: Where | None = None) -> Scenario:
        """Pick tiles up off the table; they keep running, alone."""
        where = where or caller_where()
        for name in self._names(tiles, "lift", where):
            self.steps.append(Step(self.cursor_ms, "lift", (name,), where=where))
        return self

    remove = lift

    def place(self, name: str, pos: Pos | Beside, rot: int | None = None,
              where: Where | None = None) -> Scenario:
        """Put a tile down at `pos` (moving it if it is on the table)."""
        where = where or caller_where()
        self._check_place(pos, where, allow_held=False)
        step = Step(self.cursor_ms, "place", self._names([name], "place", where), place=pos,
                    rot=None if rot is None else self._rot(rot, where), where=where)
        self.steps.append(step)
        return self

    move = place

    def rotate(self, name: str, rot: int, relative: bool = False,
               where: Where | None = None) -> Scenario:
        """Turn a tile to rotation `rot` (or by `rot` steps clockwise, if `relative`)."""
        where = where or caller_where()
        if relative:
            if isinstance(rot, bool) or not isinstance(rot, int):
                raise ScenarioError(f"bad rotation step {rot!r}", where, "e.g. +1 or -2")
        else:
            rot = self._rot(rot, where)
        step = Step(self.cursor_ms, "rotate", self._names([name], "rotate", where), rot=rot,
                    relative=relative, where=where)
        self.steps.append(step)
        return self

    # ------------------------------------------------- the explorer's hand
    def cut(self, name: str, face: int, ms: float, where: Where | None = None) -> Scenario:
        """Lose every packet that leaves `face` of the tile for `ms` (one direction of a link)."""
        where = where or caller_where()
        self.steps.append(Step(self.cursor_ms, "cut", self._names([name], "cut", where),
                               face=self._face(face, where),
                               duration_ms=self._time(ms, "cut time", where), where=where))
        return self

    def stall(self, name: str, ms: float, where: Where | None = None) -> Scenario:
        """Keep the tile busy `ms` longer in its next pass."""
        where = where or caller_where()
        self.steps.append(Step(self.cursor_ms, "stall", self._names([name], "stall", where),
                               duration_ms=self._time(ms, "stall time", where), where=where))
        return self

    def send(self, name: str, message: str, face: int, where: Where | None = None) -> Scenario:
        """Make the tile's game send `message` out of `face` (as a handler would)."""
        where = where or caller_where()
        self.steps.append(Step(self.cursor_ms, "send", self._names([name], "send", where),
                               face=self._face(face, where), message=message, where=where))
        return self

    def flood(self, name: str, flood: str, where: Where | None = None) -> Scenario:
        """Make the tile's game start `flood` (as a handler would)."""
        where = where or caller_where()
        self.steps.append(Step(self.cursor_ms, "flood", self._names([name], "flood", where),
                               message=flood, where=where))
        return self

    # ------------------------------------------------------------ the service port
    def serial(self, name: str, data: bytes | str, where: Where | None = None) -> Scenario:
        """Send bytes (a str: its UTF-8) into the tile's service port, for its sketch's
        Serial.read(); they all arrive at once and wait until the sketch reads them."""
        where = where or caller_where()
        if isinstance(data, str):
            data = data.encode("utf-8")
        if not isinstance(data, (bytes, bytearray)) or not data:
            raise ScenarioError(f"bad service-port input {data!r}", where,
                                'give some bytes or text, e.g. serial("a", "go\\n")')
        self.steps.append(Step(self.cursor_ms, "serial", self._names([name], "serial", where),
                               data=bytes(data), where=where))
        return self

    # ------------------------------------------------------------ the world
    def faults(self, faults: Faults, where: Where | None = None) -> Scenario:
        """From now on, lose, delay and skew as `faults` says (World.set_faults)."""
        where = where or caller_where()
        if not isinstance(faults, Faults):
            raise ScenarioError(f"bad faults {faults!r}", where,
                                "give a Faults(drop=..., jitter_ms=..., skew=...)")
        self.steps.append(Step(self.cursor_ms, "faults", (), faults=faults, where=where))
        return self

    @staticmethod
    def _face(face: Any, where: Where) -> int:
        if isinstance(face, bool) or not isinstance(face, int) or not 0 <= face <= 5:
            raise ScenarioError(f"bad face {face!r}", where, "a face is 0..5")
        return face

    @staticmethod
    def _rot(rot: Any, where: Where) -> int:
        if isinstance(rot, bool) or not isinstance(rot, int) or not 0 <= rot <= 5:
            raise ScenarioError(f"bad rotation {rot!r}", where, "a rotation is 0..5")
        return rot

    @staticmethod
    def _check_place(pos: Any, where: Where, allow_held: bool = True) -> None:
        if (pos is None and allow_held) or isinstance(pos, Beside):
            return
        if (isinstance(pos, tuple) and len(pos) == 2
                and all(isinstance(c, int) and not isinstance(c, bool) for c in pos)):
            return
        raise ScenarioError(f"bad place {pos!r}", where,
                            "a place is (q, r) or Beside(direction, tile)")

    # ---------------------------------------------------------------- apply
    def apply(self, world: World, resolver: Resolver = resolve_program,
              layout: Layout | None = None, start_ms: float | None = None) -> None:
        """Check the steps against the world's tiles, then schedule them.

        Times count from `start_ms` (default: the world's time now). Tiles the
        scenario adds take the layout's default program and game.
        """
        start = world.now_ms if start_ms is None else start_ms
        plan = _Planner(world, resolver, layout).plan(self.steps)
        announced: set[int] = set()
        for step, offset, action in plan:
            if id(step) not in announced:
                announced.add(id(step))
                world.call_at(start + step.at_ms, _announce(world, step))
            world.call_at(start + step.at_ms + offset, _guarded(step, action))


@dataclass
class _Tile:
    pos: Pos | None
    rot: int


class _Planner:
    """Walks the steps in time order, tracking where tiles are, to catch mistakes early."""

    def __init__(self, world: World, resolver: Resolver, layout: Layout | None) -> None:
        self.world = world
        self.resolver = resolver
        self.layout = layout
        self.tiles = {t.name: _Tile(t.pos, t.rot) for t in world.tiles}
        self.held: dict[str, Step] = {}
        self.busy: dict[str, tuple[float, Step]] = {}

    def plan(self, steps: Sequence[Step]) -> list[tuple[Step, float, Callable[[], None]]]:
        out: list[tuple[Step, float, Callable[[], None]]] = []
        order = sorted(range(len(steps)), key=lambda i: (steps[i].at_ms, i))
        for i in order:
            step = steps[i]
            if step.action in BUTTON_ACTIONS:
                out += self._button(step)
            else:
                out.append((step, 0.0, getattr(self, f"_{step.action}")(step)))
        return out

    def _where(self, step: Step) -> Where:
        return step.where or Where()

    def _known(self, name: str, step: Step) -> _Tile:
        tile = self.tiles.get(name)
        if tile is None:
            hint = did_you_mean(name, self.tiles) or (
                f"the tiles are: {', '.join(self.tiles)}" if self.tiles else "there are no tiles")
            raise ScenarioError(f"no tile named {name!r} at {_secs(step.at_ms)}",
                                self._where(step), hint)
        return tile

    def _button(self, step: Step) -> list[tuple[Step, float, Callable[[], None]]]:
        world = self.world
        out: list[tuple[Step, float, Callable[[], None]]] = []
        for name in step.tiles:
            self._known(name, step)
            where = self._where(step)
            pressed = self.held.get(name)
            if step.action == "release":
                if pressed is None:
                    raise ScenarioError(f"the button of {name!r} is not held down", where,
                                        f"press it first (press {name}), or use click or long")
                del self.held[name]
                self.busy[name] = (step.at_ms, step)
            elif pressed is not None:
                raise ScenarioError(f"{step.action} {name}: its button is already held down "
                                    f"(press on line {_line(pressed)})", where,
                                    f"release it first: release {name}")
            else:
                until, other = self.busy.get(name, (-1.0, step))
                if step.at_ms < until:
                    raise ScenarioError(
                        f"{step.action} {name} at {_secs(step.at_ms)} overlaps the "
                        f"{other.action} on line {_line(other)} "
                        f"(the button is down until {_secs(until)})", where,
                        "start it later, e.g. with a wait")
                if step.action == "press":
                    self.held[name] = step
                else:
                    self.busy[name] = (step.at_ms + step.contacts[-1][0], step)
            for offset, down in step.contacts:
                out.append((step, offset, _contact(world, name, down)))
        return out

    def _resolve_place(self, place: Place, step: Step, moving: str | None = None) -> Pos | None:
        if not isinstance(place, Beside):
            pos = place
        else:
            other = self._known(place.tile, step)
            if other.pos is None:
                raise ScenarioError(f"tile {place.tile!r} is not on the table at "
                                    f"{_secs(step.at_ms)}, so nothing can go next to it",
                                    self._where(step))
            pos = neighbour_pos(other.pos, place.direction)
        if pos is not None:
            for name, tile in self.tiles.items():
                if tile.pos == pos and name != moving:
                    raise ScenarioError(f"place {pos[0]},{pos[1]} is taken by tile {name!r} at "
                                        f"{_secs(step.at_ms)}", self._where(step),
                                        "move or lift that tile first")
        return pos

    def _add(self, step: Step) -> Callable[[], None]:
        draft = step.draft
        assert draft is not None
        if draft.name in self.tiles:
            raise ScenarioError(f"there is already a tile named {draft.name!r}",
                                self._where(step), "give the new tile its own name")
        pos = self._resolve_place(step.place, step)
        spec = TileSpec(draft.name, pos, draft.rot or 0, draft.program, dict(draft.params),
                        None, step.where)
        spec = with_defaults(spec, self.layout)
        try:
            spec, options = tile_settings(spec)
            program = self.resolver(spec)
        except ProgramError as e:
            raise ScenarioError(e.message, self._where(step), e.hint) from None
        except LayoutError as e:
            raise ScenarioError(e.message, self._where(step), e.hint) from None
        self.tiles[draft.name] = _Tile(pos, spec.rot)
        world = self.world

        def add() -> None:
            world.add_tile(spec.name, program, spec.pos, spec.rot, **options)

        return add

    def _lift(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        self._known(name, step).pos = None
        world = self.world
        return lambda: world.lift(name)

    def _place(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        tile = self._known(name, step)
        pos = self._resolve_place(step.place, step, moving=name)
        assert pos is not None
        tile.pos = pos
        if step.rot is not None:
            tile.rot = step.rot
        world, rot = self.world, step.rot
        return lambda: world.place(name, pos, rot)

    def _cut(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        self._known(name, step)
        world, face, ms = self.world, step.face, step.duration_ms
        return lambda: world.cut(name, face, ms)  # type: ignore[arg-type]

    def _stall(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        self._known(name, step)
        world, ms = self.world, step.duration_ms
        return lambda: world.stall(name, ms)  # type: ignore[arg-type]

    def _send(self, step: Step) -> Callable[[], None]:
        return self._game_action(step, "MESSAGES", "send", "message")

    def _flood(self, step: Step) -> Callable[[], None]:
        return self._game_action(step, "FLOODS", "start_flood", "flood")

    def _game_action(self, step: Step, table: str, method: str, what: str) -> Callable[[], None]:
        name = step.tiles[0]
        self._known(name, step)
        tile = self.world.tile(name)
        known = getattr(tile.program, table, None)
        if known is None:
            raise ScenarioError(f"{step.action} {name}: the tile does not run a blinkc game on "
                                "the Python backend (nor the explorer's build of one)",
                                self._where(step),
                                f"`{step.action}` drives a game's own {what}s (emulate GAME.py)")
        if step.message not in known:
            hint = did_you_mean(step.message or "", known) or (
                f"its {what}s are: {', '.join(known) or 'none'}")
            raise ScenarioError(f"the game has no {what} {step.message!r}", self._where(step),
                                hint)
        world, label, face = self.world, step.message, step.face

        def act() -> None:
            program = world.tile(name).program
            if what == "message":
                getattr(program, method)(label, face)
            else:
                getattr(program, method)(label)
            world.touch(name)

        return act

    def _serial(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        self._known(name, step)
        if name in self.world.by_name:  # a tile added later is checked when the step runs
            program = self.world.tile(name).program
            if not (hasattr(program, "feed_serial")
                    or hasattr(getattr(program, "native", None), "feed_serial")):
                raise ScenarioError(
                    f"serial {name}: the tile runs {type(program).__name__}, which has no service "
                    "port", self._where(step), "only sketches (.ino) read Serial: emulate one")
        world, data = self.world, step.data
        return lambda: world.serial_input(name, data)  # type: ignore[arg-type]

    def _faults(self, step: Step) -> Callable[[], None]:
        world, faults = self.world, step.faults
        assert faults is not None
        return lambda: world.set_faults(faults)

    def _rotate(self, step: Step) -> Callable[[], None]:
        name = step.tiles[0]
        tile = self._known(name, step)
        assert step.rot is not None
        tile.rot = (tile.rot + step.rot) % 6 if step.relative else step.rot
        world, rot = self.world, tile.rot
        return lambda: world.rotate(name, rot)


def _contact(world: World, name: str, down: bool) -> Callable[[], None]:
    return lambda: world.button(name, down)


def _announce(world: World, step: Step) -> Callable[[], None]:
    """Record the step in the world's trace as it happens."""

    def record() -> None:
        if world.trace is not None:
            tile = step.tiles[0] if len(step.tiles) == 1 else None
            data: dict[str, Any] = {"do": step.describe()}
            if step.where is not None and step.where.line is not None:
                data["line"] = step.where.line
            world.trace.write(world.now, tile, "action", data)

    return record


def _guarded(step: Step, action: Callable[[], None]) -> Callable[[], None]:
    """Run a scheduled action; a world complaint becomes an error at the step's line."""

    def run() -> None:
        try:
            action()
        except WorldError as e:
            raise ScenarioError(str(e), step.where) from None

    return run


def _line(step: Step) -> str:
    return str(step.where.line) if step.where and step.where.line is not None else "?"


def _secs(ms: float) -> str:
    return f"{ms / 1000:.3f}".rstrip("0").rstrip(".") + " s"
