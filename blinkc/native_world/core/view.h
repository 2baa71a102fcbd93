/*
 * view.h (blinkc): the flat record through which Python reads and writes one
 * tile of the C++ world core (core_view_t).
 *
 * GENERATED from blinkc/native_world/core/view_fields.py (FIELDS), which declares the
 * fields once: do not edit; change FIELDS and run
 *     python blinkc/native_world/core/view_fields.py
 * The core's build refuses a view.h that is not what FIELDS gives, and a test fails.
 */
#ifndef BLINKC_CORE_VIEW_H
#define BLINKC_CORE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#define VIEW_FACES 6
#define VIEW_DGRAM 16

typedef struct core_view {
    /* Blinklib (api) fields, by their Python names: the core keeps them here */
    int64_t now;
    int64_t in_value[VIEW_FACES];
    int64_t out_value[VIEW_FACES];
    int64_t expire_time[VIEW_FACES];
    int64_t send_time[VIEW_FACES];
    int64_t pixels[VIEW_FACES];
    int64_t button_down;
    int64_t button_flags;
    int64_t click_count;
    int64_t rng_state;
    int64_t entropy;
    int64_t woken;
    int64_t start_state;
    int64_t extra_cpu_ms;
    /* Tile fields: the core's copies are in its Tile (CORE_VIEW_PUBLISH / _LOAD) */
    int64_t started;
    int64_t epoch;
    int64_t has_quiet;
    int64_t quiet_until;
    int64_t skipped;
    int64_t passes;
    int64_t viral_faces;
    int64_t viral_lockout_until;
    int64_t tx_start[VIEW_FACES];
    int64_t tx_end[VIEW_FACES];
    /* ButtonModel fields (raw changes are read with core_button_raw) */
    int64_t b_down;
    int64_t b_flags;
    int64_t b_click_count;
    int64_t b_raw_down;
    int64_t b_last_accept;
    int64_t b_pending_clicks;
    int64_t b_window_end;
    int64_t b_down_since;
    int64_t b_long_fired;
    int64_t b_raw_count;
    /* datagrams (a length of 0 is None), the serial number, padding to 8 bytes */
    uint8_t in_dgram_len[VIEW_FACES];
    uint8_t out_dgram_len[VIEW_FACES];
    uint8_t in_dgram[VIEW_FACES][VIEW_DGRAM];
    uint8_t out_dgram[VIEW_FACES][VIEW_DGRAM];
    uint8_t serial[9];
    uint8_t pad[3];
} core_view_t;

/* Where Python puts each field (view_fields.layout): a field moved by hand fails here. */
static_assert(offsetof(core_view_t, now) == 0, "view.h: now is not where view_fields.py says");
static_assert(offsetof(core_view_t, in_value) == 8, "view.h: in_value is not where view_fields.py says");
static_assert(offsetof(core_view_t, out_value) == 56, "view.h: out_value is not where view_fields.py says");
static_assert(offsetof(core_view_t, expire_time) == 104, "view.h: expire_time is not where view_fields.py says");
static_assert(offsetof(core_view_t, send_time) == 152, "view.h: send_time is not where view_fields.py says");
static_assert(offsetof(core_view_t, pixels) == 200, "view.h: pixels is not where view_fields.py says");
static_assert(offsetof(core_view_t, button_down) == 248, "view.h: button_down is not where view_fields.py says");
static_assert(offsetof(core_view_t, button_flags) == 256, "view.h: button_flags is not where view_fields.py says");
static_assert(offsetof(core_view_t, click_count) == 264, "view.h: click_count is not where view_fields.py says");
static_assert(offsetof(core_view_t, rng_state) == 272, "view.h: rng_state is not where view_fields.py says");
static_assert(offsetof(core_view_t, entropy) == 280, "view.h: entropy is not where view_fields.py says");
static_assert(offsetof(core_view_t, woken) == 288, "view.h: woken is not where view_fields.py says");
static_assert(offsetof(core_view_t, start_state) == 296, "view.h: start_state is not where view_fields.py says");
static_assert(offsetof(core_view_t, extra_cpu_ms) == 304, "view.h: extra_cpu_ms is not where view_fields.py says");
static_assert(offsetof(core_view_t, started) == 312, "view.h: started is not where view_fields.py says");
static_assert(offsetof(core_view_t, epoch) == 320, "view.h: epoch is not where view_fields.py says");
static_assert(offsetof(core_view_t, has_quiet) == 328, "view.h: has_quiet is not where view_fields.py says");
static_assert(offsetof(core_view_t, quiet_until) == 336, "view.h: quiet_until is not where view_fields.py says");
static_assert(offsetof(core_view_t, skipped) == 344, "view.h: skipped is not where view_fields.py says");
static_assert(offsetof(core_view_t, passes) == 352, "view.h: passes is not where view_fields.py says");
static_assert(offsetof(core_view_t, viral_faces) == 360, "view.h: viral_faces is not where view_fields.py says");
static_assert(offsetof(core_view_t, viral_lockout_until) == 368, "view.h: viral_lockout_until is not where view_fields.py says");
static_assert(offsetof(core_view_t, tx_start) == 376, "view.h: tx_start is not where view_fields.py says");
static_assert(offsetof(core_view_t, tx_end) == 424, "view.h: tx_end is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_down) == 472, "view.h: b_down is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_flags) == 480, "view.h: b_flags is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_click_count) == 488, "view.h: b_click_count is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_raw_down) == 496, "view.h: b_raw_down is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_last_accept) == 504, "view.h: b_last_accept is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_pending_clicks) == 512, "view.h: b_pending_clicks is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_window_end) == 520, "view.h: b_window_end is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_down_since) == 528, "view.h: b_down_since is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_long_fired) == 536, "view.h: b_long_fired is not where view_fields.py says");
static_assert(offsetof(core_view_t, b_raw_count) == 544, "view.h: b_raw_count is not where view_fields.py says");
static_assert(offsetof(core_view_t, in_dgram_len) == 552, "view.h: in_dgram_len is not where view_fields.py says");
static_assert(offsetof(core_view_t, out_dgram_len) == 558, "view.h: out_dgram_len is not where view_fields.py says");
static_assert(offsetof(core_view_t, in_dgram) == 564, "view.h: in_dgram is not where view_fields.py says");
static_assert(offsetof(core_view_t, out_dgram) == 660, "view.h: out_dgram is not where view_fields.py says");
static_assert(offsetof(core_view_t, serial) == 756, "view.h: serial is not where view_fields.py says");
static_assert(offsetof(core_view_t, pad) == 765, "view.h: pad is not where view_fields.py says");
static_assert(sizeof(core_view_t) == 768, "view.h: core_view_t is not 768 bytes");

