"""What the page is sent: frames, the inspector's view of a tile, the trace of the last seconds."""

from __future__ import annotations

from blinkc.blinklib import color
from blinkc.sim import Session, load_source, view

from .helpers import ROOT, ship_session
from .test_session import click


def test_a_frame_has_every_tile_and_its_five_bit_colours():
    session = ship_session()
    frame = view.frame(session)
    world = session.world
    assert [t["name"] for t in frame["tiles"]] == [t.name for t in world.tiles]
    assert all(t["colors"] == world.colors(world.tile(t["name"])) for t in frame["tiles"])
    assert all(0 <= c < 1 << 15 for t in frame["tiles"] for c in t["colors"])


def test_the_inspector_shows_state_faces_messages_on_their_way_and_timers():
    session = ship_session()
    click(session, "z")
    for _ in range(60):  # the click window closes: the lasers go out, all in one pass
        session.run_until(session.now_ms + 5)
        z = view.inspect(session, "z")
        if z["messages"]:
            break
    assert z["program"] == "pirates_lasers" and z["state"]["kind"] == "HAZARD"
    lasers = [(m["face"], m["message"]) for m in z["messages"]]
    assert lasers == [(0, "Laser(3)"), (2, "Laser(3)"), (4, "Laser(3)")]
    assert all(m["where"] == "on the wire, awaiting ack" for m in z["messages"])
    assert z["faces"][0]["neighbour"] == ["h1", 3]
    assert not z["faces"][0]["expired"] and 0 <= z["faces"][0]["expires_in_ms"] <= 200
    h1 = view.inspect(session, "h1")
    for _ in range(25):                              # the laser lands within half a second
        if h1["state"]["hp"] != 5:
            break
        session.run_until(session.now_ms + 20)
        h1 = view.inspect(session, "h1")
    assert h1["state"]["hp"] == 4                    # hit
    assert h1["faces"][3]["in"] == z["faces"][0]["out"] or h1["faces"][3]["in_flight"]
    running = [t for t in h1["timers"] if t["running"]]
    assert running and all(0 < t["left_ms"] <= 1000 for t in running)  # its hit flash
    session.run_until(session.now_ms + 1500)
    later = view.inspect(session, "z")
    assert later["messages"] == [] and not any(t["running"] for t in later["timers"])


def test_a_face_without_a_neighbour_has_no_message_on_it():
    session = ship_session()
    h2 = view.inspect(session, "h2")
    assert h2["faces"][0]["neighbour"] is None and h2["faces"][0]["expired"]
    assert h2["messages"] == []  # (outside a session the engine keeps a time in tx_code)
    assert all(s is None for f, s in enumerate(h2["engine"]["sending"])
               if h2["faces"][f]["neighbour"] is None)


def test_several_programs_in_one_cluster_are_named():
    session = Session(load_source(str(ROOT / "examples" / "flower.layout")))
    session.run_until(1000)
    names = {t.name: view.inspect(session, t.name)["program"] for t in session.world.tiles}
    assert names["mid"] == "ClickCounter"
    assert {n for n, p in names.items() if p == "NeighbourColours"} == {
        "n", "nw", "ne", "sw", "se", "s"}
    mid = view.inspect(session, "mid")
    assert mid["messages"] == [] and mid["timers"] == []  # not a blinkc game: no engine


def test_the_trace_of_one_tile_or_of_all():
    session = ship_session()
    click(session, "z")
    session.run_until(session.now_ms + 500)
    everything = view.trace(session)
    assert everything["tile"] is None and everything["seconds"] == session.trace_seconds
    assert {r["tile"] for r in everything["records"]} >= {"z", "h1", "h4", "h6"}
    times = [r["t"] for r in everything["records"]]
    assert times == sorted(times) and times[-1] - times[0] <= session.trace_seconds * 1e6
    z = view.trace(session, "z")
    assert z["records"] and {r["tile"] for r in z["records"]} <= {"z", None}
    assert any(r["ev"] == "button" and "single" in r["events"] for r in z["records"])


