"""Finding the SDK where users install it, on synthetic folder trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from blinkc.build import BuildError, find_sdk
from blinkc.build.sdk import BOARDS_MANAGER_URL


def fake_sdk(path: Path, version: str = "1.3.1", bios: str = "BlinkBIOS.hex") -> Path:
    """A folder that passes validation (empty files in the SDK's layout)."""
    (path / "cores/blinklib").mkdir(parents=True)
    (path / "cores/blinklib/Arduino.h").write_text("")
    (path / "linkscripts").mkdir()
    (path / "linkscripts/avr5.xn").write_text("")
    (path / "bootloaders").mkdir()
    (path / "bootloaders" / bios).write_text(":00000001FF\n")
    (path / "platform.txt").write_text(f"name=Move38\nversion={version}\nrecipe.cpp.o.pattern=x\n")
    boards = "blink.name=Blink\nblink.build.mcu=atmega168pb\nblink.build.core=blinklib\n"
    if bios != "BlinkBIOS.hex":
        boards += f"blink.bootloader.file={bios}\n"
    (path / "boards.txt").write_text(boards)
    return path


def find(tmp_path: Path, system: str = "Linux", env: dict | None = None, **kw):
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    cwd = tmp_path / "work"
    cwd.mkdir(exist_ok=True)
    return find_sdk(env=env or {}, home=home, system=system, cwd=cwd, **kw)


def test_boards_manager_install_on_linux_picks_the_newest_version(tmp_path: Path):
    base = tmp_path / "home/.arduino15/packages/move38/hardware/avr"
    fake_sdk(base / "1.2.0", "1.2.0")
    fake_sdk(base / "1.10.0", "1.10.0")
    sdk = find(tmp_path)
    assert sdk.version == "1.10.0"  # numeric, not alphabetical
    assert sdk.fqbn == "move38:avr:blink"
    assert "boards manager" in sdk.source


def test_boards_manager_install_on_windows_and_macos(tmp_path: Path):
    local = tmp_path / "LocalAppData"
    fake_sdk(local / "Arduino15/packages/move38/hardware/avr/1.3.1")
    assert find(tmp_path, "Windows", {"LOCALAPPDATA": str(local)}).fqbn == "move38:avr:blink"
    fake_sdk(tmp_path / "home/Library/Arduino15/packages/move38/hardware/avr/1.3.0", "1.3.0")
    assert find(tmp_path, "Darwin").version == "1.3.0"


def test_sketchbook_hardware_folder(tmp_path: Path):
    fake_sdk(tmp_path / "home/Arduino/hardware/Move38-manual/avr", "1.1.1")
    sdk = find(tmp_path)
    assert (sdk.version, sdk.fqbn) == ("1.1.1", "Move38-manual:avr:blink")
    assert "sketchbook" in sdk.source


def test_checkout_next_to_the_working_folder_uses_the_boards_bios_name(tmp_path: Path):
    fake_sdk(tmp_path / "work/Move38-Arduino-Platform", bios="BlinkBIOS-168PB.hex")
    sdk = find(tmp_path)
    assert sdk.source == "checkout" and sdk.fqbn is None  # arduino-cli cannot see it
    assert sdk.bios_hex.name == "BlinkBIOS-168PB.hex"


def test_env_var_wins_over_arduino_folders_and_option_wins_over_env(tmp_path: Path):
    fake_sdk(tmp_path / "home/.arduino15/packages/move38/hardware/avr/1.3.1")
    env_sdk = fake_sdk(tmp_path / "mine", "9.9")
    assert find(tmp_path, env={"BLINKS_SDK": str(env_sdk)}).source == "BLINKS_SDK"
    opt = fake_sdk(tmp_path / "opt", "7.7")
    assert find(tmp_path, env={"BLINKS_SDK": str(env_sdk)}, explicit=opt).version == "7.7"


def test_a_broken_env_var_is_an_error_not_a_silent_fallback(tmp_path: Path):
    fake_sdk(tmp_path / "home/.arduino15/packages/move38/hardware/avr/1.3.1")
    broken = fake_sdk(tmp_path / "broken")
    (broken / "bootloaders/BlinkBIOS.hex").unlink()
    with pytest.raises(BuildError, match=r"BLINKS_SDK.*no BIOS image bootloaders/BlinkBIOS.hex"):
        find(tmp_path, env={"BLINKS_SDK": str(broken)})


def test_nothing_found_explains_how_to_install(tmp_path: Path):
    half = tmp_path / "home/Arduino/hardware/Move38/avr"
    half.mkdir(parents=True)
    (half / "platform.txt").write_text("name=x\n")
    with pytest.raises(BuildError) as info:
        find(tmp_path)
    text = str(info.value)
    assert "No Blinks SDK found" in text
    assert BOARDS_MANAGER_URL in text and "git clone" in text and "BLINKS_SDK" in text
    assert str(half) in text and "no boards.txt" in text  # says why a candidate was rejected
