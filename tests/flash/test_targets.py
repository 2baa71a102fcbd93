"""The numbers of docs/platform.md (flash map, fuses, parts), pinned."""

from blinkc.flash.targets import (
    ATMEGA168PB,
    ATMEGA328PB,
    BLINKS,
    PARTS,
    chip_name,
    get_part,
    signature_is_blank,
)


def test_atmega168pb_facts():
    p = ATMEGA168PB
    assert p.signature == bytes([0x1E, 0x94, 0x15])
    assert (p.flash_size, p.page_size, p.pages) == (16384, 128, 128)
    assert p.stk500_devcode == 0x86
    assert p.factory_fuses["low"] == 0x62 and p.factory_fuses["high"] == 0xDF


def test_isp_instructions_of_the_facts_page():
    isp = ATMEGA168PB.isp
    assert isp.program_enable == (0xAC, 0x53, 0x00, 0x00)
    assert isp.chip_erase == (0xAC, 0x80, 0x00, 0x00)
    assert [isp.read_signature(i) for i in range(3)] == [
        (0x30, 0x00, 0x00, 0x00), (0x30, 0x00, 0x01, 0x00), (0x30, 0x00, 0x02, 0x00)]
    assert isp.read_fuse == {"low": (0x50, 0, 0, 0), "high": (0x58, 0x08, 0, 0),
                             "ext": (0x50, 0x08, 0, 0), "lock": (0x58, 0, 0, 0)}
    assert isp.write_fuse == {"low": (0xAC, 0xA0, 0, 0), "high": (0xAC, 0xA8, 0, 0),
                              "ext": (0xAC, 0xA4, 0, 0)}


def test_no_lock_write_instruction_exists():
    # The flasher cannot write lock bits: there is no instruction for it to use.
    assert "lock" not in ATMEGA168PB.isp.write_fuse


def test_stk500v2_parameters_from_avrdude_conf():
    v2 = ATMEGA168PB.stk500v2
    assert (v2.timeout, v2.stabdelay, v2.cmdexedelay, v2.synchloops, v2.bytedelay) == (
        200, 100, 25, 32, 0)
    assert (v2.pollindex, v2.pollvalue) == (3, 0x53)
    assert (v2.flash_mode, v2.flash_delay) == (0x41, 6)
    assert v2.chip_erase_delay_ms == 10.5
    assert ATMEGA168PB.eeprom_page_size == 4


def test_blink_flash_map():
    assert BLINKS.active_game == range(0x0000, 0x1700)
    assert BLINKS.builtin_game == range(0x1700, 0x2E00)
    assert BLINKS.bios == range(0x2E00, 0x4000)
    assert BLINKS.max_game_bytes == 5888 == 46 * 128
    assert BLINKS.efuse == 0xF8


def test_atmega328pb_is_in_the_table():
    assert ATMEGA328PB.signature == bytes([0x1E, 0x95, 0x16])
    assert (ATMEGA328PB.flash_size, ATMEGA328PB.page_size) == (32768, 128)
    assert set(PARTS) == {"atmega168pb", "atmega328pb"}
    assert get_part("m328pb") is ATMEGA328PB
    assert get_part("ATmega168PB") is ATMEGA168PB


def test_signature_names():
    assert chip_name(bytes([0x1E, 0x95, 0x0F])) == "ATmega328P (1E 95 0F)"
    assert "unknown" in chip_name(bytes([0x1E, 0x11, 0x22]))
    assert signature_is_blank(b"\x00\x00\x00") and signature_is_blank(b"\xff\xff\xff")
    assert not signature_is_blank(ATMEGA168PB.signature)