def test_a_triple_click_is_a_multi_click_of_three():
    session = Session(load_source(str(ROOT / "examples" / "flower.layout")))
    session.run_until(1000)
    for _ in range(3):
        click(session, "mid", 60)
        session.run_until(session.now_ms + 60)
    session.run_until(session.now_ms + 400)
    mid = view.inspect(session, "mid")
    assert mid["button"]["clicks"] == 3
    assert mid["state"]["multis"] == 1 and mid["state"]["clicks"] == 0
    assert [i.lines for i in session.log] == [(f"{w} mid",) for w in ("press", "release") * 3]


def test_a_frame_labels_the_gesture_a_button_just_made():
    session = Session(load_source(str(ROOT / "examples" / "flower.layout")))
    session.run_until(1000)

    def label() -> str | None:
        return next(t["gesture"] for t in view.frame(session)["tiles"] if t["name"] == "mid")

    assert label() is None
    for presses, expected in ((1, "click"), (2, "double"), (3, "×3")):
        for _ in range(presses):
            click(session, "mid", 60)
            session.run_until(session.now_ms + 60)
        session.run_until(session.now_ms + 350)  # the click window has closed
        assert label() == expected
        session.run_until(session.now_ms + view.GESTURE_MS)
        assert label() is None
    session.act(["press mid"])
    session.run_until(session.now_ms + 1300)
    assert label() == "long"


def test_the_inspector_shows_a_per_face_field_as_six_values(tmp_path):
    layout = tmp_path / "pair.layout"
    layout.write_text("tile a at 0,0 mark=STAR\ntile b at 0,1 hits=0,0,0,0,0,2\n")
    session = Session(load_source(str(ROOT / "tests" / "golden" / "games" / "tally.py"),
                                  str(layout)))
    session.run_until(1000)
    click(session, "a")
    session.run_until(session.now_ms + 1500)  # a's face 3 (S) hits b's face 0 (N)
    assert view.inspect(session, "b")["state"]["hits"] == [1, 0, 0, 0, 0, 2]
    assert view.inspect(session, "a")["state"]["mark"] == ["STAR"] * 6


def test_the_trace_names_colours_as_a_game_maker_does():
    # (It showed colors=[13312, ...]: 5-bit integers.)
    session = ship_session(boot=False)
    session.run_until(3000)
    shown = [r["colors"] for r in view.trace(session)["records"] if r["ev"] == "colors"]
    assert shown, "the ship lights up at power-up"
    names = {c for colors in shown for c in colors}
    assert all(isinstance(c, str) for c in names)
    assert all(c in color.NAMED or (c.startswith("#") and len(c) == 7) for c in names)
    assert names & set(color.NAMED) and any(c.startswith("#") for c in names)
    assert view.color_name(color.RED) == "RED" and view.color_name(0) == "OFF"
    assert view.color_name(color.rgb5(31, 15, 0)) == "ORANGE"
    assert view.color_name(color.rgb5(1, 2, 3)) == "#081018"


def test_the_emulators_idle_skipping_is_not_the_tiles_sleep():
    # The emulator skips the loops of a settled ship (it sends nothing a program could tell
    # apart); the trace shows none of that as the tiles' sleep, which only a 6 s hold is.
    session = ship_session(boot=False)
    session.run_until(8000)
    assert session.world.stats["skipped"] > 0  # the ship at rest was skipped
    events = {r["ev"] for r in view.trace(session)["records"]}
    assert "sleep" not in events and "wake" not in events  # nobody held a button 6 s


def test_a_game_with_one_message_code_shows_the_messages_it_counts_per_face(tmp_path):
    # Its queue is a count per face (protocol.py, ONE_CODE): the inspector lists them as
    # queued on their face, as it lists a queue's entries.
    layout = tmp_path / "pair.layout"
    layout.write_text("tile a at 0,0\ntile b at 0,1\n")
    session = Session(load_source(str(ROOT / "tests" / "games" / "fixtures" / "beat_game.py"),
                                  str(layout)))
    session.run_until(5000)
    click(session, "a")
    session.run_until(session.now_ms + 100)
    click(session, "a")  # a double click: three Beats out of face 3
    seen = []
    for _ in range(100):
        session.run_until(session.now_ms + 5)
        seen = view.inspect(session, "a")["messages"]
        if seen:
            break
    assert seen == [{"face": 3, "message": "Beat", "where": "on the wire, awaiting ack"},
                    {"face": 3, "message": "Beat", "where": "queued"},
                    {"face": 3, "message": "Beat", "where": "queued"}]