/* The layout Python expects, handed back by core_view_layout(). */
#define CORE_VIEW_LAYOUT "now:int64_t@0;in_value:int64_t[6]@8;out_value:int64_t[6]@56;expire_time:int64_t[6]@104;send_time:int64_t[6]@152;pixels:int64_t[6]@200;button_down:int64_t@248;button_flags:int64_t@256;click_count:int64_t@264;rng_state:int64_t@272;entropy:int64_t@280;woken:int64_t@288;start_state:int64_t@296;extra_cpu_ms:int64_t@304;started:int64_t@312;epoch:int64_t@320;has_quiet:int64_t@328;quiet_until:int64_t@336;skipped:int64_t@344;passes:int64_t@352;viral_faces:int64_t@360;viral_lockout_until:int64_t@368;tx_start:int64_t[6]@376;tx_end:int64_t[6]@424;b_down:int64_t@472;b_flags:int64_t@480;b_click_count:int64_t@488;b_raw_down:int64_t@496;b_last_accept:int64_t@504;b_pending_clicks:int64_t@512;b_window_end:int64_t@520;b_down_since:int64_t@528;b_long_fired:int64_t@536;b_raw_count:int64_t@544;in_dgram_len:uint8_t[6]@552;out_dgram_len:uint8_t[6]@558;in_dgram:uint8_t[6][16]@564;out_dgram:uint8_t[6][16]@660;serial:uint8_t[9]@756;pad:uint8_t[3]@765"

/* The core's own copies of fields (view_fields.Field.core), for a tile t: into the
 * view before Python reads it (publish), and back when a tile joins the core (load). */
#define CORE_VIEW_PUBLISH(v, t) \
    do { \
        v.started = t.started; \
        v.epoch = t.epoch; \
        v.has_quiet = t.has_quiet; \
        v.quiet_until = t.quiet_until; \
        v.skipped = t.skipped; \
        v.passes = t.passes; \
        v.viral_faces = t.viral_faces; \
        v.viral_lockout_until = t.viral_lockout_until; \
        for (int i_ = 0; i_ < VIEW_FACES; ++i_) v.tx_start[i_] = t.tx_start[i_]; \
        for (int i_ = 0; i_ < VIEW_FACES; ++i_) v.tx_end[i_] = t.tx_end[i_]; \
        v.b_down = t.button.down; \
        v.b_flags = t.button.flags; \
        v.b_click_count = t.button.click_count; \
        v.b_raw_down = t.button.raw_down; \
        v.b_last_accept = t.button.last_accept; \
        v.b_pending_clicks = t.button.pending_clicks; \
        v.b_window_end = t.button.window_end; \
        v.b_down_since = t.button.down_since; \
        v.b_long_fired = t.button.long_fired; \
        v.b_raw_count = (int64_t)t.button.raw.size(); \
    } while (0)

#define CORE_VIEW_LOAD(v, t) \
    do { \
        t.started = v.started; \
        t.epoch = v.epoch; \
        t.has_quiet = v.has_quiet; \
        t.quiet_until = v.quiet_until; \
        t.skipped = v.skipped; \
        t.passes = v.passes; \
        t.viral_faces = v.viral_faces; \
        t.viral_lockout_until = v.viral_lockout_until; \
        for (int i_ = 0; i_ < VIEW_FACES; ++i_) t.tx_start[i_] = v.tx_start[i_]; \
        for (int i_ = 0; i_ < VIEW_FACES; ++i_) t.tx_end[i_] = v.tx_end[i_]; \
        t.button.down = v.b_down; \
        t.button.flags = v.b_flags; \
        t.button.click_count = v.b_click_count; \
        t.button.raw_down = v.b_raw_down; \
        t.button.last_accept = v.b_last_accept; \
        t.button.pending_clicks = v.b_pending_clicks; \
        t.button.window_end = v.b_window_end; \
        t.button.down_since = v.b_down_since; \
        t.button.long_fired = v.b_long_fired; \
    } while (0)

#endif /* BLINKC_CORE_VIEW_H */
