"""`blinkc flash`, `blinkc read`, `blinkc ports`, `blinkc programmer-sim`."""

from __future__ import annotations

import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.console import Console

from ..flash import errors
from ..flash.avrdude import AvrdudeBackend
from ..flash.console import RichProgress, WorkshopPrinter, tally_text
from ..flash.flasher import (
    FlashResult,
    ProgrammerSpec,
    flash_image,
    open_programmer,
    parse_programmer,
    read_flash_all,
)
from ..flash.hexfile import Image, check_image, load_image
from ..flash.isp import IspProgrammer, Timeouts
from ..flash.outputs import check_output, write_dump
from ..flash.ports import all_ports, guess_programmer
from ..flash.source import Source, layout_for, resolve
from ..flash.targets import PARTS, Part, get_part
from ..flash.workshop import ClipStation, PromptStation, Station, Tally, workshop
from . import main

PROGRAMMER_HELP = ("arduinoisp (19200 baud), stk500v1, stk500v2 (115200; Pololu and other "
                   "AVRISP-compatible), or avrdude:NAME for USB programmers (avrdude:usbtiny, "
                   "the Blinks dev kit's, avrdude:usbasp). Default: arduinoisp with --port "
                   "(stk500v2 for a Pololu port), avrdude:usbtiny without.")


def _consoles() -> tuple[Console, Console]:
    # soft_wrap: long messages stay on one line in logs and pipes
    return Console(soft_wrap=True), Console(stderr=True, soft_wrap=True)


def _stop_on_signals() -> None:
    """SIGTERM (and SIGINT, even when a shell started us in the background) stop us cleanly."""
    def handler(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)


@contextmanager
def _friendly_errors(err: Console) -> Iterator[None]:
    """FlashErrors become one clear message and exit 1; never a traceback."""
    try:
        yield
    except errors.FlashError as e:
        err.print(f"[bold red]Error:[/] {e.what}", highlight=False)
        if e.cause:
            err.print(f"  Likely cause: {e.cause}", highlight=False)
        if e.fix:
            err.print(f"  Fix: {e.fix}", highlight=False)
        sys.exit(1)
    except KeyboardInterrupt:
        err.print("\nInterrupted. A tile that was being written is incomplete: flash it again.")
        sys.exit(130)


def _pick_programmer(programmer: str | None, port: str | None) -> ProgrammerSpec:
    if programmer:
        return parse_programmer(programmer)
    if port:
        return parse_programmer(guess_programmer(port) or "arduinoisp")
    return parse_programmer("avrdude:usbtiny")


def _efuse_for(part: Part, raw: bool) -> int | None:
    layout = layout_for(part, raw)
    return layout.efuse if layout else None


# -- blinkc flash ----------------------------------------------------------------

@main.command("flash")
@click.argument("source", type=click.Path(path_type=Path, dir_okay=True))
@click.option("--port", "-P", help="Serial port of the programmer (see `blinkc ports`), "
              "or net:HOST:PORT for a programmer on TCP (the simulator).")
@click.option("--programmer", "-c", help=PROGRAMMER_HELP)
@click.option("--baud", "-b", type=click.IntRange(min=300),
              help="Serial speed (default: the programmer's).")
@click.option("--part", "-p", default="atmega168pb", show_default=True,
              type=click.Choice(sorted(PARTS), case_sensitive=False), help="The chip.")
@click.option("--sdk", type=click.Path(path_type=Path),
              help="Blinks SDK to build GAME.py against.")
@click.option("--dry-run", is_flag=True, help="Check the image and show what would be done.")
@click.option("--verify-only", is_flag=True, help="Compare the tile with the image; write nothing.")
@click.option("--repeat", is_flag=True, help="Workshop mode: flash tile after tile.")
@click.option("--count", type=click.IntRange(min=1),
              help="Workshop mode: stop after this many tiles.")
@click.option("--raw", is_flag=True, help="Not a Blinks image: skip the Blink flash-map "
              "checks and do not touch the extended fuse.")
