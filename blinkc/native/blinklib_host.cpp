/*
 * blinklib_host.cpp (blinkc): the blinklib API on the host, for native tiles.
 *
 * Written for blinkc from the documented behaviour (docs/native.md, the
 * platform facts (docs/platform.md) and blinkc.blinklib, whose numbers it matches bit for bit);
 * it is not the SDK's code. The emulator (blinkc.world) plays the BIOS and
 * the physics: before each pass it writes the frozen millis(), the button
 * snapshot and the latched face values into `tile`, calls blinkc_tile_loop(),
 * then reads the face values, colours and datagrams back.
 *
 * The tile's `int` is 16-bit. Where the API's own arithmetic depends on it,
 * the code below says so and computes in explicit 16-bit types.
 */
#include <string.h>

#include "Serial.h"
#include "blinkc_native.h"
#include "blinklib.h"

static const uint32_t RANDOM_SEED = 2463534242UL;
static const uint32_t RANDOMIZE_MS = 512;  /* 32 watchdog periods of ~16 ms */
static const uint32_t TIMER_NEVER = 0xFFFFFFFFUL;
static const uint8_t BLINKBIOS_VERSION = 2;  /* what the BIOS of SDK v1.1.0-GM reports */

enum {
    BUTTON_PRESSED = 0x01,
    BUTTON_RELEASED = 0x02,
    BUTTON_SINGLECLICKED = 0x04,
    BUTTON_DOUBLECLICKED = 0x08,
    BUTTON_MULTICLICKED = 0x10,
    BUTTON_LONGPRESSED = 0x20,
    BUTTON_LONGLONGPRESSED = 0x40
};

/* This library copy's one tile. Internal linkage: a sketch's own globals
 * cannot collide with these names. */
static blinkc_tile_t tile = {};
static Color pixel_buffer[FACE_COUNT];
static uint8_t value_seen[FACE_COUNT];  /* didValueOnFaceChange()'s memory */
static blinkc_service_port_t service_port = {};
static blinkc_service_input_t service_input = {};

static inline bool face_ok(uint8_t face) { return face < FACE_COUNT; }

/* --- Time -------------------------------------------------------------- */

uint32_t millis(void) { return tile.now; }

bool Timer::isExpired() { return millis() > m_expireTime; }

uint32_t Timer::getRemaining() {
    uint32_t now = millis();
    return now >= m_expireTime ? 0 : m_expireTime - now;
}

void Timer::set(uint32_t ms) { m_expireTime = millis() + ms; }

void Timer::add(uint16_t ms) {
    /* Saturates at never instead of wrapping past it. */
    if (ms > TIMER_NEVER - m_expireTime) {
        m_expireTime = TIMER_NEVER;
    } else {
        m_expireTime += ms;
    }
}

void Timer::never(void) { m_expireTime = TIMER_NEVER; }

/* --- Face values ------------------------------------------------------- */

byte getLastValueReceivedOnFace(byte face) { return face_ok(face) ? tile.in_value[face] : 0; }

byte didValueOnFaceChange(byte face) {
    if (!face_ok(face)) return false;
    uint8_t current = tile.in_value[face];
    if (current == value_seen[face]) return false;
    value_seen[face] = current;
    return true;
}

byte isValueReceivedOnFaceExpired(byte face) {
    return face_ok(face) ? tile.expire_time[face] < tile.now : true;
}

bool isAlone() {
    FOREACH_FACE(f) {
        if (!isValueReceivedOnFaceExpired(f)) return false;
    }
    return true;
}

static inline uint8_t clamp_value(byte value) {
    return value > IR_DATA_VALUE_MAX ? IR_DATA_VALUE_MAX : value;  /* clamped, not wrapped */
}

void setValueSentOnFace(byte value, byte face) {
    if (face_ok(face)) tile.out_value[face] = clamp_value(value);
}

