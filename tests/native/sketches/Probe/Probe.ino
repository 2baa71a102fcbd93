/*
 * Probe: exposes blinklib functions to the tests, to compare the native
 * blinklib with blinkc.blinklib number for number. Colours cross as
 * r | g << 5 | b << 10 (blinkc.blinklib.color's layout).
 */

static Color fromPy(uint16_t c) { return Color(c & 31, (c >> 5) & 31, (c >> 10) & 31); }
static uint16_t toPy(Color c) { return c.r | (c.g << 5) | (c.b << 10); }

Timer probeTimer;

extern "C" {
BLINKC_EXPORT uint16_t probe_map(uint16_t x, uint16_t a, uint16_t b, uint16_t c, uint16_t d) {
  return map(x, a, b, c, d);
}
BLINKC_EXPORT uint8_t probe_sin8(uint8_t theta) { return sin8_C(theta); }
BLINKC_EXPORT uint16_t probe_hsb(uint8_t h, uint8_t s, uint8_t b) { return toPy(makeColorHSB(h, s, b)); }
BLINKC_EXPORT uint16_t probe_rgb(uint8_t r, uint8_t g, uint8_t b) { return toPy(makeColorRGB(r, g, b)); }
BLINKC_EXPORT uint16_t probe_dim(uint16_t c, uint8_t b) { return toPy(dim(fromPy(c), b)); }
BLINKC_EXPORT uint16_t probe_lighten(uint16_t c, uint8_t b) { return toPy(lighten(fromPy(c), b)); }
BLINKC_EXPORT uint16_t probe_named(uint8_t i) {
  const Color named[] = {RED, ORANGE, YELLOW, GREEN, CYAN, BLUE, MAGENTA, WHITE, OFF};
  return toPy(named[i]);
}
BLINKC_EXPORT uint16_t probe_random(uint16_t limit) { return random(limit); }
BLINKC_EXPORT uint16_t probe_random_word(void) { return randomWord(); }
BLINKC_EXPORT void probe_randomize(void) { randomize(); }
BLINKC_EXPORT void probe_send(uint16_t value, uint8_t face) { setValueSentOnFace(value, face); }
BLINKC_EXPORT void probe_send_all(uint16_t value) { setValueSentOnAllFaces(value); }
BLINKC_EXPORT void probe_timer_set(uint32_t ms) { probeTimer.set(ms); }
BLINKC_EXPORT void probe_timer_add(uint16_t ms) { probeTimer.add(ms); }
BLINKC_EXPORT void probe_timer_never(void) { probeTimer.never(); }
BLINKC_EXPORT uint8_t probe_timer_expired(void) { return probeTimer.isExpired(); }
BLINKC_EXPORT uint32_t probe_timer_remaining(void) { return probeTimer.getRemaining(); }
}

void setup() {}

void loop() {}
