"""The co-simulation harness on small AVR programs of our own (no SDK, no BIOS): each test
builds a program with avr-gcc that does one thing a Blinks tile's firmware relies on, runs
it on the harness, and checks what a tile would show."""

from __future__ import annotations

import pytest

from blinkc.cosim.cluster import Cluster
from blinkc.cosim.figures import STACK_WARN_BYTES, Figures
from blinkc.cosim.firmware import _plain
from blinkc.cosim.tile import F_CPU, CosimTile, avr_color

from ..tools import require_simavr, require_tool
from .avr_programs import RESULT, boot_firmware, compile_avr, hex_of

SERIAL = bytes([3, 1, 4, 1, 5, 9, 2, 6, 5])


@pytest.fixture(autouse=True)
def tools() -> None:
    require_tool("avr-gcc")
    require_tool("avr-objcopy")
    require_simavr()


def u16(tile: CosimTile, address: int) -> int:
    return int.from_bytes(tile.read(address, 2), "little")


# ------------------------------------------------------------ boot section and IVSEL
BOOT_WITH_TIMER = r"""
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
ISR(TIMER0_OVF_vect) { (*(volatile uint16_t *)0x301)++; }
int main(void) {
    *(volatile uint8_t *)0x300 = 0x22;          /* the boot program ran */
    MCUCR = _BV(IVCE); MCUCR = _BV(IVSEL);      /* vectors in the boot section, as the BIOS */
    TCCR0B = _BV(CS01) | _BV(CS00);             /* clk/64: an overflow every 16,384 cycles */
    TIMSK0 = _BV(TOIE0);
    sei();
    set_sleep_mode(SLEEP_MODE_IDLE);
    for (;;) sleep_mode();
}
"""
APP_MARKS = r"""
#include <avr/io.h>
int main(void) { *(volatile uint8_t *)0x300 = 0x11; for (;;); }
"""


def test_a_tile_starts_at_the_boot_reset_vector_and_its_interrupts_use_the_boot_table(tmp_path):
    fw = boot_firmware(tmp_path, BOOT_WITH_TIMER, APP_MARKS)
    tile = CosimTile("t", fw, SERIAL)
    tile.run(F_CPU)  # one second, asleep between overflows
    assert tile.read(RESULT, 1) == b"\x22"       # the boot program, not the one at 0
    # 8,000,000 / 16,384 overflows in one second, each served in the boot section.
    assert u16(tile, RESULT + 1) in (487, 488)
    assert tile.pc >= 0x3800


def test_without_the_ivsel_workaround_the_first_interrupt_lands_in_the_application(tmp_path):
    fw = boot_firmware(tmp_path, BOOT_WITH_TIMER, APP_MARKS)
    tile = CosimTile("t", fw, SERIAL, vector_offset=0)
    tile.run(F_CPU // 10)
    assert tile.read(RESULT, 1) == b"\x11"       # vector 16 at 0 is the app's: it restarted it
    assert u16(tile, RESULT + 1) == 0


# ------------------------------------------------------------ serial number, button, port
READS_SERIAL = r"""
#include <avr/io.h>
int main(void) {
    uint8_t sum = 0;
    for (uint8_t i = 0; i < 9; i++) sum += ((volatile uint8_t *)0xF0)[i] * (i + 1);
    *(volatile uint8_t *)0x300 = sum;
    for (;;);
}
"""


def test_the_serial_number_is_in_the_168pbs_registers(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, READS_SERIAL), SERIAL)
    tile.run(100_000)
    assert tile.read(RESULT, 1)[0] == sum(b * (i + 1) for i, b in enumerate(SERIAL)) & 0xFF


READS_BUTTON = r"""
#include <avr/io.h>
int main(void) {
    PORTD |= _BV(7);                              /* the pull-up, as the BIOS sets it */
    for (;;) {
        PORTD ^= _BV(6);                          /* port writes make simavr re-drive pins */
        *(volatile uint8_t *)0x300 = (PIND >> 7) & 1;
    }
}
"""


def test_the_button_is_a_level_on_pd7_that_port_writes_do_not_undo(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, READS_BUTTON), SERIAL)
    tile.run(10_000)
    assert tile.read(RESULT, 1) == b"\x01"        # open: pulled high
    tile.button(True)
    tile.run(20_000)
    assert tile.read(RESULT, 1) == b"\x00"        # pressed: to ground, though PORTD changes
    tile.button(False)
    tile.run(30_000)
    assert tile.read(RESULT, 1) == b"\x01"


