#ifndef MAPBOOK_CCAIRO_SHIM_H
#define MAPBOOK_CCAIRO_SHIM_H
/* Cairo, the 2D library that draws pixel maps (anti-aliased fills, lines with widths and dashes,
   scaled pictures, text for PNG snapshots). Loaded on first use (CLibraryLoader): it brings
   pixman, FreeType, fontconfig, libpng and the X libraries, which a terminal that shows no pixels
   — and `--version`, and the offline first frame — need not pay for. Its header gives the types;
   each function is looked up once, and does nothing (or returns `fallback`) without the library. */
#include <cairo/cairo.h>
#include <stddef.h>

#include "../CLibraryLoader/include/library_loader.h"

static inline void *mb_cairo_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libcairo.so.2", name);
}

/* Whether libcairo (Debian's libcairo2) is on this machine. */
static inline int mb_cairo_available(void) { return mb_cairo_symbol("cairo_create") != NULL; }

#define MB_CAIRO_VOID(name, params, args) \
    typedef void (*mb_##name##_f) params; \
    static inline void mb_##name params { \
        MB_LIBRARY_LOOKUP(mb_cairo_symbol, mb_##name##_f, name) if (found != NULL) found args; }
#define MB_CAIRO_RETURN(type, fallback, name, params, args) \
    typedef type (*mb_##name##_f) params; \
    static inline type mb_##name params { \
        MB_LIBRARY_LOOKUP(mb_cairo_symbol, mb_##name##_f, name) return found == NULL ? fallback : found args; }

MB_CAIRO_RETURN(cairo_surface_t *, NULL, cairo_image_surface_create, (cairo_format_t format, int width, int height), (format, width, height))
MB_CAIRO_RETURN(unsigned char *, NULL, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
MB_CAIRO_RETURN(int, 0, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
MB_CAIRO_RETURN(int, 0, cairo_image_surface_get_height, (cairo_surface_t *surface), (surface))
MB_CAIRO_RETURN(int, -1, cairo_format_stride_for_width, (cairo_format_t format, int width), (format, width))
MB_CAIRO_RETURN(cairo_status_t, CAIRO_STATUS_NULL_POINTER, cairo_surface_status, (cairo_surface_t *surface), (surface))
MB_CAIRO_VOID(cairo_surface_flush, (cairo_surface_t *surface), (surface))
MB_CAIRO_VOID(cairo_surface_mark_dirty, (cairo_surface_t *surface), (surface))
MB_CAIRO_VOID(cairo_surface_destroy, (cairo_surface_t *surface), (surface))

MB_CAIRO_RETURN(cairo_t *, NULL, cairo_create, (cairo_surface_t *target), (target))
MB_CAIRO_VOID(cairo_destroy, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_save, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_restore, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_set_source_rgba, (cairo_t *cr, double r, double g, double b, double a), (cr, r, g, b, a))
MB_CAIRO_VOID(cairo_set_source_surface, (cairo_t *cr, cairo_surface_t *surface, double x, double y), (cr, surface, x, y))
MB_CAIRO_RETURN(cairo_pattern_t *, NULL, cairo_get_source, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_pattern_set_filter, (cairo_pattern_t *pattern, cairo_filter_t filter), (pattern, filter))
MB_CAIRO_VOID(cairo_pattern_set_extend, (cairo_pattern_t *pattern, cairo_extend_t extend), (pattern, extend))
MB_CAIRO_VOID(cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
MB_CAIRO_VOID(cairo_set_line_cap, (cairo_t *cr, cairo_line_cap_t cap), (cr, cap))
MB_CAIRO_VOID(cairo_set_line_join, (cairo_t *cr, cairo_line_join_t join), (cr, join))
MB_CAIRO_VOID(cairo_set_dash, (cairo_t *cr, const double *dashes, int count, double offset), (cr, dashes, count, offset))
MB_CAIRO_VOID(cairo_set_antialias, (cairo_t *cr, cairo_antialias_t antialias), (cr, antialias))
MB_CAIRO_VOID(cairo_set_fill_rule, (cairo_t *cr, cairo_fill_rule_t rule), (cr, rule))
MB_CAIRO_VOID(cairo_new_path, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
MB_CAIRO_VOID(cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
MB_CAIRO_VOID(cairo_close_path, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
MB_CAIRO_VOID(cairo_arc, (cairo_t *cr, double x, double y, double radius, double from, double to), (cr, x, y, radius, from, to))
MB_CAIRO_VOID(cairo_fill, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_fill_preserve, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_stroke, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_paint, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_paint_with_alpha, (cairo_t *cr, double alpha), (cr, alpha))
MB_CAIRO_VOID(cairo_clip, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_reset_clip, (cairo_t *cr), (cr))
MB_CAIRO_VOID(cairo_translate, (cairo_t *cr, double x, double y), (cr, x, y))
MB_CAIRO_VOID(cairo_scale, (cairo_t *cr, double x, double y), (cr, x, y))
MB_CAIRO_VOID(cairo_select_font_face, (cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight),
              (cr, family, slant, weight))
MB_CAIRO_VOID(cairo_set_font_size, (cairo_t *cr, double size), (cr, size))
MB_CAIRO_VOID(cairo_show_text, (cairo_t *cr, const char *text), (cr, text))
#endif
