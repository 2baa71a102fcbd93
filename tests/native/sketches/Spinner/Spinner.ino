/*
 * Spinner: spin the bottle, for Blinks.
 *
 * Click a tile: a red pointer races round its faces for SPIN_MS, then
 * stops on a random face. The neighbour it points at is tagged: it turns
 * yellow, and the pointer turns green to say "got you". A tagged tile spins
 * when clicked, and passes the tag on. Double click: back to ready.
 *
 * Face values: READY on every face while idle, SPINNING while spinning,
 * TAG on the face the pointer rests on, IT on every face of a tagged tile.
 *
 * A test sketch for blinkc, written in the style of Move38's examples.
 */

#define SPIN_MS 600   // how long the pointer spins
#define STEP_MS 50    // how long the pointer stays on each face while spinning

enum faceValues { READY = 1, SPINNING = 2, TAG = 3, IT = 4 };
enum modes { MODE_READY, MODE_SPINNING, MODE_POINTING, MODE_TAGGED };

byte mode = MODE_READY;
byte pointerFace = 0;
byte targetFace = 0;

Timer spinTimer;
Timer stepTimer;

void setup() {
  setValueSentOnAllFaces(READY);
}

void loop() {
  if (buttonDoubleClicked()) {
    mode = MODE_READY;
  }

  if (buttonSingleClicked()) {
    startSpin();
  }

  if (mode == MODE_SPINNING) {
    spin();
  } else if (mode != MODE_TAGGED && wasTagged()) {
    mode = MODE_TAGGED;
  }

  sendValues();
  display();
}

void startSpin() {
  mode = MODE_SPINNING;
  targetFace = random(FACE_COUNT - 1);  // 0..5: random()'s limit is inclusive
  spinTimer.set(SPIN_MS);
  stepTimer.set(STEP_MS);
}

void spin() {
  if (stepTimer.isExpired()) {
    pointerFace = (pointerFace + 1) % FACE_COUNT;
    stepTimer.set(STEP_MS);
  }
  if (spinTimer.isExpired()) {
    pointerFace = targetFace;
    mode = MODE_POINTING;
  }
}

// Did a neighbour's pointer come to rest on us?
bool wasTagged() {
  FOREACH_FACE(f) {
    if (!isValueReceivedOnFaceExpired(f) && getLastValueReceivedOnFace(f) == TAG) {
      return true;
    }
  }
  return false;
}

void sendValues() {
  switch (mode) {
    case MODE_SPINNING:
      setValueSentOnAllFaces(SPINNING);
      break;
    case MODE_POINTING:
      setValueSentOnAllFaces(READY);
      setValueSentOnFace(TAG, pointerFace);
      break;
    case MODE_TAGGED:
      setValueSentOnAllFaces(IT);
      break;
    default:
      setValueSentOnAllFaces(READY);
  }
}

void display() {
  if (mode == MODE_TAGGED) {
    setColor(YELLOW);
    return;
  }
  setColor(dim(BLUE, 64));
  if (mode == MODE_SPINNING || mode == MODE_POINTING) {
    Color pointer = RED;
    if (mode == MODE_POINTING && !isValueReceivedOnFaceExpired(pointerFace) &&
        getLastValueReceivedOnFace(pointerFace) == IT) {
      pointer = GREEN;
    }
    setColorOnFace(pointer, pointerFace);
  }
}
