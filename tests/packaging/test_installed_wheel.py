"""blinkc as a user gets it: its wheel, built from its sdist, installed into a fresh virtual
environment and run from a folder outside the checkout, with nothing of the checkout on
sys.path. The wheel carries the C++ world core, compiled when the wheel was built (setup.py),
and the installed blinkc runs a native world with it, compiling no core of its own.

The sdist and the wheel are built once per session with this environment's setuptools (the
`dev` extra brings one new enough), from a copy of the source tree, so nothing is written into
the checkout. The fresh environment gets blinkc from the wheel only (`pip install --no-deps`);
its third-party requirements are copied in from this environment's own installed files (no
download), and `pip check` confirms they satisfy the wheel's metadata.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from ..building.helpers import AVR_TOOLS, make_standin, require_tools
from ..tools import require_tool

ROOT = Path(__file__).resolve().parents[2]
#: Not part of the source tree: version control, environments, caches, build outputs.
_NOT_SOURCE = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache", ".hypothesis",
               ".benchmarks"}

COUNTER = '''\
from blinkc.dsl import *

game = Game("counter")
count = game.field(range(0, 7), default=0)
Bump = game.message("Bump")

@game.on_click
def press(t):
    t.count += 1
    for f in faces():
        if t.has_neighbor(f):
            t.send(Bump, f)

@game.on_message(Bump)
def bumped(t, face):
    t.count += 1

@game.display
def look(t):
    for f in faces():
        t.color(f, GREEN if f < t.count else OFF)
'''


def _ignore(folder: str, names: list[str]) -> set[str]:
    top = Path(folder).resolve() == ROOT
    # (.so: the world core an editable install built in the checkout, not a source)
    return {n for n in names if n in _NOT_SOURCE or n.endswith((".egg-info", ".pyc", ".so"))
            or (top and n in ("build", "dist", "out"))}


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)
    assert done.returncode == 0, f"$ {' '.join(map(str, argv))}\n{done.stdout}{done.stderr}"
    return done


def _backend(hook: str, source: Path, out: Path) -> Path:
    """Call the build backend's PEP 517 hook in `source`, as pip and `python -m build` do."""
    code = f"import setuptools.build_meta as b; print(b.{hook}({str(out)!r}))"
    done = _run([sys.executable, "-c", code], cwd=source)
    return out / done.stdout.strip().splitlines()[-1]


@dataclass
class Dists:
    tree: Path  # the copy of the source tree the sdist was built from
    sdist: Path
    wheel: Path


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    import setuptools

    if int(setuptools.__version__.split(".")[0]) < 77:
        pytest.fail(f"setuptools {setuptools.__version__} cannot build blinkc (license = \"MIT\" "
                    "needs 77.0.1 or newer): run `pip install -e '.[dev]'` (make test does)")
    base = tmp_path_factory.mktemp("dists")
    tree = base / "tree"
    shutil.copytree(ROOT, tree, ignore=_ignore, symlinks=True)
    sdist = _backend("build_sdist", tree, base / "sdist")
    with tarfile.open(sdist) as tar:
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(base / "unpacked", **safe)
    unpacked = base / "unpacked" / sdist.name.removesuffix(".tar.gz")
    # The wheel comes from the sdist, so a file the sdist lacks is missing from the wheel too.
    wheel = _backend("build_wheel", unpacked, base / "wheel")
    return Dists(tree, sdist, wheel)


def _files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"}


def test_the_wheel_has_every_file_of_the_package_and_the_sdist_what_the_tests_need(dists):
    with zipfile.ZipFile(dists.wheel) as z:
        in_wheel = set(z.namelist())
    package = {f"blinkc/{f}" for f in _files_under(dists.tree / "blinkc")}
    assert package - in_wheel == set(), (
        "files of blinkc/ missing from the wheel: add them to package-data in pyproject.toml")
    assert not [n for n in in_wheel if n.startswith(("tests/", "templates/"))]

    with tarfile.open(dists.sdist) as tar:
        top = dists.sdist.name.removesuffix(".tar.gz")
        in_sdist = {n.removeprefix(f"{top}/") for n in tar.getnames()}
    wanted = {f for f in _files_under(dists.tree) if not f.startswith(".")}
    assert wanted - in_sdist == set(), "files missing from the sdist: add them to MANIFEST.in"

    assert "License-Expression: MIT" in _metadata(dists.wheel)


