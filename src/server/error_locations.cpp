#include "server/error_locations.hpp"

#include <charconv>
#include <string>
#include <vector>

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
    // A trace error inside the spec's helper names the calls that led to it ("(called from line
    // 9, from line 20)"): those lines are marked too, as where the failing call is.
    constexpr std::string_view kCalledFrom = "(called from ";
    const std::size_t calls = line.rfind(kCalledFrom);
    std::vector<SourceDiagnostic> callers;
    if (d.column == 0 && calls != std::string_view::npos && line.ends_with(')')) {
      std::string_view rest = line.substr(calls + kCalledFrom.size());
      rest.remove_suffix(1);
      while (!rest.empty()) {
        constexpr std::string_view kNext = ", from ";
        const std::size_t next = rest.find(kNext);
        std::string_view item = rest.substr(0, next);
        rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next + kNext.size());
        constexpr std::string_view kLine = "line ";  // this file's line; "other.hpp:3" is another's
        int callerLine = 0;
        if (!item.starts_with(kLine)) continue;
        item.remove_prefix(kLine.size());
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), callerLine);
        if (ec != std::errc() || end != item.data() + item.size() || callerLine <= 0) continue;
        callers.push_back({callerLine, 0, "info", "the call that led to line " + std::to_string(d.line) + "'s error"});
      }
    }
    out.push_back(std::move(d));
    out.insert(out.end(), callers.begin(), callers.end());
  }
  return out;
}

}  // namespace nndna::server
