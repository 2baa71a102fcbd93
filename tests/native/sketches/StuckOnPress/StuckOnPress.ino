/*
 * StuckOnPress: an ordinary busy tile until its button is pressed; then its
 * loop() never returns. Lets a test wait until a run is well under way
 * before the tile gets stuck (or before it sends Ctrl-C).
 * A test sketch for blinkc.
 */

byte passes = 0;

void setup() {
  setColor(WHITE);
}

void loop() {
  passes++;
  setValueSentOnAllFaces(passes & 63);
  if (buttonPressed()) {
    while (1);
  }
}
