"""What blinkc may write: new files, its own whole-flash dumps, or anything with --force."""

import pytest

from blinkc.flash.errors import FlashError
from blinkc.flash.hexfile import Image, synthetic_blinks_image, synthetic_image
from blinkc.flash.outputs import check_output, dump_text, is_blinkc_dump, write_dump


def test_a_dump_blinkc_wrote_is_recognised_and_replaced(tmp_path):
    path = tmp_path / "dump.hex"
    write_dump(path, b"\x5a" * 16384)
    assert is_blinkc_dump(path)
    write_dump(path, b"\xa5" * 16384)                 # its own dump: replaced
    assert path.read_text() == dump_text(b"\xa5" * 16384)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))   # copied via Windows
    assert is_blinkc_dump(path)
    write_dump(tmp_path / "big.hex", bytes(32768))       # a whole ATmega328PB
    assert is_blinkc_dump(tmp_path / "big.hex")


@pytest.mark.parametrize("text", [
    synthetic_blinks_image(3000).to_hex(),                      # a merged game image
    synthetic_image([(0x1700, 300)]).to_hex(),                  # a game
    Image.from_bytes(b"\x11" * 16000).to_hex(),                 # not the whole flash
    dump_text(b"\x11" * 16384).replace(":00000001FF", ":0000000" + "5FB\n:00000001FF"),
    dump_text(b"\x11" * 16384).lower(),                         # another program's records
    "my notes\n",
    "",
])
def test_anything_else_is_not_blinkcs_and_is_kept(tmp_path, text):
    path = tmp_path / "other.hex"
    path.write_text(text)
    assert not is_blinkc_dump(path)
    with pytest.raises(FlashError, match="did not write it") as e:
        write_dump(path, b"\x00" * 16384)
    assert "--force" in e.value.fix and e.value.cause
    assert path.read_text() == text
    write_dump(path, b"\x00" * 16384, force=True)
    assert is_blinkc_dump(path)


def test_a_replaced_dump_keeps_its_permissions_and_leaves_no_scratch_file(tmp_path):
    path = tmp_path / "dump.hex"
    write_dump(path, bytes(16384))
    path.chmod(0o640)
    write_dump(path, b"\xff" * 16384)
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dump.hex"]


def test_outputs_that_cannot_be_written(tmp_path):
    with pytest.raises(FlashError, match="does not exist"):
        check_output(tmp_path / "nope" / "x.hex")
    with pytest.raises(FlashError, match="it is a folder"):
        check_output(tmp_path)
    with pytest.raises(FlashError, match="not a regular file"):
        check_output("/dev/null", force=True)
