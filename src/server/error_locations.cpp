#include "server/error_locations.hpp"

#include <charconv>

namespace nndna::server {

namespace {

// Reads a positive decimal number at the front of `s` followed by ':'; consumes both.
bool takeNumber(std::string_view& s, int& value) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end == s.data() || value <= 0) return false;
  const std::size_t used = static_cast<std::size_t>(end - s.data());
  if (used >= s.size() || s[used] != ':') return false;
  s.remove_prefix(used + 1);
  return true;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::vector<SourceDiagnostic> locateDiagnostics(std::string_view message, std::string_view fileName) {
  std::vector<SourceDiagnostic> out;
  const std::string prefix = std::string(fileName) + ":";
  while (!message.empty()) {
    const std::size_t newline = message.find('\n');
    std::string_view line = message.substr(0, newline);
    message = newline == std::string_view::npos ? std::string_view{} : message.substr(newline + 1);
    if (!line.starts_with(prefix)) continue;
    line.remove_prefix(prefix.size());
    SourceDiagnostic d;
    if (!takeNumber(line, d.line)) continue;  // "model.cpp: In function ..." has no line
    std::string_view rest = line;
    int column = 0;
    if (takeNumber(rest, column)) {
      d.column = column;
      line = rest;
    }
    line = trimmed(line);
    d.severity = "error";
    static constexpr std::pair<std::string_view, std::string_view> kTags[] = {
        {"fatal error: ", "error"}, {"error: ", "error"}, {"warning: ", "warning"}, {"note: ", "info"}};
    for (const auto& [tag, severity] : kTags) {
      if (line.starts_with(tag)) {
        d.severity = std::string(severity);
        line.remove_prefix(tag.size());
        break;
      }
    }
    d.message = std::string(line);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace nndna::server
