// SHA-256 (OpenSSL's libcrypto) for cache keys.
#pragma once

#include <string>
#include <string_view>

namespace nndna::specrun {

// Lower-case hex digest of `data`.
std::string sha256Hex(std::string_view data);

}  // namespace nndna::specrun
