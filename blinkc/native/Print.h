/*
 * Print.h (blinkc): the Arduino-style Print class the service port builds on.
 *
 * Written for blinkc from Arduino's documented Print behaviour (it is not
 * the SDK's header): print()/println() of strings, characters and numbers
 * in a base (DEC, HEX, OCT, BIN), and of doubles with a number of digits;
 * println() ends with "\r\n". A `byte` (unsigned char) prints as a number,
 * a `char` as a character; negative numbers print with a '-' in base 10
 * only, in other bases as their 32-bit two's complement (Arduino's print
 * widens every integer to a `long` first). Everything goes through the
 * virtual write(uint8_t).
 */
#ifndef BLINKC_PRINT_H
#define BLINKC_PRINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ArduinoTypes.h"

#define DEC 10
#define HEX 16
#define OCT 8
#ifdef BIN
#undef BIN
#endif
#define BIN 2

/* On the tile F("text") keeps the text in flash; here it is the text itself. */
class __FlashStringHelper;
#define FPSTR(pstr_pointer) (reinterpret_cast<const __FlashStringHelper *>(pstr_pointer))
#define F(string_literal) (FPSTR(string_literal))

class Print {
  private:
    size_t printNumber(unsigned long n, uint8_t base) {
        char buf[8 * sizeof(long) + 1];
        char *str = &buf[sizeof(buf) - 1];
        *str = '\0';
        if (base < 2) base = 10;
        do {
            unsigned long m = n;
            n /= base;
            char c = (char)(m - base * n);
            *--str = (char)(c < 10 ? c + '0' : c + 'A' - 10);
        } while (n);
        return write(str);
    }
    size_t printFloat(double number, uint8_t digits) {
        if (number != number) return print("nan");
        if (number > 4294967040.0 || number < -4294967040.0) return print("ovf");
        size_t n = 0;
        if (number < 0.0) {
            n += print('-');
            number = -number;
        }
        double rounding = 0.5;
        for (uint8_t i = 0; i < digits; ++i) rounding /= 10.0;
        number += rounding;
        unsigned long whole = (unsigned long)number;
        double rest = number - (double)whole;
        n += printNumber(whole, 10);
        if (digits > 0) n += print('.');
        while (digits-- > 0) {
            rest *= 10.0;
            unsigned int digit = (unsigned int)rest;
            n += printNumber(digit, 10);
            rest -= digit;
        }
        return n;
    }

  public:
    virtual size_t write(uint8_t) = 0;
    size_t write(const char *str) {
        if (str == NULL) return 0;
        return write((const uint8_t *)str, strlen(str));
    }
    virtual size_t write(const uint8_t *buffer, size_t size) {
        size_t n = 0;
        while (size--) {
            if (!write(*buffer++)) break;
            ++n;
        }
        return n;
    }
    size_t write(const char *buffer, size_t size) { return write((const uint8_t *)buffer, size); }

    size_t print(const __FlashStringHelper *s) { return print(reinterpret_cast<const char *>(s)); }
    size_t print(const char s[]) { return write(s); }
    size_t print(char c) { return write((uint8_t)c); }
    size_t print(unsigned char b, int base = DEC) { return print((unsigned long)b, base); }
    size_t print(int n, int base = DEC) { return print((long)n, base); }
    size_t print(unsigned int n, int base = DEC) { return print((unsigned long)n, base); }
    size_t print(long n, int base = DEC) {
        if (base == 0) return write((uint8_t)n);
        if (base == 10 && n < 0) {
            size_t t = print('-');
            return t + printNumber(0UL - (unsigned long)n, 10);
        }
        /* In other bases, the 32-bit two's complement (a tile's long is 32-bit). */
        return printNumber((unsigned long)(uint32_t)n, (uint8_t)base);
    }
    size_t print(unsigned long n, int base = DEC) {
        if (base == 0) return write((uint8_t)n);
        return printNumber((unsigned long)(uint32_t)n, (uint8_t)base);
    }
    size_t print(double n, int digits = 2) { return printFloat(n, (uint8_t)digits); }

    size_t println(void) { return write("\r\n"); }
    size_t println(const __FlashStringHelper *s) { return print(s) + println(); }
    size_t println(const char s[]) { return print(s) + println(); }
    size_t println(char c) { return print(c) + println(); }
    size_t println(unsigned char b, int base = DEC) { return print(b, base) + println(); }
    size_t println(int n, int base = DEC) { return print(n, base) + println(); }
    size_t println(unsigned int n, int base = DEC) { return print(n, base) + println(); }
    size_t println(long n, int base = DEC) { return print(n, base) + println(); }
    size_t println(unsigned long n, int base = DEC) { return print(n, base) + println(); }
    size_t println(double n, int digits = 2) { return print(n, digits) + println(); }

    virtual void flush() {}
};

/* Declared by the SDK too; print() does not take one (neither does the SDK's). */
class Printable {
  public:
    virtual size_t printTo(Print &p) const = 0;
};

#endif /* BLINKC_PRINT_H */
