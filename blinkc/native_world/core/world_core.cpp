/*
 * world_core.cpp (blinkc): the world's event core in C++, for worlds whose
 * tiles are all native (compiled sketches, blinkc/native).
 *
 * This is a line-by-line port of blinkc/world/python_engine.py (the
 * PythonEngine), which stays the reference: the same event queue ordered by (time, sequence number), the
 * same per-tile clocks (clock.py, with Python's floor division), the same air
 * times (infrared.py), collisions, ping-pong and probes, expiry, the viral flag,
 * datagrams, idle skipping (skipped loops), the same statistics, and the same fault stream (splitmix64.h).
 * Function names follow python_engine.py so the two can be read side by side; where
 * a comment there explains why, it is not repeated here.
 *
 * What stays in Python (the World, and blinkc/native_world/engine.py): creating tiles, the
 * checks and messages of actions, scheduled calls (the core returns to
 * Python when one is due) and trace records (a callback writes them, with
 * the tile's mirror refreshed first). Native tiles are called directly
 * through their blinkc_tile_* entry points, with no Python in between.
 *
 * Tile code runs under the watchdog (blinkc/native/guard.cpp, its entry
 * points given by core_set_guard). A loop() stopped there for its budget
 * freezes its tile (PythonEngine._freeze): the core stops all of the tile's events,
 * never calls its code again, and returns TILE_FROZE so that Python reports
 * it (core_frozen says which tile); then the run goes on. Any other call
 * stopped there (setup(), the quiet hook, or Ctrl-C while a call was stuck)
 * ends the run, and the core refuses to run again (core_failure says which
 * tile and call).
 * The watchdog's SIGINT count is read between events, so Ctrl-C returns to
 * Python at once.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "blinkc_native.h"
#include "button.h"
#include "splitmix64.h"
#include "view.h"

namespace {

const int FACES = 6;
const int64_t MILLION = 1000000;
const int64_t FRAME_US = 7680;
const int64_t TICK_US = 256, ISR_BEFORE_TICK_US = 32, ISR_US = 55;
const int64_t TX_CHECK_US = 5, TX_CALL_US = 10, TX_AFTER_SEND_US = 6, PASS_START_US = 6;
const int64_t RX_EXPIRE_TIME_MS = 200;
const int64_t TX_PROBE_TIME_MS = 150;
const int64_t VIRAL_LOCKOUT_MS = 2000;
const int64_t TIMER_NEVER = 0xFFFFFFFFLL;

/* infrared.py */
const int USER_DATA_HEADER = 0x37;
const int DATAGRAM_MARKER = 0x2A;
const int64_t ONE_US = 194, ZERO_US = 476, SYNC_US = 758, OVERHEAD_US = 160;
const int64_t TX_LEAD_US = 209, TX_GAP_US = 243, TX_RETURN_US = 28;

enum Kind { PASS, TX, ARRIVE, CALL, FLASH };

/* Trace callback kinds. Every enum here is mirrored in bindings.py (CORE_ENUMS), member by
 * member in this order: tests/world/test_engines_share_constants.py checks them. */
enum Record { REC_PASS, REC_DROP, REC_BUTTON, REC_SPECIAL, REC_SERIAL, REC_CUT };
typedef void (*record_fn)(int kind, int tile, int64_t arg, int64_t t);
/* The arrival observer (Engine.add_arrival_observer): packets that arrived whole, in event
 * order, handed over in batches (a Python call per packet cost more than the rest of the
 * explorer's run): when ARRIVAL_BATCH have gathered, when core_run returns, and when Python
 * asks (core_flush_arrivals: before it reports anything else that happened since). `dgram`
 * and `dgram_len` are a datagram's payload (length 0: a face value); `latched` 0: the face's
 * buffer already held a packet, so this one was not kept. bindings.ARRIVAL mirrors it. */
struct ArrivalRecord {
    int64_t t;
    int32_t tile, face, sender, sender_face, byte0, latched, dgram_len;
    uint8_t dgram[VIEW_DGRAM];
};
typedef void (*arrive_fn)(const ArrivalRecord *records, int n);

typedef void (*entry_fn)(void);
typedef uint32_t (*quiet_fn)(void);
/* guard.cpp: blinkc_guard_call (0: returned) and blinkc_guard_call_u32 (< 0: stopped). */
typedef int (*guard_fn)(entry_fn);
typedef int64_t (*guard_u32_fn)(quiet_fn);

/* What core_run returns: `end` reached, a scheduled call due, a tile stopped, SIGINT, a tile
 * froze (its loop() stopped for its budget; run again to go on). */
enum Status { REACHED, CALL_DUE, TILE_STOPPED, INTERRUPTED, TILE_FROZE };
/* guard.cpp's codes: 0 returned, 1 out of budget, 2 stopped by Ctrl-C. */
const int GUARD_TIMEOUT = 1;
/* Which call of a tile was stopped (core_failure). */
enum Phase { PHASE_SETUP, PHASE_LOOP, PHASE_QUIET };
struct Stopped {}; /* thrown out of the event loop when the watchdog stopped a tile */

/* Python's // and the ceiling -(-a // b), for b > 0. */
inline int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}
inline int64_t floormod(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }
inline int64_t floordiv128(__int128 a, int64_t b) {
    __int128 q = a / b;
    return (int64_t)((a % b != 0 && a < 0) ? q - 1 : q);
}
/* a * m // d (Python's floor) for 0 < m < 2**21 (a clock rate or a million): in 64 bits
 * when the product cannot overflow (|a| < 2**41 µs, some 25 days), else in 128. */
inline int64_t mul_floordiv(int64_t a, int64_t m, int64_t d) {
    const int64_t LIMIT = int64_t(1) << 41;
    if (a > -LIMIT && a < LIMIT) return floordiv(a * m, d);
    return floordiv128((__int128)a * m, d);
}

