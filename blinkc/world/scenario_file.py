"""Reading scenario files (the format is described in docs/scenarios.md) into a `Scenario`
(blinkc/world/scenario.py, the model and its Python API)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .emulation import FaultsError, parse_faults
from .layout_file import parse_place, parse_rotation, parse_tile_words
from .scenario import (
    ACTION_WORDS,
    ALIASES,
    BUTTON_ACTIONS,
    DOWN_MS,
    GAP_MS,
    HAND_ACTIONS,
    LONG_MS,
    MULTI_COUNT,
    Scenario,
    ScenarioError,
)
from .syntax import (
    Where,
    Word,
    check_name,
    did_you_mean,
    parse_duration,
    parse_int,
    split_line,
)


def load_scenario(path: str | Path) -> Scenario:
    """Read a scenario file; mistakes raise ScenarioError with the file and line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror.lower() if isinstance(e, OSError) and e.strerror else str(e)
        raise ScenarioError(f"cannot read scenario: {reason}", Where(str(path))) from None
    return parse_scenario(text, str(path))


def parse_scenario(text: str, path: str | None = None) -> Scenario:
    scenario = Scenario(path)
    for n, line in enumerate(text.split("\n"), start=1):
        where = Where(path, n)
        words = split_line(line, where, ScenarioError)
        if not words:
            continue
        if words[0].text == "at":
            if len(words) < 2:
                raise ScenarioError("`at` needs a time", where, "e.g. at 1.5s click a")
            scenario.at(parse_duration(words[1].text, where, ScenarioError, "time"), where)
            words = words[2:]
            if not words:
                continue
        _parse_action(scenario, words, where)
    return scenario


def _parse_action(sc: Scenario, words: Sequence[Word], where: Where) -> None:
    word, rest = words[0].text, list(words[1:])
    action = ALIASES.get(word, word)
    if action == "wait":
        if len(rest) != 1:
            raise ScenarioError("`wait` takes one duration", where, "e.g. wait 500ms")
        sc.wait(parse_duration(rest[0].text, where, ScenarioError), where)
    elif action == "at":
        raise ScenarioError("`at` must start the line", where, "e.g. at 2s click a")
    elif action in BUTTON_ACTIONS:
        _parse_button(sc, action, rest, where)
    elif action == "add":
        draft = parse_tile_words(rest, where, ScenarioError)
        sc.add_draft(draft)
    elif action == "lift":
        sc.lift(*(w.text for w in rest), where=where)
    elif action == "place":
        _parse_place(sc, word, rest, where)
    elif action == "rotate":
        _parse_rotate(sc, rest, where)
    elif action in HAND_ACTIONS:
        _parse_hand(sc, action, [w.text for w in rest], where)
    elif action == "faults":
        _parse_faults(sc, [w.text for w in rest], where)
    elif action == "serial":
        _parse_serial(sc, rest, where)
    else:
        hint = did_you_mean(word, ACTION_WORDS) or (
            "steps are: at, wait, click, double, multi, long, press, release, "
            "add, lift (remove), place (move), rotate, cut, stall, send, flood, serial, faults")
        raise ScenarioError(f"unknown action {word!r}", where, hint)


def _parse_faults(sc: Scenario, rest: list[str], where: Where) -> None:

    if not rest:
        raise ScenarioError("`faults` needs the faults", where,
                            "e.g. faults drop=0.1,jitter=2ms,skew=10% (parts left out are 0, "
                            "skew 1 %)")
    try:
        faults = parse_faults(",".join(rest))
    except FaultsError as e:
        raise ScenarioError(e.message, where, e.hint) from None
    sc.faults(faults, where)


_SERIAL_FORM = 'serial TILE "TEXT" (escapes: \\n \\r \\t \\" \\\\ \\xHH)'
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}


def _parse_serial(sc: Scenario, rest: Sequence[Word], where: Where) -> None:
    if len(rest) != 2:
        raise ScenarioError("`serial` takes a tile and the text it is sent", where,
                            f"write {_SERIAL_FORM}")
    name = check_name(rest[0].text, where, ScenarioError)
    sc.serial(name, parse_bytes(rest[1].text, where), where=where)


def parse_bytes(text: str, where: Where) -> bytes:
    """A bare word (its UTF-8), or a quoted string whose \\xHH escapes are single bytes."""
    if not text.startswith('"'):
        return text.encode("utf-8")
    if len(text) < 2 or not text.endswith('"'):
        raise ScenarioError(f"bad quoted text {text}", where, f"quote the whole text: {_SERIAL_FORM}")
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        code = body[i + 1:i + 2]
        if code in _ESCAPES:
            out += _ESCAPES[code].encode()
            i += 2
        elif code == "x" and len(body[i + 2:i + 4]) == 2 and all(
                c in "0123456789abcdefABCDEF" for c in body[i + 2:i + 4]):
            out.append(int(body[i + 2:i + 4], 16))
            i += 4
        else:
            bad = body[i:i + 4] if code == "x" else body[i:i + 2]
            raise ScenarioError(f"bad escape {bad!r} in {text}", where,
                                "the escapes are \\n \\r \\t \\\" \\\\ and \\xHH "
                                "(two hex digits: one byte)")
    if not out:
        raise ScenarioError("`serial` sends nothing", where, f"write {_SERIAL_FORM}")
    return bytes(out)