void setValueSentOnAllFaces(byte value) {
    uint8_t v = clamp_value(value);
    FOREACH_FACE(f) { tile.out_value[f] = v; }
}

/* --- Datagrams --------------------------------------------------------- */

byte getDatagramLengthOnFace(uint8_t face) { return face_ok(face) ? tile.in_datagram_len[face] : 0; }

boolean isDatagramReadyOnFace(uint8_t face) { return getDatagramLengthOnFace(face) != 0; }

const byte *getDatagramOnFace(uint8_t face) { return tile.in_datagram[face_ok(face) ? face : 0]; }

void markDatagramReadOnFace(uint8_t face) {
    if (!face_ok(face)) return;
    tile.in_datagram_len[face] = 0;
    tile.datagram_read |= (uint8_t)(1u << face);
}

void sendDatagramOnFace(const void *data, byte len, byte face) {
    if (!face_ok(face) || len > IR_DATAGRAM_LEN) return;  /* oversized: silently ignored */
    tile.out_datagram_len[face] = len;                     /* 0 cancels an unsent one */
    memcpy(tile.out_datagram[face], data, len);
    tile.datagram_sent |= (uint8_t)(1u << face);
}

/* --- Button ------------------------------------------------------------ */

static bool take_flag(uint8_t bit) {
    bool hit = (tile.button_flags & bit) != 0;
    tile.button_flags &= (uint8_t)~bit;
    return hit;
}

bool buttonDown(void) { return tile.button_down != 0; }
bool buttonPressed(void) { return take_flag(BUTTON_PRESSED); }
bool buttonReleased(void) { return take_flag(BUTTON_RELEASED); }
bool buttonSingleClicked() { return take_flag(BUTTON_SINGLECLICKED); }
bool buttonDoubleClicked() { return take_flag(BUTTON_DOUBLECLICKED); }
bool buttonMultiClicked() { return take_flag(BUTTON_MULTICLICKED); }
byte buttonClickCount(void) { return tile.click_count; }
bool buttonLongPressed(void) { return take_flag(BUTTON_LONGPRESSED); }
bool buttonLongLongPressed(void) { return take_flag(BUTTON_LONGLONGPRESSED); }

/* --- Colour ------------------------------------------------------------ */

Color makeColorRGB(byte red, byte green, byte blue) {
    return Color((uint8_t)(red >> 3), (uint8_t)(green >> 3), (uint8_t)(blue >> 3));
}

Color makeColorHSB(byte hue, byte saturation, byte brightness) {
    uint8_t r, g, b;
    if (saturation == 0) {
        r = g = b = brightness;
    } else {
        /* The tile computes these in 16-bit unsigned ints. */
        uint16_t scaled = (uint16_t)(hue * 6);
        uint16_t sector = scaled >> 8;
        uint16_t offset = (uint16_t)(scaled - (sector << 8));
        uint16_t p = (uint16_t)(brightness * (255 - saturation)) >> 8;
        uint16_t q = (uint16_t)(brightness * (255 - ((saturation * offset) >> 8))) >> 8;
        uint16_t t = (uint16_t)(brightness * (255 - ((saturation * (255 - offset)) >> 8))) >> 8;
        switch (sector) {
            case 0: r = brightness; g = (uint8_t)t; b = (uint8_t)p; break;
            case 1: r = (uint8_t)q; g = brightness; b = (uint8_t)p; break;
            case 2: r = (uint8_t)p; g = brightness; b = (uint8_t)t; break;
            case 3: r = (uint8_t)p; g = (uint8_t)q; b = brightness; break;
            case 4: r = (uint8_t)t; g = (uint8_t)p; b = brightness; break;
            default: r = brightness; g = (uint8_t)p; b = (uint8_t)q; break;
        }
    }
    return makeColorRGB(r, g, b);
}

/* Each channel is at most 31, so channel * 255 fits the tile's 16-bit int. */
static inline uint8_t scale5(uint8_t channel, uint8_t brightness) {
    return (uint8_t)((channel * brightness) / 255);
}

