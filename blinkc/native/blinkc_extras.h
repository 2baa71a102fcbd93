/*
 * blinkc_extras.h (blinkc): blinkc's own additions to the blinklib API.
 *
 * None of these is in Blinks SDK v1.1.0: a sketch that uses one runs in the
 * emulator but does not build with the SDK. So in an SDK-style compile for
 * the tile (avr_compile_check, `blinkc check` of a sketch) each of them is a
 * deleted function, and the check names the culprit; the blinkc-internal
 * AVR compiles (the 16-bit int check, code sizes) define BLINKC_EXTRAS_OK
 * to let them through. blinklib.h includes this header.
 *
 *   Color lighten(Color color, byte brightness)
 *       Each channel moves toward full by (31 - channel) * brightness / 255.
 *       The maintained SDK (bigjosh/Move38-Arduino-Platform) has it; v1.1.0
 *       does not. A sketch for both can carry its own, as blinkc's generated
 *       sketches do (`blinkc_lighten`).
 *   void blinkc_host_spend_ms(uint16_t ms)            (host only)
 *       The pass blocks the CPU for `ms` more (a busy wait on the tile).
 *   void blinkc_probe(uint8_t kind, uint16_t v0, ..., uint16_t v4)   (host only)
 *       What the explorer's build of a game reports to `blinkc explore`'s monitor
 *       (blinkc/ir/probes.py; blinkc_native.h: blinkc_set_probe).
 *   the hooks of blinkc_hooks.h                       (host only)
 */
#ifndef BLINKC_EXTRAS_H
#define BLINKC_EXTRAS_H

#include <stdint.h>

/* Defined on the host (the emulator's build), so a sketch can say `#ifdef BLINKC_HOST`. */
#if !defined(__AVR__) && !defined(BLINKC_HOST)
#define BLINKC_HOST 1
#endif

#if defined(__AVR__) && !defined(BLINKC_EXTRAS_OK)
/* "use of deleted function": avr_check.py explains it is not in the SDK. */
Color lighten(Color color, byte brightness) = delete;
void blinkc_host_spend_ms(uint16_t ms) = delete;
void blinkc_probe(uint8_t kind, uint16_t v0, uint16_t v1, uint16_t v2, uint16_t v3,
                  uint16_t v4) = delete;
#else
Color lighten(Color color, byte brightness);
#endif

#if defined(BLINKC_HOST)
#include "blinkc_hooks.h"
void blinkc_host_spend_ms(uint16_t ms);
void blinkc_probe(uint8_t kind, uint16_t v0, uint16_t v1, uint16_t v2, uint16_t v3, uint16_t v4);
#endif

#endif /* BLINKC_EXTRAS_H */
