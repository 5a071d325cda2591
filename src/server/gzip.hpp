// gzip for HTTP responses (zlib). The server compresses its own responses: cpp-httplib 0.11
// would compress every text body on every request with Brotli at its slowest setting.
#pragma once

#include <string>
#include <string_view>

namespace nndna::server {

// The gzip member (RFC 1952) of `data` at zlib's default level. Throws std::runtime_error if zlib
// fails (it only does when out of memory).
std::string gzip(std::string_view data);

// Whether an Accept-Encoding header value admits gzip ("gzip", "gzip;q=0.8", "*"; not "gzip;q=0").
bool acceptsGzip(std::string_view acceptEncoding);

}  // namespace nndna::server