Color dim(Color color, byte brightness) {
    return MAKECOLOR_5BIT_RGB(scale5(color.r, brightness), scale5(color.g, brightness),
                              scale5(color.b, brightness));
}

Color lighten(Color color, byte brightness) {
    return MAKECOLOR_5BIT_RGB((uint8_t)(color.r + scale5((uint8_t)(31 - color.r), brightness)),
                              (uint8_t)(color.g + scale5((uint8_t)(31 - color.g), brightness)),
                              (uint8_t)(color.b + scale5((uint8_t)(31 - color.b), brightness)));
}

void setColorOnFace(Color newColor, byte face) {
    if (face_ok(face)) pixel_buffer[face] = newColor;
}

void setColor(Color newColor) {
    FOREACH_FACE(f) { pixel_buffer[f] = newColor; }
}

void setFaceColor(byte face, Color newColor) { setColorOnFace(newColor, face); }

/* --- Numbers ----------------------------------------------------------- */

static uint32_t next_random32(void) {
    uint32_t x = tile.rng_state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    tile.rng_state = x;
    return x;
}

word randomWord(void) { return (word)next_random32(); }

word random(word limit) {
    /* limit + 1 is a 16-bit unsigned int on the tile: random(65535) divides
     * by 0, which avr-gcc's division routine answers with 0xFFFF. */
    uint16_t span = (uint16_t)(limit + 1u);
    uint16_t divisor = span ? (uint16_t)(0xFFFFu / span) : 0xFFFFu;
    uint16_t r;
    do {
        r = (uint16_t)(randomWord() / divisor);
    } while (r > limit);
    return r;
}

void randomize() {
    /* The tile collects one noisy bit per watchdog period; the emulator's
     * noise is a xorshift stream seeded from the world seed and the tile. */
    uint32_t seed = tile.entropy;
    uint32_t state = 0;
    for (uint8_t i = 0; i < 32; ++i) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        state = (state << 1) | ((seed >> 7) & 1u);
    }
    tile.entropy = seed;
    tile.rng_state = state ? state : 1;
    tile.extra_cpu_ms += RANDOMIZE_MS;
}

void blinkc_host_spend_ms(uint16_t ms) { tile.extra_cpu_ms += ms; }

/* The explorer's probes (blinkc_native.h): nowhere until blinkc_set_probe gives a callback. */
static blinkc_probe_fn probe_fn = 0;
static void *probe_ctx = 0;

void blinkc_probe(uint8_t kind, uint16_t v0, uint16_t v1, uint16_t v2, uint16_t v3, uint16_t v4) {
    if (probe_fn) probe_fn(probe_ctx, kind, v0, v1, v2, v3, v4);
}

word map(word x, word in_min, word in_max, word out_min, word out_max) {
    if (x < in_min) return out_min;
    if (x > in_max) return out_max;
    /* The spans, and span + 1, are 16-bit unsigned on the tile and wrap;
     * only the product and the quotient are 32-bit. */
    uint16_t in_span = (uint16_t)(in_max - in_min);
    uint16_t out_span = (uint16_t)(out_max - out_min);
    uint16_t num, den;
    if (in_span > out_span) {
        num = (uint16_t)(out_span + 1u);
        den = (uint16_t)(in_span + 1u);
    } else {
        num = out_span;
        den = in_span;
    }
    uint32_t product = (uint32_t)(uint16_t)(x - in_min) * num;
    uint32_t quotient = den ? product / den : 0xFFFFFFFFUL;  /* avr-gcc's x / 0 */
    return (word)((uint16_t)quotient + out_min);
}