/* Set bits of a byte, counted once (the hot path looks bytes up, as infrared.py's tables do). */
struct Popcounts {
    uint8_t n[256];
    Popcounts() {
        for (int b = 0; b < 256; ++b) n[b] = (uint8_t)((b & 1) + (b >> 1 & 1) + (b >> 2 & 1) +
                                                      (b >> 3 & 1) + (b >> 4 & 1) + (b >> 5 & 1) +
                                                      (b >> 6 & 1) + (b >> 7 & 1));
    }
};
const Popcounts POPCOUNTS;
inline int popcount8(int b) { return POPCOUNTS.n[b & 0xFF]; }
inline int64_t bits_us(int b) {
    int ones = popcount8(b);
    return ones * ONE_US + (8 - ones) * ZERO_US;
}
inline int encode_value_byte(int value, bool viral) {
    int d = value & 0x3F;
    if (viral) d |= 0x40;
    if (!(popcount8(d) & 1)) d |= 0x80; /* odd parity */
    return d;
}
const int64_t HEADER_US = 2 * SYNC_US + OVERHEAD_US + bits_us(USER_DATA_HEADER);
/* infrared.py: flashing_us, send_blocks_us */
inline int64_t flashing_us(int64_t air_us) { return air_us - OVERHEAD_US + SYNC_US; }
inline int64_t send_blocks_us(int64_t air_us) { return air_us - OVERHEAD_US - SYNC_US + TX_RETURN_US; }

struct Clock {
    int64_t ppm = 0, offset = 0, frame_phase = 0, rate = MILLION;

    int64_t local_us(int64_t t) const { return offset + mul_floordiv(t, rate, MILLION); }
    /* clock.py: the BIOS's millis() counts 256 µs ticks in whole milliseconds */
    int64_t millis(int64_t t) const { return floordiv(floordiv(local_us(t), TICK_US) * TICK_US, 1000); }
    int64_t world_us(int64_t local) const { return -mul_floordiv(offset - local, MILLION, rate); }
    int64_t world_at_millis(int64_t ms) const {
        return world_us(-floordiv(-ms * 1000, TICK_US) * TICK_US);
    }
    int64_t local_duration_to_world(int64_t local) const {
        return -mul_floordiv(-local, MILLION, rate);
    }
    /* clock.py Clock.cpu_done: the end of work_us of blinklib's code begun at t */
    int64_t cpu_done(int64_t t, int64_t work_us) const {
        int64_t x = local_us(t);
        int64_t into = floormod(x + ISR_BEFORE_TICK_US, TICK_US);
        if (into < ISR_US) {
            x += ISR_US - into;
            into = ISR_US;
        }
        while (work_us > TICK_US - into) {
            work_us -= TICK_US - into;
            x += TICK_US - into + ISR_US;
            into = ISR_US;
        }
        return world_us(x + work_us);
    }
    int64_t next_frame(int64_t t) const {
        int64_t local = local_us(t);
        int64_t k = -floordiv(-(local - frame_phase), FRAME_US);
        int64_t b = world_us(frame_phase + k * FRAME_US);
        return b >= t ? b : t;
    }
};

struct Dgram {
    uint8_t len = 0; /* 0: None */
    uint8_t data[VIEW_DGRAM];
    bool same(const uint8_t *d, uint8_t n) const { return len == n && memcmp(data, d, n) == 0; }
};

struct Packet {
    int byte0 = 0;
    Dgram dgram; /* len 0: a face value */
    int64_t air_us = 0;
};

struct Incoming {
    int64_t id = 0; /* 0: none; otherwise unique, standing in for Python's object identity */
    int64_t start = 0, end = 0;
    Packet packet;
    int sender = 0, sender_face = 0;
};

struct Link {
    int tile = -1, face = 0; /* tile -1: nothing touches this face */
};

/* What loop() reads from outside (PythonEngine._loop_inputs). */
struct LoopInputs {
    bool valid = false;
    int64_t in_value[FACES];
    int expired = 0;
    int64_t button_flags = 0, button_down = 0, click_count = 0;
    Dgram in_dgram[FACES];
};

struct Tile {
    int index = 0;
    core_view_t *v = nullptr; /* the Blinklib (api) state lives here; see view.h */
    blinkc_tile_t *st = nullptr;
    entry_fn setup_fn = nullptr, loop_fn = nullptr;
    quiet_fn quiet = nullptr;
    blinkc_service_port_t *port = nullptr; /* the sketch's service-port buffer (Serial.h) */
    std::string port_out;                  /* drained from it while nothing records */
    Clock clock;
    bool placed = false;
    int64_t q = 0, r = 0, rot = 0;
    button::Model button;
    bool has_rx[FACES] = {};
    Packet rx_buf[FACES];
    Incoming incoming[FACES];
    int64_t tx_start[FACES], tx_end[FACES];
    int64_t viral_faces = 0, viral_lockout_until = -1;
    int64_t cut_until[FACES]; /* packets leaving face f before this world time are lost */
    bool started = false, skipped = false;
    bool asleep = false; /* warm sleep (PythonEngine.dormant): no events at all */
    bool stuck = false;  /* frozen for good, its loop() stuck (PythonEngine._freeze) */
    int64_t epoch = 0, passes = 0;
    bool has_quiet = false;
    int64_t quiet_until = 0;
    LoopInputs loop_inputs;
    Link links[FACES];
    int64_t links_at = -1;
    bool dirty = false;

    Tile() {
        for (int f = 0; f < FACES; ++f) tx_start[f] = tx_end[f] = cut_until[f] = -1;
    }
};

struct Event {
    int64_t t, seq;
    int kind, tile;
    int64_t epoch, data, data2;
};

struct Later {
    bool operator()(const Event &a, const Event &b) const {
        return a.t != b.t ? a.t > b.t : a.seq > b.seq;
    }
};

enum Stat { S_PASSES, S_SKIPPED, S_PACKETS, S_DROPPED, S_COLLISIONS, S_COUNT };

/* What the events did, for benchmarks (bindings.EVENT_COUNT_NAMES): a pass that ran loop() or
 * skipped it, a transmit event that sent a packet or found no face due (its pass follows), an
 * arrival, a scheduled call, events found stale (their tile's events were stopped), and a
 * packet's first flash. */
enum EventCount { E_PASS_LOOP, E_PASS_SKIPPED, E_TX_SENT, E_TX_NONE, E_ARRIVE, E_CALL, E_STALE,
                  E_FLASH, E_COUNT };

const int DIRECTIONS[6][2] = {{0, -1}, {1, -1}, {1, 0}, {0, 1}, {-1, 1}, {-1, 0}};

inline uint64_t cell_key(int64_t q, int64_t r) {
    return ((uint64_t)(uint32_t)(int32_t)q << 32) | (uint32_t)(int32_t)r;
}

