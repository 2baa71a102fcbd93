// counter.ino: the hand-written equivalent of bench/corpus/counter.py, in the SDK's style.
// Click to count 0..5 (then round to 0); the count is shown on the faces.

byte count = 0;

void setup() {
}

void loop() {
  if (buttonSingleClicked()) {
    if (count == 5) {
      count = 0;
    } else {
      count = count + 1;
    }
  }

  FOREACH_FACE(f) {
    if (f < count) {
      setColorOnFace(GREEN, f);
    } else {
      setColorOnFace(OFF, f);
    }
  }
}
