// Shows how its game was loaded: blue at power-up, white when it sent its game to
// its neighbours (seed mode), green when it received one.
#include "Serial.h"

ServicePortSerial sp;

void setup() {
  sp.begin();
  sp.print("start state ");
  sp.println(startState());
}

void loop() {
  switch (startState()) {
    case START_STATE_WE_ARE_ROOT:      setColor(WHITE); break;
    case START_STATE_DOWNLOAD_SUCCESS: setColor(GREEN); break;
    default:                           setColor(BLUE);  break;
  }
  setValueSentOnAllFaces(startState());
}
