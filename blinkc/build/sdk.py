"""Finding the user's Blinks SDK where Arduino (or the user) put it.

Search order: `--sdk`, then `BLINKS_SDK` (both must be valid if given: a
typo should not silently pick another SDK), then Arduino's boards-manager
folders, then a sketchbook's `hardware/<vendor>/avr`, then a checkout of the
SDK repository next to the working directory or in the home folder.
"""

from __future__ import annotations

import os
import platform as _host
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BuildError
from .platform import Properties, board_properties

BOARD = "blink"
BOARDS_MANAGER_URL = "https://boardsmanager.com/package_move38.com-blinks_index.json"
CHECKOUT_NAMES = ("Blinks-SDK", "Move38-Arduino-Platform")

INSTALL_HINT = f"""\
Install the Blinks SDK one of these ways, then run the command again:
  * Arduino IDE or arduino-cli (boards manager): add the board index
      {BOARDS_MANAGER_URL}
    (IDE: File > Preferences > Additional Boards Manager URLs; then
    Tools > Board > Boards Manager, search "blinks", install), or:
      arduino-cli core update-index --additional-urls {BOARDS_MANAGER_URL}
      arduino-cli core install move38:avr --additional-urls {BOARDS_MANAGER_URL}
  * A checkout of the SDK repository, anywhere, named with BLINKS_SDK:
      git clone https://github.com/bigjosh/Move38-Arduino-Platform
      export BLINKS_SDK=$PWD/Move38-Arduino-Platform
    (or Move38/Blinks-SDK; or copy it to <sketchbook>/hardware/Move38/avr)
  * Or pass the folder directly: --sdk PATH"""


@dataclass(frozen=True)
class Sdk:
    """A validated Blinks SDK (an Arduino platform folder with the blinklib core)."""

    path: Path
    name: str
    version: str
    source: str  # how it was found, for the report
    vendor: str | None = None  # Arduino packager/vendor folder, when in an Arduino layout
    board: str = BOARD
    properties: Properties = field(default_factory=Properties, compare=False, repr=False)

    @property
    def fqbn(self) -> str | None:
        """The board id arduino-cli knows this SDK by (only for Arduino installs)."""
        return f"{self.vendor}:avr:{self.board}" if self.vendor else None

    @property
    def bios_hex(self) -> Path:
        return self.path / "bootloaders" / self.properties.get("bootloader.file", "BlinkBIOS.hex")

    @property
    def core_dir(self) -> Path:
        return self.path / "cores" / self.properties.get("build.core", "blinklib")

    def describe(self) -> str:
        return f"{self.name} {self.version} at {self.path} (found via {self.source})"


def problems(path: Path, board: str = BOARD) -> list[str]:
    """What makes `path` not a usable Blinks SDK (empty list: it is usable)."""
    if not path.is_dir():
        return [f"{path} is not a folder"]
    missing = [n for n in ("platform.txt", "boards.txt") if not (path / n).is_file()]
    if missing:
        return [f"no {n}" for n in missing]
    props = board_properties(path, board)
    if "build.mcu" not in props:
        return [f"boards.txt has no '{board}' board"]
    found = []
    core = path / "cores" / props.get("build.core", "blinklib")
    if not (core / "Arduino.h").is_file():
        found.append(f"no core at {core.relative_to(path)} (Arduino.h missing)")
    bios = path / "bootloaders" / props.get("bootloader.file", "BlinkBIOS.hex")
    if not bios.is_file():
        found.append(f"no BIOS image {bios.relative_to(path)}")
    if not any((path / "linkscripts").glob("*.x*")):
        found.append("no linker script in linkscripts/")
    if not any(k.startswith("recipe.") and k.endswith(".pattern") for k in props):
        found.append("platform.txt has no build recipe")
    return found


def load(path: Path, source: str, vendor: str | None = None, board: str = BOARD) -> Sdk:
    path = Path(path).expanduser().resolve()
    bad = problems(path, board)
    if bad:
        raise BuildError(
            f"{path} (from {source}) is not a usable Blinks SDK: {'; '.join(bad)}.",
            "It must hold platform.txt, boards.txt, cores/blinklib, bootloaders/ with the "
            "BIOS hex, and linkscripts/.\n" + INSTALL_HINT,
        )
    props = board_properties(path, board)
    own = Properties.load(path / "platform.txt")  # boards.txt also has a `name` (the board's)
    return Sdk(
        path=path,
        name=own.get("name", "unknown"),
        version=own.get("version", "unknown"),
        source=source,
        vendor=vendor if vendor is not None else arduino_vendor(path),
        board=board,
        properties=props,
    )