@click.option("--sync-timeout", type=click.FloatRange(min=0.2), default=4.0, show_default=True,
              help="Seconds to wait for the programmer to answer at all.")
@click.option("--force", is_flag=True,
              help="GAME.py: build into build/<game> even if blinkc did not make that folder.")
def flash_cmd(source: Path, port: str | None, programmer: str | None, baud: int | None,
              part: str, sdk: Path | None, dry_run: bool, verify_only: bool, repeat: bool,
              count: int | None, raw: bool, sync_timeout: float, force: bool) -> None:
    """Flash GAME.py (built first) or a .hex onto Blinks tiles, and verify it.

    Every flash erases the chip, writes the game and the BIOS, verifies every
    byte and sets the extended fuse to 0xF8 if it is not already. Lock bits and
    the other fuses are never written.
    """
    out, err = _consoles()
    with _friendly_errors(err):
        the_part = get_part(part)
        spec = _pick_programmer(programmer, port)
        src = resolve(source, the_part, raw=raw, sdk=str(sdk) if sdk else None, force=force)
        for w in src.warnings:
            err.print(f"[yellow]Warning:[/] {w}", highlight=False)
        efuse = _efuse_for(the_part, raw)
        repeat = repeat or count is not None
        if dry_run:
            _dry_run(out, src, the_part, spec, port, baud, efuse, verify_only, repeat)
            return
        if spec.avrdude:
            _flash_with_avrdude(out, err, src, the_part, spec, port, baud, efuse,
                                verify_only, repeat, count)
            return
        timeouts = Timeouts(sync=sync_timeout)
        prog = open_programmer(spec, the_part, port=port, baud=baud, timeouts=timeouts)
        try:
            err.print(f"Connecting to {prog.transport.description}...", highlight=False)
            err.print(prog.connect(), highlight=False)
            if repeat:
                _isp_workshop(out, err, prog, src.image, the_part, efuse, count)
            else:
                _flash_once(out, err, prog, src.image, the_part, efuse, verify_only)
        finally:
            prog.close()


def _describe_image(image: Image) -> str:
    runs = ", ".join(f"0x{a:04X}-0x{a + len(d) - 1:04X}" for a, d in image.segments[:4])
    more = f" (+{len(image.segments) - 4} more)" if len(image.segments) > 4 else ""
    return f"{image.size:,} bytes in {runs}{more}"


def _dry_run(out: Console, src: Source, part: Part, spec: ProgrammerSpec, port: str | None,
             baud: int | None, efuse: int | None, verify_only: bool, repeat: bool) -> None:
    pages = src.image.pages_to_write(part.page_size)
    out.print(f"Image: {src.hex_path}: {_describe_image(src.image)}; fits the {part.desc} "
              f"({part.flash_size // 1024} KB).", highlight=False)
    if spec.avrdude:
        cmd = AvrdudeBackend(spec.avrdude, port, baud).command(
            src.hex_path, part, efuse, verify_only)
        out.print("Would run: " + " ".join(cmd), highlight=False)
    else:
        where = port or "(no --port given)"
        out.print(f"Programmer: {spec.name} ({spec.protocol}) on {where} at "
                  f"{baud or spec.default_baud} baud.", highlight=False)
        steps = ["check the signature (1E 94 15 for a Blink)" if part.desc == "ATmega168PB"
                 else f"check the signature ({part.signature.hex(' ').upper()})"]
        if not verify_only:
            steps += ["erase the chip", f"write {len(pages)} pages ({len(pages) * part.page_size:,}"
                      " bytes)"]
        steps.append(f"verify {src.image.size:,} bytes")
        if efuse is not None:
            steps.append(f"{'check' if verify_only else 'set'} the extended fuse to 0x{efuse:02X} "
                         "(only if it differs)")
        out.print("Would: " + "; ".join(steps) + ".", highlight=False)
    if repeat:
        out.print("Workshop mode: tile after tile, until Ctrl-C or --count.", highlight=False)
    out.print("Dry run: nothing was sent to the programmer.", highlight=False)


