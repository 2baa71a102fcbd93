/*
 * blinkc_hooks.h (blinkc, host only): optional functions a sketch may define
 * to help the emulator. All are optional; an unmodified Blinks sketch defines
 * none and runs the same. blinklib.h includes this header on the host only,
 * so code that defines hooks wraps them in `#ifdef BLINKC_HOST`.
 *
 *   uint32_t blinkc_quiet_until(void)
 *       The millis() until which loop() would change nothing (no variable,
 *       face value or colour) while the tile's inputs stay as they are;
 *       BLINKC_NEVER for ever, 0 when busy. Lets the world skip idle passes.
 *
 *   void blinkc_display(void)
 *       Recompute the colours for the current millis() alone, without
 *       running game logic, so an idle tile's animation can be shown.
 *
 *   const blinkc_field_t blinkc_state_fields[]
 *       The sketch's state, for traces and `--json`: a table of variables
 *       ended by BLINKC_FIELDS_END, e.g.
 *           const blinkc_field_t blinkc_state_fields[] = {
 *               BLINKC_FIELD(mode), BLINKC_ARRAY_FIELD(hp), BLINKC_FIELDS_END };
 *
 * New hooks follow the same pattern: an extern "C" symbol named blinkc_*
 * that the Python side (blinkc/native/program.py) looks up when it loads
 * the library; a missing symbol means "not provided".
 */
#ifndef BLINKC_HOOKS_H
#define BLINKC_HOOKS_H

#include <stdint.h>

#define BLINKC_EXPORT __attribute__((visibility("default")))
#define BLINKC_NEVER 0xFFFFFFFFUL

/* Type codes of state fields (mirrored in blinkc/native/abi.py). */
enum {
    BLINKC_FIELD_END = 0,
    BLINKC_U8 = 1,
    BLINKC_I8 = 2,
    BLINKC_U16 = 3,
    BLINKC_I16 = 4,
    BLINKC_U32 = 5,
    BLINKC_I32 = 6,
    BLINKC_BOOL = 7
};

typedef struct blinkc_field {
    const char *name;
    uint8_t type;
    uint16_t count; /* 1 for a scalar, the length for an array */
    const void *addr;
} blinkc_field_t;

static inline uint8_t blinkc_field_code(const uint8_t *) { return BLINKC_U8; }
static inline uint8_t blinkc_field_code(const int8_t *) { return BLINKC_I8; }
static inline uint8_t blinkc_field_code(const char *) { return BLINKC_I8; }
static inline uint8_t blinkc_field_code(const uint16_t *) { return BLINKC_U16; }
static inline uint8_t blinkc_field_code(const int16_t *) { return BLINKC_I16; }
static inline uint8_t blinkc_field_code(const uint32_t *) { return BLINKC_U32; }
static inline uint8_t blinkc_field_code(const int32_t *) { return BLINKC_I32; }
static inline uint8_t blinkc_field_code(const bool *) { return BLINKC_BOOL; }
/* Anything else (enums, ...): an unsigned integer of the same size. */
template <typename T> static inline uint8_t blinkc_field_code(const T *) {
    return sizeof(T) == 1 ? BLINKC_U8 : sizeof(T) == 2 ? BLINKC_U16 : BLINKC_U32;
}

#define BLINKC_FIELD(v) {#v, blinkc_field_code(&(v)), 1, (const void *)&(v)}
#define BLINKC_ARRAY_FIELD(v) \
    {#v, blinkc_field_code(&(v)[0]), (uint16_t)(sizeof(v) / sizeof((v)[0])), (const void *)&(v)[0]}
/* The same, shown under another name (a game's field whose C name had to change). */
#define BLINKC_FIELD_AS(name, v) {name, blinkc_field_code(&(v)), 1, (const void *)&(v)}
#define BLINKC_ARRAY_FIELD_AS(name, v) \
    {name, blinkc_field_code(&(v)[0]), (uint16_t)(sizeof(v) / sizeof((v)[0])), (const void *)&(v)[0]}
#define BLINKC_FIELDS_END {0, 0, 0, 0}

extern "C" {
BLINKC_EXPORT uint32_t blinkc_quiet_until(void);
BLINKC_EXPORT void blinkc_display(void);
BLINKC_EXPORT extern const blinkc_field_t blinkc_state_fields[];
}

#endif /* BLINKC_HOOKS_H */