class World {
  public:
    int64_t now = 0;
    int64_t seq = 0;
    int64_t stats[S_COUNT] = {};
    bool idle_skip = true;
    double drop = 0.0;
    int64_t jitter_us = 0;
    /* The decoder's clock tolerance, for face values [0] and datagrams of n bytes [n]
       (infrared.py's DECODERS, handed over by core_set_decoder): no points, every packet
       decoded. */
    double decode_low[VIEW_DGRAM + 1] = {}, decode_high[VIEW_DGRAM + 1] = {};
    std::vector<double> decode_x[VIEW_DGRAM + 1], decode_y[VIEW_DGRAM + 1];
    record_fn record = nullptr; /* set only when a trace is attached */
    arrive_fn observer = nullptr; /* set only while Python observes arrivals */
    static const int ARRIVAL_BATCH = 1024;
    std::vector<ArrivalRecord> arrivals; /* not yet handed to the observer */
    bool serial_pending = false; /* some tile's port_out has bytes */
    SplitMix64 fault_rng;
    std::vector<Tile *> tiles;
    std::vector<int32_t> dirty;
    int64_t pending_call = 0;
    int64_t events = 0; /* processed (not stale) events, for benchmarks */
    int64_t event_counts[E_COUNT] = {};
    guard_fn guard = nullptr; /* none: tile code is called directly */
    guard_u32_fn guard_u32 = nullptr;
    const volatile int *interrupts = nullptr;
    /* The stopped call: its tile (-1: none), Phase and watchdog code. */
    int failed_tile = -1, failed_phase = 0, failed_code = 0;
    /* The tile that has just frozen, until Python has taken it (core_frozen); -1: none. */
    int froze = -1;

    ~World() {
        for (Tile *t : tiles) {
            delete t->v;
            delete t;
        }
    }

    /* ------------------------------------------------------------ topology */
    void place(Tile &t, int64_t q, int64_t r, int64_t rot) {
        unplace(t); /* World always lifts a tile before placing it; be safe anyway */
        t.placed = true;
        t.q = q;
        t.r = r;
        t.rot = rot;
        grid_[cell_key(q, r)] = t.index;
        ++topology_;
    }
    void unplace(Tile &t) {
        if (!t.placed) return;
        grid_.erase(cell_key(t.q, t.r));
        t.placed = false;
        ++topology_;
    }

    Link neighbour(Tile &t, int face) {
        if (t.links_at != topology_) {
            for (int f = 0; f < FACES; ++f) t.links[f] = find_neighbour(t, f);
            t.links_at = topology_;
        }
        return t.links[face];
    }

    /* ------------------------------------------------------------ queue */
    void schedule(int64_t t, int kind, Tile *tile, int64_t data = 0, int64_t data2 = 0) {
        ++seq;
        queue_.push(Event{t, seq, kind, tile ? tile->index : -1, tile ? tile->epoch : 0, data,
                          data2});
    }

    /* Process events up to `end`; returns CALL_DUE when a scheduled call is due (its id in
     * pending_call, `now` at its time), REACHED when `end` is reached, INTERRUPTED between
     * two events when a SIGINT came. */
    int run_until(int64_t end) {
        int seen = interrupts ? *interrupts : 0;
        while (!queue_.empty() && queue_.top().t <= end) {
            if (interrupts && *interrupts != seen) return INTERRUPTED;
            Event e = queue_.top();
            queue_.pop();
            Tile *tile = e.tile >= 0 ? tiles[e.tile] : nullptr;
            if (tile && e.epoch != tile->epoch) {
                ++event_counts[E_STALE];
                continue;
            }
            ++events;
            now = e.t;
            switch (e.kind) {
                case PASS:
                    pass(*tile);
                    if (froze >= 0) return TILE_FROZE;
                    break;
                case TX:
                    transmit(*tile, (int)e.data);
                    if (froze >= 0) return TILE_FROZE; /* in a pass it ran at once */
                    break;
                case ARRIVE:
                    ++event_counts[E_ARRIVE];
                    arrive(*tile, (int)e.data, e.data2);
                    break;
                case FLASH:
                    ++event_counts[E_FLASH];
                    flash(*tile, (int)e.data);
                    break;
                default: ++event_counts[E_CALL]; pending_call = e.data; return CALL_DUE;
            }
        }
        if (end > now) now = end;
        return REACHED;
    }

    /* If the next event is a scheduled call due now, take it (as run_until would return it:
     * its id in pending_call) and return true. */
    bool take_call() {
        if (queue_.empty()) return false;
        const Event &e = queue_.top();
        if (e.kind != CALL || e.t != now) return false;
        pending_call = e.data;
        queue_.pop();
        ++events;
        ++event_counts[E_CALL];
        return true;
    }

    /* Hand the arrivals gathered so far to the observer. */
    void flush_arrivals() {
        if (arrivals.empty()) return;
        if (observer) observer(arrivals.data(), (int)arrivals.size());
        arrivals.clear();
    }

    /* PythonEngine.wake: something touched the tile; its next pass runs loop(). */
    void wake(Tile &t) { t.loop_inputs.valid = false; }

    /* PythonEngine.stall: its next pass keeps the CPU `ms` longer (it transmits later). */
    void stall(Tile &t, int64_t ms) {
        wake(t);
        t.v->extra_cpu_ms += ms;
        touch(t);
    }

    /* PythonEngine.dormant: stop (or restart) all of a tile's events for its warm sleep. */
    void dormant(Tile &t, bool asleep) {
        touch(t);
        t.asleep = asleep;
        ++t.epoch;
        for (int f = 0; f < FACES; ++f) {
            t.incoming[f].id = 0;
            t.has_rx[f] = false;
        }
        t.has_quiet = false;
        t.loop_inputs.valid = false;
        if (!asleep) schedule(t.clock.next_frame(now), PASS, &t);
    }

    /* World.live_links: the link of a face, unless it touches a frozen tile (as good as none). */
    Link live_link(Tile &t, int face) {
        Link link = neighbour(t, face);
        if (link.tile >= 0 && tiles[link.tile]->stuck) link.tile = -1;
        return link;
    }

    void touch(Tile &t) {
        if (!t.dirty) {
            t.dirty = true;
            dirty.push_back(t.index);
        }
    }

