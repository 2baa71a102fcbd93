"""The functions blinkc writes around the game's handlers: the dispatch.

`buttons` reads each button event the game handles, `deliver` and `bounce` pick a message's
handler by its code (and answer floods), `on_flood`, `on_flood_done`, `on_timer` and the
neighbour hooks pick handlers by index, `broadcast_bits` packs the broadcast values into the
face value (and one getter per value reads a neighbour's), `display` and `setup` call the
game's. Each says which game line it came from (the handler's, or the declaration's).
"""

from __future__ import annotations

from collections.abc import Callable

from ..ir.nodes import (
    BOOL,
    I16,
    I32,
    U8,
    U16,
    U32,
    Assign,
    BoolOp,
    Call,
    Const,
    Expr,
    ExprStmt,
    For,
    Function,
    If,
    Index,
    IntType,
    Local,
    Name,
    Param,
    Return,
    SrcLoc,
    Stmt,
    UnOp,
)
from .compiler import Symbols
from .derived import derived_key
from .game import FieldDecl, FloodDecl, Game, Handler, MessageDecl
from .types import binop, bool_op, compare, cond, convert, not_, storage_type
from .wire import Wire, bits_for

#: Where blinkc's own code comes from (no game line).
BLINKC = SrcLoc("blinkc", 0)


