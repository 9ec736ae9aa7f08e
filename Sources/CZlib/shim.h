#ifndef MAPBOOK_CZLIB_SHIM_H
#define MAPBOOK_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro over inflateInit2_ with the library version and struct size. */
static inline int mb_inflate_init2(z_streamp s, int window_bits) { return inflateInit2(s, window_bits); }
static inline int mb_deflate_init2(z_streamp s, int level, int window_bits) {
    return deflateInit2(s, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}

#endif