    /* Copy the non-api state of a tile into its view (before Python reads it); the fields
     * copied are those view_fields.py gives a `core` copy (view.h: CORE_VIEW_PUBLISH). */
    void publish(Tile &t) {
        core_view_t &v = *t.v;
        CORE_VIEW_PUBLISH(v, t);
    }

    /* The reverse, once, when a tile joins the core from a Python world. */
    void load(Tile &t) {
        const core_view_t &v = *t.v;
        CORE_VIEW_LOAD(v, t);
    }

  private:
    std::priority_queue<Event, std::vector<Event>, Later> queue_;
    std::unordered_map<uint64_t, int> grid_;
    int64_t topology_ = 0;
    int64_t next_incoming_ = 0;

    Link find_neighbour(Tile &t, int face) {
        Link out;
        if (!t.placed) return out;
        const int *d = DIRECTIONS[(face + t.rot) % 6];
        auto it = grid_.find(cell_key(t.q + d[0], t.r + d[1]));
        if (it == grid_.end()) return out;
        Tile &n = *tiles[it->second];
        out.tile = n.index;
        out.face = (int)((face + t.rot + 9 - n.rot) % 6); /* facing_face (+6: C++ % keeps the sign) */
        return out;
    }

    /* ------------------------------------------------ running a native tile */
    /* NativeProgram._run: inputs in, one call, outputs out; returns the watchdog's code (0:
     * it returned). A stopped call hands nothing out: its pass is never committed. */
    int run_program(Tile &t, entry_fn fn) {
        core_view_t &a = *t.v;
        blinkc_tile_t &s = *t.st;
        s.now = (uint32_t)a.now;
        for (int f = 0; f < FACES; ++f) {
            s.expire_time[f] = (uint32_t)a.expire_time[f];
            s.in_value[f] = (uint8_t)a.in_value[f];
        }
        s.button_down = (uint8_t)a.button_down;
        s.click_count = (uint8_t)a.click_count;
        s.start_state = (uint8_t)a.start_state;
        s.rng_state = (uint32_t)a.rng_state;
        s.entropy = (uint32_t)a.entropy;
        s.button_flags = (uint8_t)a.button_flags;
        s.woken = (uint8_t)a.woken;
        for (int f = 0; f < FACES; ++f) {
            /* The C side's slot always equals what the world last gave it. */
            uint8_t n = a.in_dgram_len[f];
            if (s.in_datagram_len[f] != n ||
                (n && memcmp(s.in_datagram[f], a.in_dgram[f], n) != 0)) {
                s.in_datagram_len[f] = n;
                memcpy(s.in_datagram[f], a.in_dgram[f], n);
            }
        }
        if (guard) {
            int code = guard(fn);
            if (code) return code;
        } else {
            fn();
        }
        a.rng_state = s.rng_state;
        a.entropy = s.entropy;
        a.button_flags = s.button_flags;
        a.woken = s.woken ? 1 : 0;
        for (int f = 0; f < FACES; ++f) {
            a.out_value[f] = s.out_value[f];
            a.pixels[f] = s.pixels[f];
        }
        if (s.extra_cpu_ms) a.extra_cpu_ms += s.extra_cpu_ms;
        if (s.datagram_sent || s.datagram_read) {
            for (int f = 0; f < FACES; ++f) {
                if (s.datagram_read >> f & 1) a.in_dgram_len[f] = 0;
                if (s.datagram_sent >> f & 1) {
                    uint8_t n = s.out_datagram_len[f];
                    a.out_dgram_len[f] = n;
                    memcpy(a.out_dgram[f], s.out_datagram[f], n);
                }
            }
        }
        return 0;
    }

    void setup(Tile &t) {
        memcpy(t.st->serial, t.v->serial, 9);
        int code = run_program(t, t.setup_fn);
        if (code) stopped(t, PHASE_SETUP, code);
    }

    /* PythonEngine._freeze: loop() was stopped. For its budget, the tile freezes (it keeps the
     * last finished pass's outputs, none in its `first` pass; what it printed was printed);
     * by Ctrl-C, the run stops. */
    void freeze(Tile &t, int code, bool first) {
        if (code != GUARD_TIMEOUT) stopped(t, PHASE_LOOP, code);
        if (first) memset(t.v->pixels, 0, sizeof t.v->pixels); /* setup()'s never shown */
        if (t.port && (t.port->len || t.port->lost)) take_serial(t);
        halt(t);
        t.stuck = true;
        froze = t.index;
    }

    /* PythonEngine._halt */
    void halt(Tile &t) {
        touch(t);
        ++t.epoch;
        for (int f = 0; f < FACES; ++f) {
            t.incoming[f].id = 0;
            t.has_rx[f] = false;
        }
        t.has_quiet = false;
        t.quiet_until = 0;
        t.loop_inputs.valid = false;
    }

    [[noreturn]] void stopped(Tile &t, int phase, int code) {
        failed_tile = t.index;
        failed_phase = phase;
        failed_code = code;
        throw Stopped();
    }

    /* tile._quiet_hook: NativeProgram._quiet_until (0 is None). */
    bool quiet_hook(Tile &t, int64_t *until) {
        if (!t.quiet) return false;
        uint32_t u;
        if (guard_u32) {
            int64_t r = guard_u32(t.quiet);
            if (r < 0) stopped(t, PHASE_QUIET, (int)-r);
            u = (uint32_t)r;
        } else {
            u = t.quiet();
        }
        if (!u) return false;
        *until = u;
        return true;
    }

    /* World.take_serial: with a trace, Python takes the bytes from the sketch's buffer and
     * writes the record; without, they wait here for core_serial_take. */
    void take_serial(Tile &t) {
        if (record) {
            record(REC_SERIAL, t.index, 0, now);
            return;
        }
        t.port_out.append(reinterpret_cast<const char *>(t.port->data), t.port->len);
        if (t.port->lost) { /* as NativeProgram.take_serial says it */
            char note[80];
            snprintf(note, sizeof note, "[%u bytes lost: more than %d in one pass]",
                     (unsigned)t.port->lost, BLINKC_SERVICE_PORT_LEN);
            t.port_out += note;
        }
        t.port->len = t.port->lost = 0;
        serial_pending = true;
    }

