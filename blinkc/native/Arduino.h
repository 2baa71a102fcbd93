/*
 * Arduino.h (blinkc): what a Blinks sketch gets without any #include.
 *
 * The Arduino build (and blinkc's sketch preprocessor) puts
 * `#include <Arduino.h>` at the top of every .ino file. Like the Blinks core,
 * it brings in the blinklib API and the usual Arduino helper macros.
 */
#ifndef BLINKC_ARDUINO_H
#define BLINKC_ARDUINO_H

#include <stdbool.h>
#include <stdint.h>
#include <math.h>

#include "ArduinoTypes.h"

#define HIGH 0x1
#define LOW 0x0

#define PI 3.1415926535897932384626433832795
#define HALF_PI 1.5707963267948966192313216916398
#define TWO_PI 6.283185307179586476925286766559
#define DEG_TO_RAD 0.017453292519943295769236907684886
#define RAD_TO_DEG 57.295779513082320876798154814105
#define EULER 2.718281828459045235360287471352

#define LSBFIRST 0
#define MSBFIRST 1

/* The classic Arduino macros: sketches rely on them taking mixed types. */
#ifdef abs
#undef abs
#endif
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define abs(x) ((x) > 0 ? (x) : -(x))
#define constrain(amt, low, high) ((amt) < (low) ? (low) : ((amt) > (high) ? (high) : (amt)))
#define round(x) ((x) >= 0 ? (long)((x) + 0.5) : (long)((x) - 0.5))
#define radians(deg) ((deg) * DEG_TO_RAD)
#define degrees(rad) ((rad) * RAD_TO_DEG)
#define sq(x) ((x) * (x))

#define lowByte(w) ((uint8_t)((w) & 0xff))
#define highByte(w) ((uint8_t)((w) >> 8))
#define bitRead(value, bit) (((value) >> (bit)) & 0x01)
#define bitSet(value, bit) ((value) |= (1UL << (bit)))
#define bitClear(value, bit) ((value) &= ~(1UL << (bit)))
#define bitWrite(value, bit, bitvalue) ((bitvalue) ? bitSet(value, bit) : bitClear(value, bit))
#define bit(b) (1UL << (b))

#include "blinklib.h"

#endif /* BLINKC_ARDUINO_H */