CORE = "blinkc/native_world/core/_world_core.so"


def _load_sources(tree: Path):
    """blinkc/native_world/core/sources.py of the source tree the dists were built from."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_tree_core_sources",
                                                  tree / "blinkc" / "native_world" / "core" / "sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wheel_carries_the_world_core_compiled_from_its_sources(dists):
    require_tool("g++")  # without a compiler the wheel is built without the core (setup.py)
    with zipfile.ZipFile(dists.wheel) as z:
        core = z.read(CORE)
        wheel_info = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/WHEEL")))
    # A plain shared library for ctypes, not an extension module: any Python 3, one platform.
    assert re.fullmatch(r"blinkc-[^-]+-py3-none-linux_\w+\.whl", dists.wheel.name), dists.wheel.name
    assert b"Root-Is-Purelib: false" in wheel_info
    assert core.startswith(b"\x7fELF")
    sources = _load_sources(dists.tree)
    key = sources.source_key(dists.tree / "blinkc" / "native_world" / "core",
                             dists.tree / "blinkc" / "native")
    assert (sources.KEY_MARK + key).encode() in core


def _metadata(wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as z:
        return z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()


def _requirements(metadata: str) -> list[str]:
    return [line.split(":", 1)[1].strip() for line in metadata.splitlines()
            if line.startswith("Requires-Dist:")]


def _installed_closure(requirements: list[str]) -> list[importlib.metadata.Distribution]:
    """The installed distributions these requirements need, theirs included (no extras)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = list(requirements)
    while todo:
        req = todo.pop()
        name_part, _, marker = req.partition(";")
        if "extra" in marker:
            continue
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", name_part).group(1)
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in found:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            if marker.strip():
                continue  # for another Python or platform
            raise
        found[key] = dist
        todo += dist.requires or []
    return list(found.values())


@dataclass
class Installed:
    bin: Path
    env: dict[str, str]
    work: Path  # a folder outside the checkout to run blinkc in

    def blinkc(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        argv = [str(self.bin / "blinkc"), *args]
        done = subprocess.run(argv, cwd=self.work, env=self.env, capture_output=True, text=True,
                              check=False)
        if ok:
            assert done.returncode == 0, f"$ blinkc {' '.join(args)}\n{done.stdout}{done.stderr}"
        assert "Traceback" not in done.stdout + done.stderr
        return done


@pytest.fixture(scope="session")
def installed(dists: Dists, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("user")
    venv = base / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
                .stdout.strip())
    for dist in _installed_closure(_requirements(_metadata(dists.wheel))):
        for f in dist.files or []:
            src = Path(dist.locate_file(f))
            if f.parts[0] != ".." and src.is_file():
                (site / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, site / f)
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    _run([*pip, "install", "--quiet", "--no-deps", "--no-index", str(dists.wheel)])
    _run([*pip, "check"])

    work = base / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "VIRTUAL_ENV", "BLINKC_CACHE", "XDG_CACHE"))}
    env |= {"PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", "HOME": str(base / "home"),
            "BLINKC_CACHE_DIR": str(base / "cache"), "PYTHONNOUSERSITE": "1", "NO_COLOR": "1"}
    return Installed(venv / "bin", env, work)


def test_blinkc_runs_from_the_wheel_alone(installed: Installed):
    code = "import blinkc, json, sys; print(json.dumps([blinkc.__file__, sys.path]))"
    done = subprocess.run([str(installed.bin / "python"), "-c", code], cwd=installed.work,
                          env=installed.env, capture_output=True, text=True, check=True)
    module, path = json.loads(done.stdout)
    assert Path(module).is_relative_to(installed.bin.parent)
    assert not Path(installed.work).resolve().is_relative_to(ROOT)
    inside = [p for p in path if p and Path(p).resolve().is_relative_to(ROOT)]
    assert inside == [], "the checkout is on the installed blinkc's sys.path"


