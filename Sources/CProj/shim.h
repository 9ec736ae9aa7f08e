#ifndef MAPBOOK_CPROJ_SHIM_H
#define MAPBOOK_CPROJ_SHIM_H
/* PROJ, for every coordinate system but Web Mercator's own. Loaded on first use (CLibraryLoader):
   libproj brings libcurl, libtiff, GnuTLS, Kerberos and LDAP — forty libraries every start would
   otherwise pay for, `--version` and the offline first frame included, most of which never meet a
   projected file. Its header gives the types; each function is looked up once. */
#include <math.h>
#include <proj.h>
#include <stddef.h>

#include "../CLibraryLoader/include/library_loader.h"

static inline void *mb_proj_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libproj.so.25", name);
}

#define MB_PROJ_LOOKUP(type, name) MB_LIBRARY_LOOKUP(mb_proj_symbol, type, name)

/* Whether libproj (Debian's libproj25) is on this machine. */
static inline int mb_proj_available(void) { return mb_proj_symbol("proj_context_create") != NULL; }

typedef PJ_CONTEXT *(*mb_proj_context_create_f)(void);
static inline PJ_CONTEXT *mb_proj_context_create(void) {
    MB_PROJ_LOOKUP(mb_proj_context_create_f, proj_context_create) return found == NULL ? NULL : found();
}
typedef PJ_CONTEXT *(*mb_proj_context_destroy_f)(PJ_CONTEXT *);
static inline void mb_proj_context_destroy(PJ_CONTEXT *context) { MB_PROJ_LOOKUP(mb_proj_context_destroy_f, proj_context_destroy) found(context); }
typedef PJ_LOG_LEVEL (*mb_proj_log_level_f)(PJ_CONTEXT *, PJ_LOG_LEVEL);
static inline void mb_proj_log_level(PJ_CONTEXT *context, PJ_LOG_LEVEL level) { MB_PROJ_LOOKUP(mb_proj_log_level_f, proj_log_level) found(context, level); }
typedef int (*mb_proj_context_set_enable_network_f)(PJ_CONTEXT *, int);
static inline void mb_proj_context_set_enable_network(PJ_CONTEXT *context, int enabled) {
    MB_PROJ_LOOKUP(mb_proj_context_set_enable_network_f, proj_context_set_enable_network) found(context, enabled);
}
typedef int (*mb_proj_context_errno_f)(PJ_CONTEXT *);
typedef const char *(*mb_proj_context_errno_string_f)(PJ_CONTEXT *, int);
static inline int mb_proj_errno(PJ_CONTEXT *context) { MB_PROJ_LOOKUP(mb_proj_context_errno_f, proj_context_errno) return found(context); }
static inline const char *mb_proj_errno_string(PJ_CONTEXT *context, int code) {
    MB_PROJ_LOOKUP(mb_proj_context_errno_string_f, proj_context_errno_string) return found(context, code);
}
/* The context's last error, in PROJ's words; NULL when there is none. */
static inline const char *mb_proj_error(PJ_CONTEXT *context) {
    int code = mb_proj_errno(context);
    return code == 0 ? NULL : mb_proj_errno_string(context, code);
}
typedef PJ *(*mb_proj_create_f)(PJ_CONTEXT *, const char *);
static inline PJ *mb_proj_create(PJ_CONTEXT *context, const char *definition) { MB_PROJ_LOOKUP(mb_proj_create_f, proj_create) return found(context, definition); }
typedef int (*mb_proj_is_crs_f)(const PJ *);
static inline int mb_proj_is_crs(const PJ *object) { MB_PROJ_LOOKUP(mb_proj_is_crs_f, proj_is_crs) return found(object); }
typedef PJ *(*mb_proj_destroy_f)(PJ *);
static inline void mb_proj_destroy(PJ *object) { MB_PROJ_LOOKUP(mb_proj_destroy_f, proj_destroy) found(object); }
typedef PJ *(*mb_proj_create_crs_to_crs_from_pj_f)(PJ_CONTEXT *, const PJ *, const PJ *, PJ_AREA *, const char *const *);
static inline PJ *mb_proj_create_crs_to_crs_from_pj(PJ_CONTEXT *context, const PJ *source, const PJ *target) {
    MB_PROJ_LOOKUP(mb_proj_create_crs_to_crs_from_pj_f, proj_create_crs_to_crs_from_pj) return found(context, source, target, NULL, NULL);
}
typedef PJ *(*mb_proj_normalize_for_visualization_f)(PJ_CONTEXT *, const PJ *);
static inline PJ *mb_proj_normalize_for_visualization(PJ_CONTEXT *context, const PJ *object) {
    MB_PROJ_LOOKUP(mb_proj_normalize_for_visualization_f, proj_normalize_for_visualization) return found(context, object);
}
typedef const char *(*mb_proj_get_name_f)(const PJ *);
static inline const char *mb_proj_get_name(const PJ *object) { MB_PROJ_LOOKUP(mb_proj_get_name_f, proj_get_name) return found(object); }
typedef int (*mb_proj_get_area_of_use_f)(PJ_CONTEXT *, const PJ *, double *, double *, double *, double *, const char **);
static inline int mb_proj_get_area_of_use(PJ_CONTEXT *context, const PJ *object, double *west, double *south, double *east, double *north) {
    MB_PROJ_LOOKUP(mb_proj_get_area_of_use_f, proj_get_area_of_use) return found(context, object, west, south, east, north, NULL);
}
typedef PJ_COORD (*mb_proj_trans_f)(PJ *, PJ_DIRECTION, PJ_COORD);
/* One point (x, y) through `operation`, written back in place. */
static inline void mb_proj_trans(PJ *operation, PJ_DIRECTION direction, double *x, double *y) {
    MB_PROJ_LOOKUP(mb_proj_trans_f, proj_trans)
    PJ_COORD in = {{ *x, *y, 0, HUGE_VAL }};
    PJ_COORD out = found(operation, direction, in);
    *x = out.v[0]; *y = out.v[1];
}
typedef size_t (*mb_proj_trans_generic_f)(PJ *, PJ_DIRECTION, double *, size_t, size_t, double *, size_t, size_t,
                                          double *, size_t, size_t, double *, size_t, size_t);
/* `count` points, their x and y in two arrays, through `operation` in place: one z and one time for all. */
static inline void mb_proj_trans_many(PJ *operation, PJ_DIRECTION direction, double *x, double *y, size_t count) {
    MB_PROJ_LOOKUP(mb_proj_trans_generic_f, proj_trans_generic)
    double z = 0, t = HUGE_VAL;
    found(operation, direction, x, sizeof(double), count, y, sizeof(double), count, &z, 0, 1, &t, 0, 1);
}
#endif
