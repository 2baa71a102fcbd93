"""The tile runtime every blinkc game shares: links, the message protocol, floods, timers.

This file is written in blinkc's Python subset and compiled into the IR
together with the game, so the C++ and the Python backends render the very
same protocol. It is not imported as Python. Names in UPPER case are
constants blinkc fills in per game (bit positions, code numbers, counts);
`on_*`, `deliver`, `bounce`, `broadcast_bits`, `display` and friends are
functions blinkc generates from the game's declarations. docs/protocol.md
explains the protocol and why it delivers every message exactly once.

Face value layout (6 bits): [broadcast bits][message code][ack]
  - message code: 0 = idle, HELLO = "no session with you", otherwise the
    message we present on this face;
  - ack: in a session, 1 while we hold the neighbour's current message as
    delivered; outside one, 1 when we have seen the neighbour's HELLO.
A session starts when both sides have seen each other's HELLO; one message
crosses a session in a four-phase handshake:
  sender presents code -> receiver delivers, sets ack -> sender clears code ->
  receiver clears ack -> sender may present the next message.
"""

# ruff: noqa

# --- the protocol's own numbers (the sketch says them by these names) -------------------------
FACE_VALUE_MASK = 63  # the six bits of a face value (tx_code[f]'s bits that go on the wire)
QUEUE_FACE_SHIFT = 5  # a queued message is (face << QUEUE_FACE_SHIFT) | code ...
QUEUE_CODE_MASK = 31  # ... its code the low five bits
TICK_SHIFT = 8  # millis256() is millis() >> TICK_SHIFT: the clock in ticks of 256 ms
TICK_MS = 256  # a tick of millis256(), in ms
TICK_START = 0xFFFFFF00  # millis() & TICK_START: when its tick began (its low 8 bits cleared)
SESSION_GRACES = 2  # a face that has waited this many GRACE_UNITS for a session is gone
HI_BYTE = 8  # the first bit of a word's high byte (shifts by it swap its bytes, in the coin's seeding)
WORD_BITS = 16  # the coin's tosses in a random word
SLOTS_PER_FLOOD = 2  # flood k has slots 2k and 2k + 1 (its two parities)
CODES_PER_SLOT = 2  # slot s's wave is code FLOOD_CODE + 2s, its echo the next

# --- per-face link state --------------------------------------------------------
# A face is in a session (up), waiting for one (HELLO shown), or gone (nobody answers:
# messages to it bounce at once). A face is taken for gone when it has heard nothing for
# GRACE, or when it has waited 2 x GRACE for a session while hearing its neighbour (who
# then cannot hear it).
# link_state[f]: LINK_UP while a session with the neighbour on face f is running;
# LINK_SEEN while there is none yet and we have seen the neighbour's HELLO; LINK_HEARD while
# face f heard its neighbour in the last 200 ms (the SDK's expiry). (A byte per face, in a
# row beside the face's other bytes, tests shorter on the AVR than a mask and its bit.)
link_state: u8[6] = 0
gone_mask: u8 = 0  # bit f: nobody answers on face f (a mask: floods and sends take it whole)
silent_at: u8[6] = 0  # millis256() when face f last fell silent
coin_state: u16 = 0  # a per-tile random sequence (seeded from the serial number)

# --- per-face protocol state ------------------------------------------------------
# tx_code[f] is face f's handshake while it is in a session: the bits of the face value it
# sends there (the message code at CODE_SHIFT, 0 when none is on the wire, and the ack bit at
# ACK_SHIFT: we acknowledged the neighbour's current message), and above the face value's
# six bits TX_WAIT (we wait for the neighbour's ack of our code) and TX_RELEASE (we withdrew
# it; we wait for that ack to clear). Outside a session (where nothing can be on the wire)
# it holds the millis256() when the face began to wait for one: a byte of RAM per face is
# dear on a tile, and one byte per face reached from one address is cheaper than masks.
tx_code: u8[6] = 0

# --- messages waiting for their face to be free, oldest first: (face << QUEUE_FACE_SHIFT) | code -----
queue: u8[QUEUE_LEN] = 0
queue_len: u8 = 0
# A game with a single message code (ONE_CODE: one message, with no payload or a payload of one
# value) keeps, instead of the queue's entries and its length, how many wait for each face:
# all of them are the same code, so a count per face says everything the entries would,
# without the queue's scans, and the queue's length is their sum (docs/building.md: 129 bytes
# less in ping).
queued_for: u8[6] = 0  # how many messages wait for face f (ONE_CODE: all are the one code)


