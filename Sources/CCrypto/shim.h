// OpenSSL's libcrypto, for SHA-256: the S256 code challenge of OAuth with PKCE, and the digests of
// a fleet mirror's files.
#include <openssl/sha.h>
#include <openssl/evp.h>
