"""The wire's codes with values wider than a code (blinkc/dsl/wire.py), for any mix of
messages, payloads and floods: every code is distinct, none is idle (0) or HELLO, the data
codes are a power of two, a wide value's data codes hold all its bits, and a message stays
plain whenever every message fits plain."""

from hypothesis import given, settings
from hypothesis import strategies as st

from blinkc.dsl.game import Game
from blinkc.dsl.wire import FACE_VALUE_BITS, allocate, bits_for

payloads = st.one_of(st.none(), st.integers(1, 300).map(lambda n: range(n)),
                     st.integers(1, 65536).map(lambda n: range(0, n)))
floods = st.tuples(st.sampled_from([None, "sum", "min", "count"]),
                   st.one_of(st.none(), st.integers(1, 4096).map(lambda n: range(0, n))))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(messages=st.lists(payloads, max_size=6), flooded=st.lists(floods, max_size=3),
       broadcast=st.integers(0, 2))
def test_codes_are_distinct_and_wide_values_fit(messages, flooded, broadcast):
    game = Game("g")
    for i in range(broadcast):
        game.field(bool, broadcast=True).name = f"b{i}"
    decls = [game.message(f"M{i}", payload=p) for i, p in enumerate(messages)]
    for i, (combine, payload) in enumerate(flooded):
        if combine:
            game.gather(f"G{i}", combine=combine, payload=payload or range(0, 256))
        else:
            game.flood(f"F{i}", payload=payload)
    errors: list[str] = []
    wire = allocate(game, [], lambda loc, msg, hint: errors.append(msg))
    if errors:  # only when even the wide form cannot fit the face value
        assert any("the face value needs" in e for e in errors), errors
        return
    codes = [c for c, _ in wire.codes]
    if not codes:
        return  # no message, no flood: no protocol at all
    assert len(codes) == len(set(codes)) and 0 not in codes and wire.hello not in codes
    assert max(codes, default=0) < wire.hello < 32  # (a queue entry holds 5 bits of code)
    if wire.data_bits:
        data = [c for c, label in wire.codes if label.startswith("data ")]
        assert data == list(range(wire.data_code, wire.data_code + (1 << wire.data_bits)))
        assert all(c < wire.flood_code for c in data)
    for m in decls:
        chunks = wire.wide.get(id(m))
        if chunks is not None:
            assert chunks * wire.data_bits >= bits_for(m.payload.start, m.payload.stop - 1)
    for k, chunks in wire.flood_chunks.items():
        p = game.floods[k].payload
        assert chunks * wire.data_bits >= bits_for(p.start, p.stop - 1)
    plain_codes = sum(len(p) if p else 1 for p in messages) + 4 * len(flooded)
    if plain_codes + 2 <= 1 << (FACE_VALUE_BITS - 1 - broadcast) and not any(
            p for _, p in flooded) and not any(c for c, _ in flooded):
        assert wire.wide == {} and wire.data_bits == 0  # everything fits plain: plain it is
