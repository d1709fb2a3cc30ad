// beacon-provision: the one C entry point to OpenSSL's libcrypto (MD5 for KBeacon auth, SHA-256 for DFU
// image hashes, AES-128-ECB for encrypted KSensor frames, ECDSA P-256 for DFU signatures).
#ifndef BEACON_PROVISION_CCRYPTO_SHIM_H
#define BEACON_PROVISION_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/bn.h>

#endif