def queue_total() -> u8:
    """How many messages wait in the queue of a game with one message code."""
    n: u8 = 0
    for f in range(6):
        n += queued_for[f]
    return n


now256: u8 = 0  # millis256() when this pass of loop() began: the engine's clock


def millis256() -> u8:
    """The clock in 256 ms units (wrapping every 65 s): coarse, but a byte, for the link grace."""
    return millis() >> TICK_SHIFT


def engine_setup() -> None:
    """Seed the coin from the tile's serial number: every tile tosses its own sequence.
    (A game that calls randomize() tosses with the SDK's random numbers instead.)"""
    if not RANDOMIZED:
        seed: u16 = 0  # (in a local, so that the word is stored once: 6 bytes less)
        for i in range(SERIAL_LEN):
            # The bytes go alternately into the two halves (a byte swap, then the next byte
            # in the low half): the high half is the XOR of bytes 1, 3, 5, 7, the low one of
            # 0, 2, 4, 6, 8, so serials that differ in one byte seed differently. (A shift
            # by 3 and by 13 mixed better and cost 34 bytes of flash: the AVR shifts a word
            # one bit at a time.)
            seed = u16(seed << HI_BYTE) ^ (seed >> HI_BYTE) ^ getSerialNumberByte(i)
        if seed == 0:
            seed = 1
        coin_state = seed


def coin() -> bool:
    """One toss: the SDK's random numbers when the game randomizes them, else one step of a
    16-bit Galois LFSR (period 65,535)."""
    if RANDOMIZED:
        return u8(randomWord()) & 1
    heads: u8 = u8(coin_state) & 1
    coin_state >>= 1
    if heads:
        coin_state ^= COIN_TAPS
    return heads


def draw_word() -> u16:
    """t.random_word() in a game without randomize(): 16 tosses of the coin, the tile's own
    sequence seeded from its serial number (no SDK generator, no 0.5 s at power-up); with
    randomize="clock", mixed with the clock's low 16 bits, so that a game whose draws follow a
    player's presses draws differently at every power-up."""
    v: u16 = 0
    for i in range(WORD_BITS):
        v = (v << 1) | coin()
    if CLOCK_MIXED:
        v ^= u16(millis())
    return v


def draw_below(n: u16) -> u16:
    """t.random(n - 1) in a game without randomize(): 0..n-1 from draw_word() (n is 0 for
    t.random(65535), whose n does not fit)."""
    if n == 0:
        return draw_word()
    return draw_word() % n


def send_code(code: u8, face: u8) -> None:
    """Queue a message for `face`; bounce it at once if nobody is there or the queue is full."""
    if gone_mask & (1 << face) or (queue_total() if ONE_CODE else queue_len) >= QUEUE_LEN:
        bounce(code, face)
        return
    if ONE_CODE:
        queued_for[face] += 1
    else:
        queue[queue_len] = (face << QUEUE_FACE_SHIFT) | code
        queue_len += 1


def queue_take(face: u8) -> u8:
    """Remove and return the oldest code queued for `face` (0 if none)."""
    if ONE_CODE:
        if queued_for[face] == 0:
            return 0
        queued_for[face] -= 1
        return ONE_CODE
    for i in range(queue_len):
        entry: u8 = queue[i]
        if (entry >> QUEUE_FACE_SHIFT) == face:
            queue_len -= 1
            for j in range(i, queue_len):
                queue[j] = queue[j + 1]
            return entry & QUEUE_CODE_MASK
    return 0


def link_step(f: u8, bit: u8) -> bool:
    """Keep face f's link state: in a session, waiting for one, or gone; True while it is
    unsettled (see unsettled()).

    A gone face that hears somebody starts a new link from scratch; a face that has heard
    nothing for GRACE, or has waited twice that for a session, is gone: what waits for it
    bounces.
    """
    if not isValueReceivedOnFaceExpired(f):
        if gone_mask & bit:
            gone_mask &= ~bit
            tx_code[f] = now256  # it waits for a session from now
            back_at[f] = now256
        link_state[f] |= LINK_HEARD
        session(f, bit)
    elif link_state[f] & LINK_HEARD:
        link_state[f] &= ~LINK_HEARD
        silent_at[f] = now256
    if not gone_mask & bit and (link_state[f] & (LINK_HEARD | LINK_UP)) != LINK_HEARD | LINK_UP:
        silent: u8 = u8(now256 - silent_at[f])
        if (not link_state[f] & LINK_HEARD and silent > GRACE_UNITS) or (
                not link_state[f] & LINK_UP and u8(now256 - tx_code[f]) > SESSION_GRACES * GRACE_UNITS):
            link_end(f, bit)
            gone_mask |= bit
        else:
            return True  # neither gone nor in a session it hears: unsettled
    return False


