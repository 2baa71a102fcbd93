/*
 * ForeverSetup: never returns from setup(), so loop() never runs.
 * A test sketch for blinkc (the emulator must stop, not hang).
 */

void setup() {
  setColor(RED);
  for (;;) {
  }
}

void loop() {
  setColor(GREEN);
}