byte sin8_C(byte theta) {
    static const uint8_t base_slope[8] = {0, 49, 49, 41, 90, 27, 117, 10};
    uint8_t offset = theta;
    if (theta & 0x40) offset = (uint8_t)(255 - offset);
    offset &= 0x3F;
    uint8_t secoffset = offset & 0x0F;
    if (theta & 0x40) secoffset++;
    uint8_t section = offset >> 4;
    uint8_t b = base_slope[section * 2];
    uint8_t m16 = base_slope[section * 2 + 1];
    uint8_t mx = (uint8_t)((m16 * secoffset) >> 4);
    int8_t y = (int8_t)(uint8_t)(mx + b);
    if (theta & 0x80) y = (int8_t)-y;
    return (uint8_t)(y + 128);
}

/* --- The tile ---------------------------------------------------------- */

byte getSerialNumberByte(byte n) { return n < SERIAL_NUMBER_LEN ? tile.serial[n] : 0; }

byte getBlinkbiosVersion() { return BLINKBIOS_VERSION; }

/* --- The service port -------------------------------------------------- */

size_t ServicePortSerial::write(uint8_t c) {
    if (service_port.len < BLINKC_SERVICE_PORT_LEN) {
        service_port.data[service_port.len++] = c;
    } else {
        ++service_port.lost;
    }
    return 1;
}

/* As the SDK's: 1 while a byte waits (its UART holds one), else 0. */
int ServicePortSerial::available(void) { return service_input.pos < service_input.len ? 1 : 0; }

int ServicePortSerial::read(void) {
    if (service_input.pos >= service_input.len) return -1;
    return service_input.data[service_input.pos++];
}

uint8_t hasWoken(void) {
    uint8_t woke = tile.woken ? 1 : 0;
    tile.woken = 0;
    return woke;
}

uint8_t startState(void) { return tile.start_state; }

/* --- Entry points for the emulator ------------------------------------- */

extern "C" uint32_t blinkc_quiet_until(void) __attribute__((weak));
extern "C" void blinkc_display(void) __attribute__((weak));

static void begin_pass(void) {
    if (tile.rng_state == 0) tile.rng_state = RANDOM_SEED;  /* xorshift must not be 0 */
    if (tile.entropy == 0) tile.entropy = 1;
    tile.extra_cpu_ms = 0;
    tile.datagram_sent = 0;
    tile.datagram_read = 0;
}

static void publish_pixels(void) {
    /* Drop the reserved bit: r | g << 5 | b << 10, as blinkc.blinklib.color. */
    FOREACH_FACE(f) { tile.pixels[f] = (uint16_t)((pixel_buffer[f].as_uint16 >> 1) & 0x7FFF); }
}

extern "C" {

BLINKC_EXPORT uint32_t blinkc_abi_version(void) { return BLINKC_ABI_VERSION; }

BLINKC_EXPORT uint32_t blinkc_tile_size(void) { return (uint32_t)sizeof(blinkc_tile_t); }

BLINKC_EXPORT blinkc_tile_t *blinkc_tile(void) { return &tile; }

BLINKC_EXPORT blinkc_service_port_t *blinkc_service_port(void) { return &service_port; }

BLINKC_EXPORT blinkc_service_input_t *blinkc_service_input(void) { return &service_input; }

BLINKC_EXPORT void blinkc_set_probe(blinkc_probe_fn fn, void *ctx) {
    probe_fn = fn;
    probe_ctx = ctx;
}

BLINKC_EXPORT void blinkc_tile_setup(void) {
    begin_pass();
    setup();
    publish_pixels();
}

BLINKC_EXPORT void blinkc_tile_loop(void) {
    begin_pass();
    loop();
    publish_pixels();
}

/* Around a call into the sketch outside a pass (the explorer's sends, native/game.py): what
 * blinkc_tile_loop() does before and after loop(), so the call's outputs are its own. */
BLINKC_EXPORT void blinkc_call_begin(void) { begin_pass(); }

BLINKC_EXPORT void blinkc_call_end(void) { publish_pixels(); }

BLINKC_EXPORT void blinkc_tile_display(void) {
    if (blinkc_display) {
        blinkc_display();
        publish_pixels();
    }
}

}  /* extern "C" */
