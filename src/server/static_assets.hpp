// The web app's files as the server sends them: content type, an ETag, and a gzip copy made
// once at start-up.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/built_in_files.hpp"

namespace nndna::server {

struct StaticAsset {
  std::string path;         // "/" for index.html, else "/" + the file name
  std::string contentType;  // by extension
  std::string_view bytes;
  std::string gzipped;      // empty when compression would not pay (small files, images)
  std::string etag;         // "\"<first 32 hex digits of the SHA-256>\""
};

class StaticAssets {
 public:
  explicit StaticAssets(std::span<const EmbeddedFile> files);
  // nullptr when no asset has this path.
  const StaticAsset* find(std::string_view path) const;

 private:
  std::vector<StaticAsset> assets_;
};

// "text/html; charset=utf-8" for "index.html", ...; "application/octet-stream" when unknown.
std::string_view contentTypeFor(std::string_view fileName);

}  // namespace nndna::server
