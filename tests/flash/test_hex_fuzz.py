"""A hex fuzzer: random and mutated Intel HEX files fed to `blinkc flash` and `blinkc size`.

Every case is also read by an independent reference reader written here, so
the oracle is not the code under test: whatever the reference refuses,
`flash` (and, for damaged files, `size`) must refuse with one message, exit 1
and no traceback; whatever it accepts as a Blink image, `flash --dry-run` and
`size` must accept, and a real flash through the simulator must leave exactly
the reference's bytes in the chip. Each case runs under a 10-second alarm, so
a hang fails instead of stalling the suite.

`make test` runs a CI-fast sample (BLINKC_HEX_FUZZ, default 150 cases per
test). A larger run, with the case counts printed at the end:

    BLINKC_HEX_FUZZ=5000 .venv/bin/python -m pytest -p no:xdist -s tests/flash/test_hex_fuzz.py
"""

from __future__ import annotations

import os
import signal
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blinkc.cli import main
from blinkc.flash.flasher import SERIAL_PROGRAMMERS, flash_image, open_programmer
from blinkc.flash.hexfile import synthetic_blinks_image
from blinkc.flash.source import resolve
from blinkc.flash.targets import ATMEGA168PB
from blinkc.progsim import ProgrammerSim

CASES = int(os.environ.get("BLINKC_HEX_FUZZ", "150"))
FUZZ = settings(max_examples=CASES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
TALLY: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def report_the_counts():
    yield
    if TALLY:
        lines = [f"  {k}: {v}" for k, v in sorted(TALLY.items())]
        print("\nhex fuzzer cases:\n" + "\n".join(lines))


@pytest.fixture(scope="module")
def case_file(tmp_path_factory) -> Path:
    """One file, rewritten for every case (not a folder per case)."""
    return tmp_path_factory.mktemp("fuzz") / "case.hex"


@contextmanager
def no_hang(seconds: float = 10.0):
    def hung(signum, frame):
        raise AssertionError(f"a case took more than {seconds} s: a hang")
    old = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- the reference: an independent, deliberately plain reading of the rules ----------------

BLANK = " \t\x0c\x1a"                    # what a line may hold besides its record
ENTRY_SLOTS = (0, 4, 8, 9, 10, 12, 13, 14, 15)


def reference_cells(text: str) -> dict[int, int] | None:
    """The image's bytes, or None if the file is not a valid Intel HEX image."""
    cells: dict[int, int] = {}
    base, ended = 0, False
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = line.strip(BLANK)
        if not line:
            continue
        if ended or not line.startswith(":") or len(line) % 2 == 0:
            return None
        if any(c not in "0123456789abcdefABCDEF" for c in line[1:]):
            return None
        rec = bytes.fromhex(line[1:])
        if len(rec) < 5 or rec[0] + 5 != len(rec) or sum(rec) % 256:
            return None
        count, offset, kind, data = rec[0], rec[1] * 256 + rec[2], rec[3], rec[4:-1]
        if kind == 0:
            if offset + count > 65536:
                return None
            for i, value in enumerate(data):
                if base + offset + i in cells:
                    return None
                cells[base + offset + i] = value
        elif kind in (1, 2, 3, 4, 5):
            if offset != 0 or count != {1: 0, 2: 2, 3: 4, 4: 2, 5: 4}[kind]:
                return None
            if kind == 1:
                ended = True
            elif kind == 2:
                base = (data[0] * 256 + data[1]) * 16
            elif kind == 4:
                base = (data[0] * 256 + data[1]) * 65536
        else:
            return None
    return cells if ended and cells else None


def reference_blink_image(cells: dict[int, int]) -> bool:
    """A with-bootloader image a Blink can take: in 0x1700-0x3FFF, with a real BIOS table."""
    if any(a >= 0x4000 or a < 0x1700 for a in cells):
        return False

    def word(a: int) -> int | None:
        return cells[a] | cells[a + 1] << 8 if a in cells and a + 1 in cells else None

    for n in ENTRY_SLOTS:
        slot = 0x3800 + 4 * n
        w = word(slot)
        if w is None:
            return False
        if w & 0xFE0E == 0x940C:
            low = word(slot + 2)
            if low is None:
                return False
            k = (((w >> 4) & 0x1F) << 1 | (w & 1)) << 16 | low      # 22-bit word address
            target = 2 * k
        elif w >> 12 == 0xC:
            k = w & 0xFFF
            target = (slot + 2 + 2 * (k - 4096 if k >= 2048 else k)) % 0x4000
        else:
            return False
        if not 0x2E00 <= target < 0x4000 or word(target) in (None, 0xFFFF):
            return False
    return True


# -- what blinkc does with a case ----------------------------------------------------------

def run(args: list[str]):
    result = CliRunner().invoke(main, args)
    tb = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not tb, f"{args}: {result.exception!r}\n{result.output}"
    assert "Traceback" not in result.output
    return result


def check_case(path: Path, kind: str) -> None:
    text = path.read_bytes().decode("latin-1")
    cells = reference_cells(text) if path.read_bytes().isascii() else None
    valid = cells is not None and reference_blink_image(cells)
    with no_hang():
        flashed = run(["flash", str(path), "--dry-run"])
        sized = run(["size", str(path)])
    if valid:
        assert flashed.exit_code == 0 and "Dry run" in flashed.output, flashed.output
        assert sized.exit_code == 0, sized.output
        with no_hang():
            flash_for_real(path, cells)
        TALLY[f"{kind}: valid, flashed"] += 1
        return
    assert flashed.exit_code == 1 and flashed.output.startswith("Error: "), flashed.output
    assert "OK" not in flashed.output
    if cells is None or any(a >= 0x4000 for a in cells):     # a damaged file, or not for 16 KB
        assert sized.exit_code == 1 and sized.output.startswith("Error: "), sized.output
    TALLY[f"{kind}: refused"] += 1


def flash_for_real(path: Path, cells: dict[int, int]) -> None:
    src = resolve(path, ATMEGA168PB)
    sim = ProgrammerSim("stk500v1")
    sim.chip.flash[:] = b"\x00" * 16384
    prog = open_programmer(SERIAL_PROGRAMMERS["stk500v1"], ATMEGA168PB, transport=sim.transport())
    prog.connect()
    flash_image(prog, src.image, ATMEGA168PB, efuse=0xF8)
    want = bytearray(b"\xff" * 16384)
    for a, v in cells.items():
        want[a] = v
    assert bytes(sim.chip.flash) == bytes(want)


# -- cases -----------------------------------------------------------------------------------

def record(addr: int, kind: int, data: bytes) -> str:
    body = bytes([len(data), addr >> 8 & 0xFF, addr & 0xFF, kind]) + data
    return ":" + (body + bytes([-sum(body) & 0xFF])).hex().upper()


def refix(line: str) -> str:
    """The line with its checksum made right again (a damage a checksum cannot see)."""
    try:
        body = bytes.fromhex(line[1:-2])
    except ValueError:
        return line
    return ":" + (body + bytes([-sum(body) & 0xFF])).hex().upper()


@st.composite
def base_files(draw) -> list[str]:
    game = draw(st.sampled_from([0, 16, 100, 333, 600]))
    image = synthetic_blinks_image(game, seed=draw(st.integers(1, 50)), small_bios=True)
    return image.to_hex().splitlines()


def mutate(lines: list[str], data: st.DataObject) -> tuple[list[str], str]:
    """Apply 1-3 damages; return the lines and the name of the first."""
    names = []
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(MUTATIONS))
        names.append(op.__name__)
        lines = op(list(lines), data) or lines
    return lines, names[0]