def _result_line(result, part: Part, seconds: float, verify_only: bool) -> str:
    if verify_only:
        text = f"Verified {result.bytes_verified:,} bytes on the {part.desc}: they match"
    else:
        text = (f"Flashed and verified {result.bytes_verified:,} bytes ({result.pages_written} "
                f"pages) on the {part.desc}")
    if result.efuse_written:
        text += f"; extended fuse set to 0xF8 (was 0x{result.efuse_before:02X})"
    elif result.efuse_before is not None:
        text += f"; extended fuse already 0x{result.efuse_before:02X}"
    return text + f" in {seconds:.1f} s."


def _flash_once(out: Console, err: Console, prog: IspProgrammer, image: Image, part: Part,
                efuse: int | None, verify_only: bool) -> None:
    start = time.monotonic()
    with RichProgress(err) as progress:
        result = flash_image(prog, image, part, efuse=efuse, verify_only=verify_only,
                             progress=progress)
    out.print("[green]OK[/] " + _result_line(result, part, time.monotonic() - start,
                                             verify_only), highlight=False)


def _isp_workshop(out: Console, err: Console, prog: IspProgrammer, image: Image, part: Part,
                  efuse: int | None, count: int | None) -> None:
    printer = WorkshopPrinter(err)
    with RichProgress(err) as progress:
        _workshop(out, err, ClipStation(prog, part, printer), printer, count,
                  lambda: flash_image(prog, image, part, efuse=efuse, progress=progress))


def _workshop(out: Console, err: Console, station: Station, printer: WorkshopPrinter,
              count: int | None, flash_tile: Callable[[], FlashResult | None]) -> None:
    """Run the workshop; whatever ends it (Ctrl-C, a dead programmer), say how far it got."""
    tally = Tally()
    try:
        workshop(flash_tile, station, printer, tally, count=count)
    except (KeyboardInterrupt, click.Abort):
        err.print("\nStopped.")
    finally:
        out.print(f"Workshop: {tally_text(tally)}.", highlight=False)
        for line in tally.failures:
            out.print(f"  {line}", highlight=False)
    if tally.failed:
        sys.exit(1)


def _flash_with_avrdude(out: Console, err: Console, src: Source, part: Part,
                        spec: ProgrammerSpec, port: str | None, baud: int | None,
                        efuse: int | None, verify_only: bool, repeat: bool,
                        count: int | None) -> None:
    backend = AvrdudeBackend(spec.avrdude or "usbtiny", port, baud)
    backend.find()

    def one() -> None:
        start = time.monotonic()
        with RichProgress(err) as progress:
            backend.flash(src.hex_path, part, efuse, verify_only, progress)
        what = "Verified" if verify_only else "Flashed and verified"
        out.print(f"[green]OK[/] {what} {src.image.size:,} bytes on the {part.desc} with avrdude "
                  f"({spec.avrdude}) in {time.monotonic() - start:.1f} s.", highlight=False)

    if not repeat:
        one()
        return
    _avrdude_workshop(err, out, one, count)


def _avrdude_workshop(err: Console, out: Console, one: Callable[[], None],
                      count: int | None) -> None:
    """avrdude cannot poll for a tile cheaply, so the person presses Enter."""
    def ask(tile: int) -> bool:
        answer = click.prompt(f"Tile {tile}: put it on the programmer and press Enter "
                              "(q to finish)", default="", show_default=False)
        return answer.strip().lower() not in ("q", "quit")

    _workshop(out, err, PromptStation(ask), WorkshopPrinter(err, polling=False), count, one)


# -- blinkc read -----------------------------------------------------------------

@main.command("read")
@click.option("--port", "-P", help="Serial port of the programmer, or net:HOST:PORT.")
@click.option("--programmer", "-c", help=PROGRAMMER_HELP)
@click.option("--baud", "-b", type=click.IntRange(min=300))
@click.option("--part", "-p", default="atmega168pb", show_default=True,
              type=click.Choice(sorted(PARTS), case_sensitive=False))
@click.option("--output", "-o", required=True, type=click.Path(path_type=Path, dir_okay=False),
              help="Intel HEX file to write the whole flash to (a new file, or a dump blinkc "
                   "wrote before; see --force).")
