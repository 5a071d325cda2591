// Whether an HTTP client takes gzip. The server compresses its own responses (compress/gzip.hpp):
// cpp-httplib 0.11 would compress every text body on every request with Brotli at its slowest
// setting.
#pragma once

#include <string_view>

namespace nndna::server {

// Whether an Accept-Encoding header value admits gzip ("gzip", "gzip;q=0.8", "*"; not "gzip;q=0").
bool acceptsGzip(std::string_view acceptEncoding);

}  // namespace nndna::server
