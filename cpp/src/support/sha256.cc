// SHA-256 through OpenSSL's libcrypto (SHA-NI / AVX2 code paths: saved programs and
// compiled kernels of several MiB are hashed on every save, load and cache hit).
#include "tessera/support/sha256.h"

#include <openssl/evp.h>

#include "tessera/support/error.h"

namespace tessera {

std::string Sha256Hex(const std::string& data) { return Sha256Hex(data.data(), data.size()); }

std::string Sha256Hex(const char* data, size_t n) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data, n, digest, &length, EVP_sha256(), nullptr) != 1 || length != 32)
    TS_THROW(kInternal) << "SHA-256 failed in libcrypto";
  static const char kHex[] = "0123456789abcdef";
  std::string out(64, '0');
  for (unsigned int i = 0; i < 32; ++i) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace tessera
