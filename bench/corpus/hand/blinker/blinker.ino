// blinker.ino: the hand-written equivalent of bench/corpus/blinker.py, in the SDK's style.
// The tile is lit and dark by turns, 500 ms each; a click changes between white and blue.

Timer tick;
bool lit = true;
bool blue = false;

void setup() {
  tick.set(500);
}

void loop() {
  if (tick.isExpired()) {
    lit = !lit;
    tick.set(500);
  }

  if (buttonSingleClicked()) {
    blue = !blue;
  }

  if (!lit) {
    setColor(OFF);
  } else if (blue) {
    setColor(BLUE);
  } else {
    setColor(WHITE);
  }
}
