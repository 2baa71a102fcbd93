/*
 * blinkc_tile.h (blinkc, host only): the state one native tile shares with the
 * emulator (blinkc_tile_t), included by blinkc_native.h. Fields are grouped so that
 * the copies before and after a pass are single contiguous blocks.
 *
 * GENERATED from blinkc/native/abi.py (TILE_FIELDS), which declares the fields once:
 * do not edit; change TILE_FIELDS and run `python blinkc/native/abi.py`. A native
 * build refuses a header that is not what TILE_FIELDS gives, and a test fails.
 */
#ifndef BLINKC_TILE_H
#define BLINKC_TILE_H

#include <stddef.h>
#include <stdint.h>

#define BLINKC_ABI_VERSION 1
#define BLINKC_FACES 6
#define BLINKC_DATAGRAM_LEN 16
#define BLINKC_SERIAL_LEN 9

typedef struct blinkc_tile {
    /* inputs: set by the emulator before every pass */
    uint32_t now;                           /* millis(), frozen for the pass */
    uint32_t expire_time[BLINKC_FACES];     /* a face is expired when expire_time < now */
    uint8_t in_value[BLINKC_FACES];         /* last value received, 0..63 */
    uint8_t button_down;                    /* debounced state */
    uint8_t click_count;                    /* clicks of the last multi-click */
    uint8_t start_state;                    /* START_STATE_* */
    uint8_t pad0[3];

    /* inputs and outputs */
    uint32_t rng_state;                     /* xorshift32 state of random() */
    uint32_t entropy;                       /* the "hardware noise" randomize() draws on */
    uint8_t button_flags;                   /* sticky events; the button...() calls clear them */
    uint8_t woken;                          /* hasWoken() reports and clears it */
    uint8_t pad1[2];

    /* outputs: read by the emulator after every pass */
    uint8_t out_value[BLINKC_FACES];        /* 0..63 */
    uint8_t pad2[2];
    uint16_t pixels[BLINKC_FACES];          /* r | g << 5 | b << 10, 5 bits each */
    uint32_t extra_cpu_ms;                  /* CPU time the pass blocked for (randomize) */
    uint8_t datagram_sent;                  /* bit f: a datagram was queued on face f */
    uint8_t datagram_read;                  /* bit f: the datagram on face f was marked read */
    uint8_t pad3[2];

    /* datagram buffers (copied only when they change) and the serial number */
    uint8_t in_datagram_len[BLINKC_FACES];  /* 0: none waiting */
    uint8_t out_datagram_len[BLINKC_FACES];
    uint8_t in_datagram[BLINKC_FACES][BLINKC_DATAGRAM_LEN];
    uint8_t out_datagram[BLINKC_FACES][BLINKC_DATAGRAM_LEN];
    uint8_t serial[BLINKC_SERIAL_LEN];      /* getSerialNumberByte() */
    uint8_t pad4[3];
} blinkc_tile_t;

#ifdef __cplusplus
/* Where Python puts each field (abi.TileState): a field moved by hand fails here. */
static_assert(offsetof(blinkc_tile_t, now) == 0, "blinkc_tile.h: now is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, expire_time) == 4, "blinkc_tile.h: expire_time is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, in_value) == 28, "blinkc_tile.h: in_value is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, button_down) == 34, "blinkc_tile.h: button_down is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, click_count) == 35, "blinkc_tile.h: click_count is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, start_state) == 36, "blinkc_tile.h: start_state is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pad0) == 37, "blinkc_tile.h: pad0 is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, rng_state) == 40, "blinkc_tile.h: rng_state is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, entropy) == 44, "blinkc_tile.h: entropy is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, button_flags) == 48, "blinkc_tile.h: button_flags is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, woken) == 49, "blinkc_tile.h: woken is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pad1) == 50, "blinkc_tile.h: pad1 is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, out_value) == 52, "blinkc_tile.h: out_value is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pad2) == 58, "blinkc_tile.h: pad2 is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pixels) == 60, "blinkc_tile.h: pixels is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, extra_cpu_ms) == 72, "blinkc_tile.h: extra_cpu_ms is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, datagram_sent) == 76, "blinkc_tile.h: datagram_sent is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, datagram_read) == 77, "blinkc_tile.h: datagram_read is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pad3) == 78, "blinkc_tile.h: pad3 is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, in_datagram_len) == 80, "blinkc_tile.h: in_datagram_len is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, out_datagram_len) == 86, "blinkc_tile.h: out_datagram_len is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, in_datagram) == 92, "blinkc_tile.h: in_datagram is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, out_datagram) == 188, "blinkc_tile.h: out_datagram is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, serial) == 284, "blinkc_tile.h: serial is not where abi.py says");
static_assert(offsetof(blinkc_tile_t, pad4) == 293, "blinkc_tile.h: pad4 is not where abi.py says");
static_assert(sizeof(blinkc_tile_t) == 296, "blinkc_tile.h: not 296 bytes");
#endif

#endif /* BLINKC_TILE_H */