def generate_dispatch(game: Game, sym: Symbols, wire: Wire,
                      handlers_of: Callable[[str], list[Handler]],
                      handler_fns: dict[int, str],
                      within_fns: dict[int, str] | None = None,
                      randomize: bool | None = None,
                      message_within_fns: dict[int, str] | None = None) -> list[Function]:
    """The dispatch functions of `game`, whose handlers are compiled as `handler_fns`
    (id(handler) -> function name), whose floods' groups as `within_fns` (flood index ->
    function name) and whose messages' groups as `message_within_fns` (message index ->
    function name); `setup` calls randomize() when `randomize` (default: the game's
    setting)."""
    made: list[Function] = []

    def fn(name: str, params: tuple[Param, ...], ret: IntType | None, body: list[Stmt],
           doc: str) -> None:
        ranged = tuple(Param(p.name, p.type, (0, 5)) if p.name == "face" else p for p in params)
        made.append(Function(name, ranged, ret, tuple(body), BLINKC, doc, "dispatch"))

    def call(h: Handler, args: tuple[Expr, ...]) -> Stmt:
        return ExprStmt(Call(handler_fns[id(h)], args, None), h.loc)

    face, code, k = Name("face", U8, "param"), Name("code", U8, "param"), Name("k", U8, "param")
    bit = Name("bit", U8, "param")  # (deliver's: the bit of `face`)
    # Buttons: read each event the game handles (reading consumes it).
    body: list[Stmt] = []
    for event, api in (("press", "buttonPressed"), ("release", "buttonReleased"),
                       ("click", "buttonSingleClicked"),
                       ("double_click", "buttonDoubleClicked"), ("multi_click", "buttonMultiClicked"),
                       ("long_press", "buttonLongPressed"),
                       ("long_long_press", "buttonLongLongPressed")):
        hs = handlers_of(event)
        if not hs:
            continue
        test = Call(api, (), BOOL, builtin=True, is_bool=True)
        inner: list[Stmt] = []
        for h in hs:
            stmt = call(h, ())
            if h.alone is not None:
                alone: Expr = Call("isAlone", (), BOOL, builtin=True, is_bool=True)
                if not h.alone:
                    alone = UnOp("not", alone, BOOL, True)
                stmt = If(alone, (stmt,), (), h.loc)
            inner.append(stmt)
        body.append(If(test, tuple(inner), (), hs[0].loc))
    fn("buttons", (), None, body, "Run the handlers of the button events the game uses.")

    # Messages arriving, and messages that found nobody to take them.
    deliver: list[Stmt] = []
    bounce: list[Stmt] = []
    if wire.data_bits:
        # A data code: its bits go into the value of the code that follows it.
        first = Const(wire.data_code, U8, name="engine:DATA_CODE")
        mask = Const((1 << wire.data_bits) - 1, U8, name="engine:DATA_MASK")
        last = convert(binop("+", Const(wire.data_code, U8, name="engine:DATA_CODE"), mask), U8)
        deliver.append(If(BoolOp("and", (compare(">=", code, first), compare("<=", code, last))),
                          (ExprStmt(Call("wide_data", (code, face), None), BLINKC),), (), BLINKC))
    def is_message(m: MessageDecl) -> Expr:
        """Whether `code` is one of message m's codes."""
        base, payload, _ = sym.messages[id(m)]
        n = len(payload) if payload is not None and id(m) not in wire.wide else 1
        named = f"message:{m.name}"  # (the sketch says MSG_LASER)
        if n == 1:
            return compare("==", code, Const(base, U8, name=named))
        end = derived_key("codes_end", ("message", m.name))  # (MSG_LASER_END)
        return BoolOp("and", (compare(">=", code, Const(base, U8, name=named)),
                              compare("<", code, Const(base + n, U8, name=end))))

    for m in game.messages:
        base, payload, _ = sym.messages[id(m)]
        wide = id(m) in wire.wide
        test = is_message(m)
        named = f"message:{m.name}"
        payload_arg: tuple[Expr, ...] = ()
        if wide:
            assert payload is not None
            mask = _mask(payload, ("message", m.name))
            payload_arg = (wide_value(payload, Call("wide_in", (face, mask), U16)),)
        elif payload is not None:
            payload_arg = (convert(binop("+", binop("-", code, Const(base, I16, name=named)),
                                         Const(payload.start, I16)), U8),)
        for event, out in (("message", deliver), ("bounce", bounce)):
            calls = [call(h, (face, *payload_arg) if event == "message"
                                        else (face,))
                     for h in handlers_of(event) if h.target is m]
            if calls:
                out.append(If(test, tuple(calls), (), m.loc))
    if game.floods:
        # Flood codes come in pairs (wave, echo) per slot from FLOOD_CODE on: one test for
        # them all.
        first = "engine:FLOOD_CODE"
        rel = convert(binop("-", code, Const(wire.flood_code, I16, name=first)), U8)
        slot = convert(binop(">>", rel, Const(1, I16)), U8)
        shift = Const(sym.constants["FLOOD_CODES_SHIFT"], I16, name="engine:FLOOD_CODES_SHIFT")
        is_flood = compare(">=", code, Const(wire.flood_code, U8, name=first))
        loc = game.floods[0].loc
        is_echo = compare("!=", binop("&", rel, Const(1, I16)), Const(0, I16))
        answered: list[Stmt] = [ExprStmt(Call("flood_answered", (slot, bit), None), loc)]
        received: list[Stmt] = [ExprStmt(Call("flood_receive", (slot, face, bit), None), loc)]
        # A valued wave's value, a gather's subtree: read before the wave or echo is taken
        # (one call for the floods whose values are read alike: one test of k for each).
        reads: dict[tuple[str, Expr], tuple[list[Stmt], list[Expr], SrcLoc, list[FloodDecl]]] = {}
        for kk in sorted(wire.flood_chunks):
            fl = game.floods[kk]
            assert fl.payload is not None
            this = compare("==", convert(binop(">>", rel, shift), U8),
                           Const(kk, U8, name=f"flood:{fl.name}"))
            into, name = (answered, "gather_echo") if fl.combine else (received, "flood_value_in")
            read = reads.setdefault((name, _mask(fl.payload)), (into, [], fl.loc, []))
            read[1].append(this)
            read[3].append(fl)
        for (name, _), (into, tests, at, floods) in reads.items():
            # (The mask is named after the floods that share the read.)
            assert floods[0].payload is not None
            mask = _mask(floods[0].payload, *(("flood", fl.name) for fl in floods))
            args = (slot, face, bit, mask) if name == "gather_echo" else (slot, face, mask)
            into.insert(len(into) - 1, If(bool_op("or", tests) if len(tests) > 1 else tests[0],
                                          (ExprStmt(Call(name, args, None), at),), (), at))
        deliver.append(If(is_flood, (If(is_echo, tuple(answered), tuple(received), loc),), (),
                          loc))
        # (A flood's messages never bounce: a link that ends answers its waits itself.)
    fn("deliver", (Param("code", U8), Param("face", U8), Param("bit", U8)), None, _chain(deliver),
             "A message arrived on `face` (of bit `bit`): run its handler.")
    fn("bounce", (Param("code", U8), Param("face", U8)), None, _chain(bounce),
             "A message could not be delivered out of `face`: nobody is there.")

    for event, fname, doc in (("flood", "on_flood", "Flood k reached this tile."),
                              ("flood_done", "on_flood_done",
                               "Flood k, started here, has reached every tile.")):
        stmts = []
        for kk, fl in enumerate(game.floods):
            hs = [h for h in handlers_of(event) if h.target is fl]
            if fl.combine is not None and event == "flood":
                # A gather: this tile's value (1 each for a count) joins the subtree's.
                calls: list[Stmt] = []
                if fl.combine == "count":
                    calls = [call(h, ()) for h in hs]
                    mine: Expr = Const(1, U16)
                elif hs:
                    # (In a local: the handler runs once, and its value is clamped.)
                    assert fl.payload is not None
                    ret = gather_return_type(fl.payload)
                    calls.append(Local("mine", ret, Call(handler_fns[id(hs[0])], (), ret),
                                       hs[0].loc))
                    mine = _clamp(Name("mine", ret, "local"), fl.payload, _max_key(fl))
                else:
                    mine = _identity(fl)
                calls.append(ExprStmt(Call("gather_enter", (k, convert(mine, U16)), None),
                                      fl.loc))
            elif fl.combine is not None:
                assert fl.payload is not None
                total = wide_value(fl.payload, Call("gather_total", (k,), U16))
                calls = [call(h, (total,)) for h in hs]
            elif fl.payload is not None and event == "flood":
                value = wide_value(fl.payload, Call("flood_value_of", (k,), U16))
                calls = [call(h, (value,)) for h in hs]
            else:
                calls = [call(h, ()) for h in hs]
            if calls:
                stmts.append(If(compare("==", k, Const(kk, U8, name=f"flood:{fl.name}")),
                                tuple(calls), (), fl.loc))
        fn(fname, (Param("k", U8),), None, _chain(stmts), doc)
    # A flood's group: may its wave cross `face`? (Only games with a group call it.)
    tests: list[Stmt] = []
    for kk, fname in sorted((within_fns or {}).items()):
        fl = game.floods[kk]
        tests.append(If(compare("==", k, Const(kk, U8, name=f"flood:{fl.name}")),
                        (Return(Call(fname, (face,), BOOL, is_bool=True), fl.loc),), (), fl.loc))
    fn("flood_within", (Param("k", U8), Param("face", U8)), BOOL,
       [*tests, Return(Const(1, BOOL, is_bool=True), BLINKC)],
       "May a wave of flood k cross `face` (its group's predicate; True for a flood without one)?")
    # A message's group: a send outside it is not transmitted but bounces at once (only
    # games with such a message have these; the sender alone decides: docs/dsl.md).
    if message_within_fns:
        groups: list[Stmt] = []
        for mm, fname in sorted(message_within_fns.items()):
            m = game.messages[mm]
            groups.append(If(is_message(m), (Return(Call(fname, (face,), BOOL, is_bool=True),
                                                    m.loc),), (), m.loc))
        fn("message_within", (Param("code", U8), Param("face", U8)), BOOL,
           [*groups, Return(Const(1, BOOL, is_bool=True), BLINKC)],
           "May a message of this code go out of `face` (its group's predicate; True for a "
           "message without one)?")
        inside = Call("message_within", (code, face), BOOL, is_bool=True)
        bounced = ExprStmt(Call("bounce", (code, face), None), BLINKC)
        fn("send_grouped", (Param("code", U8), Param("face", U8)), None,
           [If(inside, (ExprStmt(Call("send_code", (code, face), None), BLINKC),), (bounced,),
               BLINKC)],
           "Send a message of a group: queued if `face` is in its group, else bounced at once.")
        if any(id(game.messages[mm]) in wire.wide for mm in message_within_fns):
            value, chunks = Name("value", U16, "param"), Name("chunks", U8, "param")
            fn("send_wide_grouped", (Param("code", U8), Param("value", U16), Param("chunks", U8),
                                     Param("face", U8)), None,
               [If(inside, (ExprStmt(Call("send_wide", (code, value, chunks, face), None),
                                     BLINKC),), (bounced,), BLINKC)],
               "Send a wide message of a group: queued if `face` is in its group, else bounced "
               "at once.")
    # Values wider than a code: the data codes before each flood code, and how a gather
    # combines (only games with such values call them).
    chunks: list[Stmt] = []
    identity: list[Stmt] = []
    combine: list[Stmt] = []
    echo, a, b = Name("echo", U8, "param"), Name("a", U16, "param"), Name("b", U16, "param")
    for kk, n in sorted(wire.flood_chunks.items()):
        fl = game.floods[kk]
        is_k = compare("==", k, Const(kk, U8, name=f"flood:{fl.name}"))
        # A valued flood's value goes before its waves, a gather's before its echoes.
        side = compare("!=" if fl.combine else "==", echo, Const(0, U8))
        n_codes = Const(n, U8, name=derived_key("chunks", ("flood", fl.name)))
        chunks.append(If(bool_op("and", [is_k, side]), (Return(n_codes, fl.loc),), (), fl.loc))
        if fl.combine is None:
            continue
        assert fl.payload is not None
        if _identity(fl).value:
            identity.append(If(is_k, (Return(_identity(fl), fl.loc),), (), fl.loc))
        combine.append(If(is_k, (Return(_combined(fl.combine, a, b, fl.payload, _max_key(fl)),
                                        fl.loc),), (), fl.loc))
    fn("flood_chunks", (Param("k", U8), Param("echo", U8)), U8,
       [*chunks, Return(Const(0, U8), BLINKC)],
       "How many data codes go before a wave (echo 0) or an echo (1) of flood k: its value's.")
    fn("gather_identity", (Param("k", U8),), U16, [*identity, Return(Const(0, U16), BLINKC)],
       "What an echo of gather k carries that answers a wave at once: the value of no tile.")
    ways = {s.body[0].value for s in combine if isinstance(s, If) and isinstance(s.body[0], Return)}
    if len(ways) == 1 and len(combine) > 1:
        # Every gather combines alike (and only a gather's echo calls this): no test of k
        # (a sum's top named after them all).
        gathers = [game.floods[kk] for kk in sorted(wire.flood_chunks)
                   if game.floods[kk].combine is not None]
        fl = gathers[0]
        assert fl.combine is not None and fl.payload is not None
        way = _combined(fl.combine, a, b, fl.payload,
                        derived_key("payload_max", *(("flood", g.name) for g in gathers)))
        assert way == ways.pop()
        combine = [Return(way, combine[0].loc)]
    fn("gather_combine", (Param("k", U8), Param("a", U16), Param("b", U16)), U16,
       [*combine, Return(a, BLINKC)], "Gather k's combination of two values.")
    stmts = []
    for tk, t in enumerate(game.timers):
        calls = [call(h, ()) for h in handlers_of("timer") if h.target is t]
        if calls:
            stmts.append(If(compare("==", k, Const(tk, U8, name=f"timer:{t.name}")),
                            tuple(calls), (), t.loc))
    fn("on_timer", (Param("k", U8),), None, _chain(stmts), "Timer k has ended.")
    for event in ("neighbor_joined", "neighbor_left"):
        reset: list[Stmt] = []
        if event == "neighbor_left" and wire.flood_chunks:
            # (A session that ends mid-value drops the rest of it.)
            reset = [ExprStmt(Call("wide_reset", (face,), None), BLINKC)]
        fn(f"on_{event}", (Param("face", U8),), None,
                 [*reset, *(call(h, (face,)) for h in handlers_of(event))],
                 f"A neighbour {'arrived on' if event.endswith('joined') else 'left'} `face`.")

    fn("every_pass", (), None,
       [*_neighbors_changed(sym, handlers_of("neighbor_changed"), call),
        *(call(h, ()) for h in handlers_of("loop"))],
       "What runs on every pass: the handlers of the broadcast values whose neighbour's "
       "value changed, and the game's loop.")

    # Broadcast values and the getters neighbours use to read them.
    value: Expr = Const(0, U8)
    for (name, (lo, _hi), _loc, what), (_, shift, bits, _) in zip(
            wire.broadcast, wire.layout, strict=False):
        if what == "field":
            g = sym.fields[name]
            src: Expr = Name(name, g.type, "global", g.is_bool)
        else:
            fname = sym.derived[name]
            sig = sym.functions[fname]
            src = Call(fname, (), sig.ret, is_bool=sig.is_bool)
        # (Named where they are more than a position 0 and a single bit: LEVEL_SHIFT, LEVEL_MASK.)
        at = Const(shift, I16, name=derived_key("value_shift", ("value", name)) if shift else None)
        mask = Const((1 << bits) - 1, I16,
                     name=derived_key("value_mask", ("value", name)) if bits > 1 else None)
        part = binop("<<", binop("-", src, Const(lo, I16)), at)
        value = binop("|", value, part)
        getter = sym.neighbor_getters[name]
        sig = sym.functions[getter]
        raw = Call("getLastValueReceivedOnFace", (face,), U8, builtin=True)
        got = binop("+", binop("&", binop(">>", raw, at), mask), Const(lo, I16))
        if sig.is_bool:
            got = compare("!=", got, Const(0, I16))
        fn(getter, (Param("face", U8),), sig.ret,
                 [Return(convert(got, sig.ret), BLINKC)],  # type: ignore[arg-type]
                 f"The {name} the neighbour on `face` broadcasts.")
    fn("broadcast_bits", (), U8, [Return(convert(value, U8), BLINKC)],
             "The broadcast part of this tile's face value.")

    show = handlers_of("display")
    fn("display", (), None,
             [ExprStmt(Call("show", (), None), show[0].loc)] if show else [],
             "Set the LEDs (every pass).")
    setup: list[Stmt] = [ExprStmt(Call("engine_setup", (), None), BLINKC)]
    if game.randomize if randomize is None else randomize:
        setup.append(ExprStmt(Call("randomize", (), None, builtin=True), game.loc))
    if handlers_of("setup"):
        setup.append(call(handlers_of("setup")[0], ()))
    fn("setup", (), None, setup, "Runs once at power-up.")
    return made


