// OpenSSL's libcrypto, for SHA-256 (the S256 code challenge of OAuth with PKCE).
#include <openssl/sha.h>