def session(f: u8, bit: u8) -> None:
    """Start, keep or end the session on face f from the neighbour's latest value."""
    value: u8 = getLastValueReceivedOnFace(f)
    code: u8 = (value >> CODE_SHIFT) & CODE_MASK
    their_ack: bool = (value & (1 << ACK_SHIFT)) != 0  # (a bit test, not a shift, on the AVR)
    if code == HELLO:
        if link_state[f] & LINK_UP:
            if their_ack:
                return  # the tail of the greeting that began this session
            link_end(f, bit)  # the neighbour started over (it lost us): so do we
        link_state[f] |= LINK_SEEN
        if their_ack:
            link_begin(f, bit)
        return
    if not link_state[f] & LINK_UP:
        if not link_state[f] & LINK_SEEN:
            return  # it still talks to an earlier session: our HELLO makes it start over
        link_begin(f, bit)  # it saw our HELLO and began: so do we
    handshake(f, bit, code, their_ack)


def link_begin(f: u8, bit: u8) -> None:
    link_state[f] = (link_state[f] & ~LINK_SEEN) | LINK_UP
    tx_code[f] = 0  # (it held when the face began to wait)
    on_neighbor_joined(f)


def link_end(f: u8, bit: u8) -> None:
    """The session on face f is over: everything sent there and not known delivered bounces."""
    if link_state[f] & LINK_UP:
        on_neighbor_left(f)
        # The code on the wire, not acknowledged (a flood's message is answered below; no
        # game sees LINK_UP, so the bounce may come before it is cleared):
        if tx_code[f] & TX_WAIT and (tx_code[f] >> CODE_SHIFT) & CODE_MASK < FLOOD_CODE:
            bounce((tx_code[f] >> CODE_SHIFT) & CODE_MASK, f)
    link_state[f] &= ~(LINK_UP | LINK_SEEN)
    if ONE_CODE and not BOUNCES_HEARD:
        queued_for[f] = 0  # (nobody hears of these bounces: they all go at once)
    else:
        for i in range(QUEUE_LEN):
            code: u8 = queue_take(f)
            if code == 0:
                break
            bounce(code, f)
    tx_code[f] = now256  # it waits for a new session from now (no handshake bits)
    back_at[f] = now256  # (a neighbour that starts over has just come back: it lost us)
    for j in range(N_FLOOD_SLOTS):
        flood_wave[j] &= ~bit
        flood_echo[j] &= ~bit
    for s in range(N_FLOOD_SLOTS):
        flood_answered(s, bit)


def handshake(f: u8, bit: u8, code: u8, their_ack: bool) -> None:
    """Run the four-phase handshake on a face in session against the neighbour's latest value."""
    if code == 0:
        tx_code[f] &= ~(1 << ACK_SHIFT)
    elif not tx_code[f] & (1 << ACK_SHIFT):
        tx_code[f] |= 1 << ACK_SHIFT
        deliver(code, f, bit)  # (the face's bit, for a flood's waits)
    if tx_code[f] & TX_WAIT:
        if their_ack:
            tx_code[f] = (tx_code[f] & (1 << ACK_SHIFT)) | TX_RELEASE  # (our code withdrawn)
    elif not their_ack:
        tx_code[f] &= ~TX_RELEASE


def transmit() -> None:
    """Present a queued message on every idle face in session, then publish the face values."""
    shown: u8 = broadcast_bits()
    bit: u8 = 1
    for f in range(6):
        value: u8 = shown
        if link_state[f] & LINK_UP:
            if not tx_code[f] & (TX_WAIT | TX_RELEASE):
                code: u8 = wide_take(f, bit) if WIDE_FLOODS else flood_take(bit)
                if code == 0:
                    code = queue_take(f)
                if code != 0:
                    tx_code[f] |= (code << CODE_SHIFT) | TX_WAIT
            value |= tx_code[f] & FACE_VALUE_MASK
        elif PROTOCOL:
            value |= HELLO << CODE_SHIFT
            if link_state[f] & LINK_SEEN:
                value |= 1 << ACK_SHIFT
        setValueSentOnFace(value, f)
        bit <<= 1


