/*
 * blinklib.h (blinkc): the Blinks blinklib API, declared by blinkc.
 *
 * Written for blinkc from the documented behaviour (docs/native.md and the
 * platform facts, docs/platform.md); it is not the SDK's header. One header serves two builds:
 *
 *   - the host (g++): the emulator's native tiles; blinklib_host.cpp holds
 *     the implementation and BLINKC_HOST is defined;
 *   - the tile (avr-gcc, __AVR__): declarations only, so blinkc can check
 *     that a sketch compiles for the ATmega168PB without warnings, without
 *     needing the SDK.
 *
 * Names, parameter types and return types follow the SDK's API so an
 * unmodified sketch compiles against either.
 */
#ifndef BLINKC_BLINKLIB_H
#define BLINKC_BLINKLIB_H

#include <limits.h>
#include <stdint.h>

#include "ArduinoTypes.h"

#if !defined(__AVR__) && !defined(BLINKC_HOST)
#define BLINKC_HOST 1
#endif

#define FACE_COUNT 6
#define PIXEL_COUNT 6

/* --- Face values -------------------------------------------------------- */

#define IR_DATA_VALUE_MAX 63

byte getLastValueReceivedOnFace(byte face);
byte didValueOnFaceChange(byte face);
byte isValueReceivedOnFaceExpired(byte face);
bool isAlone();
void setValueSentOnFace(byte value, byte face);
void setValueSentOnAllFaces(byte value);

/* --- Datagrams ---------------------------------------------------------- */

#define IR_DATAGRAM_LEN 16

byte getDatagramLengthOnFace(uint8_t face);
boolean isDatagramReadyOnFace(uint8_t face);
const byte *getDatagramOnFace(uint8_t face);
void markDatagramReadOnFace(uint8_t face);
void sendDatagramOnFace(const void *data, byte len, byte face);

/* --- Button ------------------------------------------------------------- */

bool buttonDown(void);
bool buttonPressed(void);
bool buttonReleased(void);
bool buttonSingleClicked();
bool buttonDoubleClicked();
bool buttonMultiClicked();
byte buttonClickCount(void);
bool buttonLongPressed(void);
bool buttonLongLongPressed(void);

/* --- Colour ------------------------------------------------------------- */

/*
 * A colour is 16 bits: a reserved bit, then 5 bits each of red, green and
 * blue (0..31). The bit layout matches the tile, so `as_uint16` reads the
 * same number on both builds.
 */
union Color {
    struct {
        uint16_t reserved : 1;
        uint16_t r : 5;
        uint16_t g : 5;
        uint16_t b : 5;
    };
    uint16_t as_uint16;

    Color() : as_uint16(0) {}
    Color(uint8_t r_in, uint8_t g_in, uint8_t b_in) : as_uint16(0) {
        r = r_in & 31;
        g = g_in & 31;
        b = b_in & 31;
    }
    Color(uint8_t r_in, uint8_t g_in, uint8_t b_in, uint8_t reserved_in) : as_uint16(0) {
        r = r_in & 31;
        g = g_in & 31;
        b = b_in & 31;
        reserved = reserved_in & 1;
    }
};
typedef Color pixelColor_t;

#define BRIGHTNESS_LEVELS_5BIT 32
#define MAX_BRIGHTNESS_5BIT (BRIGHTNESS_LEVELS_5BIT - 1)
#define MAKECOLOR_5BIT_RGB(r, g, b) (Color((r), (g), (b), 1))

#define RED MAKECOLOR_5BIT_RGB(MAX_BRIGHTNESS_5BIT, 0, 0)
#define ORANGE MAKECOLOR_5BIT_RGB(MAX_BRIGHTNESS_5BIT, MAX_BRIGHTNESS_5BIT / 2, 0)
#define YELLOW MAKECOLOR_5BIT_RGB(MAX_BRIGHTNESS_5BIT, MAX_BRIGHTNESS_5BIT, 0)
#define GREEN MAKECOLOR_5BIT_RGB(0, MAX_BRIGHTNESS_5BIT, 0)
#define CYAN MAKECOLOR_5BIT_RGB(0, MAX_BRIGHTNESS_5BIT, MAX_BRIGHTNESS_5BIT)
#define BLUE MAKECOLOR_5BIT_RGB(0, 0, MAX_BRIGHTNESS_5BIT)
#define MAGENTA MAKECOLOR_5BIT_RGB(MAX_BRIGHTNESS_5BIT, 0, MAX_BRIGHTNESS_5BIT)
#define WHITE MAKECOLOR_5BIT_RGB(MAX_BRIGHTNESS_5BIT, MAX_BRIGHTNESS_5BIT, MAX_BRIGHTNESS_5BIT)
#define OFF MAKECOLOR_5BIT_RGB(0, 0, 0)

#define GET_5BIT_R(color) ((color).r)
#define GET_5BIT_G(color) ((color).g)
#define GET_5BIT_B(color) ((color).b)

#define MAX_BRIGHTNESS (255)

Color dim(Color color, byte brightness);
Color lighten(Color color, byte brightness);
Color makeColorRGB(byte red, byte green, byte blue);
Color makeColorHSB(byte hue, byte saturation, byte brightness);

void setColor(Color newColor);
void setColorOnFace(Color newColor, byte face);
void setFaceColor(byte face, Color newColor);

/* --- Time --------------------------------------------------------------- */

/* 32-bit on both builds (the tile's unsigned long is 32-bit). */
#if defined(__AVR__)
unsigned long millis(void);
#else
uint32_t millis(void);
#endif

class Timer {
  private:
    uint32_t m_expireTime; /* 0: a new Timer reads as expired once millis() > 0 */

  public:
    Timer() : m_expireTime(0) {}
    bool isExpired();
    uint32_t getRemaining();
    void set(uint32_t ms);
    void add(uint16_t ms);
    void never(void);
};

/* --- Numbers ------------------------------------------------------------ */

word random(word limit);
word randomWord(void);
void randomize();

word map(word x, word in_min, word in_max, word out_min, word out_max);
byte sin8_C(byte theta);

/* --- The tile ----------------------------------------------------------- */

#define SERIAL_NUMBER_LEN 9
byte getSerialNumberByte(byte n);
byte getBlinkbiosVersion();

uint8_t hasWoken(void);

#define START_STATE_POWER_UP 0
#define START_STATE_WE_ARE_ROOT 1
#define START_STATE_DOWNLOAD_SUCCESS 2
uint8_t startState(void);

/* --- The sketch --------------------------------------------------------- */

void setup(void);
void loop();

#define FOREACH_FACE(x) for (uint8_t x = 0; x < FACE_COUNT; ++x)
#define COUNT_OF(x) ((sizeof(x) / sizeof(x[0])))

#if defined(BLINKC_HOST)
#include "blinkc_hooks.h"
/* blinkc's own: the pass blocks the CPU for `ms` more (a busy wait on the tile). */
void blinkc_host_spend_ms(uint16_t ms);
#endif

#endif /* BLINKC_BLINKLIB_H */
