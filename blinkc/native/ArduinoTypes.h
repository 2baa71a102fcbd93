/*
 * ArduinoTypes.h (blinkc): the integer type names Blinks sketches use.
 *
 * Written for blinkc from the documented platform facts (docs/platform.md); not the SDK's file.
 * On the tile (avr-gcc) `int` is 16-bit, so `word` is `unsigned int`. On the
 * host `int` is 32-bit, so `word` is spelled `uint16_t` to keep its width:
 * a value stored in a word wraps at 65536 on both.
 */
#ifndef BLINKC_ARDUINO_TYPES_H
#define BLINKC_ARDUINO_TYPES_H

#include <stdint.h>

typedef bool boolean;
typedef uint8_t byte;
#if defined(__AVR__)
typedef unsigned int word;
#else
typedef uint16_t word;
#endif
#if defined(__GLIBC__)
/* glibc already names ulong (unsigned long, 64-bit on the host). */
#include <sys/types.h>
#else
typedef uint32_t ulong;
#endif

#endif /* BLINKC_ARDUINO_TYPES_H */
