"""`blinkc check`: compile a game and report every problem with file:line and a hint."""

from __future__ import annotations

import tempfile
from pathlib import Path

import click

from ..backends.cpp import _reachable
from ..build import BudgetExceeded, BuildError, ToolError, find_sdk
from ..build import build as build_firmware
from ..dsl.loader import lower_game
from ..dsl.wire import describe as describe_wire
from ..ir.nodes import Call, GlobalVar, Program
from ..ir.walk import global_names, walk_stmts
from . import main


def describe(program: Program) -> str:
    """What blinkc decided: the face-value bits, message codes, RAM, functions."""
    lines = describe_wire(program.value_layout, program.codes)
    lines.append("State fields (RAM):")
    for g in program.state_fields:
        lo, hi = g.range or (g.type.min, g.type.max)
        kind = f"one of {', '.join(program.enums[g.enum])}" if g.enum else (
            "bool" if g.is_bool else f"{lo}..{hi}")
        ctype = g.type.c_name + (f"[{g.size}]" if g.size is not None else "")
        if g.size is not None:
            kind += ", one per face"
        lines.append(f"  {g.name:<12} {ctype:<11} {_plural(_ram(g), 'byte'):>8}  {kind}")
    lines += _engine_settings(program)
    lines += _random_numbers(program)
    lines += _wide_values(program)
    # (Engine variables that only the emulator's hooks read are not on the tile.)
    firmware = _reachable(program, ("setup", "loop"))
    on_tile = {n for f in program.functions if f.name in firmware for n in global_names(f.body)}
    ram = sum(_ram(g) for g in program.globals if g.role == "state" or g.name in on_tile)
    lines.append(f"RAM for the game's globals: {_plural(ram, 'byte')} "
                 f"({sum(_ram(g) for g in program.state_fields)} of them game state)")
    handlers = [f.name for f in program.functions if f.role in ("handler", "derived", "display", "helper",
                                                                   "within")]
    lines.append(f"Functions: {len(program.functions)} ({', '.join(handlers)} and the engine)")
    return "\n".join(lines)