def neighbor_mask() -> u8:
    """Bit f set when a neighbour is on face f (heard from in the last 200 ms)."""
    mask: u8 = 0
    for f in range(6):
        if not isValueReceivedOnFaceExpired(5 - f):
            mask |= 1
        if f < 5:
            mask <<= 1
    return mask


def unsettled() -> bool:
    """Some face waits for a session: its timing must be shaken up on every pass.

    Two touching faces that transmit in the same display frame blind each other,
    and the SDK's probes keep them in step for as long as their clocks agree. A
    tile with such a face skips a frame now and then, at random, to break the step.
    (loop() learns the same from link_step() as it steps the faces; this asks again for the emulator.)
    """
    if not PROTOCOL:
        return False
    settled: u8 = gone_mask
    for f in range(6):
        if (link_state[f] & (LINK_HEARD | LINK_UP)) == LINK_HEARD | LINK_UP:
            settled |= 1 << f
    return settled != ALL_FACES


def engine_quiet_until() -> u32:
    """Until when loop() will change nothing if its inputs stay as they are (for the emulator)."""
    if EVERY_PASS or unsettled():
        return 0  # it tosses a coin (or runs the game's @game.loop) every pass
    for f in range(6):
        if gone_mask & (1 << f) and not isValueReceivedOnFaceExpired(f):
            # Given up (no session came in time) while still heard, as over a one-way
            # link: link_step() takes the face back at the next pass.
            return 0
    for f in range(6):
        if link_state[f] & LINK_UP and handshake_moves(f):
            return 0
    until: u32 = timers_quiet_until()
    if PROTOCOL and gone_mask:
        # loop() tosses its coin at the first pass of the next 256 ms tick
        tick: u32 = (millis() & TICK_START) + TICK_MS
        if tick < until:
            until = tick
    for s in range(N_FLOOD_SLOTS):
        if flood_skipped[s]:
            # flood_forget() must see the 256 ms tick a window of the slot closes at
            age: u8 = u8(millis256() - flood_at[s])
            closes: u8 = FLOOD_SAME_UNITS if flood_skipped[s] & SAME_WINDOW else FLOOD_BACK_UNITS
            ticks: u8 = closes - age if age < closes else 0
            ends: u32 = (millis() & TICK_START) + u32(ticks) * TICK_MS  # (that tick's start)
            if ends < until:
                until = ends
    return until


def handshake_moves(f: u8) -> bool:
    """Face f's handshake (in a session) takes a step at the next pass on the value it holds.

    After a pass it never does while both ends keep to one session; but a face turned to
    another tile's face within the grace meets a session that is not its own (a stale ack,
    a code it takes for delivered), and then one pass leads to the next on the same value."""
    value: u8 = getLastValueReceivedOnFace(f)
    code: u8 = (value >> CODE_SHIFT) & CODE_MASK
    their_ack: bool = (value & (1 << ACK_SHIFT)) != 0
    if code == HELLO:
        return not their_ack  # the neighbour started over: the session ends
    ours: bool = (tx_code[f] & (1 << ACK_SHIFT)) != 0
    if (code != 0) != ours:
        return True  # a code to deliver, or an ack to clear
    if tx_code[f] & TX_WAIT:
        return their_ack
    return tx_code[f] & TX_RELEASE and not their_ack


def loop() -> None:
    waiting: bool = False  # some face is unsettled (link_step() says so as it goes)
    new_tick: bool = False  # the first pass of a 256 ms tick
    if PROTOCOL:
        tick: u8 = millis256()
        new_tick = tick != now256
        now256 = tick
        flood_forget()
        bit: u8 = 1
        for f in range(6):
            if link_step(f, bit):
                waiting = True
            bit <<= 1
    buttons()
    every_pass()
    timers()
    transmit()
    display()
    # A coin on every pass while some face is unsettled (as the steps found it: nothing since
    # has changed a link); once a tick while some face is gone, which still shows its HELLO
    # (two faces that took each other for gone would collide for ever in lock-step).
    if PROTOCOL and (waiting or gone_mask and new_tick) and coin():
        blinkc_skip_frame()

