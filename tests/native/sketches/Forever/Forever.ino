/*
 * Forever: shows its colour once, then never returns from loop().
 *
 * Like Move38's SerialNumberPrinter, which ends loop() with `while (1);`:
 * on a tile that freezes blinklib (no button, no IR, no display updates);
 * in blinkc's emulator the tile freezes the same way, and the run goes on.
 * A test sketch for blinkc.
 */

void setup() {
  setColor(BLUE);
}

void loop() {
  setValueSentOnAllFaces(1);
  while (1);
}
