"""The C++ expression printer (blinkc/backends/cexpr.py): parentheses where C++ needs them to
keep the tree, where a reader wants them, and nowhere else."""

import pytest

from blinkc.backends.cexpr import (
    Binary,
    Cast,
    Cond,
    Index,
    Num,
    Unary,
    Word,
    call,
    chain,
    printed,
    show,
    uncast,
)
from blinkc.backends.layout import folded
from blinkc.ir.nodes import BOOL, I16, U8, U16, U32
from blinkc.ir.types import COLOR

a, b, c, d, e = (Word(n) for n in "abcde")


def add(x, y):
    return Binary("+", x, y)


def sub(x, y):
    return Binary("-", x, y)


@pytest.mark.parametrize(("tree", "text"), [
    # A shift inside a sum binds looser: C++ needs the parentheses.
    (add(a, Binary("<<", b, c)), "a + (b << c)"),
    # A sum inside a shift binds tighter, but gcc warns of it (and a reader misreads it).
    (Binary("<<", add(a, b), c), "(a + b) << c"),
    (Binary("<<", Binary("*", Num(1, "U"), a), b), "1U * a << b"),
    # Left to right: only a right operand of the same precedence keeps its parentheses.
    (sub(a, sub(b, c)), "a - (b - c)"),
    (sub(sub(a, b), c), "a - b - c"),
    (add(a, add(b, c)), "a + (b + c)"),
    (add(a, Binary("*", b, c)), "a + b * c"),
    (Binary("*", add(a, b), c), "(a + b) * c"),
    (Binary("/", a, Binary("*", b, c)), "a / (b * c)"),
    # `& ^ |` below `==`: needed one way, for the reader the other (gcc warns of both).
    (Binary("==", Binary("&", a, b), c), "(a & b) == c"),
    (Binary("&", a, Binary("==", b, c)), "a & (b == c)"),
    (Binary("|", Binary("&", a, b), c), "(a & b) | c"),
    (Binary("|", Binary("|", a, b), c), "a | b | c"),
    (Binary("&", a, Binary("<<", Num(1), b)), "a & (1 << b)"),
    (Binary("&", add(a, b), Num(255)), "(a + b) & 255"),
    (Binary("^", Binary(">>", a, Num(8)), b), "(a >> 8) ^ b"),
    # Comparisons: a sum needs none; a shift or another comparison is parenthesised.
    (Binary("<", add(a, Num(1)), b), "a + 1 < b"),
    (Binary("==", Binary(">>", a, Num(4)), b), "(a >> 4) == b"),
    (Binary("==", Binary("<", a, b), c), "(a < b) == c"),
    # Logic: `&&` inside `||` is parenthesised for the reader; comparisons need nothing.
    (chain("&&", [Binary("<", a, b), Binary("==", c, d), e]), "a < b && c == d && e"),
    (chain("||", [Binary("&&", a, b), c]), "(a && b) || c"),
    (Binary("&&", Binary("||", a, b), c), "(a || b) && c"),
    (Binary("&&", Binary("&", a, b), c), "(a & b) && c"),
    # Unary operators bind tighter than any binary one.
    (Unary("-", add(a, b)), "-(a + b)"),
    (Unary("-", Unary("-", a)), "-(-a)"),
    (Unary("-", Num(-5)), "-(-5)"),
    (Unary("!", Binary("==", a, b)), "!(a == b)"),
    (Unary("~", a), "~a"),
    (Binary("&", a, Unary("~", b)), "a & ~b"),
    (Binary("*", Num(-5), a), "-5 * a"),
    (Binary("-", a, Num(-5)), "a - -5"),
    # Casts: a compound operand in parentheses, a unary or postfix one without.
    (Cast(U8, add(a, b)), "(uint8_t)(a + b)"),
    (Binary("*", Cast(U16, a), b), "(uint16_t)a * b"),
    (Cast(U16, Cast(U8, a)), "(uint16_t)(uint8_t)a"),
    (Cast(U8, Unary("~", a)), "(uint8_t)~a"),
    (Cast(U8, Num(-1)), "(uint8_t)-1"),
    (Cast(U32, call("millis")), "(uint32_t)millis()"),
    (Cast(U8, Index(Word("q"), a)), "(uint8_t)q[a]"),
    (Cast(U16, Cond(a, b, c)), "(uint16_t)(a ? b : c)"),
    (Binary(">>", Cast(U16, call("millis")), Num(4)), "(uint16_t)millis() >> 4"),
    # Conditionals: the lowest operand there is; nested ones parenthesised for the reader.
    (Cond(Binary("<", a, b), sub(b, a), Num(0)), "a < b ? b - a : 0"),
    (Cond(a, Cond(b, c, d), e), "a ? (b ? c : d) : e"),
    (Cond(a, b, Cond(c, d, e)), "a ? b : (c ? d : e)"),
    (Cond(Cond(a, b, c), d, e), "(a ? b : c) ? d : e"),
    (add(Cond(a, b, c), Num(1)), "(a ? b : c) + 1"),
    (Cond(Binary("&", a, Num(1)), b, c), "(a & 1) ? b : c"),
    (Cond(chain("||", [a, b]), c, d), "a || b ? c : d"),
    # Arguments and indexes are whole expressions: no parentheses of their own.
    (call("f", add(a, b), Cond(a, b, c)), "f(a + b, a ? b : c)"),
    (Index(Index(Word("table"), Word("ROW")), add(a, Num(1))), "table[ROW][a + 1]"),
    (call("blinkc_at_most<uint8_t>", sub(a, b), Num(5)), "blinkc_at_most<uint8_t>(a - b, 5)"),
    # Literals.
    (Num(46080, "U"), "46080U"),
    (Binary("*", Num(1, "UL"), Word("NEVER")), "1UL * NEVER"),
])
def test_parentheses_where_cpp_or_a_reader_needs_them(tree, text):
    assert show(tree) == text


