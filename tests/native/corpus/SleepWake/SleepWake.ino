// Counts the times the tile woke up, shows it on its faces and prints it.
#include "Serial.h"

ServicePortSerial sp;
byte wakes = 0;

void setup() {
  sp.begin();
  sp.println("awake");
}

void loop() {
  if (hasWoken()) {
    wakes++;
    sp.print("woke ");
    sp.println(wakes);
  }
  buttonPressed();  // presses only keep the tile awake
  setValueSentOnAllFaces(wakes);
  setColor(wakes ? GREEN : BLUE);
}
