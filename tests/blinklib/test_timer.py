"""Timer edges, exactly as the SDK's Timer.cpp."""

from blinkc.blinklib import NEVER, Blinklib


def make(now=0):
    b = Blinklib()
    b.now = now
    return b, b.Timer()


def test_fresh_timer_is_expired_once_millis_passes_zero():
    b, t = make(0)
    assert not t.isExpired()  # expiry 0, strict comparison
    b.now = 1
    assert t.isExpired()
    assert t.getRemaining() == 0


def test_is_expired_is_strict_and_remaining_reaches_zero_at_expiry():
    b, t = make(1000)
    t.set(100)
    b.now = 1099
    assert not t.isExpired() and t.getRemaining() == 1
    b.now = 1100
    assert not t.isExpired() and t.getRemaining() == 0
    b.now = 1101
    assert t.isExpired()


def test_add_extends_the_expiry_time_itself():
    b, t = make(1000)
    t.set(10)
    b.now = 5000  # long expired
    t.add(100)    # still expired: 1110 is in the past
    assert t.isExpired()
    assert t.expire_time == 1110


def test_add_saturates_at_never():
    b, t = make(0)
    t.never()
    t.add(5)
    assert t.expire_time == NEVER
    b.now = 0xFFFFFFFE
    assert not t.isExpired()
