/*
 * avr/pgmspace.h (blinkc, host only): flash-resident data on the host.
 *
 * The host has one address space, so PROGMEM data is ordinary const data
 * and the pgm_read_* helpers are plain loads of the documented widths.
 */
#ifndef BLINKC_HOST_PGMSPACE_H
#define BLINKC_HOST_PGMSPACE_H

#include <stdint.h>
#include <string.h>

#define PROGMEM
#define PGM_P const char *
#define PSTR(s) (s)

#define pgm_read_byte(addr) (*(const uint8_t *)(addr))
#define pgm_read_word(addr) (*(const uint16_t *)(addr))
#define pgm_read_dword(addr) (*(const uint32_t *)(addr))
#define pgm_read_float(addr) (*(const float *)(addr))
#define pgm_read_ptr(addr) (*(void *const *)(addr))
#define pgm_read_byte_near(addr) pgm_read_byte(addr)
#define pgm_read_word_near(addr) pgm_read_word(addr)
#define pgm_read_dword_near(addr) pgm_read_dword(addr)

#define memcpy_P memcpy
#define strcpy_P strcpy
#define strlen_P strlen
#define strcmp_P strcmp

#endif /* BLINKC_HOST_PGMSPACE_H */