# --- floods: the echo algorithm ---------------------------------------------------------
# A wave enters a tile once (from its first sender, the parent), runs the
# flood's handler, and goes on to every other face that is not gone. Every wave is
# answered by one echo: at once by a tile in the wave already, or by a tile it entered
# once all of its own waves are answered. The starter learns the wave is done.
# Each flood has two slots, told apart by a parity bit in its codes: a tile starts a flood
# in the slot it did not enter last, so a flood started after another has passed runs
# beside it and is never taken for the one before (that ran the handler three times for
# two starts); floods started together in the same slot merge where they meet.
# A flood's waves and echoes wait in per-face bits, not in the message queue: a full
# queue never holds a flood up, and they go out before the queued messages of a face.
# Slot s is flood s >> 1 in parity s & 1.
# (flood_parent holds a bit, not the face: the echo goes back by it as it is, and the zeroed
# array sits in a table of rows instead of being copied from flash at power-up.)
flood_parent: u8[N_FLOOD_SLOTS] = 0  # the bit of the face the wave came from; STARTER: we started it; 0: none
flood_waiting: u8[N_FLOOD_SLOTS] = 0  # faces that have not answered yet (idle: the answered faces)
# (Two arrays of the slots, not one indexed by code: they are rows of the slots' table, whose
# entries for a slot are all reached from one address.)
flood_wave: u8[N_FLOOD_SLOTS] = 0  # bit f: the wave of slot s (code FLOOD_CODE + 2s) has yet to go out of face f
flood_echo: u8[N_FLOOD_SLOTS] = 0  # bit f: the echo of slot s (code FLOOD_CODE + 2s + 1) has yet to go out of face f
flood_last: u8[N_FLOODS] = 0  # the parity of the slot of flood k this tile entered last
# A tile put down as a flood passes can be reached by it twice: over its first link, and
# then again over a link that came up after it had finished. The neighbour there heard it
# first and owes it the wave, and that wave can come seconds late: a face may wait twice
# the grace for a session, a one-way cut can hold a wave on its way to the tile that
# passes it on, and a session can outlive a lift on one side only. A wave carries no name,
# so for FLOOD_BACK_UNITS after a tile entered a slot, a wave of that slot is the same
# flood come round, answered without running it again, if it comes over a face that was
# gone when the tile entered, within FLOOD_SAME_UNITS, or over any face less than
# BACK_SAME_UNITS after that face came back from gone (or its session ended: a neighbour
# that starts over took us for gone). No flood the tile is owed can come
# that way so soon: a link counts for a flood only if it stood for JOIN (3 s) before the
# flood began and heard its neighbour all through the grace before (docs/protocol.md,
# "Floods that come round late").
# A newer flood can come that way, though, if three of one kind start within 2 s (the
# third in the first one's slot: a game that restarts a flood whenever a neighbour arrives
# does that around a tile put down); hence the answered faces below.
# Bits 0-5: the faces gone when the tile entered (and those answered, below); bit 6:
# FLOOD_SAME_UNITS have not passed; bit 7: FLOOD_BACK_UNITS have not (0: all forgotten;
# the emulator wakes the tile then).
flood_skipped: u8[N_FLOOD_SLOTS] = 0
back_at: u8[6] = 0  # now256 when face f came back from gone, or its session ended
flood_at: u8[N_FLOOD_SLOTS] = 0  # now256 when this tile entered slot s
# The answered faces: while slot s is idle, flood_waiting[s] (which no wave needs then)
# holds the faces whose wave of the slot this tile answered as that flood come round. If
# it then enters the slot while it remembers them (so the wave was a newer flood after
# all), it sends them no wave: their neighbour has had its answer, and another wave would
# run the flood there again. (A link that came up since counts for no flood yet: no tile
# misses one it is owed.) An answer over a face that came back keeps the slot's memory
# for FLOOD_BACK_UNITS - FLOOD_SAME_UNITS from then: the newer flood may reach the tile
# over another face later. Once the memory is gone (flood_skipped[s] is 0) the bits are
# stale, and the next entry writes over them.


def flood_take(bit: u8) -> u8:
    """The code of the next flood message for the face of `bit` (taken), or 0."""
    for s in range(N_FLOOD_SLOTS):  # (a slot's wave before its echo, as codes go)
        if flood_wave[s] & bit:
            flood_wave[s] &= ~bit
            return FLOOD_CODE + CODES_PER_SLOT * s
        if flood_echo[s] & bit:
            flood_echo[s] &= ~bit
            return FLOOD_CODE + CODES_PER_SLOT * s + 1
    return 0