WRITES_SERVICE_PORT = r"""
#include <avr/io.h>
int main(void) {
    UBRR0 = 0;
    UCSR0B = _BV(TXEN0);
    for (const char *s = "ok\n"; *s; s++) {
        while (!(UCSR0A & _BV(UDRE0)));
        UDR0 = *s;
    }
    for (;;);
}
"""


def test_what_the_tile_writes_to_its_service_port_is_kept(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, WRITES_SERVICE_PORT), SERIAL)
    tile.run(200_000)
    assert tile.service_output() == b"ok\n"


ECHOES_SERVICE_PORT = r"""
#include <avr/io.h>
int main(void) {
    UBRR0 = 0;
    UCSR0B = _BV(TXEN0) | _BV(RXEN0);
    for (;;) {
        while (!(UCSR0A & _BV(RXC0)));
        uint8_t c = UDR0;
        while (!(UCSR0A & _BV(UDRE0)));
        UDR0 = c + 1;                                   /* what it read, seen to be read */
    }
}
"""


def test_bytes_sent_into_the_service_port_are_read_in_order_even_past_the_uarts_fifo(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, ECHOES_SERVICE_PORT), SERIAL)
    tile.run(100_000)
    sent = bytes(range(200))                            # the UART's FIFO holds 64
    tile.feed_serial(sent)
    tile.run(2_000_000)
    assert tile.service_output() == bytes(b + 1 for b in sent)


PORT_E = r"""
#include <avr/io.h>
int main(void) {
    *(volatile uint8_t *)0x2D = 0x0B;                        /* DDRE */
    *(volatile uint8_t *)0x2E = 0x05;                        /* PORTE */
    *(volatile uint8_t *)0x2E |= 0x02;                       /* sbi, as the BIOS does */
    *(volatile uint8_t *)0x300 = *(volatile uint8_t *)0x2E;
    *(volatile uint8_t *)0x301 = *(volatile uint8_t *)0x2D;
    for (;;);
}
"""


def test_port_e_which_the_168_lacks_keeps_what_is_written(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, PORT_E), SERIAL)
    tile.run(10_000)
    assert tile.read(RESULT, 2) == bytes([0x07, 0x0B])


# ------------------------------------------------------------ IR between two tiles
FLASHES_AND_LISTENS = r"""
#include <avr/io.h>
#include <util/delay.h>
int main(void) {
    DDRB = _BV(0);                                /* face 0's anode */
    for (uint8_t k = *(volatile uint8_t *)0xF0; k; k--) _delay_us(100);  /* a phase per tile */
    for (;;) {
        DDRC |= _BV(0); PORTC |= _BV(0);          /* charge face 0's cathode */
        DDRC &= ~_BV(0); PORTC &= ~_BV(0);        /* let it float: light discharges it */
        uint8_t lit = 0;
        for (uint16_t i = 0; i < 3000; i++)       /* listen for 2 ms or so: longer than a */
            if (!(PINC & _BV(0))) lit = 1;        /* burst gap, so each flash is a packet */
        if (lit) (*(volatile uint16_t *)0x300)++;
        PORTB |= _BV(0); _delay_us(20); PORTB &= ~_BV(0);   /* a flash */
    }
}
"""


def _pair(tmp_path, link: bool, drop: float = 0.0, threads: int = 1, seed: int = 0,
          jitter_ms: float = 0.0) -> tuple[int, int, int]:
    fw = boot_firmware(tmp_path, FLASHES_AND_LISTENS)
    with Cluster(seed=seed, threads=threads) as cluster:
        a, b = CosimTile("a", fw, SERIAL), CosimTile("b", fw, SERIAL[::-1])
        cluster.add(a)
        cluster.add(b)
        if link:
            cluster.link([("a", 0, "b", 0), ("b", 0, "a", 0)])
        cluster.faults(drop, jitter_ms)
        cluster.run_until(200)
        return u16(a, RESULT), u16(b, RESULT), cluster.flashes


def test_a_flash_discharges_the_facing_tiles_cathode(tmp_path):
    seen_a, seen_b, flashes = _pair(tmp_path, link=True)
    assert flashes > 50
    assert seen_a > 40 and seen_b > 40


def test_faces_that_do_not_touch_see_nothing(tmp_path):
    seen_a, seen_b, flashes = _pair(tmp_path, link=False)
    assert flashes > 50
    assert (seen_a, seen_b) == (0, 0)