@click.option("--force", is_flag=True, help="Replace --output even if blinkc did not write it.")
@click.option("--sync-timeout", type=click.FloatRange(min=0.2), default=4.0, show_default=True)
def read_cmd(port: str | None, programmer: str | None, baud: int | None, part: str,
             output: Path, force: bool, sync_timeout: float) -> None:
    """Read a tile's whole flash into a .hex file (and show its fuses).

    Every block is read twice and must read the same. An existing --output is
    replaced only if it is a dump blinkc wrote, or with --force.
    """
    out, err = _consoles()
    with _friendly_errors(err):
        the_part = get_part(part)
        spec = _pick_programmer(programmer, port)
        check_output(output, force)               # before the tile is read, not after
        if spec.avrdude:
            with RichProgress(err) as progress:
                data = _read_with_avrdude(spec, port, baud, the_part, progress)
            write_dump(output, data, force)
            out.print(f"[green]OK[/] Wrote the flash to {output}.", highlight=False)
            return
        prog = open_programmer(spec, the_part, port=port, baud=baud,
                               timeouts=Timeouts(sync=sync_timeout))
        try:
            err.print(prog.connect(), highlight=False)
            with RichProgress(err) as progress:
                data, fuses = read_flash_all(prog, the_part, progress)
        finally:
            prog.close()
        write_dump(output, data, force)
        used = sum(1 for i in range(0, len(data), the_part.page_size)
                   if data[i:i + the_part.page_size] != b"\xff" * the_part.page_size)
        fuse_text = ", ".join(f"{k} 0x{v:02X}" for k, v in fuses.items())
        out.print(f"[green]OK[/] Wrote {len(data):,} bytes ({used} pages in use) to {output}. "
                  f"Fuses: {fuse_text}.", highlight=False)


def _read_with_avrdude(spec: ProgrammerSpec, port: str | None, baud: int | None, part: Part,
                       progress: RichProgress) -> bytes:
    """avrdude dumps into a scratch file; it is read back (checked, like any hex) from there."""
    with tempfile.TemporaryDirectory(prefix="blinkc-read-") as scratch:
        dump = Path(scratch) / "flash.hex"
        AvrdudeBackend(spec.avrdude or "usbtiny", port, baud).read(dump, part, progress)
        image = load_image(dump)
        check_image(image, part, None)
        return image.flat(part.flash_size)


# -- blinkc ports ----------------------------------------------------------------

@main.command("ports")
def ports_cmd() -> None:
    """List serial ports and USB programmers, with a hint for the ones blinkc knows."""
    out, _ = _consoles()
    found = all_ports()
    if not found:
        out.print("No serial ports or known USB programmers found. Plug the programmer in; "
                  "an Arduino shows up as /dev/ttyACM0 or /dev/ttyUSB0 (COM3 on Windows).")
        return
    width = max(len(p.device) for p in found)
    for p in found:
        what = p.known.name if p.known else (p.description or "serial port")
        usb = f"  ({p.usb_id})" if p.usb_id else ""
        out.print(f"{p.device:<{width}}  {what}{usb}", highlight=False)
        if p.known:
            opt = f"--programmer {p.known.programmer}"
            use = opt if p.device == "usb" else f"--port {p.device} {opt}"
            out.print(f"{'':<{width}}    use: {use}  ({p.known.hint})", highlight=False)


# -- blinkc programmer-sim ------------------------------------------------------

@main.command("programmer-sim")
@click.option("--protocol", type=click.Choice(["stk500v1", "stk500v2"]), default="stk500v1",
              show_default=True, help="stk500v1 behaves like ArduinoISP, stk500v2 like an "
              "AVRISP-compatible programmer (Pololu).")
@click.option("--tcp", "tcp_port", type=int, help="Listen on this TCP port instead of a pty "
              "(0: any free port).")
@click.option("--fault", "faults", multiple=True, metavar="FAULT",
              help="Inject a fault: silent, no-target, wrong-signature[=SIG], corrupt[=N], "
                   "glitch[=N], disconnect[=N], bad-page[=ADDR]. Repeatable.")
