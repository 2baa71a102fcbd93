/*
 * Relay: a colour chase across a cluster.
 *
 * Click a tile to start a baton. A tile holding the baton glows in a hue
 * that moves round the colour wheel with every hop, fading over HOLD_MS,
 * then hands the baton on: out of the face opposite the one it came in by
 * (a starting tile hands it out of every face). The hop count travels as
 * the face value, so a line of tiles lights up in a rainbow.
 *
 * A test sketch for blinkc, written in the style of Move38's examples.
 */

#define HOLD_MS 300     // how long a tile glows
#define PASS_MS 200     // how long a tile keeps offering the baton
#define HUE_STEP 40     // hue change per hop
#define NO_FACE FACE_COUNT

byte hop = 0;           // 0: no baton here
byte entryFace = NO_FACE;
bool passing = false;

Timer holdTimer;
Timer passTimer;

void setup() {
  setValueSentOnAllFaces(0);
}

void loop() {
  if (buttonSingleClicked() && hop == 0 && !passing) {
    takeBaton(1, NO_FACE);
  }

  FOREACH_FACE(f) {
    // didValueOnFaceChange() must see every face each pass to stay current.
    if (didValueOnFaceChange(f) && !isValueReceivedOnFaceExpired(f)) {
      byte v = getLastValueReceivedOnFace(f);
      if (v != 0 && hop == 0 && !passing) {
        takeBaton(v, f);
      }
    }
  }

  if (hop != 0 && holdTimer.isExpired()) {
    handOn();
  }
  if (passing && passTimer.isExpired()) {
    passing = false;
    setValueSentOnAllFaces(0);
  }

  display();
}

void takeBaton(byte h, byte from) {
  hop = h;
  entryFace = from;
  holdTimer.set(HOLD_MS);
}

void handOn() {
  byte next = hop + 1;
  if (entryFace == NO_FACE) {
    setValueSentOnAllFaces(next);
  } else {
    setValueSentOnFace(next, (entryFace + 3) % FACE_COUNT);
  }
  hop = 0;
  passing = true;
  passTimer.set(PASS_MS);
}

void display() {
  if (hop == 0) {
    setColor(OFF);
    return;
  }
  byte brightness = map(holdTimer.getRemaining(), 0, HOLD_MS, 64, 255);
  setColor(dim(makeColorHSB(hop * HUE_STEP, 255, 255), brightness));
}