def test_a_context_that_binds_tighter_parenthesises_the_whole():
    assert show(add(a, b), 15) == "(a + b)"
    assert show(Cast(U8, a), 15) == "((uint8_t)a)"
    assert show(Word("x"), 15) == "x"


def test_uncast_drops_only_casts_to_integer_types_at_least_as_wide():
    inner = add(a, b)
    assert uncast(Cast(U16, Cast(U32, inner)), 16) == inner
    assert uncast(Cast(I16, Cast(U8, inner)), 16) == Cast(U8, inner)
    assert uncast(Cast(U8, inner), 8) == inner
    assert uncast(Cast(BOOL, inner), 8) == Cast(BOOL, inner)
    assert uncast(Cast(COLOR, inner), 8) == Cast(COLOR, inner)


# ------------------------------------------------------------------ long lines
def test_the_printer_notes_each_separator_and_the_parentheses_open_there():
    line = printed(Binary("&&", Binary("<", a, b), call("f", add(c, d), e)), depth=1)
    assert line.text == "a < b && f(c + d, e)"
    assert [(b.at, b.depth, b.sep) for b in line.breaks] == [
        (1, 1, " < "), (5, 1, " && "), (12, 2, " + "), (16, 2, ", ")]


def long_name(i: int) -> Word:
    return Word(f"a_rather_long_name_number_{i}")


def test_a_long_test_is_broken_after_its_top_logical_operators():
    test = chain("||", [Binary("&&", Binary("==", long_name(i), Num(i)), long_name(i + 10))
                        for i in range(3)])
    line = folded("    if (" + printed(test, 1) + ") {")
    assert line.split("\n") == [
        "    if ((a_rather_long_name_number_0 == 0 && a_rather_long_name_number_10) ||",
        "            (a_rather_long_name_number_1 == 1 && a_rather_long_name_number_11) ||",
        "            (a_rather_long_name_number_2 == 2 && a_rather_long_name_number_12)) {"]


def test_a_long_sum_is_broken_before_its_operators_and_a_call_after_its_commas():
    names = [long_name(i).text for i in range(5)]
    total = chain("+", [long_name(i) for i in range(5)])
    assert folded("x = " + printed(total) + ";").split("\n") == [
        f"x = {names[0]}", *(f"        + {n}" for n in names[1:4]), f"        + {names[4]};"]
    args = call("f", *(long_name(i) for i in range(5)))
    assert folded(printed(args) + ";").split("\n") == [
        f"f({names[0]},", *(f"        {n}," for n in names[1:4]), f"        {names[4]});"]


def test_a_line_without_a_shallow_break_stays_long():
    deep = Cast(U8, Cast(U8, Cast(U8, Cast(U8, add(long_name(1), long_name(2))))))
    deep = call("f", call("g", call("h", Binary("*", deep, Binary("*", long_name(3), long_name(4))))))
    line = folded("x = " + printed(deep) + ";")
    assert "\n" not in line and len(line) > 120
