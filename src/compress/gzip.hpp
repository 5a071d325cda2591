// gzip (zlib): the server's HTTP responses and the xray viewer's embedded data.
#pragma once

#include <string>
#include <string_view>

namespace nndna::compress {

// The gzip member (RFC 1952) of `data` at zlib's default level. Throws std::runtime_error if zlib
// fails (it only does when out of memory).
std::string gzip(std::string_view data);

}  // namespace nndna::compress
