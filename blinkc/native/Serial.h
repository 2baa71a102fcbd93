/*
 * Serial.h (blinkc): the tile's service-port serial class.
 *
 * On a tile the service port prints debug text at 1 Mbaud (a sketch makes
 * its own `ServicePortSerial Serial;` and calls Serial.begin()). In the
 * emulator every byte written goes into the tile's service-port buffer,
 * which the world collects after each pass: trace records (ev "serial"),
 * `blinkc emulate`'s "service port" section, Cluster.serial() (see
 * docs/native.md). What the other end sends comes from a scenario's
 * `serial` step: available() is 1 while a byte waits, read() takes it (-1:
 * none). (SDK v1.1.0's Serial.h has no readWait().)
 */
#ifndef BLINKC_SERIAL_H
#define BLINKC_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#include "ArduinoTypes.h"
#include "Print.h"

#define DEF_SERVICE_PORT_BAUDRATE 1000000

class ServicePortSerial : public Print {
  public:
    void begin(void) {}
    void end(void) {}
    /* On the host (blinklib_host.cpp): out of and into this tile's service-port
     * buffers. The AVR check only compiles, so it needs no definitions. */
    virtual int available(void);
    virtual int read(void);
    virtual size_t write(uint8_t c);
    void flush(void) {}
    using Print::write;
};

#endif /* BLINKC_SERIAL_H */