_HAND_FORMS = {"cut": "cut TILE FACE for TIME", "stall": "stall TILE TIME",
               "send": "send TILE MESSAGE FACE", "flood": "flood TILE FLOOD"}


def _parse_hand(sc: Scenario, action: str, rest: list[str], where: Where) -> None:
    form = _HAND_FORMS[action]
    words = [w for w in rest if w not in ("for", "face", "out", "of")]
    want = {"cut": 3, "stall": 2, "send": 3, "flood": 2}[action]
    if len(words) != want:
        raise ScenarioError(f"`{action}` takes {want} words", where, f"write {form}")
    name = check_name(words[0], where, ScenarioError)
    if action in ("cut", "send"):
        face = parse_int(words[1] if action == "cut" else words[2])
        if face is None:
            raise ScenarioError(f"bad face {words[1] if action == 'cut' else words[2]!r}", where,
                                f"a face is 0..5; write {form}")
        if action == "cut":
            sc.cut(name, face, parse_duration(words[2], where, ScenarioError, "cut time"), where)
        else:
            sc.send(name, words[1], face, where)
    elif action == "stall":
        sc.stall(name, parse_duration(words[1], where, ScenarioError, "stall time"), where)
    else:
        sc.flood(name, words[1], where)


_OPTIONS = {"click": ("down",), "double": ("down", "gap"), "multi": ("down", "gap"),
            "long": ("hold",), "press": (), "release": ()}


def _parse_button(sc: Scenario, action: str, rest: Sequence[Word], where: Where) -> None:
    tiles: list[str] = []
    options: dict[str, float] = {}
    count: int | None = None
    for w in rest:
        text = w.text
        if "=" in text:
            key, _, value = text.partition("=")
            if key not in _OPTIONS[action]:
                allowed = ", ".join(f"{k}=..." for k in _OPTIONS[action]) or "none"
                raise ScenarioError(f"`{action}` has no option {key!r}", where,
                                    f"its options: {allowed}")
            if key in options:
                raise ScenarioError(f"option {key!r} is given twice", where)
            options[key] = parse_duration(value, where, ScenarioError, f"{key} time")
        elif text[:1].isdigit() or text[:1] == ".":
            if action == "multi" and count is None and parse_int(text) is not None:
                count = parse_int(text)
            elif action == "long" and "hold" not in options:
                options["hold"] = parse_duration(text, where, ScenarioError, "hold time")
            else:
                hint = "to time a step, start its line with the time: at 1s click a"
                if action == "multi":
                    hint = "give the count once, e.g. multi a 4"
                elif action == "long":
                    hint = "give the hold time once, e.g. long a 2s"
                raise ScenarioError(f"unexpected {text!r}", where, hint)
        else:
            tiles.append(text)
    if action == "click":
        sc.click(*tiles, down_ms=options.get("down", DOWN_MS), where=where)
    elif action == "double":
        sc.double(*tiles, down_ms=options.get("down", DOWN_MS),
                  gap_ms=options.get("gap", GAP_MS), where=where)
    elif action == "multi":
        sc.multi(*tiles, count=MULTI_COUNT if count is None else count,
                 down_ms=options.get("down", DOWN_MS), gap_ms=options.get("gap", GAP_MS),
                 where=where)
    elif action == "long":
        sc.long(*tiles, hold_ms=options.get("hold", LONG_MS), where=where)
    elif action == "press":
        sc.press(*tiles, where=where)
    else:
        sc.release(*tiles, where=where)


def _parse_place(sc: Scenario, word: str, rest: Sequence[Word], where: Where) -> None:
    form = f"{word} TILE at PLACE [rot N]"
    if len(rest) < 3 or rest[1].text not in ("at", "to"):
        raise ScenarioError(f"`{word}` needs a tile and a place", where, f"write {form}")
    name = check_name(rest[0].text, where, ScenarioError)
    place, i = parse_place(rest, 2, where, ScenarioError)
    rot = None
    if i < len(rest):
        if rest[i].text == "rot" and i + 2 == len(rest):
            rot = parse_rotation(rest[i + 1].text, where, ScenarioError)
        elif rest[i].text.startswith("rot=") and i + 1 == len(rest):
            rot = parse_rotation(rest[i].text[4:], where, ScenarioError)
        else:
            raise ScenarioError(f"unexpected {rest[i].text!r}", where, f"write {form}")
    sc.place(name, place, rot, where=where)  # type: ignore[arg-type]


def _parse_rotate(sc: Scenario, rest: Sequence[Word], where: Where) -> None:
    if len(rest) != 2:
        raise ScenarioError("`rotate` takes a tile and a rotation", where,
                            "e.g. rotate a 2 (turn to 2) or rotate a +1 (one step clockwise)")
    name = check_name(rest[0].text, where, ScenarioError)
    text = rest[1].text
    if text[:1] in "+-" and parse_int(text) is not None:
        sc.rotate(name, parse_int(text) or 0, relative=True, where=where)
    else:
        sc.rotate(name, parse_rotation(text, where, ScenarioError), where=where)
