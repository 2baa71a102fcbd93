"""Pruning: what the tile can never run is not in the Program (nor in the sketch)."""

from blinkc.dsl.prune import fold_constant_ifs, prune
from blinkc.ir.nodes import (
    BOOL,
    U8,
    Assign,
    BinOp,
    BoolOp,
    Call,
    Compare,
    Const,
    ExprStmt,
    For,
    Function,
    GlobalVar,
    If,
    Local,
    Name,
    Param,
    Return,
    SrcLoc,
    UnOp,
)

AT = SrcLoc("game.py", 1)


def fn(name, body, ret=None):
    return Function(name, (), ret, tuple(body), AT)


def test_a_constant_branch_that_returns_ends_the_function():
    # coin(): `if RANDOMIZED: return random...` then the LFSR the game does not need
    body = (If(Const(1, BOOL), (Return(Const(1, BOOL), AT),), (), AT),
            ExprStmt(Call("step_lfsr", (), None), AT), Return(Const(0, BOOL), AT))
    assert fold_constant_ifs(body) == (Return(Const(1, BOOL), AT),)


def test_the_branch_not_taken_and_its_globals_are_gone():
    uses_state = Name("lfsr", U8, "global")
    coin = fn("coin", [If(Const(1, BOOL), (Return(RANDOM_BIT, AT),), (), AT),
                       Return(uses_state, AT)], ret=BOOL)
    loop = fn("loop", [ExprStmt(Call("coin", (), BOOL), AT)])
    lfsr = GlobalVar("lfsr", U8, 0, AT, role="engine")
    functions, globals_ = prune([coin, loop, fn("unused", [Return(None, AT)])], [lfsr])
    assert [f.name for f in functions] == ["coin", "loop"]
    assert globals_ == ()


RANDOM_BIT = Call("isAlone", (), BOOL, builtin=True, is_bool=True)  # (any value not known here)


def test_a_call_of_an_engine_function_that_returns_a_constant_is_the_constant():
    # loop(): `if unsettled() and coin(): skip_frame()` where unsettled() is `return False`
    unsettled = fn("unsettled", [Return(Const(0, BOOL, True), AT)], ret=BOOL)
    coin = fn("coin", [Return(RANDOM_BIT, AT)], ret=BOOL)
    test = BoolOp("and", (Call("unsettled", (), BOOL, is_bool=True), Call("coin", (), BOOL, is_bool=True)))
    loop = fn("loop", [If(test, (ExprStmt(Call("blinkc_skip_frame", (), None, builtin=True), AT),), (), AT),
                       ExprStmt(Call("unsettled", (), BOOL), AT)])
    functions, _ = prune([unsettled, coin, loop], [])
    assert [(f.name, f.body) for f in functions] == [("loop", ())]


def test_a_game_function_that_returns_a_constant_is_still_called():
    # (the dispatch's broadcast_bits() of a game without broadcast values: the sketch keeps it)
    bits = Function("broadcast_bits", (), U8, (Return(Const(0, U8), AT),), AT, role="dispatch")
    loop = fn("loop", [Local("shown", U8, Call("broadcast_bits", (), U8), AT)])
    functions, _ = prune([bits, loop], [])
    assert [f.name for f in functions] == ["broadcast_bits", "loop"]


def test_an_engine_variable_only_its_own_updates_read_goes_with_them():
    # engine_setup() seeds the coin's state from the serial number, but nothing tosses the coin
    seed = Name("seed", U8, "global")
    mix = Assign(seed, BinOp("^", seed, Call("getSerialNumberByte", (Name("i", U8, "local"),), U8,
                                              builtin=True), U8), AT)
    unseeded = Compare("==", seed, Const(0, U8), U8)
    setup = fn("setup", [For("i", Const(0, U8), Const(9, U8), (mix,), AT),
                         If(unseeded, (Assign(seed, Const(1, U8), AT),), (), AT)])
    kept_state = GlobalVar("count", U8, 0, AT, role="state")
    loop = fn("loop", [Assign(Name("count", U8, "global"), Const(1, U8), AT)])
    functions, globals_ = prune([setup, loop], [GlobalVar("seed", U8, 0, AT, role="engine"), kept_state])
    assert [(f.name, f.body) for f in functions] == [("setup", ()), ("loop", loop.body)]
    assert [g.name for g in globals_] == ["count"]


def test_an_engine_variable_read_elsewhere_keeps_its_updates():
    seed = Name("seed", U8, "global")
    setup = fn("setup", [Assign(seed, Call("getSerialNumberByte", (Const(0, U8),), U8, builtin=True), AT)])
    loop = fn("loop", [ExprStmt(Call("setValueSentOnFace", (seed, Const(0, U8)), None, builtin=True), AT)])
    functions, globals_ = prune([setup, loop], [GlobalVar("seed", U8, 0, AT, role="engine")])
    assert [f.body for f in functions] == [setup.body, loop.body]
    assert [g.name for g in globals_] == ["seed"]


