// picker.ino: the hand-written equivalent of bench/corpus/picker.py, in the SDK's style.
// Each click shows the next of six colours on the whole tile.

byte hue = 0;  // 0 red, 1 yellow, 2 green, 3 cyan, 4 blue, 5 magenta

void setup() {
}

void loop() {
  if (buttonSingleClicked()) {
    hue = hue + 1;
    if (hue >= 6) {
      hue = 0;
    }
  }

  if (hue == 0) {
    setColor(RED);
  } else if (hue == 1) {
    setColor(YELLOW);
  } else if (hue == 2) {
    setColor(GREEN);
  } else if (hue == 3) {
    setColor(CYAN);
  } else if (hue == 4) {
    setColor(BLUE);
  } else {
    setColor(MAGENTA);
  }
}
