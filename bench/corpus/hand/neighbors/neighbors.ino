// neighbors.ino: the hand-written equivalent of bench/corpus/neighbors.py, in the SDK's style.
// Each tile sends its team (a click changes it) on all faces; a face with a neighbour shows
// the neighbour's team colour, a face without one is dark.

byte team = 0;

void setup() {
}

void loop() {
  if (buttonSingleClicked()) {
    if (team == 2) {
      team = 0;
    } else {
      team = team + 1;
    }
  }

  setValueSentOnAllFaces(team);

  FOREACH_FACE(f) {
    if (isValueReceivedOnFaceExpired(f)) {
      setColorOnFace(OFF, f);
    } else {
      byte theirs = getLastValueReceivedOnFace(f);
      if (theirs == 0) {
        setColorOnFace(RED, f);
      } else if (theirs == 1) {
        setColorOnFace(YELLOW, f);
      } else {
        setColorOnFace(BLUE, f);
      }
    }
  }
}
