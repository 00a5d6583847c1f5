// OpenSSL's libcrypto, for the Matter module: P-256 point arithmetic (SPAKE2+) and AES-CCM.
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