def test_dropped_packets_never_arrive_and_the_same_seed_drops_the_same(tmp_path):
    assert _pair(tmp_path, link=True, drop=1.0)[:2] == (0, 0)
    half = _pair(tmp_path, link=True, drop=0.5, seed=7)
    assert half == _pair(tmp_path, link=True, drop=0.5, seed=7)
    full = _pair(tmp_path, link=True)
    assert 0 < half[0] < full[0]


def test_two_threads_step_the_tiles_to_the_same_result_as_one(tmp_path):
    assert _pair(tmp_path, link=True, threads=2, jitter_ms=0.1) == \
        _pair(tmp_path, link=True, threads=1, jitter_ms=0.1)


# ------------------------------------------------------------ clocks
def test_a_fast_tile_runs_more_cycles_in_the_same_world_time(tmp_path):
    fw = boot_firmware(tmp_path, BOOT_WITH_TIMER)
    with Cluster() as cluster:
        slow, fast = CosimTile("slow", fw, SERIAL, ppm=-50_000), CosimTile("fast", fw, SERIAL,
                                                                           ppm=100_000)
        cluster.add(slow)
        cluster.add(fast)
        cluster.run_until(1000)
        assert cluster.now_ms == 1000
        assert 7_600_000 <= slow.cycle < 7_600_000 + 10
        assert 8_800_000 <= fast.cycle < 8_800_000 + 10
        assert u16(fast, RESULT + 1) > u16(slow, RESULT + 1) * 1.1


# ------------------------------------------------------------ symbols and figures
GAME_LIKE = r"""
#include <avr/io.h>
static volatile uint8_t kind = 3;
static volatile uint16_t hp;
void __attribute__((noinline)) setup(void) { *(volatile uint8_t *)0x300 = kind; hp = 5; }
void __attribute__((noinline)) loop(void) { hp++; }
int main(void) { setup(); for (;;) loop(); }
"""


def test_symbols_are_read_from_the_elf_by_their_source_names(tmp_path):
    elf = compile_avr(tmp_path, "game", GAME_LIKE, cxx=True)
    from blinkc.cosim.firmware import _symbols

    objects, functions = _symbols(elf)
    assert objects["kind"].size == 1 and objects["hp"].size == 2
    assert objects["kind"].address >= 0x100
    assert "setup" in functions and "loop" in functions


def test_cxx_names_are_plain():
    assert _plain("_ZL4kind") == "kind"
    assert _plain("_Z5setupv") == "setup"
    assert _plain("_Z4loopv") == "loop"
    assert _plain("_Z3addii") == "_Z3addii"      # arguments: left as it is
    assert _plain("mainx") == "mainx"
    assert _plain("_ZL4ship.lto_priv.13") == "ship"   # link-time optimisation's suffix
    assert _plain(".do_clear_bss_loop") == ".do_clear_bss_loop"


def test_initial_state_is_written_just_before_setup(tmp_path):
    elf = compile_avr(tmp_path, "game", GAME_LIKE, text_at=0x3800, cxx=True)
    from blinkc.cosim.firmware import load_firmware

    image = hex_of(tmp_path, elf)
    merged = tmp_path / "game_image.hex"
    image.write_hex_file(str(merged))
    fw = load_firmware(merged, elf)
    tile = CosimTile("t", fw, SERIAL)
    tile.set_initial({fw.objects["kind"].address: 7})
    tile.run(10_000)
    assert tile.read(RESULT, 1) == b"\x07"         # setup saw the layout's value, not 3


RECURSES = r"""
#include <avr/io.h>
uint8_t __attribute__((noinline)) down(uint8_t n) {
    volatile uint8_t pad[8];
    pad[0] = n;
    return n ? (uint8_t)(down(n - 1) + pad[0]) : 0;
}
int main(void) { *(volatile uint8_t *)0x300 = down(DEPTH); for (;;); }
"""


def test_the_stack_high_water_mark_grows_with_the_depth_of_calls(tmp_path):
    free = {}
    for depth in (10, 20):
        (tmp_path / str(depth)).mkdir()
        fw = boot_firmware(tmp_path / str(depth), RECURSES.replace("DEPTH", str(depth)))
        tile = CosimTile("t", fw, SERIAL)
        tile.run(50_000)
        free[depth] = tile.figures()["stack_free_min"]
    assert 0 < free[20] < free[10]
    assert free[10] - free[20] >= 10 * (8 + 2)     # ten more frames: 8 bytes and a return
    assert free[10] < 1024


