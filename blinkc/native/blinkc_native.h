/*
 * blinkc_native.h (blinkc, host only): the state one native tile shares with
 * the emulator, and the entry points the emulator calls.
 *
 * Every tile is its own copy of the sketch's shared library, so each copy
 * holds exactly one tile's state in one blinkc_tile_t. The Python side
 * (blinkc/native/abi.py) mirrors this layout with ctypes and copies the
 * world's inputs in before a pass and the outputs out after it. Fields are
 * grouped so that both copies are single contiguous blocks:
 *
 *     [inputs][inputs and outputs][outputs][datagram buffers, serial]
 *
 * Bump BLINKC_ABI_VERSION whenever this layout changes.
 */
#ifndef BLINKC_NATIVE_H
#define BLINKC_NATIVE_H

#include <stdint.h>

#define BLINKC_ABI_VERSION 1
#define BLINKC_FACES 6
#define BLINKC_DATAGRAM_LEN 16

typedef struct blinkc_tile {
    /* inputs: set by the emulator before every pass */
    uint32_t now;                        /* millis(), frozen for the pass */
    uint32_t expire_time[BLINKC_FACES];  /* a face is expired when expire_time < now */
    uint8_t in_value[BLINKC_FACES];      /* last value received, 0..63 */
    uint8_t button_down;                 /* debounced state */
    uint8_t click_count;                 /* clicks of the last multi-click */
    uint8_t start_state;                 /* START_STATE_* */
    uint8_t pad0[3];

    /* inputs and outputs */
    uint32_t rng_state;                  /* xorshift32 state of random() */
    uint32_t entropy;                    /* the "hardware noise" randomize() draws on */
    uint8_t button_flags;                /* sticky events; the button...() calls clear them */
    uint8_t woken;                       /* hasWoken() reports and clears it */
    uint8_t pad1[2];

    /* outputs: read by the emulator after every pass */
    uint8_t out_value[BLINKC_FACES];     /* 0..63 */
    uint8_t pad2[2];
    uint16_t pixels[BLINKC_FACES];       /* r | g << 5 | b << 10, 5 bits each */
    uint32_t extra_cpu_ms;               /* CPU time the pass blocked for (randomize) */
    uint8_t datagram_sent;               /* bit f: a datagram was queued on face f */
    uint8_t datagram_read;               /* bit f: the datagram on face f was marked read */
    uint8_t pad3[2];

    /* datagram buffers: copied only when they change */
    uint8_t in_datagram_len[BLINKC_FACES];   /* 0: none waiting */
    uint8_t out_datagram_len[BLINKC_FACES];
    uint8_t in_datagram[BLINKC_FACES][BLINKC_DATAGRAM_LEN];
    uint8_t out_datagram[BLINKC_FACES][BLINKC_DATAGRAM_LEN];

    uint8_t serial[9];                   /* getSerialNumberByte() */
    uint8_t pad4[3];
} blinkc_tile_t;

/* The tile's service port (Serial.h): what the sketch wrote since the world
 * last took it (after every setup() and loop()). Bytes past the buffer are
 * counted in `lost`. Reached through blinkc_service_port(). */
#define BLINKC_SERVICE_PORT_LEN 4096

typedef struct blinkc_service_port {
    uint32_t len;
    uint32_t lost;
    uint8_t data[BLINKC_SERVICE_PORT_LEN];
} blinkc_service_port_t;

/* What the other end of the service port sent (a scenario's `serial` step): bytes
 * data[pos..len) wait for Serial.read(). The emulator appends; the sketch reads.
 * Reached through blinkc_service_input(). */
#define BLINKC_SERVICE_INPUT_LEN 4096

typedef struct blinkc_service_input {
    uint32_t pos;
    uint32_t len;
    uint8_t data[BLINKC_SERVICE_INPUT_LEN];
} blinkc_service_input_t;

/* The explorer's probes (blinkc/ir/probes.py): the explorer's build of a game calls
 * blinkc_probe(kind, v0..v4), which hands them to the callback given to the library's
 * blinkc_set_probe(fn, ctx) (NULL: none, the default): NativeProgram's, which hands them
 * to its tile's api, as a Python tile does. */
#define BLINKC_PROBE_VALUES 5
typedef void (*blinkc_probe_fn)(void *ctx, int kind, int v0, int v1, int v2, int v3, int v4);
typedef void (*blinkc_set_probe_t)(blinkc_probe_fn fn, void *ctx);

#endif /* BLINKC_NATIVE_H */
