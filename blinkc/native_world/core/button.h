/*
 * button.h (blinkc): the BIOS button model of blinkc/world/button.py, in C++.
 *
 * Same rules, same integer arithmetic, same order of events: debounce (a raw
 * change is accepted once the state was stable 20 ms), clicks counted in a
 * 330 ms window, long press at 1.2 s, long-long at 3 s, sleep at 6 s. All
 * times are the tile's local milliseconds. Its fields are mirrored to the
 * Python ButtonModel (see bindings.py), so they keep the Python names.
 */
#ifndef BLINKC_CORE_BUTTON_H
#define BLINKC_CORE_BUTTON_H

#include <stdint.h>

#include <deque>
#include <utility>

namespace button {

enum : int64_t {
    PRESSED = 0x01, RELEASED = 0x02, SINGLECLICKED = 0x04, DOUBLECLICKED = 0x08,
    MULTICLICKED = 0x10, LONGPRESSED = 0x20, LONGLONGPRESSED = 0x40
};
const int64_t DEBOUNCE_MS = 20, CLICK_WINDOW_MS = 330;
const int64_t NEVER = int64_t(1) << 62;
/* (bit in long_fired, hold time) for long press, long-long press and sleep. */
const int64_t LONG_BITS[3] = {1, 2, 4};
const int64_t LONG_MARKS[3] = {1200, 3000, 6000};

/* What advance() reports besides flags: the BIOS milestones traces show. */
enum Special { SPECIAL_LONGLONG = 2, SPECIAL_SLEEP = 4 };

struct Model {
    int64_t down = 0, flags = 0, click_count = 0;
    std::deque<std::pair<int64_t, int64_t>> raw; /* (local ms, down?) not yet processed */
    int64_t raw_down = 0, last_accept = -DEBOUNCE_MS, pending_clicks = 0;
    int64_t window_end = NEVER, down_since = NEVER, long_fired = 0;

    void push(int64_t t_ms, bool d) { raw.emplace_back(t_ms, d ? 1 : 0); }

    bool idle() const { return raw.empty() && window_end == NEVER && !down; }

    int64_t next_deadline() const {
        int64_t t = window_end;
        if (!raw.empty()) t = min64(t, max64(raw.front().first, last_accept + DEBOUNCE_MS));
        if (down) {
            for (int i = 0; i < 3; ++i)
                if (!(long_fired & LONG_BITS[i])) t = min64(t, down_since + LONG_MARKS[i]);
        }
        return t;
    }

    /* Everything up to and including local time `now`; calls special(kind) per milestone. */
    template <typename F> void advance(int64_t now, F special) {
        for (;;) {
            int64_t t_next = NEVER;
            int kind = -1; /* 0 raw, 1 window, 2.. long mark index + 2 */
            if (!raw.empty()) {
                t_next = max64(raw.front().first, last_accept + DEBOUNCE_MS);
                kind = 0;
            }
            if (window_end < t_next) {
                t_next = window_end;
                kind = 1;
            }
            if (down) {
                for (int i = 0; i < 3; ++i) {
                    if (!(long_fired & LONG_BITS[i]) && down_since + LONG_MARKS[i] < t_next) {
                        t_next = down_since + LONG_MARKS[i];
                        kind = 2 + i;
                    }
                }
            }
            if (t_next > now) return;
            if (kind == 0) {
                accept_raw(t_next);
            } else if (kind == 1) {
                end_window();
            } else {
                int64_t bit = LONG_BITS[kind - 2];
                long_fired |= bit;
                if (bit == 1) {
                    flags |= LONGPRESSED;
                } else if (bit == 2) {
                    flags |= LONGLONGPRESSED;
                    special(SPECIAL_LONGLONG);
                } else {
                    special(SPECIAL_SLEEP);
                }
            }
        }
    }

    int64_t take_flags() {
        int64_t f = flags;
        flags = 0;
        return f;
    }

  private:
    static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
    static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

    void accept_raw(int64_t t) {
        /* Consume every raw change up to t; the contact state at t is what the BIOS sees. */
        int64_t state = raw_down;
        while (!raw.empty() && raw.front().first <= t) {
            state = raw.front().second;
            raw.pop_front();
        }
        raw_down = state;
        if (state == down) return; /* a bounce that went back before it could be accepted */
        down = state;
        last_accept = t;
        if (state) {
            flags |= PRESSED;
            pending_clicks += 1;
            window_end = t + CLICK_WINDOW_MS;
            down_since = t;
            long_fired = 0;
        } else {
            flags |= RELEASED;
            down_since = NEVER;
        }
    }

    void end_window() {
        int64_t n = pending_clicks;
        pending_clicks = 0;
        window_end = NEVER;
        if (down || n == 0) return; /* window ended while held: the clicks are discarded */
        if (n == 1) {
            flags |= SINGLECLICKED;
        } else if (n == 2) {
            flags |= DOUBLECLICKED;
        } else {
            flags |= MULTICLICKED;
            click_count = n < 255 ? n : 255;
        }
    }
};

}  // namespace button

#endif /* BLINKC_CORE_BUTTON_H */
