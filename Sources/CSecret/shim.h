// libsecret, the desktop keyring (Secret Service), for mapbook's sign-ins. Its calls take their
// attributes as C varargs, which Swift cannot call: these wrappers do, for one attribute, "portal".
#include <libsecret/secret.h>

static inline const SecretSchema *mapbook_credential_schema(void) {
    static const SecretSchema schema = {
        "org.mapbook.Credential", SECRET_SCHEMA_NONE,
        { { "portal", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } }
    };
    return &schema;
}

static inline gboolean mapbook_secret_store(const char *portal, const char *label, const char *secret, GError **error) {
    return secret_password_store_sync(mapbook_credential_schema(), SECRET_COLLECTION_DEFAULT, label, secret, NULL, error,
                                      "portal", portal, NULL);
}

static inline gchar *mapbook_secret_lookup(const char *portal, GError **error) {
    return secret_password_lookup_sync(mapbook_credential_schema(), NULL, error, "portal", portal, NULL);
}

static inline gboolean mapbook_secret_clear(const char *portal, GError **error) {
    return secret_password_clear_sync(mapbook_credential_schema(), NULL, error, "portal", portal, NULL);
}

/// Whether a Secret Service answers on the session bus (without starting one).
static inline gboolean mapbook_secret_service_running(void) {
    GError *error = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_NONE, NULL, &error);
    if (error != NULL) { g_error_free(error); }
    if (service == NULL) { return FALSE; }
    gboolean running = g_dbus_proxy_get_name_owner(G_DBUS_PROXY(service)) != NULL;
    g_object_unref(service);
    return running;
}