def _ram(g: GlobalVar) -> int:
    return (g.type.bits // 8) * (g.size or 1)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _engine_settings(program: Program) -> list[str]:
    """The game's engine settings and what they cost (nothing when the engine is pruned)."""
    consts = {name: value for name, value, _ in program.constants}
    # (A game with one message code keeps a count per face, `queued_for`, instead of the queue.)
    queue = next((g for g in program.globals if g.name in ("queue", "queued_for")), None)
    if queue is None or "QUEUE_LEN" not in consts:
        return []
    ram = _plural(_ram(queue), "byte") + " of RAM"
    if queue.name == "queued_for":
        ram += ", a count per face: the game's messages have one code"
    return ["Engine settings:",
            f"  queue_len={consts['QUEUE_LEN']}: {_plural(consts['QUEUE_LEN'], 'message')} "
            f"can wait for their face ({ram}); a full queue bounces"]


def _random_numbers(program: Program) -> list[str]:
    """Where the game's random numbers come from (Game(randomize=...)), if it draws any."""
    calls = {c.func for f in program.functions for c in walk_stmts(f.body) if isinstance(c, Call)}
    consts = {name: value for name, value, _ in program.constants}
    if consts.get("RANDOMIZED"):
        where = ("the SDK's random(), seeded by randomize() at power-up (about 220 bytes of "
                 "flash and 0.5 s at power-up)")
    elif "draw_word" in calls or "draw_below" in calls:
        where = "the tile's own sequence, seeded from its serial number"
        where += (", mixed with the clock at each draw (randomize=\"clock\")"
                  if consts.get("CLOCK_MIXED") else " (randomize=False: the same after every power-up)")
    else:
        return []
    return [f"Random numbers: {where}"]


#: The engine's state for values wider than a code (protocol.py, WIDE), there only when used.
WIDE_STATE = ("wide_rx", "wide_busy", "wide_left", "wide_code", "wide_out", "flood_value",
              "flood_acc", "flood_from", "flood_own")


def _wide_values(program: Program) -> list[str]:
    """Each value wider than a code, and the RAM the engine spends on them."""
    if not program.wide_values:
        return []
    lines = ["Values wider than a code (data codes first, then the code; docs/protocol.md):"]
    for w in program.wide_values:
        what = {"message": "message", "flood": "flood's wave",
                "gather": f"gather ({w.combine}): each echo"}[w.kind]
        lines.append(f"  {w.name:<12} {w.lo}..{w.hi}: {what} after {_plural(w.chunks, 'data code')}")
    state = [g for g in program.globals if g.name in WIDE_STATE]
    ram = sum(_ram(g) for g in state)
    lines.append(f"  engine state for them: {_plural(ram, 'byte')} of RAM "
                 f"({', '.join(f'{g.name} {_ram(g)}' for g in state)})")
    return lines


def flash_figure(game: Path, sdk: Path | None = None) -> list[str]:
    """The tile's flash (and RAM) as `blinkc build` measures them: the game built with
    avr-gcc against the Blinks SDK in a temporary folder, its ELF read. Without an SDK or a
    toolchain, or when the build fails, says so and how to get the figure (never a guess)."""
    how = f"`blinkc build {game} -o build/`"
    try:
        found = find_sdk(sdk)
    except BuildError as err:
        why = (err.message if sdk is not None or "BLINKS_SDK is not set" not in err.message
               else "no Blinks SDK found (BLINKS_SDK is not set, and none is installed where "
                    "Arduino keeps boards or in a checkout nearby)")
        return [f"Flash: not measured: {why.rstrip('.')}.",
                "  The figure comes from building the game for the tile (avr-gcc and the "
                "Blinks SDK): set BLINKS_SDK to the SDK's folder (or pass --sdk) and run this "
                f"again, or run {how}, which says how to install the SDK (docs/building.md)."]
    with tempfile.TemporaryDirectory(prefix="blinkc-check-") as tmp:
        try:
            result = build_firmware(game, Path(tmp) / "build", sdk=found)
        except BudgetExceeded as over:
            return [f"Flash and RAM on the tile (built against {found.describe()}, as "
                    "`blinkc build` measures them): IT DOES NOT FIT, `blinkc build` refuses it",
                    *(f"  {line}" for line in over.report.format(top=5).splitlines())]
        except ToolError as err:  # the compiler or the linker said no
            return [f"Flash: not measured: building the game against {found.describe()} "
                    f"failed: {err.message.splitlines()[0]}",
                    f"  {how} shows the whole error."]
        except BuildError as err:  # no toolchain, or the SDK cannot build
            return [f"Flash: not measured: {err.message.splitlines()[0]}",
                    f"  {err.hint.splitlines()[0] if err.hint else f'{how} says more.'}"]
        from ..cosim.figures import figure_lines

        running = figure_lines(result.with_bootloader, result.elf)
    return [f"Flash and RAM on the tile (built with {result.backend} against "
            f"{found.describe()}, as `blinkc build` measures them):",
            *(f"  {line}" for line in result.report.format(top=0).splitlines()), *running]


@main.command()
@click.argument("game", type=click.Path(dir_okay=False))
@click.option("-v", "--verbose", is_flag=True,
              help="Also show what blinkc decided: face-value bits, message codes, RAM; and the "
                   "flash, built with the Blinks SDK when there is one.")
@click.option("--strict", is_flag=True,
              help="Count warnings as errors: exit 1 when there is any.")
@click.option("--sdk", type=click.Path(path_type=Path),
              help="Blinks SDK folder for --verbose's flash figure (default: BLINKS_SDK, then "
                   "Arduino's folders).")
def check(game: str, verbose: bool, strict: bool, sdk: Path | None) -> None:
    """Check a game file: every error and warning with its file:line and a hint.

    Exits 0 when the game has no errors (warnings allowed, unless --strict), 1 otherwise.
    A `# blinkc: ignore` comment on a line silences the warnings of that line.
    --verbose also builds the game with the Blinks SDK, when there is one, for its flash
    figure (the same as `blinkc build` reports; without an SDK it says so).

    \b
    Example:
      blinkc check firmware/pirates_lasers.py --verbose
    """
    lowered = lower_game(game)
    for w in lowered.warnings:
        click.echo(str(w), err=True)
    if lowered.errors or lowered.program is None:
        for e in lowered.errors:
            click.echo(str(e), err=True)
        n = len(lowered.errors)
        raise click.ClickException(f"{game}: {n} error{'s' if n != 1 else ''}")
    program = lowered.program
    n = len(lowered.warnings)
    warnings = f"{n} warning{'s' if n != 1 else ''}"
    if strict and n:
        raise click.ClickException(f"{game}: {warnings} (--strict)")
    silenced = len(lowered.silenced)
    quiet = (f" ({silenced} warning{'s' if silenced != 1 else ''} silenced by # blinkc: ignore)"
             if silenced else "")
    if n:
        click.echo(f"{game}: {program.name} has no errors, but {warnings}{quiet}")
    else:
        click.echo(f"{game}: {program.name} is clean{quiet}")
    if verbose:
        click.echo(describe(program))
        click.echo("\n".join(flash_figure(Path(game), sdk)))
