#include "designer/redact.hpp"

namespace nndna::designer {

std::string Redactor::scrub(std::string_view text) const {
  if (secret_.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  std::size_t from = 0;
  for (std::size_t at = text.find(secret_); at != std::string_view::npos; at = text.find(secret_, from)) {
    out.append(text.substr(from, at - from));
    out.append(kRedactedKey);
    from = at + secret_.size();
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace nndna::designer