def test_a_local_nothing_reads_goes_with_its_stores():
    # loop() of a game without messages: `waiting` is set only where a face is stepped, and
    # read only in `if PROTOCOL and (waiting or ...)`, both folded away
    waiting = Name("waiting", BOOL, "local", is_bool=True)
    kept = Name("kept", U8, "local")
    loop = fn("loop", [Local("waiting", BOOL, Const(0, BOOL, True), AT),
                       If(RANDOM_BIT, (Assign(waiting, Const(1, BOOL, True), AT),), (), AT),
                       Local("kept", U8, Const(3, U8), AT),
                       ExprStmt(Call("setColor", (kept,), None, builtin=True), AT)])
    functions, _ = prune([loop], [])
    assert functions[0].body == loop.body[2:]


def test_a_local_only_its_own_updates_read_goes_once_nothing_else_reads_it():
    # engine_setup() works the coin's seed out in a local and stores it once: in a game that
    # never tosses the coin, the store goes with the state, and then the local and its loop
    seed = Name("seed", U8, "local")
    mix = Assign(seed, BinOp("^", seed, Call("getSerialNumberByte", (Name("i", U8, "local"),), U8,
                                              builtin=True), U8), AT)
    setup = fn("setup", [Local("seed", U8, Const(0, U8), AT),
                         For("i", Const(0, U8), Const(9, U8), (mix,), AT),
                         If(Compare("==", seed, Const(0, U8), U8), (Assign(seed, Const(1, U8), AT),),
                            (), AT),
                         Assign(Name("coin_state", U8, "global"), seed, AT)])
    functions, globals_ = prune([setup], [GlobalVar("coin_state", U8, 0, AT, role="engine")])
    assert functions[0].body == () and globals_ == ()


def test_a_local_read_beside_its_own_updates_stays():
    seed = Name("seed", U8, "local")
    setup = fn("setup", [Local("seed", U8, Const(0, U8), AT),
                         If(Compare("==", seed, Const(0, U8), U8), (Assign(seed, Const(1, U8), AT),),
                            (), AT),
                         ExprStmt(Call("setColor", (seed,), None, builtin=True), AT)])
    functions, _ = prune([setup], [])
    assert functions[0].body == setup.body


def test_a_local_whose_store_calls_a_function_stays():
    loop = fn("loop", [Local("heads", BOOL, Call("coin", (), BOOL, is_bool=True), AT)])
    coin = fn("coin", [Return(RANDOM_BIT, AT)], ret=BOOL)
    functions, _ = prune([coin, loop], [])
    assert [f.body for f in functions if f.name == "loop"] == [loop.body]


SHOW_TIMERS = ExprStmt(Call("setColor", (Name("timer_on", U8, "global"),), None, builtin=True), AT)


def _timer_fns():
    k = Name("k", U8, "param")
    on = Name("timer_on", U8, "global")
    bit = BinOp("<<", Const(1, U8), k, U8)
    running = Function("timer_running", (Param("k", U8),), BOOL,
                       (Return(Compare("!=", BinOp("&", on, bit, U8), Const(0, U8), U8), AT),), AT)
    stop = Function("timer_stop", (Param("k", U8),), None,
                    (Assign(on, BinOp("&", on, UnOp("~", bit, U8), U8), AT),), AT)
    return running, stop


def test_a_call_with_constant_arguments_of_a_one_statement_engine_function_is_its_statement():
    # timer_running(TIMER_PULSE), timer_stop(TIMER_PULSE): the shift by a constant folds
    running, stop = _timer_fns()
    pulse = Const(1, U8, name="timer:PULSE")
    loop = fn("loop", [If(Call("timer_running", (pulse,), BOOL, is_bool=True),
                          (ExprStmt(Call("timer_stop", (pulse,), None), AT),), (), AT), SHOW_TIMERS])
    functions, _ = prune([running, stop, loop], [GlobalVar("timer_on", U8, 0, AT, role="engine")])
    assert [f.name for f in functions] == ["loop"]
    test = functions[0].body[0].test
    assert test == Compare("!=", BinOp("&", Name("timer_on", U8, "global"),
                                       BinOp("<<", Const(1, U8), pulse, U8), U8), Const(0, U8), U8)
    assert isinstance(functions[0].body[0].body[0], Assign)


def test_a_call_with_a_variable_argument_stays_a_call():
    running, stop = _timer_fns()
    k = Name("which", U8, "global")
    loop = fn("loop", [ExprStmt(Call("timer_stop", (k,), None), AT), SHOW_TIMERS])
    functions, _ = prune([running, stop, loop], [GlobalVar("timer_on", U8, 0, AT, role="engine")])
    assert [f.name for f in functions] == ["timer_stop", "loop"]
    assert functions[1].body == loop.body
