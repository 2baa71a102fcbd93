"""The tile runtime every blinkc game shares: links, the message protocol, floods, timers.

This file is written in blinkc's Python subset and compiled into the IR
together with the game, so the C++ and the Python backends render the very
same protocol. It is not imported as Python. Names in UPPER case are
constants blinkc fills in per game (bit positions, code numbers, counts);
`on_*`, `deliver_*`, `broadcast_bits`, `display` and friends are functions
blinkc generates from the game's declarations. docs/protocol.md explains the
protocol and why it delivers every message exactly once.

Face value layout (6 bits): [broadcast bits][message code][ack]
  - message code: 0 = idle, otherwise the message we present on this face;
  - ack: 1 while we hold the neighbour's current message as delivered.
One message crosses a link in a four-phase handshake:
  sender presents code → receiver delivers, sets ack → sender clears code →
  receiver clears ack → sender may present the next message.
"""

# ruff: noqa

# --- per-face link state --------------------------------------------------------
link_mask: u8 = 0  # bit f: a neighbour is linked on face f
lost_mask: u8 = 0  # bit f: face f is expired but still inside the grace period
lost_at: u8[6] = 0  # millis256() when face f expired, for the grace period

# --- per-face protocol state ------------------------------------------------------
tx_code: u8[6] = 0  # the code we present on face f (0: idle)
tx_wait: u8 = 0  # bit f: waiting for the neighbour's ack of tx_code[f]
tx_release: u8 = 0  # bit f: we withdrew tx_code[f]; waiting for the ack to clear
ack_mask: u8 = 0  # bit f: we acknowledged the neighbour's current message

# --- messages waiting for their face to be free, oldest first: (face << 4) | code -----
queue: u8[QUEUE_LEN] = 0
queue_len: u8 = 0
overflow: bool = False  # a send found the queue full (shown as an error)


def millis256() -> u8:
    """The clock in 256 ms units (wrapping every 65 s): coarse, but a byte, for the link grace."""
    return millis() >> 8


def send_code(code: u8, face: u8) -> None:
    """Queue a message for `face`; report it bounced at once if nobody is linked there."""
    if not (link_mask >> face) & 1:
        bounce(code, face)
        return
    if queue_len >= QUEUE_LEN:
        overflow = True
        return
    queue[queue_len] = (face << 4) | code
    queue_len += 1


def queue_take(face: u8) -> u8:
    """Remove and return the oldest code queued for `face` (0 if none)."""
    for i in range(queue_len):
        entry: u8 = queue[i]
        if (entry >> 4) == face:
            queue_len -= 1
            for j in range(i, queue_len):
                queue[j] = queue[j + 1]
            return entry & 15
    return 0


def update_link(f: u8, bit: u8, now32: u8) -> None:
    """A face is linked from its first packet until it has been expired for GRACE_MS.

    The grace period rides over short gaps (lost packets make a live link
    expire for a moment), so a link only ends when its neighbour is gone.
    When it starts or ends, the face's protocol starts from scratch.
    """
    if isValueReceivedOnFaceExpired(f):
        if not link_mask & bit:
            return
        if not lost_mask & bit:
            lost_mask |= bit
            lost_at[f] = now32
            return
        if u8(now32 - lost_at[f]) <= GRACE_UNITS:
            return
        link_mask &= ~bit
        if tx_wait & bit:
            bounce(tx_code[f], f)
        code: u8 = queue_take(f)
        for i in range(QUEUE_LEN):
            if code == 0:
                break
            bounce(code, f)
            code = queue_take(f)
        link_lost(f)
        on_neighbor_left(f)
    else:
        if link_mask & bit:
            lost_mask &= ~bit
            return
        link_mask |= bit
        on_neighbor_joined(f)
    # A link began or ended: nothing of the old exchange carries over.
    lost_mask &= ~bit
    tx_code[f] = 0
    tx_wait &= ~bit
    tx_release &= ~bit
    ack_mask &= ~bit


def receive(f: u8, bit: u8) -> None:
    """Run the handshake on a linked face against the neighbour's latest value."""
    value: u8 = getLastValueReceivedOnFace(f)
    code: u8 = (value >> CODE_SHIFT) & CODE_MASK
    if code == 0:
        ack_mask &= ~bit
    elif not ack_mask & bit:
        ack_mask |= bit
        deliver(code, f)
    their_ack: u8 = (value >> ACK_SHIFT) & 1
    if tx_wait & bit:
        if their_ack:
            tx_wait &= ~bit
            tx_release |= bit
            tx_code[f] = 0
    elif their_ack == 0:
        tx_release &= ~bit


