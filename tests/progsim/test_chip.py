"""The ATmega168PB model answers ISP instructions as the silicon does."""

from blinkc.progsim import Chip


def spi(chip, *instr):
    return chip.spi(bytes(instr))


def test_programming_enable_echoes_0x53_in_the_third_byte():
    chip = Chip()
    assert spi(chip, 0x30, 0, 0, 0) == b"\x00\x00\x00\x00"      # not enabled yet
    assert spi(chip, 0xAC, 0x53, 0x00, 0x00)[2] == 0x53
    assert [spi(chip, 0x30, 0, i, 0)[3] for i in range(3)] == [0x1E, 0x94, 0x15]


def test_flash_is_written_a_page_at_a_time_and_only_clears_bits():
    chip = Chip()
    spi(chip, 0xAC, 0x53, 0, 0)
    spi(chip, 0x40, 0, 0x00, 0x0F)           # word 0 of the page buffer, low byte
    spi(chip, 0x48, 0, 0x00, 0xF0)           # high byte
    assert chip.flash[0x1700] == 0xFF         # nothing until the page is written
    spi(chip, 0x4C, 0x0B, 0x80, 0)            # write page at word 0x0B80 = byte 0x1700
    assert chip.flash[0x1700:0x1702] == b"\x0f\xf0"
    spi(chip, 0x40, 0, 0x00, 0xF0)            # writing again without an erase: AND
    spi(chip, 0x4C, 0x0B, 0x80, 0)
    assert chip.flash[0x1700] == 0x00
    assert spi(chip, 0x20, 0x0B, 0x80, 0)[3] == 0x00 and spi(chip, 0x28, 0x0B, 0x80, 0)[3] == 0xF0
    spi(chip, 0xAC, 0x80, 0, 0)               # chip erase
    assert chip.flash == b"\xff" * 16384


def test_fuses_read_unused_extended_bits_as_one_and_erase_keeps_fuses():
    chip = Chip()
    spi(chip, 0xAC, 0x53, 0, 0)
    assert spi(chip, 0x50, 0x08, 0, 0)[3] == 0xF9
    spi(chip, 0xAC, 0xA4, 0, 0x00)            # only the 3 low bits exist
    assert spi(chip, 0x50, 0x08, 0, 0)[3] == 0xF8
    spi(chip, 0xAC, 0xE0, 0, 0xFC)            # lock bits (the flasher never does this)
    assert spi(chip, 0x58, 0x00, 0, 0)[3] == 0xFC
    spi(chip, 0xAC, 0x80, 0, 0)
    assert chip.fuses == {"low": 0x62, "high": 0xDF, "ext": 0xF8, "lock": 0xFF}


def test_absent_chip_and_bad_page():
    assert Chip(present=False).spi(bytes([0xAC, 0x53, 0, 0])) == b"\x00" * 4
    chip = Chip(bad_pages={0x1780})
    spi(chip, 0xAC, 0x53, 0, 0)
    spi(chip, 0x40, 0, 0, 0x12)
    spi(chip, 0x4C, 0x0B, 0xC0, 0)            # word 0x0BC0 = byte 0x1780
    assert chip.flash[0x1780] == 0xFF
