#ifndef MAPBOOK_CSECRET_SHIM_H
#define MAPBOOK_CSECRET_SHIM_H
/* libsecret, the desktop keyring (Secret Service), for mapbook's sign-ins. It is loaded on first use
   (CLibraryLoader): with GLib, GIO and the ten libraries they bring it was a fifth of `mapbook
   --version`. Its headers need GLib's include paths, which would link it again, so the few types
   used here are declared from libsecret's stable ABI (libsecret-1.so.0): SecretSchema, and GError's
   first fields. Its calls take their attributes as C varargs, which Swift cannot call: these
   wrappers do, for one attribute, "portal". Errors come back as a message to free(). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../CLibraryLoader/include/library_loader.h"

static inline void *mb_secret_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libsecret-1.so.0", name);
}

#define MB_SECRET_LOOKUP(type, name) MB_LIBRARY_LOOKUP(mb_secret_symbol, type, name)

typedef struct { const char *name; int type; } mb_secret_schema_attribute;
typedef struct {
    const char *name;
    int flags;                                   /* SECRET_SCHEMA_NONE */
    mb_secret_schema_attribute attributes[32];   /* SECRET_SCHEMA_ATTRIBUTE_STRING is 0 */
    int reserved;
    void *reserved1, *reserved2, *reserved3, *reserved4, *reserved5, *reserved6, *reserved7;
} mb_secret_schema;
typedef struct { unsigned int domain; int code; char *message; } mb_gerror;

static inline const mb_secret_schema *mb_credential_schema(void) {
    static const mb_secret_schema schema = { "org.mapbook.Credential", 0, { { "portal", 0 }, { NULL, 0 } } };
    return &schema;
}

/* Whether libsecret is on this machine (libsecret-1-0). */
static inline int mb_secret_available(void) {
    return mb_secret_symbol("secret_password_lookup_sync") != NULL && mb_secret_symbol("g_error_free") != NULL;
}

/* The message of `error` (freed), copied for the caller to free(); NULL when there was none. */
typedef void (*mb_error_free_f)(mb_gerror *);
static inline char *mb_secret_message(mb_gerror *error) {
    if (error == NULL) return NULL;
    char *message = strdup(error->message != NULL ? error->message : "unknown error");
    MB_SECRET_LOOKUP(mb_error_free_f, g_error_free) found(error);
    return message;
}

typedef int (*mb_password_store_f)(const mb_secret_schema *, const char *, const char *, const char *, void *, mb_gerror **, ...);
static inline int mb_secret_store(const char *portal, const char *label, const char *secret, char **message) {
    mb_gerror *error = NULL;
    MB_SECRET_LOOKUP(mb_password_store_f, secret_password_store_sync)
    if (found == NULL) { *message = strdup("libsecret could not be loaded"); return 0; }
    int stored = found(mb_credential_schema(), "default", label, secret, NULL, &error, "portal", portal, NULL);
    *message = mb_secret_message(error);
    return stored;
}

/* The secret kept for `portal` (free it with mb_secret_free), or NULL. */
typedef char *(*mb_password_lookup_f)(const mb_secret_schema *, void *, mb_gerror **, ...);
static inline char *mb_secret_lookup(const char *portal, char **message) {
    mb_gerror *error = NULL;
    MB_SECRET_LOOKUP(mb_password_lookup_f, secret_password_lookup_sync)
    if (found == NULL) { *message = strdup("libsecret could not be loaded"); return NULL; }
    char *secret = found(mb_credential_schema(), NULL, &error, "portal", portal, NULL);
    *message = mb_secret_message(error);
    return secret;
}

typedef void (*mb_password_free_f)(char *);
static inline void mb_secret_free(char *secret) {
    MB_SECRET_LOOKUP(mb_password_free_f, secret_password_free) if (found != NULL) found(secret);
}

typedef int (*mb_password_clear_f)(const mb_secret_schema *, void *, mb_gerror **, ...);
static inline int mb_secret_clear(const char *portal, char **message) {
    mb_gerror *error = NULL;
    MB_SECRET_LOOKUP(mb_password_clear_f, secret_password_clear_sync)
    if (found == NULL) { *message = strdup("libsecret could not be loaded"); return 0; }
    int cleared = found(mb_credential_schema(), NULL, &error, "portal", portal, NULL);
    *message = mb_secret_message(error);
    return cleared;
}

/* Whether a Secret Service answers on the session bus (without starting one). */
typedef void *(*mb_service_get_f)(int, void *, mb_gerror **);
typedef char *(*mb_name_owner_f)(void *);
typedef void (*mb_unref_f)(void *);
typedef void (*mb_g_free_f)(void *);
static inline int mb_secret_service_running(void) {
    if (!mb_secret_available()) return 0;
    mb_service_get_f get = (mb_service_get_f)mb_secret_symbol("secret_service_get_sync");
    mb_name_owner_f owner = (mb_name_owner_f)mb_secret_symbol("g_dbus_proxy_get_name_owner");
    mb_unref_f unref = (mb_unref_f)mb_secret_symbol("g_object_unref");
    mb_g_free_f g_free_ = (mb_g_free_f)mb_secret_symbol("g_free");
    if (get == NULL || owner == NULL || unref == NULL || g_free_ == NULL) return 0;
    mb_gerror *error = NULL;
    void *service = get(0 /* SECRET_SERVICE_NONE */, NULL, &error);
    free(mb_secret_message(error));
    if (service == NULL) return 0;
    char *name = owner(service);
    int running = name != NULL;
    g_free_(name);
    unref(service);
    return running;
}

#endif
