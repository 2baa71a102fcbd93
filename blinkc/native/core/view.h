/*
 * view.h (blinkc): the flat record through which Python reads and writes one
 * tile of the C++ world core.
 *
 * The core keeps each tile's state in typed C++ structures; the Python
 * objects the rest of blinkc reads (Tile, its Blinklib `api`, its
 * ButtonModel) are mirrors, refreshed from this record after the core has
 * run (only for tiles that changed) and written back through it after Python
 * code ran a program hook on the tile (a display, a derived value).
 * blinkc/native/core/bindings.py reads this very struct (so the layout is
 * declared once, here): keep one field or array per name, of int64_t or uint8_t,
 * with sizes given by the VIEW_ macros; core_view_size() checks the result.
 */
#ifndef BLINKC_CORE_VIEW_H
#define BLINKC_CORE_VIEW_H

#include <stdint.h>

#define VIEW_FACES 6
#define VIEW_DGRAM 16

typedef struct core_view {
    /* Blinklib (api) fields, by their Python names */
    int64_t now;
    int64_t in_value[VIEW_FACES];
    int64_t out_value[VIEW_FACES];
    int64_t expire_time[VIEW_FACES];
    int64_t send_time[VIEW_FACES];
    int64_t pixels[VIEW_FACES];
    int64_t button_down, button_flags, click_count;
    int64_t rng_state, entropy, woken, start_state, extra_cpu_ms;
    /* Tile fields */
    int64_t started, epoch, has_quiet, quiet_until, skipped, passes;
    int64_t viral_faces, viral_lockout_until;
    int64_t tx_start[VIEW_FACES];
    int64_t tx_end[VIEW_FACES];
    /* ButtonModel fields (raw changes are read with core_button_raw) */
    int64_t b_down, b_flags, b_click_count, b_raw_down, b_last_accept;
    int64_t b_pending_clicks, b_window_end, b_down_since, b_long_fired, b_raw_count;
    /* datagrams: a length of 0 is None */
    uint8_t in_dgram_len[VIEW_FACES];
    uint8_t out_dgram_len[VIEW_FACES];
    uint8_t in_dgram[VIEW_FACES][VIEW_DGRAM];
    uint8_t out_dgram[VIEW_FACES][VIEW_DGRAM];
    uint8_t serial[9];
    uint8_t pad[3];
} core_view_t;

#endif /* BLINKC_CORE_VIEW_H */