def flood_start(k: u8) -> None:
    """Start flood k, unless this tile is in a wave of it already (then the start merges)."""
    s: u8 = SLOTS_PER_FLOOD * k
    if flood_parent[s] | flood_parent[s + 1] == NO_PARENT:  # both idle
        flood_enter(s + (flood_last[k] ^ 1), STARTER)


def flood_enter(s: u8, from_bit: u8) -> None:
    """This tile enters slot s from the face of `from_bit` (STARTER: it starts the flood)."""
    flood_parent[s] = from_bit
    k: u8 = s >> 1
    flood_last[k] = s & 1
    # Every face not gone, also one whose session is still starting: its neighbour may be
    # in a session with us already and send us this flood's wave; waiting for it makes
    # that wave a crossing one (answered at once), not a new flood after we finished.
    # Faces answered as the same flood get no wave either, and are remembered like gone
    # ones: if what they sent was the earlier flood after all, their wave of this one is
    # yet to come.
    skipped: u8 = gone_mask
    if flood_skipped[s]:  # the slot's memory: the answered faces in its idle flood_waiting[s]
        skipped |= flood_waiting[s]
    flood_skipped[s] = skipped | BOTH_WINDOWS
    flood_at[s] = now256
    waiting: u8 = ~(skipped | from_bit) & ALL_FACES
    if GROUPS:  # a wave goes on only to faces in the flood's group
        for f in range(6):
            if (waiting >> f) & 1 and not flood_within(k, f):
                waiting &= ~(1 << f)
    flood_waiting[s] = waiting
    flood_wave[s] |= waiting
    on_flood(k)
    flood_check(s)


def flood_forget() -> None:
    """Close a slot's windows: FLOOD_SAME_UNITS after this tile entered it, and
    FLOOD_BACK_UNITS after (before millis256() wraps round to the entry again)."""
    for s in range(N_FLOOD_SLOTS):
        age: u8 = u8(now256 - flood_at[s])
        if age >= FLOOD_SAME_UNITS:
            flood_skipped[s] &= ~SAME_WINDOW
            if age >= FLOOD_BACK_UNITS:
                flood_skipped[s] = 0


def flood_receive(s: u8, face: u8, bit: u8) -> None:
    skipped: u8 = flood_skipped[s]
    if flood_parent[s] == NO_PARENT and not (skipped & BACK_WINDOW and (
            skipped & bit and skipped & SAME_WINDOW or u8(now256 - back_at[face]) < BACK_SAME_UNITS)):
        if GROUPS and not flood_within(s >> 1, face):
            # A wave from a face outside the flood's group: answered at once, without joining
            # (every wave gets its echo all the same, so the flood still ends; flood_last takes
            # its parity, so a flood started here later stays clear of it, as after a join).
            flood_last[s >> 1] = s & 1
            flood_echo[s] |= bit
            return
        flood_enter(s, bit)
    else:
        # We are in the wave already, or it is the one we were in come round again (over a
        # face gone when we entered, or just come back): answer it at once (the neighbour
        # sends it once).
        # Every wave gets exactly one echo (and only an echo answers a wave we sent): taking
        # a wave that crosses ours for an answer would swallow the wave of a later flood of
        # the same kind for ever.
        if flood_parent[s] == NO_PARENT:
            flood_waiting[s] |= bit  # (an answered face: the slot is idle)
            if not skipped & SAME_WINDOW:  # (a face come back: the window runs on from this answer)
                flood_at[s] = now256 - FLOOD_SAME_UNITS
        flood_skipped[s] &= ~bit
        flood_echo[s] |= bit


def flood_answered(s: u8, bit: u8) -> None:
    """An echo came back over the face of `bit`, or it can no longer answer (its link ended)."""
    flood_waiting[s] &= ~bit
    flood_check(s)


def flood_check(s: u8) -> None:
    parent: u8 = flood_parent[s]
    if parent != NO_PARENT and flood_waiting[s] == 0:
        flood_parent[s] = NO_PARENT
        if parent == STARTER:
            on_flood_done(s >> 1)
        else:
            flood_echo[s] |= parent