#: The faces that had a neighbour at the last pass (a game with @game.on_neighbor_changed).
WATCHED_FACES = "watched_faces"


def watched(name: str) -> str:
    """The global that keeps the broadcast value `name` each neighbour showed last."""
    return f"watched_{name}"


def _neighbors_changed(sym: Symbols, handlers: list[Handler],
                       call: Callable[[Handler, tuple[Expr, ...]], Stmt]) -> list[Stmt]:
    """For each face: a handler of a broadcast value runs when a neighbour came or went there,
    or the value it shows is not the one it showed at the last pass."""
    if not handlers:
        return []
    face = Name("face", U8, "local")
    bit = binop("<<", Const(1, U8), face)
    faces = Name(WATCHED_FACES, U8, "global")
    here = Local("here", BOOL, not_(Call("isValueReceivedOnFaceExpired", (face,), BOOL,
                                         builtin=True, is_bool=True)), BLINKC)
    present = Name("here", BOOL, "local", True)
    was = compare("!=", binop("&", faces, bit), Const(0, U8))
    came_or_went = compare("!=", present, was)
    body: list[Stmt] = [here]
    for h in handlers:
        name = h.target.name if isinstance(h.target, FieldDecl) else h.target.__name__
        getter = sym.neighbor_getters[name]
        sig = sym.functions[getter]
        last = Index(watched(name), face, sig.ret, sig.is_bool)
        now = Call(getter, (face,), sig.ret, is_bool=sig.is_bool)
        shows = f"shows_{name}"
        value = Name(shows, sig.ret, "local", sig.is_bool)
        changed = bool_op("or", [came_or_went, bool_op("and", [present,
                                                               compare("!=", value, last)])])
        body += [Local(shows, sig.ret, now, h.loc),
                 If(changed, (Assign(last, value, h.loc), call(h, (face,))), (), h.loc)]
    body.append(If(present, (Assign(faces, convert(binop("|", faces, bit), U8), BLINKC),),
                   (Assign(faces, convert(binop("&", faces, UnOp("~", bit, bit.type)), U8),
                           BLINKC),), BLINKC))
    return [For("face", Const(0, U8), Const(6, U8), tuple(body), BLINKC)]


