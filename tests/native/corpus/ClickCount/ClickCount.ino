// Face 0 counts single clicks, face 1 double clicks, face 2 long-long presses (a
// long-long press reaches a sketch only with a neighbour: alone, it is seed mode).
byte clicks[3];

void setup() {}

void loop() {
  if (buttonSingleClicked()) clicks[0]++;
  if (buttonDoubleClicked()) clicks[1]++;
  if (buttonLongLongPressed()) clicks[2]++;
  FOREACH_FACE(f) {
    setValueSentOnFace(f < 3 ? clicks[f] : 0, f);
  }
  setColorOnFace(clicks[2] ? RED : OFF, 0);
}
