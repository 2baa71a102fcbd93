// Echoes what comes in on the service port, upper-cased; a click prints how many
// bytes came in so far.
#include "Serial.h"

ServicePortSerial sp;
word received = 0;

void setup() {
  sp.begin();
}

void loop() {
  while (sp.available()) {
    int c = sp.read();
    if (c >= 'a' && c <= 'z') c -= 'a' - 'A';
    sp.write((byte)c);
    received++;
  }
  if (buttonSingleClicked()) {
    sp.print("received ");
    sp.println(received);
  }
  setValueSentOnAllFaces(received > 63 ? 63 : received);
}
