/*
 * Serial.h (blinkc): the tile's service-port serial class, as a harmless stub.
 *
 * On a tile the service port prints debug text at 1 Mbaud. In the emulator
 * (and for the AVR compile check) nothing is connected: every call compiles
 * and does nothing, reads find no data.
 */
#ifndef BLINKC_SERIAL_H
#define BLINKC_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "ArduinoTypes.h"

#define DEF_SERVICE_PORT_BAUDRATE 1000000

/* Number bases for print(value, base), and F("text") for strings kept in flash. */
#define DEC 10
#define HEX 16
#define OCT 8
#ifndef BIN
#define BIN 2
#endif
#ifndef F
#define F(string_literal) (string_literal)
#endif

class ServicePortSerial {
  public:
    void begin(void) {}
    void end(void) {}
    int available(void) { return 0; }
    int read(void) { return -1; }
    uint8_t readWait(void) { return 0; }
    void flush(void) {}
    size_t write(uint8_t) { return 1; }
    size_t write(const uint8_t *, size_t n) { return n; }
    size_t write(const char *) { return 0; }

    /* print()/println() accept what Arduino's Print class accepts. */
    template <typename T> size_t print(const T &) { return 0; }
    template <typename T> size_t print(const T &, int) { return 0; }
    template <typename T> size_t println(const T &) { return 0; }
    template <typename T> size_t println(const T &, int) { return 0; }
    size_t println(void) { return 0; }
};

#endif /* BLINKC_SERIAL_H */
