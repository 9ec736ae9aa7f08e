// CRC-32 (the zip/gzip polynomial, bit-reflected) by folding 128-bit blocks with PCLMULQDQ, after
// Gopal et al., "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Intel,
// 2009). The constants are powers of x modulo the polynomial, bit-reflected, for the fold distances
// used here (512 and 128 bits, then 64 and 32), and the Barrett reduction's quotient and polynomial.
#include "CChecksum.h"

#if defined(__x86_64__)
#include <immintrin.h>

int mb_crc32_fold_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

/* Folds 128 bits of `value` forward over `constants` (low qword times its low, high times its high). */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i fold(__m128i value, __m128i constants, __m128i next) {
    __m128i low = _mm_clmulepi64_si128(value, constants, 0x00);
    __m128i high = _mm_clmulepi64_si128(value, constants, 0x11);
    return _mm_xor_si128(_mm_xor_si128(low, high), next);
}

__attribute__((target("pclmul,sse4.1")))
uint32_t mb_crc32_fold(uint32_t crc, const unsigned char *bytes, size_t length) {
    const __m128i by512 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i by128 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i by64 = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i barrett = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);

    // Four lanes, 64 bytes apart; the running CRC (zlib's value, inverted) enters with the first bytes.
    __m128i a = _mm_xor_si128(_mm_loadu_si128((const __m128i *)bytes), _mm_cvtsi32_si128((int)~crc));
    __m128i b = _mm_loadu_si128((const __m128i *)(bytes + 16));
    __m128i c = _mm_loadu_si128((const __m128i *)(bytes + 32));
    __m128i d = _mm_loadu_si128((const __m128i *)(bytes + 48));
    bytes += 64;
    length -= 64;
    for (; length >= 64; bytes += 64, length -= 64) {
        a = fold(a, by512, _mm_loadu_si128((const __m128i *)bytes));
        b = fold(b, by512, _mm_loadu_si128((const __m128i *)(bytes + 16)));
        c = fold(c, by512, _mm_loadu_si128((const __m128i *)(bytes + 32)));
        d = fold(d, by512, _mm_loadu_si128((const __m128i *)(bytes + 48)));
    }
    // The lanes into one, then the 16-byte blocks that remain.
    a = fold(a, by128, b);
    a = fold(a, by128, c);
    a = fold(a, by128, d);
    for (; length >= 16; bytes += 16, length -= 16) {
        a = fold(a, by128, _mm_loadu_si128((const __m128i *)bytes));
    }
    // 128 bits to 64: the low half times x^(128-ish), added to the high half.
    a = _mm_xor_si128(_mm_clmulepi64_si128(a, by128, 0x10), _mm_srli_si128(a, 8));
    // 64 bits to 32.
    a = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(a, low32), by64, 0x00), _mm_srli_si128(a, 4));
    // Barrett reduction: the remainder modulo the polynomial is what is left in bits 32..63.
    __m128i quotient = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(a, low32), barrett, 0x10), low32);
    a = _mm_xor_si128(a, _mm_clmulepi64_si128(quotient, barrett, 0x00));
    return ~(uint32_t)_mm_extract_epi32(a, 1);
}

#else

int mb_crc32_fold_available(void) { return 0; }

uint32_t mb_crc32_fold(uint32_t crc, const unsigned char *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return crc;
}

#endif
