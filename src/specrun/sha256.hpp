// SHA-256 (Nettle's: OpenSSL's libcrypto cost every command about 4 ms of start-up) for cache keys.
#pragma once

#include <string>
#include <string_view>

namespace nndna::specrun {

// Lower-case hex digest of `data`.
std::string sha256Hex(std::string_view data);

}  // namespace nndna::specrun