def _index(lines, data):
    return data.draw(st.integers(0, max(0, len(lines) - 1)))


def truncate_lines(lines, data):
    return lines[:_index(lines, data)]


def truncate_chars(lines, data):
    text = "\n".join(lines)
    return text[:data.draw(st.integers(0, len(text)))].split("\n")


def flip_char(lines, data):
    i = _index(lines, data)
    if lines[i]:
        j = data.draw(st.integers(0, len(lines[i]) - 1))
        c = data.draw(st.sampled_from("0123456789ABCDEFaf:xG \t"))
        lines[i] = lines[i][:j] + c + lines[i][j + 1:]
    return lines


def flip_byte_keep_checksum(lines, data):
    i = _index(lines, data)
    line = lines[i]
    if len(line) >= 13:
        j = 1 + 2 * data.draw(st.integers(0, (len(line) - 3) // 2 - 1))
        lines[i] = refix(line[:j] + f"{data.draw(st.integers(0, 255)):02X}" + line[j + 2:])
    return lines


def bad_checksum(lines, data):
    i = _index(lines, data)
    if len(lines[i]) >= 11:
        cs = (int(lines[i][-2:], 16) + data.draw(st.integers(1, 255))) & 0xFF
        lines[i] = lines[i][:-2] + f"{cs:02X}"
    return lines


def huge_count(lines, data):
    i = _index(lines, data)
    if len(lines[i]) >= 11:
        line = ":" + f"{data.draw(st.integers(0, 255)):02X}" + lines[i][3:]
        lines[i] = refix(line) if data.draw(st.booleans()) else line
    return lines


def odd_record_type(lines, data):
    i = _index(lines, data)
    if len(lines[i]) >= 11:
        lines[i] = refix(lines[i][:7] + f"{data.draw(st.integers(0, 255)):02X}" + lines[i][9:])
    return lines


def move_address(lines, data):
    i = _index(lines, data)
    if len(lines[i]) >= 11:
        lines[i] = refix(lines[i][:3] + f"{data.draw(st.integers(0, 0xFFFF)):04X}" + lines[i][7:])
    return lines


def out_of_range_base(lines, data):
    kind = data.draw(st.sampled_from([0x02, 0x04]))
    value = data.draw(st.sampled_from([0x0000, 0x0001, 0x0040, 0x0100, 0x8000, 0xFFFF]))
    lines.insert(_index(lines, data), record(0, kind, value.to_bytes(2, "big")))
    return lines


def eof_in_the_middle(lines, data):
    lines.insert(_index(lines, data), ":00000001FF")
    return lines


def eof_missing(lines, data):
    return [line for line in lines if line.upper() != ":00000001FF"]


def eof_twice(lines, data):
    return [*lines, ":00000001FF"]


def joined_files(lines, data):
    other = synthetic_blinks_image(data.draw(st.sampled_from([0, 40])), seed=77,
                                   small_bios=data.draw(st.booleans()))
    return lines + other.to_hex().splitlines()


def drop_line(lines, data):
    if lines:
        del lines[_index(lines, data)]
    return lines


def duplicate_line(lines, data):
    if lines:
        i = _index(lines, data)
        lines.insert(i, lines[i])
    return lines


def swap_lines(lines, data):            # harmless if both are data records
    if len(lines) > 2:
        i, j = _index(lines[:-1], data), _index(lines[:-1], data)
        lines[i], lines[j] = lines[j], lines[i]
    return lines


def blank_space(lines, data):           # harmless
    i = _index(lines, data)
    lines.insert(i, data.draw(st.sampled_from(["", "  ", "\t", "\r"])))
    if data.draw(st.booleans()):
        lines[-1] = lines[-1] + "\x1a"
    return lines


def garbage_line(lines, data):
    lines.insert(_index(lines, data), data.draw(st.text(st.characters(codec="ascii"), max_size=30)))
    return lines


def bios_vector_damage(lines, data):    # rewrite one slot of the BIOS table, checksums right
    for i, line in enumerate(lines):
        if line.startswith(":103800") or line.startswith(":103810") or line.startswith(":103830"):
            j = 9 + 2 * data.draw(st.integers(0, 15))
            lines[i] = refix(line[:j] + f"{data.draw(st.integers(0, 255)):02X}" + line[j + 2:])
            break
    return lines


MUTATIONS = [truncate_lines, truncate_chars, flip_char, flip_byte_keep_checksum, bad_checksum,
             huge_count, odd_record_type, move_address, out_of_range_base, eof_in_the_middle,
             eof_missing, eof_twice, joined_files, drop_line, duplicate_line, swap_lines,
             blank_space, garbage_line, bios_vector_damage]


@FUZZ
@given(base_files(), st.data())
def test_mutated_hex_files(case_file, lines, data):
    mutated, kind = mutate(lines, data)
    path = case_file
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    path.write_bytes((newline.join(mutated) + newline).encode("latin-1", "replace"))
    check_case(path, kind)


@FUZZ
@given(st.one_of(
    st.binary(max_size=300),
    st.text(alphabet=":0123456789ABCDEF\n", max_size=300),
    st.lists(st.builds(record, st.integers(0, 0xFFFF), st.integers(0, 6),
                       st.binary(max_size=20)), max_size=12).map("\n".join),
))
def test_random_hex_files(case_file, content):
    path = case_file
    path.write_bytes(content if isinstance(content, bytes) else content.encode("ascii"))
    check_case(path, "random")


def test_the_reference_agrees_on_the_known_cases():
    good = synthetic_blinks_image(100, small_bios=True).to_hex()
    cells = reference_cells(good)
    assert cells is not None and reference_blink_image(cells)
    assert reference_cells(good.replace(":00000001FF", "")) is None
    assert reference_cells(good + good) is None
    bare = synthetic_blinks_image(0, small_bios=True).to_map()
    bare[0x3800], bare[0x3801] = 0xFF, 0xFF
    assert not reference_blink_image(bare)
