// ping.ino: the hand-written equivalent of bench/corpus/ping.py, in the SDK's style.
// A click sends a ping out of every face with a neighbour; a tile that gets one shows the
// next colour on the face it came from.
//
// Each face sends a count of the pings sent out of it (0..3, round again); a neighbour
// takes each step of the count it sees as one ping. A face that was alone only notes the
// count it sees first. (blinkc's protocol instead queues each message and hands it over
// with a handshake, so it can also tell a game which messages found nobody.)

byte sent[FACE_COUNT];   // pings sent out of face f, modulo 4 (what face f shows)
byte seen[FACE_COUNT];   // the neighbour's count we last saw on face f
bool linked[FACE_COUNT]; // we have seen a count on face f since it was last alone
byte hits[FACE_COUNT];   // pings received on face f, modulo 4: its colour

void setup() {
}

void loop() {
  if (buttonSingleClicked()) {
    FOREACH_FACE(f) {
      if (!isValueReceivedOnFaceExpired(f)) {
        sent[f] = (sent[f] + 1) & 3;
      }
    }
  }

  FOREACH_FACE(f) {
    setValueSentOnFace(sent[f], f);
    if (isValueReceivedOnFaceExpired(f)) {
      linked[f] = false;
    } else {
      byte count = getLastValueReceivedOnFace(f);
      if (linked[f]) {
        hits[f] = (hits[f] + count - seen[f]) & 3;
      }
      seen[f] = count;
      linked[f] = true;
    }
  }

  FOREACH_FACE(f) {
    if (hits[f] == 0) {
      setColorOnFace(OFF, f);
    } else if (hits[f] == 1) {
      setColorOnFace(RED, f);
    } else if (hits[f] == 2) {
      setColorOnFace(GREEN, f);
    } else {
      setColorOnFace(BLUE, f);
    }
  }
}
