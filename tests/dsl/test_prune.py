"""Pruning: what the tile can never run is not in the Program (nor in the sketch)."""

from blinkc.dsl.prune import fold_constant_ifs, prune
from blinkc.ir.nodes import BOOL, U8, Call, Const, ExprStmt, Function, GlobalVar, If, Name, Return, SrcLoc

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
    coin = fn("coin", [If(Const(1, BOOL), (Return(Const(1, BOOL), AT),), (), AT),
                       Return(uses_state, AT)], ret=BOOL)
    loop = fn("loop", [ExprStmt(Call("coin", (), BOOL), AT)])
    lfsr = GlobalVar("lfsr", U8, 0, AT, role="engine")
    functions, globals_ = prune([coin, loop, fn("unused", [Return(None, AT)])], [lfsr])
    assert [f.name for f in functions] == ["coin", "loop"]
    assert globals_ == ()