    /* ------------------------------------------------------------ passes */
    void pass(Tile &t) {
        touch(t);
        core_view_t &a = *t.v;
        int64_t ms = t.clock.millis(now);
        a.now = ms;
        if (!t.started) {
            t.started = true;
            setup(t);
        }
        button_snapshot(t, ms);
        for (int f = 0; f < FACES; ++f) {
            if (!t.has_rx[f]) continue;
            t.has_rx[f] = false;
            const Packet &pkt = t.rx_buf[f];
            a.expire_time[f] = ms + RX_EXPIRE_TIME_MS;
            a.send_time[f] = 0; /* answer at once: ping-pong */
            if (pkt.byte0 & 0x40) viral_postpone(t, ms);
            if (pkt.dgram.len == 0) {
                a.in_value[f] = pkt.byte0 & 0x3F;
            } else if (a.in_dgram_len[f] == 0) {
                a.in_dgram_len[f] = pkt.dgram.len;
                memcpy(a.in_dgram[f], pkt.dgram.data, pkt.dgram.len);
            }
        }
        ++t.passes;
        ++stats[S_PASSES];
        if (idle_skip && t.has_quiet && ms < t.quiet_until && same_inputs(t, ms)) {
            t.skipped = true;
            ++stats[S_SKIPPED];
            ++event_counts[E_PASS_SKIPPED];
            schedule(t.clock.next_frame(now + 1), TX, &t);
            return;
        }
        t.skipped = false;
        ++event_counts[E_PASS_LOOP];
        if (int code = run_program(t, t.loop_fn)) {
            freeze(t, code, t.passes == 1);
            return;
        }
        if (t.port && (t.port->len || t.port->lost)) take_serial(t);
        if (record) record(REC_PASS, t.index, 0, now);
        int64_t ready = now;
        if (a.extra_cpu_ms) {
            ready += t.clock.local_duration_to_world(a.extra_cpu_ms * 1000);
            a.extra_cpu_ms = 0;
        }
        int64_t frame = t.clock.next_frame(ready + 1);
        if (idle_skip) note_quiet(t, ms);
        schedule(frame, TX, &t);
    }

    /* PythonEngine._transmit: ask the BIOS to send on the first face due, from first_face on. */
    void transmit(Tile &t, int first_face) {
        touch(t);
        core_view_t &a = *t.v;
        int64_t ms = a.now;
        int64_t when = now;
        int64_t work = first_face ? TX_AFTER_SEND_US : 0;
        for (int f = first_face; f < FACES; ++f) {
            if (a.send_time[f] > ms) {
                work += TX_CHECK_US;
                continue;
            }
            const Incoming &inc = t.incoming[f];
            if (inc.id && inc.start + SYNC_US <= when && when < inc.end) {
                work += TX_CHECK_US;
                continue;
            }
            int64_t tail = t.tx_end[0];
            for (int g = 1; g < FACES; ++g) tail = std::max(tail, t.tx_end[g]);
            int64_t call = t.clock.cpu_done(when, work + TX_CALL_US);
            int64_t first = std::max(call + t.clock.local_duration_to_world(TX_LEAD_US),
                                     tail + t.clock.local_duration_to_world(TX_GAP_US));
            ++event_counts[E_TX_SENT];
            schedule(first, FLASH, &t, f);
            return;
        }
        ++event_counts[E_TX_NONE];
        schedule(t.clock.cpu_done(when, work + PASS_START_US), PASS, &t);
    }

    /* PythonEngine._flash: the packet of face f starts; the send returns after its last data
     * bit, the closing syncs keep the LED busy a little longer. */
    void flash(Tile &t, int f) {
        touch(t);
        core_view_t &a = *t.v;
        int64_t when = now;
        bool viral = t.viral_faces >> f & 1;
        Packet pkt;
        if (a.out_dgram_len[f]) {
            pkt.byte0 = encode_value_byte(DATAGRAM_MARKER, viral);
            pkt.dgram.len = a.out_dgram_len[f];
            memcpy(pkt.dgram.data, a.out_dgram[f], pkt.dgram.len);
            pkt.air_us = datagram_air_us(pkt.dgram, viral);
        } else {
            pkt.byte0 = encode_value_byte((int)a.out_value[f], viral);
            pkt.air_us = HEADER_US + bits_us(pkt.byte0);
        }
        int64_t air = pkt.air_us;
        t.tx_start[f] = when;
        t.tx_end[f] = when + t.clock.local_duration_to_world(flashing_us(air));
        pkt.air_us = t.clock.local_duration_to_world(air);
        launch(t, f, when, pkt);
        a.send_time[f] = a.now + TX_PROBE_TIME_MS + f;
        a.out_dgram_len[f] = 0;
        t.viral_faces &= ~(int64_t(1) << f);
        int64_t back = when + t.clock.local_duration_to_world(send_blocks_us(air));
        if (f + 1 < FACES) {
            schedule(back, TX, &t, f + 1);
        } else {
            schedule(t.clock.cpu_done(back, TX_AFTER_SEND_US + PASS_START_US), PASS, &t);
        }
    }

    static int64_t datagram_air_us(const Dgram &d, bool viral) {
        int64_t us = HEADER_US + bits_us(encode_value_byte(DATAGRAM_MARKER, viral));
        int sum = 0;
        for (int i = 0; i < d.len; ++i) {
            us += bits_us(d.data[i]);
            sum += d.data[i];
        }
        return us + bits_us((sum & 0xFF) ^ 0xFF); /* the checksum byte */
    }

    void launch(Tile &sender, int face, int64_t start, const Packet &pkt) {
        ++stats[S_PACKETS];
        Link link = neighbour(sender, face);
        if (link.tile < 0) return;
        Tile &receiver = *tiles[link.tile];
        int rface = link.face;
        if (receiver.asleep || receiver.stuck) return; /* warm sleep, frozen: nothing heard */
        if (sender.cut_until[face] > start) {
            ++stats[S_DROPPED];
            if (record) record(REC_CUT, sender.index, face, now);
            return;
        }
        if (drop != 0.0 && fault_rng.chance(drop)) {
            ++stats[S_DROPPED];
            if (record) record(REC_DROP, sender.index, face, now);
            return;
        }
        double share = decoded_share((double)receiver.clock.rate / (double)sender.clock.rate - 1.0,
                                     pkt.dgram.len);
        if (share < 1.0 && !fault_rng.chance(share)) {
            ++stats[S_DROPPED]; /* the clocks too far apart for the receiver's decoder */
            if (record) record(REC_DROP, sender.index, face, now);
            return;
        }
        int64_t end = start + pkt.air_us;
        if (jitter_us) end += fault_rng.below((uint32_t)(jitter_us + 1));
        Incoming &prev = receiver.incoming[rface];
        if (prev.id && prev.end > start) {
            ++stats[S_COLLISIONS]; /* two packets overlap on one receiver: both garbled */
            prev.id = 0;
            return;
        }
        prev.id = ++next_incoming_;
        prev.start = start;
        prev.end = end;
        prev.packet = pkt;
        prev.sender = sender.index;
        prev.sender_face = face;
        schedule(end, ARRIVE, &receiver, rface, prev.id);
    }