def arduino_vendor(path: Path) -> str | None:
    """The vendor part of the FQBN when `path` sits in an Arduino hardware layout."""
    parts = path.parts
    # boards manager: .../packages/<vendor>/hardware/avr/<version>
    if (
        len(parts) >= 5
        and parts[-2] == "avr"
        and parts[-3] == "hardware"
        and parts[-5] == "packages"
    ):
        return parts[-4]
    # sketchbook: .../hardware/<vendor>/avr
    if len(parts) >= 3 and parts[-1] == "avr" and parts[-3] == "hardware":
        return parts[-2]
    return None


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name)) or (0,)


def arduino_data_dirs(env: Mapping[str, str], home: Path, system: str) -> list[Path]:
    """Where the Arduino IDE / arduino-cli keep boards-manager packages."""
    dirs = []
    if env.get("ARDUINO_DIRECTORIES_DATA"):
        dirs.append(Path(env["ARDUINO_DIRECTORIES_DATA"]))
    if system == "Windows":
        local = Path(env["LOCALAPPDATA"]) if env.get("LOCALAPPDATA") else home / "AppData/Local"
        dirs += [local / "Arduino15", home / "Documents/ArduinoData"]
    elif system == "Darwin":
        dirs.append(home / "Library/Arduino15")
    else:
        dirs.append(home / ".arduino15")
    return dirs


def sketchbook_dirs(env: Mapping[str, str], home: Path, system: str) -> list[Path]:
    dirs = []
    if env.get("ARDUINO_DIRECTORIES_USER"):
        dirs.append(Path(env["ARDUINO_DIRECTORIES_USER"]))
    if system in ("Windows", "Darwin"):
        dirs.append(home / "Documents/Arduino")
    dirs.append(home / "Arduino")
    return dirs


def candidates(
    env: Mapping[str, str], home: Path, system: str, cwd: Path
) -> list[tuple[Path, str]]:
    """Every place an SDK may be, best first, with a label saying how it was found."""
    found: list[tuple[Path, str]] = []
    for data in arduino_data_dirs(env, home, system):
        for vendor_dir in sorted((data / "packages").glob("*/hardware/avr")):
            versions = sorted(
                (p for p in vendor_dir.iterdir() if p.is_dir()),
                key=lambda p: _version_key(p.name),
                reverse=True,
            )
            # move38 first: it is the official package; others may be forks with blinklib.
            found += [(v, f"boards manager ({data})") for v in versions]
    found.sort(key=lambda c: "packages/move38/" not in c[0].as_posix())
    for book in sketchbook_dirs(env, home, system):
        found += [(p, f"sketchbook ({book})") for p in sorted((book / "hardware").glob("*/avr"))]
    for base in (cwd, cwd.parent, home):
        found += [(base / n, "checkout") for n in CHECKOUT_NAMES]
    return found


def find_sdk(
    explicit: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    system: str | None = None,
    cwd: Path | None = None,
) -> Sdk:
    """The SDK to build with, or a BuildError that explains how to install one."""
    env = os.environ if env is None else env
    if explicit:
        return load(Path(explicit), "--sdk")
    if env.get("BLINKS_SDK"):
        return load(Path(env["BLINKS_SDK"]), "BLINKS_SDK")
    home = Path.home() if home is None else home
    system = _host.system() if system is None else system
    cwd = Path.cwd() if cwd is None else cwd
    rejected = []
    for path, source in candidates(env, home, system, cwd):
        if not path.exists():
            continue
        bad = problems(path)
        if not bad:
            return load(path, source)
        rejected.append(f"  {path}: {'; '.join(bad)}")
    searched = ", ".join(
        str(p)
        for p in [
            *(d / "packages/*/hardware/avr/*" for d in arduino_data_dirs(env, home, system)),
            *(d / "hardware/*/avr" for d in sketchbook_dirs(env, home, system)),
        ]
    )
    detail = (
        ("\nFolders that looked like an SDK but are not usable:\n" + "\n".join(rejected))
        if rejected
        else ""
    )
    raise BuildError(
        f"No Blinks SDK found (BLINKS_SDK is not set; searched {searched}, and "
        f"{' / '.join(CHECKOUT_NAMES)} checkouts in the working folder, its parent and "
        f"home).{detail}",
        INSTALL_HINT,
    )
