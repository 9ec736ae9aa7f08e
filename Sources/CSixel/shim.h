#ifndef MAPBOOK_CSIXEL_SHIM_H
#define MAPBOOK_CSIXEL_SHIM_H
/* libsixel, which turns a picture into sixel (palette chosen for the picture, dithered), for
   terminals that show sixel. Loaded on first use (CLibraryLoader), like Cairo: most terminals
   never need it. */
#include <sixel/sixel.h>
#include <stddef.h>

#include "../CLibraryLoader/include/library_loader.h"

static inline void *mb_sixel_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libsixel.so.1", name);
}

/* Whether libsixel (Debian's libsixel1) is on this machine. */
static inline int mb_sixel_available(void) { return mb_sixel_symbol("sixel_encode") != NULL; }

#define MB_SIXEL_CALL(name, params, args) \
    typedef SIXELSTATUS (*mb_##name##_f) params; \
    static inline SIXELSTATUS mb_##name params { \
        MB_LIBRARY_LOOKUP(mb_sixel_symbol, mb_##name##_f, name) return found == NULL ? SIXEL_RUNTIME_ERROR : found args; }
#define MB_SIXEL_VOID(name, params, args) \
    typedef void (*mb_##name##_f) params; \
    static inline void mb_##name params { MB_LIBRARY_LOOKUP(mb_sixel_symbol, mb_##name##_f, name) if (found != NULL) found args; }

MB_SIXEL_CALL(sixel_output_new, (sixel_output_t **output, sixel_write_function write, void *context, sixel_allocator_t *allocator),
              (output, write, context, allocator))
MB_SIXEL_VOID(sixel_output_destroy, (sixel_output_t *output), (output))
MB_SIXEL_CALL(sixel_dither_new, (sixel_dither_t **dither, int colors, sixel_allocator_t *allocator), (dither, colors, allocator))
MB_SIXEL_VOID(sixel_dither_destroy, (sixel_dither_t *dither), (dither))
MB_SIXEL_CALL(sixel_dither_initialize, (sixel_dither_t *dither, unsigned char *data, int width, int height, int format,
                                        int largest, int representative, int quality),
              (dither, data, width, height, format, largest, representative, quality))
MB_SIXEL_VOID(sixel_dither_set_diffusion_type, (sixel_dither_t *dither, int method), (dither, method))
MB_SIXEL_CALL(sixel_encode, (unsigned char *pixels, int width, int height, int depth, sixel_dither_t *dither, sixel_output_t *output),
              (pixels, width, height, depth, dither, output))
#endif