def transmit() -> None:
    """Present a queued message on every idle linked face, then publish the face values."""
    shown: u8 = broadcast_bits()
    bit: u8 = 1
    for f in range(6):
        if link_mask & bit and not (tx_wait | tx_release) & bit:
            code: u8 = queue_take(f)
            if code != 0:
                tx_code[f] = code
                tx_wait |= bit
        ack: u8 = 0
        if ack_mask & bit:
            ack = 1 << ACK_SHIFT
        setValueSentOnFace(shown | (tx_code[f] << CODE_SHIFT) | ack, f)
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


def engine_quiet_until() -> u32:
    """Until when loop() will change nothing if its inputs stay as they are (for the emulator)."""
    until: u32 = NEVER
    for f in range(6):
        if (lost_mask >> f) & 1:
            # The grace period ends GRACE_UNITS + 1 units of 256 ms after lost_at.
            ends: u32 = (millis() & ~255) + (u32(u8(GRACE_UNITS + 1 - u8(millis256() - lost_at[f]))) << 8)
            if ends < until:
                until = ends
    t: u32 = timers_quiet_until()
    if t < until:
        until = t
    return until


def loop() -> None:
    now32: u8 = millis256()
    bit: u8 = 1
    for f in range(6):
        update_link(f, bit, now32)
        if link_mask & bit:
            receive(f, bit)
        bit <<= 1
    buttons()
    timers()
    transmit()
    display()


# --- floods: the echo algorithm ---------------------------------------------------------
# A wave enters a tile once (from its first sender, the parent), runs the
# flood's handler, and goes on to every other linked face. A tile leaves the
# wave when every face it sent to has answered (with the wave itself, or an
# echo); it then echoes to its parent. The starter learns the wave is done.
flood_parent: u8[N_FLOODS] = 255  # the face the wave came from; STARTER: we started it; 255: none
flood_waiting: u8[N_FLOODS] = 0  # faces that have not answered yet


def flood_start(k: u8) -> None:
    if flood_parent[k] == 255:
        flood_enter(k, STARTER)


def flood_enter(k: u8, parent: u8) -> None:
    flood_parent[k] = parent
    waiting: u8 = 0
    bit: u8 = 1
    for f in range(6):
        if f != parent and link_mask & bit:
            waiting |= bit
            send_code(FLOOD_CODE + 2 * k, f)
        bit <<= 1
    flood_waiting[k] = waiting
    on_flood(k)
    flood_check(k)


def flood_receive(k: u8, face: u8) -> None:
    if flood_parent[k] == 255:
        flood_enter(k, face)
    elif flood_waiting[k] & (1 << face):
        flood_answered(k, face)
    else:
        # A wave started elsewhere meets ours: answer it so it can finish.
        send_code(FLOOD_CODE + 2 * k + 1, face)


def flood_answered(k: u8, face: u8) -> None:
    """An echo came back, or the face can no longer answer (bounced, neighbour gone)."""
    flood_waiting[k] &= ~(1 << face)
    flood_check(k)


def flood_check(k: u8) -> None:
    parent: u8 = flood_parent[k]
    if parent != 255 and flood_waiting[k] == 0:
        flood_parent[k] = 255
        if parent == STARTER:
            on_flood_done(k)
        else:
            send_code(FLOOD_CODE + 2 * k + 1, parent)


def link_lost(face: u8) -> None:
    for k in range(N_FLOODS):
        flood_answered(k, face)


# --- timers ----------------------------------------------------------------------------
timer_on: u8 = 0  # bit k: timer k is running
timer_end: u16[N_TIMERS] = 0  # low 16 bits of millis() when timer k ends


def timer_start(k: u8, ms: u16) -> None:
    timer_end[k] = millis() + ms
    timer_on |= 1 << k


def timer_stop(k: u8) -> None:
    timer_on &= ~(1 << k)


def timer_running(k: u8) -> bool:
    return (timer_on >> k) & 1


def timer_remaining(k: u8) -> u16:
    if not (timer_on >> k) & 1:
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


def engine_idle() -> bool:
    """No message queued, on the wire or awaiting its handshake, and no flood under way."""
    if queue_len != 0 or (tx_wait | tx_release | ack_mask) != 0:
        return False
    for k in range(N_FLOODS):
        if flood_parent[k] != 255:
            return False
    return True
