/*
 * blinkc_native.h (blinkc, host only): the state one native tile shares with
 * the emulator, and the entry points the emulator calls.
 *
 * Every tile is its own copy of the sketch's shared library, so each copy
 * holds exactly one tile's state in one blinkc_tile_t (blinkc_tile.h, generated
 * from its one declaration in blinkc/native/abi.py, which also makes the Python
 * side's copies of the world's inputs in before a pass and the outputs out after it).
 */
#ifndef BLINKC_NATIVE_H
#define BLINKC_NATIVE_H

#include <stdint.h>

#include "blinkc_tile.h"  /* blinkc_tile_t, generated from blinkc/native/abi.py */

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
