// Value-to-text helpers: truncation, demangling and the secret-name rule.
#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <nndna/xray.hpp>

namespace nndna::xray {
namespace {
std::atomic<std::size_t> g_maxText{2000};
}

void setMaxTextLength(std::size_t bytes) noexcept { g_maxText.store(bytes, std::memory_order_relaxed); }
std::size_t maxTextLength() noexcept { return g_maxText.load(std::memory_order_relaxed); }

namespace detail {

std::string truncateText(std::string text) {
  std::size_t limit = maxTextLength();
  if (text.size() <= limit) return text;
  // Cut on a UTF-8 character boundary so the JSON stays valid.
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  text += "\u2026";
  return text;
}

std::string demangle(const char* mangledName) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> name(
      abi::__cxa_demangle(mangledName, nullptr, nullptr, &status), &std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangledName);
}

std::string_view defaultArgName(std::size_t index) noexcept {
  static constexpr std::array<std::string_view, 16> names{
      "arg0", "arg1", "arg2",  "arg3",  "arg4",  "arg5",  "arg6",  "arg7",
      "arg8", "arg9", "arg10", "arg11", "arg12", "arg13", "arg14", "arg15"};
  return index < names.size() ? names[index] : std::string_view("arg");
}

}  // namespace detail

bool looksSecret(std::string_view name) noexcept {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::string_view word : {"api_key", "apikey", "api-key", "authorization", "password",
                                "passwd", "secret", "credential", "cookie"})
    if (lower.find(word) != std::string::npos) return true;
  // "token" and "access_token" are secrets; "max_tokens" is a count.
  std::string_view l(lower);
  return l.ends_with("token");
}

}  // namespace nndna::xray