def _mask(payload: range, *owners: tuple[str, str]) -> Const:
    """The bits of a wide value of `payload` (offset to 0): the mask of `owners`' payload
    (SURVEY_PAYLOAD_MASK), unnamed without them."""
    name = derived_key("payload_mask", *owners) if owners else None
    return Const((1 << bits_for(payload.start, payload.stop - 1)) - 1, U16, name=name)


def _max_key(fl: FloodDecl) -> str:
    """The name of the last value of flood fl's payload (SURVEY_MAX)."""
    return derived_key("payload_max", ("flood", fl.name))


def wide_value(payload: range, raw: Expr) -> Expr:
    """A wide value as received (offset to 0) as the payload's own type."""
    lo, hi = payload.start, payload.stop - 1
    t = storage_type(lo, hi)
    if lo == 0:
        return convert(raw, t)
    return convert(binop("+", convert(raw, I32 if hi > 32767 else I16), Const(lo, I16)), t)


def gather_return_type(payload: range) -> IntType:
    """What a gather's handler returns: signed, so that a value below 0 clamps to 0."""
    return I16 if payload.stop <= 1 << 15 else I32


def _identity(fl: FloodDecl) -> Const:
    """The value of no tile: what combining with it changes nothing (a min's: the last value
    of its payload)."""
    assert fl.payload is not None
    if fl.combine == "min":
        return Const(fl.payload.stop - 1, U16, name=_max_key(fl))
    return Const(0, U16)


