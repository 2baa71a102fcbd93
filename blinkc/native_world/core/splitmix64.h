/*
 * splitmix64.h (blinkc): the world's fault stream, the same generator as
 * blinkc/world/splitmix.py (SplitMix64, as published by Vigna). The Python
 * world seeds it and hands the core its 64-bit state, so both worlds drop and
 * delay exactly the same packets.
 */
#ifndef BLINKC_SPLITMIX64_H
#define BLINKC_SPLITMIX64_H

#include <stdint.h>

class SplitMix64 {
  public:
    void set_state(uint64_t state) { state_ = state; }

    uint64_t next64() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    /* True with probability p: the top 53 bits as a fraction in [0, 1), below p. */
    bool chance(double p) { return (double)(next64() >> 11) * (1.0 / 9007199254740992.0) < p; }

    /* A whole number in 0..n-1 (1 <= n < 2**32). */
    uint32_t below(uint32_t n) { return (uint32_t)(next64() % n); }

  private:
    uint64_t state_ = 0;
};

#endif
