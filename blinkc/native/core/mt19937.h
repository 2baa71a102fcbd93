/*
 * mt19937.h (blinkc): CPython's random.Random, the part the world draws on.
 *
 * The Python world takes its fault decisions (packet drop, delivery jitter)
 * from random.Random(f"{seed}:faults"). The core receives that generator's
 * state (Random.getstate(): 624 words and a position) and continues the very
 * same stream, so both worlds drop and delay exactly the same packets.
 * Written from the published MT19937 algorithm and CPython's documented
 * random()/getrandbits()/randrange() behaviour.
 */
#ifndef BLINKC_MT19937_H
#define BLINKC_MT19937_H

#include <stdint.h>

class PyRandom {
  public:
    void set_state(const uint32_t *words, int index) {
        for (int i = 0; i < N; ++i) mt_[i] = words[i];
        index_ = index;
    }

    /* random(): 53 bits from two draws, as CPython's random_random(). */
    double random() {
        uint32_t a = next32() >> 5, b = next32() >> 6;
        return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
    }

    /* randrange(n) for 0 < n < 2**32: _randbelow_with_getrandbits. */
    uint32_t randbelow(uint32_t n) {
        int k = 0;
        for (uint32_t m = n; m; m >>= 1) ++k;  /* n.bit_length() */
        uint32_t r = getrandbits(k);
        while (r >= n) r = getrandbits(k);
        return r;
    }

  private:
    static const int N = 624, M = 397;
    uint32_t mt_[N] = {};
    int index_ = N;

    uint32_t getrandbits(int k) { return next32() >> (32 - k); } /* 1 <= k <= 32 */

    uint32_t next32() {
        if (index_ >= N) twist();
        uint32_t y = mt_[index_++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680U;
        y ^= (y << 15) & 0xefc60000U;
        y ^= y >> 18;
        return y;
    }

    void twist() {
        static const uint32_t MATRIX_A = 0x9908b0dfU, UPPER = 0x80000000U, LOWER = 0x7fffffffU;
        for (int i = 0; i < N; ++i) {
            uint32_t y = (mt_[i] & UPPER) | (mt_[(i + 1) % N] & LOWER);
            mt_[i] = mt_[(i + M) % N] ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
        }
        index_ = 0;
    }
};

#endif /* BLINKC_MT19937_H */
