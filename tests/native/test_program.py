"""NativeProgram: what crosses between the world's Blinklib object and the C tile each pass."""

from __future__ import annotations

import ctypes

import pytest

from blinkc.blinklib import NEVER, Blinklib
from blinkc.blinklib.api import BUTTON_PRESSED, BUTTON_SINGLECLICKED
from blinkc.blinklib.color import GREEN, ORANGE, RED, dim
from blinkc.native import abi, load_sketch_text
from blinkc.world import Faults, World

RANDOMIZING = """
word first;
void setup() { randomize(); first = random(1000); setValueSentOnFace(first >> 6, 0); }
void loop() {}
"""

CONSUMER = """
byte singles, woke, changes;
void setup() {}
void loop() {
  if (buttonSingleClicked()) singles++;
  if (hasWoken()) woke++;
  if (didValueOnFaceChange(2)) changes++;
  setValueSentOnFace(singles, 0);
  setValueSentOnFace(woke, 1);
  setValueSentOnFace(changes, 2);
  setValueSentOnFace(getSerialNumberByte(3), 3);
  setValueSentOnFace(buttonDown() ? 1 : 0, 4);
  setValueSentOnFace(isAlone() ? 1 : 0, 5);
}
"""

DATAGRAMS = """
byte got[IR_DATAGRAM_LEN];
byte gotLen;
void setup() {}
void loop() {
  if (buttonSingleClicked()) {
    const byte msg[] = {7, 8, 9};
    sendDatagramOnFace(msg, sizeof(msg), 1);
  }
  FOREACH_FACE(f) {
    if (isDatagramReadyOnFace(f)) {
      gotLen = getDatagramLengthOnFace(f);
      for (byte i = 0; i < gotLen; i++) got[i] = getDatagramOnFace(f)[i];
      markDatagramReadOnFace(f);
    }
  }
  setValueSentOnFace(gotLen, 0);
  setValueSentOnFace(got[2], 2);
}
"""

HOOKED = """
byte level = 3;
bool lit[FACE_COUNT];
void setup() {}
void loop() { if (buttonSingleClicked()) level++; lit[level % FACE_COUNT] = true; }
#ifdef BLINKC_HOST
uint32_t blinkc_quiet_until(void) { return BLINKC_NEVER; }
void blinkc_display(void) { setColor((millis() / 1000) % 2 ? RED : GREEN); }
const blinkc_field_t blinkc_state_fields[] = {
  BLINKC_FIELD(level), BLINKC_ARRAY_FIELD(lit), BLINKC_FIELDS_END};
#endif
"""


@pytest.fixture(scope="module")
def build(gxx):
    return lambda text, name: load_sketch_text(text, name, check_int16=False)


def test_the_struct_formats_match_the_c_layout(probe_sketch):
    program = probe_sketch()
    assert program.lib.blinkc_tile_size() == ctypes.sizeof(abi.TileState) == 296
    t = abi.TileState
    assert abi.PASS_IN.offset + abi.PASS_IN.size == t.woken.offset + 1
    assert abi.PASS_OUT.offset + abi.PASS_OUT.size == t.datagram_read.offset + 1
    # Write through ctypes, read through the fast formats, and back.
    program.tile.now = 123456
    program.tile.expire_time[5] = 99
    program.tile.woken = 1
    program.tile.pixels[2] = 0x7FFF
    program.tile.datagram_read = 0x21
    mem = (ctypes.c_char * ctypes.sizeof(t)).from_address(ctypes.addressof(program.tile))
    packed = abi.PASS_IN.unpack_from(mem, abi.PASS_IN.offset)
    item = abi.PASS_IN.item
    assert packed[item["now"]] == 123456 and packed[item["expire_time"]][5] == 99
    assert packed[item["woken"]] == 1
    out = abi.PASS_OUT.unpack_from(mem, abi.PASS_OUT.offset)
    assert out[abi.OUT["pixels"]][2] == 0x7FFF and out[abi.OUT["datagram_read"]] == 0x21


def test_the_tile_header_is_what_abi_py_declares_and_a_stale_one_is_refused(tmp_path):
    abi.check_header()                       # the committed blinkc_tile.h is up to date
    stale = tmp_path / "blinkc_tile.h"
    stale.write_text(abi.header().replace("uint8_t woken;", "uint8_t woken_by_hand;"))
    with pytest.raises(abi.StaleHeader, match=r"python blinkc/native/abi\.py"):
        abi.check_header(stale)