def test_check_gen_emulate_both_backends_and_build_outside_the_checkout(installed: Installed):
    work = installed.work
    (work / "counter.py").write_text(COUNTER)
    (work / "pair.layout").write_text("tile a at 0,0\ntile b at SE of a\n")
    (work / "clicks.scenario").write_text("click a\nwait 1s\nclick b\nwait 1s\n")

    assert "counter is clean" in installed.blinkc("check", "counter.py").stdout

    installed.blinkc("gen", "counter.py", "-o", "out")
    ino = (work / "out" / "counter" / "counter.ino").read_text()
    assert "#include <blinklib.h>" in ino and "void loop(" in ino

    run = ["emulate", "counter.py", "--layout", "pair.layout", "--script", "clicks.scenario",
           "--json"]
    python = json.loads(installed.blinkc(*run).stdout)
    # Both clicks count, and each Bump reaches the other tile (the game draws no random
    # numbers, so its tiles do not spend half a second in randomize() at power-up: b is there
    # by the time a's click is known).
    assert {t["name"]: t["state"]["count"] for t in python["tiles"]} == {"a": 2, "b": 2}
    require_tool("g++")
    # Compiles the game's C++ from the wheel's sources (a fresh cache) and runs it in the C++
    # world core the wheel carries.
    native = json.loads(installed.blinkc(*run, "--backend", "native", "--world", "native").stdout)
    assert native["tiles"] == python["tiles"]

    require_tools(*AVR_TOOLS)
    sdks = [["--sdk", str(make_standin(work / "standin" / "avr"))]]
    if os.environ.get("BLINKS_SDK"):
        sdks.append([])  # the real SDK, found the way a user's is
    for i, sdk in enumerate(sdks):
        out = work / f"build{i}"
        built = installed.blinkc("build", "counter.py", "-o", str(out), *sdk)
        assert "Flash:" in built.stdout
        assert (out / "counter.ino.with_bootloader.hex").is_file()


NATIVE_WORLD = """\
import json
from blinkc.native_world.core import bindings, build
from blinkc.testing import Cluster

ship = Cluster("counter.py", "tile a at 0,0\\ntile b at SE of a\\n", backend="native", world="native")
ship.click("a")
ship.wait(1000)
print(json.dumps({"engine": ship.world.engine, "events": ship.world.events,
                  "counts": {n: s["count"] for n, s in ship.states().items()},
                  "core": str(build.core_library()), "origin": build.origin(),
                  "key": bindings.core().core_source_key().decode()}))
"""


def test_a_native_world_runs_in_the_core_the_wheel_installed(installed: Installed, dists):
    require_tool("g++")  # for the game's own C++ (the core itself is not compiled here)
    (installed.work / "counter.py").write_text(COUNTER)
    done = subprocess.run([str(installed.bin / "python"), "-c", NATIVE_WORLD], cwd=installed.work,
                          env=installed.env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    run = json.loads(done.stdout)
    assert run["engine"] == "native" and run["events"] > 0
    assert run["counts"] == {"a": 1, "b": 1}  # a counted its click, b the Bump it sent
    # The core is the one installed with the wheel, compiled from the sources it carries ...
    assert run["origin"] == "installed"
    core = Path(run["core"])
    assert core.name == "_world_core.so" and core.is_relative_to(installed.bin.parent)
    with zipfile.ZipFile(dists.wheel) as z:
        assert core.read_bytes() == z.read(CORE)
    sources = _load_sources(dists.tree)
    assert run["key"] == sources.source_key(dists.tree / "blinkc" / "native_world" / "core",
                                            dists.tree / "blinkc" / "native")
    # ... and blinkc installed from the wheel never compiled one at run time (its cache).
    cache = Path(installed.env["BLINKC_CACHE_DIR"])
    assert list(cache.rglob("world-core-*")) == []
    assert list(cache.rglob("*.so")), "the game's C++ was compiled into the cache"


def test_the_demo_says_it_needs_a_checkout(installed: Installed):
    done = subprocess.run([str(installed.bin / "python"), "-m", "blinkc.demo"], cwd=installed.work,
                          env=installed.env, capture_output=True, text=True, check=False)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "checkout of blinkc" in done.stderr and "make demo" in done.stderr