    /* infrared.py: decoded_share, step for step (the same doubles, the same result) */
    double decoded_share(double ratio, int length) const {
        int k = length;
        const std::vector<double> &xs = decode_x[k], &ys = decode_y[k];
        if (xs.empty() || (decode_low[k] <= ratio && ratio <= decode_high[k])) return 1.0;
        size_t n = xs.size();
        if (ratio <= xs[0]) return ys[0];
        if (ratio >= xs[n - 1]) return ys[n - 1];
        size_t i = 1;
        while (xs[i] < ratio) ++i;
        return ys[i - 1] + (ys[i] - ys[i - 1]) * (ratio - xs[i - 1]) / (xs[i] - xs[i - 1]);
    }

    void arrive(Tile &t, int face, int64_t id) {
        Incoming &inc = t.incoming[face];
        if (inc.id != id) return; /* garbled by a collision */
        inc.id = 0;
        Tile &sender = *tiles[inc.sender];
        Link link = neighbour(sender, inc.sender_face);
        if (link.tile != t.index || link.face != face) return; /* moved apart meanwhile */
        if (t.tx_start[face] < inc.end && t.tx_end[face] > inc.start) {
            ++stats[S_COLLISIONS]; /* we were transmitting on this face: blinded */
            return;
        }
        bool latched = !t.has_rx[face];
        if (latched) {
            t.has_rx[face] = true;
            t.rx_buf[face] = inc.packet;
        }
        if (observer) {
            const Packet &p = inc.packet;
            ArrivalRecord r;
            r.t = now;
            r.tile = t.index;
            r.face = face;
            r.sender = inc.sender;
            r.sender_face = inc.sender_face;
            r.byte0 = p.byte0;
            r.latched = latched ? 1 : 0;
            r.dgram_len = p.dgram.len;
            memcpy(r.dgram, p.dgram.data, sizeof r.dgram);
            arrivals.push_back(r);
            if ((int)arrivals.size() >= ARRIVAL_BATCH) flush_arrivals();
        }
    }

    void loop_inputs(Tile &t, int64_t ms, LoopInputs &out) {
        const core_view_t &a = *t.v;
        out.valid = true;
        out.expired = 0;
        for (int f = 0; f < FACES; ++f) {
            out.in_value[f] = a.in_value[f];
            if (a.expire_time[f] < ms) out.expired |= 1 << f;
            out.in_dgram[f].len = a.in_dgram_len[f];
            memcpy(out.in_dgram[f].data, a.in_dgram[f], a.in_dgram_len[f]);
        }
        out.button_flags = a.button_flags;
        out.button_down = a.button_down;
        out.click_count = a.click_count;
    }

    /* tile.loop_inputs == self._loop_inputs(tile, now) */
    bool same_inputs(Tile &t, int64_t ms) {
        const LoopInputs &l = t.loop_inputs;
        const core_view_t &a = *t.v;
        if (!l.valid) return false;
        if (l.button_flags != a.button_flags || l.button_down != a.button_down ||
            l.click_count != a.click_count)
            return false;
        for (int f = 0; f < FACES; ++f) {
            if (l.in_value[f] != a.in_value[f]) return false;
            if (((l.expired >> f) & 1) != (a.expire_time[f] < ms ? 1 : 0)) return false;
            if (!l.in_dgram[f].same(a.in_dgram[f], a.in_dgram_len[f])) return false;
        }
        return true;
    }

    void viral_postpone(Tile &t, int64_t ms) {
        if (ms > t.viral_lockout_until) {
            t.viral_lockout_until = ms + VIRAL_LOCKOUT_MS;
            t.viral_faces = 0x3F;
        }
    }

    /* -------------------------------------------------------- idle skipping */
    /* The quiet hook's answer, shortened to the button's next deadline. */
    void note_quiet(Tile &t, int64_t ms) {
        int64_t until = 0;
        bool quiet = quiet_hook(t, &until);
        if (quiet && !t.button.idle()) {
            int64_t d = t.button.next_deadline();
            if (d < until) until = d;
        }
        t.has_quiet = quiet;
        t.quiet_until = quiet ? until : 0;
        if (quiet) {
            loop_inputs(t, ms, t.loop_inputs);
        } else {
            t.loop_inputs.valid = false;
        }
    }

    void button_snapshot(Tile &t, int64_t ms) {
        button::Model &b = t.button;
        if (!b.flags && b.idle()) return;
        core_view_t &a = *t.v;
        b.advance(ms, [&](int special) {
            if (record) record(REC_SPECIAL, t.index, special, now);
        });
        int64_t flags = b.take_flags();
        if (flags) {
            a.button_flags |= flags;
            if (flags & button::PRESSED) viral_postpone(t, ms);
            if (record) record(REC_BUTTON, t.index, flags, now);
        }
        a.button_down = b.down;
        a.click_count = b.click_count;
    }

};

}  // namespace