def test_a_reordered_declaration_moves_where_a_value_goes_never_which_value_it_is():
    fields = list(abi.TILE_FIELDS)
    i, j = (next(k for k, f in enumerate(fields) if f.name == n) for n in ("button_down", "click_count"))
    fields[i], fields[j] = fields[j], fields[i]
    swapped = abi.PassCopy("now", "woken", tuple(fields))
    for copy in (abi.PASS_IN, swapped):
        buf = bytearray(copy.offset + copy.size)
        copy.pack_into(buf, copy.offset, now=1, expire_time=range(6), in_value=[7] * 6,
                       button_down=1, click_count=3, start_state=0, rng_state=5, entropy=6,
                       button_flags=0, woken=0)
        values = copy.unpack_from(buf, copy.offset)
        assert values[copy.item["click_count"]] == 3 and values[copy.item["button_down"]] == 1
    assert swapped.item["click_count"] != abi.PASS_IN.item["click_count"]
    with pytest.raises(TypeError):           # a field left out is an error, not a zero
        abi.PASS_IN.pack_into(bytearray(200), 0, now=1)


def test_randomize_matches_the_runtime_and_blocks_half_a_second(build):
    program = build(RANDOMIZING, "randomizing")()
    api = Blinklib(entropy=12345)
    program.setup(api)
    reference = Blinklib(entropy=12345)
    reference.randomize()
    first = reference.random(1000)
    assert api.extra_cpu_ms == 512
    assert api.out_value[0] == first >> 6
    assert api.rng.state == reference.rng.state
    assert api._entropy == reference._entropy


def test_inputs_in_and_consumed_flags_out(build):
    program = build(CONSUMER, "consumer")()
    api = Blinklib(serial=bytes(range(10, 19)))
    api.now = 100
    program.setup(api)
    api.button_flags = BUTTON_SINGLECLICKED | BUTTON_PRESSED
    api.button_down = True
    api.woken = True
    api.in_value[2] = 17
    api.expire_time[0] = 300
    program.loop(api)
    # The single click is taken (cleared); the press event the sketch did not read stays.
    assert api.button_flags == BUTTON_PRESSED
    assert api.woken is False
    assert api.out_value == [1, 1, 1, 13, 1, 0]
    program.loop(api)
    assert api.out_value[:3] == [1, 1, 1]  # events are read once; the value did not change again
    api.now = 301
    program.loop(api)
    assert api.out_value[5] == 1  # every face expired now: alone


def test_two_tiles_exchange_a_datagram_through_the_world(build):
    sketch = build(DATAGRAMS, "datagrams")
    world = World(seed=2)
    a, b = sketch(), sketch()
    world.add_tile("a", a, pos=(0, 0))
    world.add_tile("b", b, pos=(1, -1))  # a's face 1 touches b's face 4
    world.run_for(300)
    world.button("a", True)
    world.run_for(60)
    world.button("a", False)
    world.run_for(800)
    assert world.tile("b").api.out_value[0] == 3
    assert world.tile("b").api.out_value[2] == 9
    assert world.tile("b").api.in_datagram[4] is None  # marked read
    assert world.tile("a").api.out_value[0] == 0


def test_optional_hooks_reach_the_world(build):
    program = build(HOOKED, "hooked")()
    assert program.state() == {"level": 3, "lit": [False] * 6}
    api = Blinklib()
    api.now = 2500
    program.setup(api)
    program.loop(api)
    assert program.state() == {"level": 3, "lit": [False, False, False, True, False, False]}
    assert program.quiet_until(api) == NEVER
    program.display(api)
    assert api.pixels == [GREEN] * 6
    api.now = 3500
    program.display(api)
    assert api.pixels == [RED] * 6

    world = World(seed=1)
    world.add_tile("h", build(HOOKED, "hooked")(), pos=(0, 0))
    world.run_for(1000)
    assert world.stats["skipped"]  # quiet_until let the world skip its loops
    assert world.snapshot()[0]["state"]["level"] == 3


def test_a_plain_sketch_offers_no_optional_hooks(probe_sketch):
    program = probe_sketch()
    for hook in ("quiet_until", "display", "state"):
        assert not hasattr(program, hook)


def test_colours_cross_in_the_runtime_layout(build):
    program = build("void setup(){}\nvoid loop(){ setColorOnFace(dim(ORANGE, 200), 4); }\n",
                    "orange")()
    api = Blinklib()
    program.setup(api)
    program.loop(api)
    assert api.pixels[4] == dim(ORANGE, 200)


def test_native_and_python_tiles_share_a_world(spinner):
    from blinkc.programs import NeighbourColours

    world = World(seed=9, faults=Faults(skew=0.01))  # real clocks drift: no lock-step
    python_tile = NeighbourColours()
    world.add_tile("py", python_tile, pos=(0, 0))
    world.add_tile("native", spinner(), pos=(1, -1))  # touches py's face 1
    world.run_for(600)
    assert python_tile.count == 1
    assert world.tile("native").api.in_value[4] == 1  # NeighbourColours sends 1
    assert world.tile("py").api.in_value[1] == 1      # Spinner sends READY = 1