@click.option("--paced", is_flag=True, help="Run at the real speed of the serial line.")
@click.option("--baud", type=click.IntRange(min=300),
              help="Pace at this baud rate (implies --paced).")
@click.option("--part", "-p", default="atmega168pb", show_default=True,
              type=click.Choice(sorted(PARTS), case_sensitive=False))
@click.option("--tiles", type=click.IntRange(min=1),
              help="Workshop: this many tiles come and go on the clip.")
@click.option("--load", type=click.Path(path_type=Path, exists=True, dir_okay=False),
              help="Start with this .hex already in the chip's flash.")
@click.option("--save", type=click.Path(path_type=Path, dir_okay=False),
              help="On exit, write the chip's flash to this .hex (a new file, or a dump "
                   "blinkc wrote before; see --force).")
@click.option("--force", is_flag=True, help="Replace --save even if blinkc did not write it.")
def programmer_sim_cmd(protocol: str, tcp_port: int | None, faults: tuple[str, ...],
                       paced: bool, baud: int | None, part: str, tiles: int | None,
                       load: Path | None, save: Path | None, force: bool) -> None:
    """Run a simulated programmer with a simulated tile on a pseudo-terminal (or TCP).

    Flash it with blinkc or avrdude, with no hardware. Ctrl-C stops it.
    """
    from ..progsim import FaultSpecError, ProgrammerSim

    out, err = _consoles()
    with _friendly_errors(err):
        try:
            sim = ProgrammerSim(protocol, get_part(part), faults=faults, tiles=tiles)
        except FaultSpecError as e:
            raise click.BadParameter(str(e), param_hint="--fault") from None
        if save:
            check_output(save, force, "the simulated flash")   # now, not after the session
        if load:
            image = load_image(load)
            sim.chip.flash[:] = image.flat(sim.chip.part.flash_size)
        rate = baud or ((19200 if protocol == "stk500v1" else 115200) if paced else None)
        server = sim.serve_tcp(tcp_port, baud=rate) if tcp_port is not None \
            else sim.serve_pty(baud=rate)
        port = server.address if tcp_port is not None else server.port
        kind = "ArduinoISP (STK500v1)" if protocol == "stk500v1" else "AVRISP_2 (STK500v2)"
        out.print(f"Simulated {kind} programmer with an {sim.chip.part.desc}"
                  + (f", {tiles} tiles" if tiles else "")
                  + (f", paced at {rate} baud" if rate else "")
                  + (f", faults: {', '.join(faults)}" if faults else ""), highlight=False)
        out.print(f"port: {port}", highlight=False)
        prog = "arduinoisp" if protocol == "stk500v1" else "stk500v2"
        out.print(f"  blinkc flash GAME.hex --port {port} --programmer {prog}", highlight=False)
        out.print(f"  avrdude -c {protocol} -p {sim.chip.part.name} -P {port} "
                  "-U flash:w:GAME.hex:i", highlight=False)
        out.print("Ctrl-C to stop.", highlight=False)
        sys.stdout.flush()
        _stop_on_signals()
        try:
            while True:
                time.sleep(0.2)
                if getattr(server, "finished", None) is not None and server.finished.is_set():
                    out.print("The simulated programmer disconnected (fault injected).")
                    break
                if getattr(server, "error", None) is not None:
                    raise server.error
        except KeyboardInterrupt:
            pass
        finally:
            server.stop()
        if save:
            write_dump(save, bytes(sim.chip.flash), force, "the simulated flash")
            out.print(f"Saved the flash to {save}.")
        chip = sim.chip
        out.print(f"Chip: {chip.erases} erase(s), {chip.page_writes} page write(s), "
                  f"extended fuse 0x{chip.read_fuse('ext'):02X}.", highlight=False)
        wire_in = sum(link.bytes_in for link in sim.links)
        wire_out = sum(link.bytes_out for link in sim.links)
        out.print(f"Link: {wire_in} bytes from the host, {wire_out} bytes to the host.",
                  highlight=False)
