/*
 * Globals: every kind of per-program storage a sketch can have, counted
 * up once per loop() and shown as face values, to prove that tiles in one
 * emulator do not share them.
 */

byte counter;                       // a global

byte bumpLocalStatic() {            // a function-local static
  static byte calls = 0;
  return ++calls;
}

struct Tally {                      // a static in an inline member function
  byte bump() {
    static byte calls = 0;
    return ++calls;
  }
};
Tally tally;

template <typename T> struct Box {  // a static member of a template
  static T value;
};
template <typename T> T Box<T>::value;

Timer since;                        // a global object with a constructor

void setup() {
  since.set(1000);
}

void loop() {
  counter++;
  Box<byte>::value++;
  setValueSentOnFace(counter, 0);
  setValueSentOnFace(bumpLocalStatic(), 1);
  setValueSentOnFace(tally.bump(), 2);
  setValueSentOnFace(Box<byte>::value, 3);
  setValueSentOnFace(since.getRemaining() / 100, 4);
}