def _clamp(value: Expr, payload: range, top: str) -> Expr:
    """A tile's value for a gather, clamped into its payload (as a field assignment is);
    `top` names the payload's last value."""
    hi = payload.stop - 1
    return cond(compare(">", value, Const(hi, I32, name=top)), Const(hi, U16, name=top),
                cond(compare("<", value, Const(0, I16)), Const(0, U16), value))


def _combined(how: str, a: Expr, b: Expr, payload: range, top: str) -> Expr:
    """Two values combined; a sum (or count) stops at the top of the payload (`top` names
    it)."""
    if how == "min":
        return cond(compare("<", a, b), a, b)
    if how == "max":
        return cond(compare(">", a, b), a, b)
    if how == "or":
        return binop("|", a, b)
    hi = payload.stop - 1
    if hi < 0xFFFF:
        total = binop("+", convert(a, U32), convert(b, U32))
        return convert(cond(compare(">", total, Const(hi, U32, name=top)),
                            Const(hi, U32, name=top), total), U16)
    # A sum that may reach 65,535: in 16 bits (a 32-bit sum takes the AVR twice the
    # instructions); it wrapped when it came out below `a`, and then stops at the top.
    total = convert(binop("+", a, b), U16)
    return cond(compare("<", total, a), Const(hi, U16, name=top), total)


def _chain(stmts: list[Stmt]) -> list[Stmt]:
    """if/elif chain of mutually exclusive tests (each an If with no else)."""
    out: Stmt | None = None
    for s in reversed(stmts):
        assert isinstance(s, If)
        out = If(s.test, s.body, (out,) if out is not None else (), s.loc)
    return [out] if out is not None else []
