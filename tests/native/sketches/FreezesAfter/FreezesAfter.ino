/*
 * FreezesAfter: sends its pass count on every face and shows blue, until
 * pass FREEZE_AT (0: never), which never ends: it prints a line, changes its
 * face value and colour, and stops in `while (1);`. On a tile the print goes
 * out on the service port, and the changes are never shown or sent (blinklib
 * commits them only when loop() returns). A test sketch for blinkc.
 */
#include "Serial.h"

#ifndef FREEZE_AT
#define FREEZE_AT 20
#endif

ServicePortSerial sp;
byte passes = 0;

void setup() {
  sp.begin();
}

void loop() {
  passes++;
  if (FREEZE_AT && passes == FREEZE_AT) {
    sp.println("freezing");
    setValueSentOnAllFaces(63);
    setColor(RED);
    while (1);
  }
  setValueSentOnAllFaces(passes & 31);
  setColor(BLUE);
}
