// ping_once.ino: the hand-written ping with blinkc's guarantee, in the SDK's style. A click
// sends a ping out of every face with a neighbour; a tile that gets one shows the next colour
// on the face it came from. Every ping sent to a neighbour that stays is shown there exactly
// once, also when a one-way cut shorter than the grace (4 s) holds it up. (hand/ping/ping.ino
// is smaller and loses such pings: the neighbour's count expires and starts afresh.)
//
// Face value, per face (the ping in each direction is an alternating bit):
//   bit 0 SENT:   flips once for each ping sent out of this face
//   bit 1 TAKEN:  the neighbour's SENT bit as we last took it (its ping's ack)
//   bit 2 JOINED: we hold the neighbour's SENT bit as our starting point
// A ping goes out (SENT flips) only once the neighbour has joined and took the last one
// (its TAKEN equals our SENT); a neighbour takes a ping whenever our SENT differs from its
// TAKEN. A face that has heard nothing for the grace forgets its neighbour: its waiting
// pings are dropped, and the next neighbour it hears is joined afresh. While some face
// waits (silent, or heard but not joined by its neighbour), a frame is skipped at random now
// and then: two faces that send in the same frame blind each other, and the SDK's probes
// keep them in step for as long as their clocks agree.

#define SENT 1
#define TAKEN 2
#define JOINED 4
#define GRACE_256MS 15  // 3.84 s in 256 ms units, as blinkc's

byte shown[FACE_COUNT];     // what face f shows (SENT | TAKEN | JOINED)
byte waiting[FACE_COUNT];   // pings queued for face f
byte heardAt[FACE_COUNT];   // millis() / 256 when face f last heard its neighbour
byte hits[FACE_COUNT];      // pings received on face f, modulo 4: its colour
word coinState;             // a 16-bit LFSR seeded from the serial number: the frame-skip coin

void setup() {
  for (byte i = 0; i < 9; i++) {
    coinState = ((coinState << 8) | (coinState >> 8)) ^ getSerialNumberByte(i);
  }
  if (coinState == 0) {
    coinState = 1;
  }
}

void loop() {
  byte now256 = millis() >> 8;
  bool unsettled = false;

  if (buttonSingleClicked()) {
    FOREACH_FACE(f) {
      if (!isValueReceivedOnFaceExpired(f) && waiting[f] < 255) {
        waiting[f]++;
      }
    }
  }

  FOREACH_FACE(f) {
    if (!isValueReceivedOnFaceExpired(f)) {
      heardAt[f] = now256;
      byte theirs = getLastValueReceivedOnFace(f);
      if (!(theirs & JOINED) || !(shown[f] & JOINED)) {
        // the neighbour is new to us, or we to it: its SENT bit is our starting point
        shown[f] = (shown[f] & SENT) | JOINED | ((theirs & SENT) ? TAKEN : 0);
        unsettled = true;
      } else if (((theirs & SENT) != 0) != ((shown[f] & TAKEN) != 0)) {
        shown[f] ^= TAKEN;  // a new ping
        hits[f] = (hits[f] + 1) & 3;
      }
      if (waiting[f] && (theirs & JOINED) && ((theirs & TAKEN) != 0) == ((shown[f] & SENT) != 0)) {
        shown[f] ^= SENT;  // the last one was taken: send the next
        waiting[f]--;
      }
    } else if ((byte)(now256 - heardAt[f]) > GRACE_256MS) {
      shown[f] &= SENT;  // gone: forget it
      waiting[f] = 0;
    } else {
      unsettled = true;
    }
    setValueSentOnFace(shown[f], f);
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

  if (unsettled) {
    bool heads = coinState & 1;
    coinState >>= 1;
    if (heads) {
      coinState ^= 0xB400;
#ifdef __AVR__
      __builtin_avr_delay_cycles(64000UL);  // 8 ms at 8 MHz: one display frame (7.7 ms) later
#else
      blinkc_host_spend_ms(8);  // (the same 8 ms in blinkc's emulator, which runs it natively)
#endif
    }
  }
}
