#ifndef MAPBOOK_CCURL_SHIM_H
#define MAPBOOK_CCURL_SHIM_H
#include <curl/curl.h>
#include <stddef.h>

/* libcurl is loaded when the first request is made, not when mapbook starts: with the thirty
   libraries it brings (Kerberos, LDAP, SSH, RTMP, ...) it was a third of every start. mapbook calls
   it only through these mb_ functions; each looks its libcurl function up once. */
#include "../CLibraryLoader/include/library_loader.h"

/* A libcurl function by name; NULL when libcurl (libcurl4) cannot be loaded. */
static inline void *mb_curl_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libcurl.so.4", name);
}

/* Whether libcurl is there to be used: asked before the first call of any function below. */
static inline int mb_curl_available(void) {
    return mb_curl_symbol("curl_multi_wakeup") != NULL && mb_curl_symbol("curl_easy_init") != NULL;
}

#define MB_CURL_LOOKUP(type, name) MB_LIBRARY_LOOKUP(mb_curl_symbol, type, name)

typedef CURLcode (*mb_global_init_f)(long);
static inline CURLcode mb_curl_global_init(long flags) { MB_CURL_LOOKUP(mb_global_init_f, curl_global_init) return found(flags); }
typedef CURL *(*mb_easy_init_f)(void);
static inline CURL *mb_curl_easy_init(void) { MB_CURL_LOOKUP(mb_easy_init_f, curl_easy_init) return found(); }
typedef void (*mb_easy_cleanup_f)(CURL *);
static inline void mb_curl_easy_cleanup(CURL *h) { MB_CURL_LOOKUP(mb_easy_cleanup_f, curl_easy_cleanup) found(h); }
typedef const char *(*mb_easy_strerror_f)(CURLcode);
static inline const char *mb_curl_easy_strerror(CURLcode c) { MB_CURL_LOOKUP(mb_easy_strerror_f, curl_easy_strerror) return found(c); }
typedef struct curl_slist *(*mb_slist_append_f)(struct curl_slist *, const char *);
static inline struct curl_slist *mb_curl_slist_append(struct curl_slist *l, const char *s) { MB_CURL_LOOKUP(mb_slist_append_f, curl_slist_append) return found(l, s); }
typedef void (*mb_slist_free_all_f)(struct curl_slist *);
static inline void mb_curl_slist_free_all(struct curl_slist *l) { MB_CURL_LOOKUP(mb_slist_free_all_f, curl_slist_free_all) found(l); }
typedef CURLM *(*mb_multi_init_f)(void);
static inline CURLM *mb_curl_multi_init(void) { MB_CURL_LOOKUP(mb_multi_init_f, curl_multi_init) return found(); }
typedef CURLMcode (*mb_multi_handle_f)(CURLM *, CURL *);
static inline CURLMcode mb_curl_multi_add_handle(CURLM *m, CURL *h) { MB_CURL_LOOKUP(mb_multi_handle_f, curl_multi_add_handle) return found(m, h); }
static inline CURLMcode mb_curl_multi_remove_handle(CURLM *m, CURL *h) { MB_CURL_LOOKUP(mb_multi_handle_f, curl_multi_remove_handle) return found(m, h); }
typedef CURLMcode (*mb_multi_perform_f)(CURLM *, int *);
static inline CURLMcode mb_curl_multi_perform(CURLM *m, int *running) { MB_CURL_LOOKUP(mb_multi_perform_f, curl_multi_perform) return found(m, running); }
typedef CURLMsg *(*mb_multi_info_read_f)(CURLM *, int *);
static inline CURLMsg *mb_curl_multi_info_read(CURLM *m, int *queued) { MB_CURL_LOOKUP(mb_multi_info_read_f, curl_multi_info_read) return found(m, queued); }
typedef CURLMcode (*mb_multi_poll_f)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
static inline CURLMcode mb_curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned int n, int timeout, int *ready) { MB_CURL_LOOKUP(mb_multi_poll_f, curl_multi_poll) return found(m, fds, n, timeout, ready); }
typedef CURLMcode (*mb_multi_wakeup_f)(CURLM *);
static inline CURLMcode mb_curl_multi_wakeup(CURLM *m) { MB_CURL_LOOKUP(mb_multi_wakeup_f, curl_multi_wakeup) return found(m); }
typedef curl_version_info_data *(*mb_version_info_f)(CURLversion);
static inline curl_version_info_data *mb_curl_version_info(CURLversion v) { MB_CURL_LOOKUP(mb_version_info_f, curl_version_info) return found(v); }

/* curl_easy_setopt, curl_easy_getinfo and curl_multi_setopt are variadic, which Swift cannot call:
   one typed wrapper per argument kind. */
typedef CURLcode (*mb_easy_setopt_f)(CURL *, CURLoption, ...);
typedef CURLcode (*mb_easy_getinfo_f)(CURL *, CURLINFO, ...);
typedef CURLMcode (*mb_multi_setopt_f)(CURLM *, CURLMoption, ...);
#define MB_SETOPT MB_CURL_LOOKUP(mb_easy_setopt_f, curl_easy_setopt)
#define MB_GETINFO MB_CURL_LOOKUP(mb_easy_getinfo_f, curl_easy_getinfo)

static inline CURLcode mb_easy_setopt_long(CURL *h, CURLoption o, long v) { MB_SETOPT return found(h, o, v); }
static inline CURLcode mb_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { MB_SETOPT return found(h, o, v); }
static inline CURLcode mb_easy_setopt_string(CURL *h, CURLoption o, const char *v) { MB_SETOPT return found(h, o, v); }
static inline CURLcode mb_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { MB_SETOPT return found(h, o, v); }
static inline CURLcode mb_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { MB_SETOPT return found(h, o, v); }
static inline CURLcode mb_easy_setopt_write_function(CURL *h, CURLoption o, curl_write_callback f) { MB_SETOPT return found(h, o, f); }
static inline CURLcode mb_easy_setopt_xferinfo_function(CURL *h, curl_xferinfo_callback f) { MB_SETOPT return found(h, CURLOPT_XFERINFOFUNCTION, f); }

static inline CURLcode mb_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { MB_GETINFO return found(h, i, v); }
static inline CURLcode mb_easy_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { MB_GETINFO return found(h, i, v); }
static inline CURLcode mb_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { MB_GETINFO return found(h, i, v); }
static inline CURLcode mb_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { MB_GETINFO return found(h, i, v); }

static inline CURLMcode mb_multi_setopt_long(CURLM *m, CURLMoption o, long v) { MB_CURL_LOOKUP(mb_multi_setopt_f, curl_multi_setopt) return found(m, o, v); }

/* CURLMsg.data is a union; reading the result member through C keeps Swift out of union layout. */
static inline CURLcode mb_msg_result(const CURLMsg *m) { return m->data.result; }

#endif