/* ----------------------------------------------------------- the C interface */
extern "C" {

#define EXPORT __attribute__((visibility("default")))

/* The key of the sources this library was compiled from (sources.py: both builds define it).
   The text with its mark is in the library's data, where sources.built_key reads it. */
#ifndef BLINKC_CORE_KEY
#define BLINKC_CORE_KEY ""
#endif
static const char core_key_text[] = "blinkc-world-core-key:" BLINKC_CORE_KEY;

EXPORT const char *core_source_key(void) {
    return core_key_text + sizeof("blinkc-world-core-key:") - 1;
}

EXPORT int64_t core_view_size(void) { return (int64_t)sizeof(core_view_t); }

/* The view's layout this core was compiled with (view.h, from view_fields.py). */
EXPORT const char *core_view_layout(void) { return CORE_VIEW_LAYOUT; }

EXPORT void *core_new(double drop, int64_t jitter_us) {
    World *w = new World();
    w->drop = drop;
    w->jitter_us = jitter_us;
    return w;
}

EXPORT void core_free(void *w) { delete static_cast<World *>(w); }

/* Settings Python may change between runs: idle skipping, and the trace callback (NULL: none). */
EXPORT void core_configure(void *wp, int idle_skip, record_fn record) {
    World &w = *static_cast<World *>(wp);
    w.idle_skip = idle_skip != 0;
    w.record = record;
}

/* The arrival observer (NULL: none, and the core reports nothing). */
EXPORT void core_set_observer(void *wp, arrive_fn observer) {
    World &w = *static_cast<World *>(wp);
    w.flush_arrivals();
    w.observer = observer;
}

/* Hand the arrivals gathered so far to the observer now. */
EXPORT void core_flush_arrivals(void *wp) { static_cast<World *>(wp)->flush_arrivals(); }

EXPORT int64_t core_arrival_size(void) { return (int64_t)sizeof(ArrivalRecord); }

/* The decoder's clock tolerance for face values (length 0) or datagrams of `length` payload
   bytes (1..VIEW_DGRAM): infrared.py's DECODERS[length], its window and its n points. */
EXPORT void core_set_decoder(void *wp, int length, double low, double high, const double *xs,
                             const double *ys, int n) {
    World &w = *static_cast<World *>(wp);
    if (length < 0 || length > VIEW_DGRAM) return;
    int k = length;
    w.decode_low[k] = low;
    w.decode_high[k] = high;
    w.decode_x[k].assign(xs, xs + n);
    w.decode_y[k].assign(ys, ys + n);
}

EXPORT void core_set_fault_rng(void *w, uint64_t state) {
    static_cast<World *>(w)->fault_rng.set_state(state);
}

/* A new tile; its view must then be filled in and core_load() called. */
EXPORT int core_add_tile(void *wp, int64_t ppm, int64_t offset, int64_t frame_phase,
                         void *state, void *setup, void *loop, void *quiet) {
    World &w = *static_cast<World *>(wp);
    Tile *t = new Tile();
    t->index = (int)w.tiles.size();
    t->v = new core_view_t();
    memset(t->v, 0, sizeof(core_view_t));
    t->st = static_cast<blinkc_tile_t *>(state);
    t->setup_fn = reinterpret_cast<entry_fn>(setup);
    t->loop_fn = reinterpret_cast<entry_fn>(loop);
    t->quiet = reinterpret_cast<quiet_fn>(quiet);
    t->clock.ppm = ppm;
    t->clock.rate = MILLION + ppm;
    t->clock.offset = offset;
    t->clock.frame_phase = frame_phase;
    w.tiles.push_back(t);
    return t->index;
}

/* Seed mode's restart (World._restart): the tile runs another copy of a sketch from now on. */
EXPORT void core_set_program(void *wp, int i, void *state, void *setup, void *loop, void *quiet) {
    Tile &t = *static_cast<World *>(wp)->tiles[i];
    t.st = static_cast<blinkc_tile_t *>(state);
    t.setup_fn = reinterpret_cast<entry_fn>(setup);
    t.loop_fn = reinterpret_cast<entry_fn>(loop);
    t.quiet = reinterpret_cast<quiet_fn>(quiet);
    t.port = nullptr;
}

/* Warm sleep (Engine.dormant): the view and core_load() carry the rest. */
EXPORT void core_dormant(void *wp, int i, int asleep) {
    World &w = *static_cast<World *>(wp);
    Tile &t = *w.tiles[i];
    if (asleep) t.button.raw.clear(); /* the Python side reset its button model */
    w.dormant(t, asleep != 0);
}

EXPORT void core_set_clock_offset(void *wp, int i, int64_t offset) {
    static_cast<World *>(wp)->tiles[i]->clock.offset = offset;
}

/* The tile's service-port buffer (NativeProgram.service_port_addr; 0: none). */
EXPORT void core_set_port(void *wp, int i, void *port) {
    static_cast<World *>(wp)->tiles[i]->port = static_cast<blinkc_service_port_t *>(port);
}

/* Whether any tile has service-port bytes waiting (and forget it: Python takes them all). */
EXPORT int core_serial_pending(void *wp) {
    World &w = *static_cast<World *>(wp);
    bool any = w.serial_pending;
    w.serial_pending = false;
    return any ? 1 : 0;
}

/* Copy up to `cap` waiting bytes of tile i to `out` and drop them; returns how many remain
 * before the copy (call with cap 0 to ask). */
EXPORT int64_t core_serial_take(void *wp, int i, uint8_t *out, int64_t cap) {
    Tile &t = *static_cast<World *>(wp)->tiles[i];
    int64_t n = (int64_t)t.port_out.size();
    if (cap >= n && n) {
        memcpy(out, t.port_out.data(), (size_t)n);
        t.port_out.clear();
    }
    return n;
}

EXPORT core_view_t *core_view(void *w, int i) { return static_cast<World *>(w)->tiles[i]->v; }

EXPORT void core_load(void *wp, int i) {
    World &w = *static_cast<World *>(wp);
    w.load(*w.tiles[i]);
}

EXPORT void core_place(void *wp, int i, int64_t q, int64_t r, int64_t rot) {
    World &w = *static_cast<World *>(wp);
    w.place(*w.tiles[i], q, r, rot);
}

EXPORT void core_unplace(void *wp, int i) {
    World &w = *static_cast<World *>(wp);
    w.unplace(*w.tiles[i]);
}

EXPORT void core_set_rot(void *wp, int i, int64_t rot) {
    static_cast<World *>(wp)->tiles[i]->rot = rot;
}

EXPORT void core_wake(void *wp, int i) {
    World &w = *static_cast<World *>(wp);
    w.wake(*w.tiles[i]);
}

/* PythonEngine.cut: lose every packet leaving face `face` of tile i until world time `until`. */
EXPORT void core_cut(void *wp, int i, int face, int64_t until) {
    static_cast<World *>(wp)->tiles[i]->cut_until[face] = until;
}

EXPORT void core_stall(void *wp, int i, int64_t ms) {
    World &w = *static_cast<World *>(wp);
    w.stall(*w.tiles[i], ms);
}

EXPORT void core_button_push(void *wp, int i, int64_t t_ms, int down) {
    World &w = *static_cast<World *>(wp);
    Tile &t = *w.tiles[i];
    t.button.push(t_ms, down != 0);
    w.touch(t);
}

/* Raw button changes not yet processed: up to `cap` (ms, down) pairs into out. */
EXPORT int core_button_raw(void *wp, int i, int64_t *out, int cap) {
    const button::Model &b = static_cast<World *>(wp)->tiles[i]->button;
    int n = 0;
    for (const auto &p : b.raw) {
        if (n >= cap) break;
        out[2 * n] = p.first;
        out[2 * n + 1] = p.second;
        ++n;
    }
    return n;
}

/* An event from Python (a tile's first pass, a scheduled call); tile -1 for none. */
EXPORT void core_schedule(void *wp, int64_t t, int kind, int tile, int64_t data) {
    World &w = *static_cast<World *>(wp);
    w.schedule(t, kind, tile >= 0 ? w.tiles[tile] : nullptr, data);
}

/* Continue a Python world's numbering, so equal times keep their order. */
EXPORT void core_set_seq(void *wp, int64_t seq) { static_cast<World *>(wp)->seq = seq; }

/* Schedule an event with a given sequence number (taking over a Python queue). */
EXPORT void core_schedule_seq(void *wp, int64_t t, int64_t seq, int kind, int tile, int64_t data) {
    World &w = *static_cast<World *>(wp);
    int64_t saved = w.seq;
    w.seq = seq - 1;
    w.schedule(t, kind, tile >= 0 ? w.tiles[tile] : nullptr, data);
    w.seq = saved;
}

EXPORT int core_run(void *wp, int64_t end, int64_t *call_id) {
    World &w = *static_cast<World *>(wp);
    if (w.failed_tile >= 0) return TILE_STOPPED; /* its state is torn: never run on */
    int status;
    try {
        status = w.run_until(end);
    } catch (const Stopped &) {
        status = TILE_STOPPED;
    }
    w.flush_arrivals();
    *call_id = w.pending_call;
    return status;
}

/* After CALL_DUE and its call: the next event, if it is a call due at the same time (1, its
 * id in *call_id), so that Python runs it without running the core again; else 0. */
EXPORT int core_take_call(void *wp, int64_t *call_id) {
    World &w = *static_cast<World *>(wp);
    if (w.failed_tile >= 0 || !w.take_call()) return 0;
    *call_id = w.pending_call;
    return 1;
}

/* The watchdog (guard.cpp) to call tile code through, and where it counts SIGINTs. */
EXPORT void core_set_guard(void *wp, void *call, void *call_u32, const volatile int *interrupts) {
    World &w = *static_cast<World *>(wp);
    w.guard = reinterpret_cast<guard_fn>(call);
    w.guard_u32 = reinterpret_cast<guard_u32_fn>(call_u32);
    w.interrupts = interrupts;
}

/* After TILE_FROZE: the tile that froze (and forget it); -1 if none. */
EXPORT int core_frozen(void *wp) {
    World &w = *static_cast<World *>(wp);
    int i = w.froze;
    w.froze = -1;
    return i;
}

/* After TILE_STOPPED: out = {tile, Phase, watchdog code}; returns 0 if no tile was stopped. */
EXPORT int core_failure(void *wp, int64_t *out) {
    World &w = *static_cast<World *>(wp);
    out[0] = w.failed_tile;
    out[1] = w.failed_phase;
    out[2] = w.failed_code;
    return w.failed_tile >= 0;
}

EXPORT int64_t core_now(void *w) { return static_cast<World *>(w)->now; }

EXPORT int64_t core_events(void *w) { return static_cast<World *>(w)->events; }

EXPORT void core_event_counts(void *wp, int64_t *out) {
    World &w = *static_cast<World *>(wp);
    for (int k = 0; k < E_COUNT; ++k) out[k] = w.event_counts[k];
}

EXPORT void core_stats(void *wp, int64_t *out) {
    World &w = *static_cast<World *>(wp);
    for (int k = 0; k < S_COUNT; ++k) out[k] = w.stats[k];
}

/* Indices of the tiles that changed since the last call (their views are up to date). */
EXPORT int core_take_dirty(void *wp, int32_t *out, int cap) {
    World &w = *static_cast<World *>(wp);
    int n = 0;
    for (int32_t i : w.dirty) {
        Tile &t = *w.tiles[i];
        t.dirty = false;
        w.publish(t);
        if (n < cap) out[n++] = i;
    }
    w.dirty.clear();
    return n;
}

/* What Cluster.settle asks of a tile between two short runs (NativeEngine.calm), without
 * publishing its whole view: bit 0, its last pass skipped loop(); bit 1, its button is idle
 * (button.h's idle(), as button.py's ButtonModel.idle()); from bit 8 up, its flags. */
EXPORT int64_t core_calm(void *wp, int i) {
    const Tile &t = *static_cast<World *>(wp)->tiles[i];
    return (t.skipped ? 1 : 0) | (t.button.idle() ? 2 : 0) | ((int64_t)t.button.flags << 8);
}

/* Bring one tile's view up to date now (for a trace record in the middle of a run). */
EXPORT void core_publish(void *wp, int i) {
    World &w = *static_cast<World *>(wp);
    w.publish(*w.tiles[i]);
}

/* For tests: the clock functions of one clock, to compare with clock.py. */
EXPORT void core_clock(int64_t ppm, int64_t offset, int64_t frame_phase, int64_t t, int64_t local,
                       int64_t *out) {
    Clock c;
    c.ppm = ppm;
    c.rate = MILLION + ppm;
    c.offset = offset;
    c.frame_phase = frame_phase;
    out[0] = c.local_us(t);
    out[1] = c.millis(t);
    out[2] = c.world_us(local);
    out[3] = c.local_duration_to_world(local);
    out[4] = c.next_frame(t);
}

/* For tests: n draws of the fault generator, alternately chance(p) and below(bound). */
EXPORT void core_fault_draws(uint64_t state, int n, double p, uint32_t bound, int *chances,
                             int64_t *belows) {
    SplitMix64 r;
    r.set_state(state);
    for (int i = 0; i < n; ++i) {
        chances[i] = r.chance(p);
        belows[i] = r.below(bound);
    }
}

}  /* extern "C" */