def test_a_stack_close_to_the_globals_is_warned_about():
    assert not [x for x in Figures(STACK_WARN_BYTES, 1000, 1.0).lines() if "warning" in x]
    close = Figures(STACK_WARN_BYTES - 1, 1000, 1.0).lines()
    assert any("warning" in x and f"{STACK_WARN_BYTES - 1} bytes" in x for x in close)


TIMED_LOOP = r"""
#include <avr/io.h>
#include <util/delay_basic.h>
void __attribute__((noinline)) loop(void) { _delay_loop_2(10000); }   /* 4 cycles a turn */
int main(void) { for (;;) loop(); }
"""


def test_the_longest_loop_is_measured_in_cycles(tmp_path):
    tile = CosimTile("t", boot_firmware(tmp_path, TIMED_LOOP), SERIAL)
    tile.run(F_CPU // 10)
    f = tile.figures()
    assert f["loops"] >= 15
    assert 40_000 <= f["loop_max_cycles"] <= 40_050
    assert f["loop_max_us"] == pytest.approx(5000, abs=10)


SLOW_BOOT = r"""
#include <avr/io.h>
#include <util/delay.h>
volatile uint16_t blinkbios_pixel_block[6];   /* where a BIOS keeps the faces' colours */
void __attribute__((noinline)) setup(void) { blinkbios_pixel_block[0] = 2; }
void __attribute__((noinline)) loop(void) {
    _delay_ms(5);
    blinkbios_pixel_block[0] ^= 2;   /* toggles each 5 ms */
    blinkbios_pixel_block[1] = 4;
}
extern "C" void __attribute__((noinline)) boot_vector8(void) { asm volatile(""); }  /* display */
int main(void) { _delay_ms(50); setup(); for (;;) { loop(); boot_vector8(); } }  /* 50 ms boot */
"""


def _slow_boot(tmp_path) -> CosimTile:
    elf = compile_avr(tmp_path, "slow", SLOW_BOOT, text_at=0x3800, cxx=True)
    image = hex_of(tmp_path, elf)
    image.write_hex_file(str(tmp_path / "slow.hex"))
    from blinkc.cosim.firmware import load_firmware

    return CosimTile("t", load_firmware(tmp_path / "slow.hex", elf), SERIAL)


def test_a_booted_tile_starts_its_game_at_time_0_of_the_cluster(tmp_path):
    tile = _slow_boot(tmp_path)
    boot = tile.boot()
    assert 49 <= boot * 1000 / F_CPU <= 52                 # the 50 ms before setup()
    assert tile.pc == tile.firmware.function("setup")     # stopped on its first instruction
    with Cluster() as cluster:
        cluster.add(tile)
        tile.watch_colors()
        cluster.run_until(22)
        assert cluster.now_ms == 22
        changes = cluster.color_changes()
    # Colours are taken as each pass hands them to the display (what a pass committed), at
    # the game's own times: every 5 ms from setup(), not from power-up.
    assert [round(at) for at, _, _ in changes] == [5, 10, 15, 20]
    assert changes[0][2][:2] == [0, avr_color(4)] and changes[1][2][0] == avr_color(2)


def test_a_booted_tile_added_to_a_running_cluster_starts_its_game_then(tmp_path):
    # A scenario's `add`: the emulator starts the added tile's game when it is added.
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, later = _slow_boot(tmp_path / "a"), _slow_boot(tmp_path / "b")
    first.boot()
    later.boot()
    with Cluster() as cluster:
        cluster.add(first)
        cluster.run_until(12)
        cluster.add(later)
        later.watch_colors()
        cluster.run_until(33)
        changes = [(round(at), name) for at, name, _ in cluster.color_changes()]
    assert changes == [(17, "t"), (22, "t"), (27, "t"), (32, "t")]   # every 5 ms from 12


def test_a_tile_that_never_reaches_setup_is_an_error(tmp_path):
    from blinkc.cosim.firmware import FirmwareError

    never = SLOW_BOOT.replace("_delay_ms(50); setup();", "for (;;); setup();")
    elf = compile_avr(tmp_path, "never", never, text_at=0x3800, cxx=True)
    hex_of(tmp_path, elf).write_hex_file(str(tmp_path / "never.hex"))
    from blinkc.cosim.firmware import load_firmware

    tile = CosimTile("t", load_firmware(tmp_path / "never.hex", elf), SERIAL)
    with pytest.raises(FirmwareError, match="did not reach setup"):
        tile.boot()
