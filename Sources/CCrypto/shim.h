#ifndef MAPBOOK_CCRYPTO_SHIM_H
#define MAPBOOK_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto, for SHA-256: the S256 code challenge of OAuth with PKCE, and the digests of
   a fleet mirror's files. Loaded on first use (CLibraryLoader), so a start that hashes nothing does
   not pay for it; its headers give the types. */
#include <openssl/evp.h>
#include <stddef.h>

#include "../CLibraryLoader/include/library_loader.h"

static inline void *mb_crypto_symbol(const char *name) {
    static void *handle;
    return mb_library_symbol(&handle, "libcrypto.so.3", name);
}

#define MB_CRYPTO_LOOKUP(type, name) MB_LIBRARY_LOOKUP(mb_crypto_symbol, type, name)

enum { MB_SHA256_LENGTH = 32 };

typedef EVP_MD_CTX *(*mb_md_ctx_new_f)(void);
static inline EVP_MD_CTX *mb_md_ctx_new(void) { MB_CRYPTO_LOOKUP(mb_md_ctx_new_f, EVP_MD_CTX_new) return found == NULL ? NULL : found(); }
typedef const EVP_MD *(*mb_md_sha256_f)(void);
static inline const EVP_MD *mb_md_sha256(void) { MB_CRYPTO_LOOKUP(mb_md_sha256_f, EVP_sha256) return found(); }
typedef int (*mb_digest_init_f)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
static inline int mb_digest_init(EVP_MD_CTX *context, const EVP_MD *md) { MB_CRYPTO_LOOKUP(mb_digest_init_f, EVP_DigestInit_ex) return found(context, md, NULL); }
typedef void (*mb_md_ctx_free_f)(EVP_MD_CTX *);

static inline void mb_sha256_free(EVP_MD_CTX *context) {
    if (context == NULL) return;
    MB_CRYPTO_LOOKUP(mb_md_ctx_free_f, EVP_MD_CTX_free) found(context);
}

/* A SHA-256 under way; NULL when libcrypto (libssl3) cannot be loaded or is out of memory. */
static inline EVP_MD_CTX *mb_sha256_new(void) {
    EVP_MD_CTX *context = mb_md_ctx_new();
    if (context != NULL && mb_digest_init(context, mb_md_sha256()) != 1) { mb_sha256_free(context); return NULL; }
    return context;
}

typedef int (*mb_digest_update_f)(EVP_MD_CTX *, const void *, size_t);
static inline void mb_sha256_update(EVP_MD_CTX *context, const void *bytes, size_t count) {
    MB_CRYPTO_LOOKUP(mb_digest_update_f, EVP_DigestUpdate) found(context, bytes, count);
}

/* Writes the 32 bytes of the digest; 1 when it could. */
typedef int (*mb_digest_final_f)(EVP_MD_CTX *, unsigned char *, unsigned int *);
static inline int mb_sha256_final(EVP_MD_CTX *context, unsigned char *digest) {
    unsigned int length = 0;
    MB_CRYPTO_LOOKUP(mb_digest_final_f, EVP_DigestFinal_ex)
    return found(context, digest, &length) == 1 && length == MB_SHA256_LENGTH;
}

/* The digest of `count` bytes in one call; 1 when it could (0 without libcrypto). */
static inline int mb_sha256(const void *bytes, size_t count, unsigned char *digest) {
    EVP_MD_CTX *context = mb_sha256_new();
    if (context == NULL) return 0;
    mb_sha256_update(context, bytes, count);
    int done = mb_sha256_final(context, digest);
    mb_sha256_free(context);
    return done;
}

#endif