# --- timers ----------------------------------------------------------------------------
timer_on: u8 = 0  # bit k: timer k is running
timer_end: u16[N_TIMERS] = 0  # low 16 bits of millis() when timer k ends


def timer_start(k: u8, ms: u16) -> None:
    timer_end[k] = millis() + ms
    timer_on |= 1 << k


def timer_stop(k: u8) -> None:
    timer_on &= ~(1 << k)


def timer_running(k: u8) -> bool:
    return (timer_on & (1 << k)) != 0


def timer_remaining(k: u8) -> u16:
    if not timer_on & (1 << k):  # (bit_of(k), not a shift loop, on the AVR)
        return 0
    left: i16 = i16(timer_end[k] - millis())
    if left < 0:
        return 0
    return left


def timers() -> None:
    for k in range(N_TIMERS):
        if (timer_on >> k) & 1 and i16(millis() - timer_end[k]) >= 0:
            timer_on &= ~(1 << k)
            on_timer(k)


def timers_quiet_until() -> u32:
    until: u32 = NEVER
    for k in range(N_TIMERS):
        if (timer_on >> k) & 1:
            ends: u32 = millis() + timer_remaining(k)
            if ends < until:
                until = ends
    return until


def engine_links() -> u8:
    """The faces with a session (for tests: is every present neighbour linked?)."""
    up: u8 = 0
    for f in range(6):
        if link_state[f] & LINK_UP:
            up |= 1 << f
    return up


def engine_idle() -> bool:
    """No message queued, on the wire or awaiting its handshake, no flood under way, and
    every face settled: in a session, or gone."""
    if (queue_total() if ONE_CODE else queue_len) != 0:
        return False
    for f in range(6):
        if link_state[f] & LINK_UP:
            if tx_code[f] & (TX_WAIT | TX_RELEASE | (1 << ACK_SHIFT)):
                return False
        elif not (gone_mask >> f) & 1:
            return False
    for s in range(N_FLOOD_SLOTS):
        if flood_parent[s] != NO_PARENT or (flood_wave[s] | flood_echo[s]) != 0:
            return False
    return True


# --- values wider than a code: docs/protocol.md, "Values wider than a code" -----------------
# A value goes as data codes, DATA_BITS of it per code (high bits first), just before the
# code it belongs to: a wide message's own code, a valued flood's wave, a gather's echo. Each
# data code crosses in a four-phase handshake of its own, so they arrive once each and in
# order; the receiver shifts them into wide_rx[f], and the code that follows reads its value
# off the low bits. A sequence a link cut short leaves only bits that the next whole one
# shifts out. A message's own code goes last, so it is what bounces until it has crossed.
# Nothing here is in a game without wide values; a game whose floods carry none
# (WIDE_FLOODS is 0) keeps only wide_rx: flood codes among a message's data codes are harmless.
wide_rx: u16[6] = 0  # the data codes face f received lately, shifted in
wide_busy: u8 = 0  # bit f: a queued message's data codes are going out of face f (WIDE_FLOODS)
wide_left: u8[6] = 0  # a flood code going out of face f after its data codes: 1 + those left
wide_code: u8[6] = 0  # that flood code
wide_out: u16[6] = 0  # its value
flood_value: u16[N_FLOOD_SLOTS] = 0  # the value of the flood in slot s (a valued flood)
# A gather's echo carries the combined value of the subtree below the tile that sends it
# to its parent, and the combination's identity on every other echo (an answer at once).
flood_acc: u16[N_FLOOD_SLOTS] = 0  # a gather in slot s: this tile's value, combined so far
flood_from: u8[N_FLOOD_SLOTS] = 0  # the bit of its parent's face, until that echo is taken
flood_own: u8[N_FLOODS] = 0  # the slot of the gather k this tile started last


def send_wide(code: u8, value: u16, chunks: u8, face: u8) -> None:
    """Queue a wide message: `chunks` data codes of its value, then its own code; bounce it
    at once if nobody is there or the queue cannot take all of them."""
    if gone_mask & (1 << face) or queue_len + chunks >= QUEUE_LEN:
        bounce(code, face)
        return
    for i in range(chunks):  # high bits first
        shift: u8 = (chunks - 1 - i) * DATA_BITS
        queue[queue_len] = (face << QUEUE_FACE_SHIFT) | (DATA_CODE + (u8(value >> shift) & DATA_MASK))
        queue_len += 1
    queue[queue_len] = (face << QUEUE_FACE_SHIFT) | code
    queue_len += 1


