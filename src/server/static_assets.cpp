#include "server/static_assets.hpp"

#include "compress/gzip.hpp"
#include "specrun/sha256.hpp"

namespace nndna::server {

namespace {

// Below this size gzip's header and the extra round of decoding cost more than they save.
constexpr std::size_t kCompressAbove = 1024;

}  // namespace

std::string_view contentTypeFor(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  if (name.ends_with(".json")) return "application/json";
  if (name.ends_with(".png")) return "image/png";
  return "application/octet-stream";
}

StaticAssets::StaticAssets(std::span<const EmbeddedFile> files) {
  for (const EmbeddedFile& f : files) {
    StaticAsset a;
    a.path = f.name == "index.html" ? "/" : "/" + std::string(f.name);
    a.contentType = std::string(contentTypeFor(f.name));
    a.bytes = f.bytes;
    const bool text = a.contentType.starts_with("text/") || a.contentType == "image/svg+xml" ||
                      a.contentType == "application/json";
    if (text && f.bytes.size() > kCompressAbove) a.gzipped = compress::gzip(f.bytes);
    a.etag = "\"" + specrun::sha256Hex(f.bytes).substr(0, 32) + "\"";
    assets_.push_back(std::move(a));
  }
}

const StaticAsset* StaticAssets::find(std::string_view path) const {
  for (const StaticAsset& a : assets_) {
    if (a.path == path) return &a;
  }
  return nullptr;
}

}  // namespace nndna::server