def wide_take(f: u8, bit: u8) -> u8:
    """The next code out of face f, in place of flood_take(): a flood code's data codes, then
    the code; a queued message's data codes up to its own code with no flood code among them
    (they would fill the same wide_rx); else flood_take()'s code, or the queue's."""
    left: u8 = wide_left[f]
    if left == 0:
        code: u8 = 0
        if not wide_busy & bit:
            code = flood_take(bit)
        if code == 0:
            code = queue_take(f)
            if code >= DATA_CODE and code <= DATA_CODE + DATA_MASK:
                wide_busy |= bit
            else:
                wide_busy &= ~bit
            return code
        left = flood_wide(code, f, bit)
        if left == 0:
            return code
        wide_code[f] = code
        left += 1
    left -= 1
    wide_left[f] = left
    if left == 0:
        return wide_code[f]
    return DATA_CODE + (u8(wide_out[f] >> ((left - 1) * DATA_BITS)) & DATA_MASK)


def flood_wide(code: u8, f: u8, bit: u8) -> u8:
    """How many data codes go before flood code `code` out of face f (0: none); its value in
    wide_out[f]: a valued wave's value, a gather's echo the subtree's (to the parent) or the
    identity (any other echo)."""
    j: u8 = code - FLOOD_CODE
    s: u8 = j >> 1
    n: u8 = flood_chunks(s >> 1, j & 1)
    if n != 0:
        if FLOOD_VALUES and j & 1 == 0:
            wide_out[f] = flood_value[s]
        elif GATHERS and flood_from[s] == bit and flood_parent[s] == NO_PARENT:
            wide_out[f] = flood_acc[s]
            flood_from[s] = NO_PARENT
        elif GATHERS:
            wide_out[f] = gather_identity(s >> 1)
    return n


def wide_data(code: u8, face: u8) -> None:
    """A data code arrived on `face`: shift its bits in."""
    wide_rx[face] = (wide_rx[face] << DATA_BITS) | (code - DATA_CODE)


def wide_in(face: u8, mask: u16) -> u16:
    """The value the data codes just received on `face` carry (its low bits)."""
    return wide_rx[face] & mask


def wide_reset(f: u8) -> None:
    """Face f's session ended: what was going out of it goes no further (link_end answers
    its flood codes and bounces the queued messages)."""
    bit: u8 = 1 << f
    wide_left[f] = 0
    wide_busy &= ~bit
    if GATHERS:
        for s in range(N_FLOOD_SLOTS):
            if flood_from[s] == bit:
                flood_from[s] = NO_PARENT


def flood_start_with(k: u8, value: u16) -> None:
    """Start valued flood k with `value` (unless this tile is in a wave of it already)."""
    s: u8 = SLOTS_PER_FLOOD * k
    if flood_parent[s] | flood_parent[s + 1] == NO_PARENT:  # (both idle, as in flood_start)
        flood_value[s + (flood_last[k] ^ 1)] = value
    flood_start(k)


def flood_value_in(s: u8, face: u8, mask: u16) -> None:
    """A wave of valued slot s arrived on `face`: its value, if it is news to this tile."""
    if flood_parent[s] == NO_PARENT:
        flood_value[s] = wide_rx[face] & mask


def flood_value_of(k: u8) -> u16:
    """The value of the wave of flood k this tile just entered."""
    return flood_value[SLOTS_PER_FLOOD * k + flood_last[k]]


def gather_enter(k: u8, value: u16) -> None:
    """This tile just entered gather k with its own `value`."""
    s: u8 = SLOTS_PER_FLOOD * k + flood_last[k]
    flood_acc[s] = value
    flood_from[s] = flood_parent[s]
    if flood_parent[s] == STARTER:
        flood_own[k] = s


def gather_echo(s: u8, face: u8, bit: u8, mask: u16) -> None:
    """An echo of gather slot s arrived on `face` (of bit `bit`): add the subtree it carries
    (only an echo this tile waits for answers its wave; every wave gets one echo)."""
    if flood_waiting[s] & bit:
        flood_acc[s] = gather_combine(s >> 1, flood_acc[s], wide_rx[face] & mask)


def gather_total(k: u8) -> u16:
    """The value gather k, started here, has brought back."""
    return flood_acc[flood_own[k]]
