// Values as text: the scalar formatters the header's templates call, truncation, demangling, the
// secret-name rule, and what a span does with a text before keeping it (JSON redaction at any
// depth, optional normalisation, truncation) — without ever throwing into the program.
#include <cxxabi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string_view>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace {
std::atomic<std::size_t> g_maxText{2000};

bool envSwitchedOn(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && (std::string_view(value) == "1" || std::string_view(value) == "true");
}
std::atomic<bool> g_normalize{envSwitchedOn("NNDNA_XRAY_NORMALIZE")};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool isRedactedKey(std::string_view key, std::span<const std::string> extra) {
  return looksSecret(key) || std::find(extra.begin(), extra.end(), key) != extra.end();
}

// True when `text` may hold a key to redact: JSON-looking, and naming a secret word or an extra
// key somewhere (a cheap test before parsing).
bool mayHoldSecretKeys(std::string_view text, std::span<const std::string> extra) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || (text[first] != '{' && text[first] != '[')) return false;
  std::string l = lower(text);
  for (std::string_view word : {"key", "authorization", "password", "passwd", "secret", "credential", "cookie", "token"})
    if (l.find(word) != std::string::npos) return true;
  for (const auto& key : extra)
    if (text.find(key) != std::string_view::npos) return true;
  return false;
}

// Replaces the values of secret keys at any depth; returns whether anything changed. Iterative.
bool redactJson(nlohmann::json& value, std::span<const std::string> extra) {
  bool changed = false;
  std::vector<nlohmann::json*> stack{&value};
  while (!stack.empty()) {
    nlohmann::json* at = stack.back();
    stack.pop_back();
    if (at->is_object()) {
      for (auto it = at->begin(); it != at->end(); ++it) {
        if (isRedactedKey(it.key(), extra)) {
          if (*it != kRedacted) {
            *it = kRedacted;
            changed = true;
          }
        } else if (it->is_structured()) {
          stack.push_back(&*it);
        }
      }
    } else if (at->is_array()) {
      for (auto& element : *at)
        if (element.is_structured()) stack.push_back(&element);
    }
  }
  return changed;
}

bool isHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }

// Length of a UUID (8-4-4-4-12 hex digits) at the start of `s`, else 0.
std::size_t uuidAt(std::string_view s) {
  static constexpr std::array<std::size_t, 5> groups{8, 4, 4, 4, 12};
  std::size_t at = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g > 0) {
      if (at >= s.size() || s[at] != '-') return 0;
      ++at;
    }
    for (std::size_t k = 0; k < groups[g]; ++k, ++at)
      if (at >= s.size() || !isHex(s[at])) return 0;
  }
  return at < s.size() && (isHex(s[at]) || s[at] == '-') ? 0 : at;
}

// Length of an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SS, optional fraction and zone), else 0.
std::size_t timestampAt(std::string_view s) {
  static constexpr std::string_view pattern = "dddd-dd-ddTdd:dd:dd";
  if (s.size() < pattern.size()) return 0;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char p = pattern[i];
    if (p == 'd' ? !isDigit(s[i]) : (p == 'T' ? (s[i] != 'T' && s[i] != ' ') : s[i] != p)) return 0;
  }
  std::size_t at = pattern.size();
  if (at < s.size() && (s[at] == '.' || s[at] == ',')) {
    std::size_t digits = at + 1;
    while (digits < s.size() && isDigit(s[digits])) ++digits;
    if (digits > at + 1) at = digits;
  }
  if (at < s.size() && s[at] == 'Z') {
    ++at;
  } else if (at + 6 <= s.size() && (s[at] == '+' || s[at] == '-') && isDigit(s[at + 1]) && isDigit(s[at + 2]) &&
             s[at + 3] == ':' && isDigit(s[at + 4]) && isDigit(s[at + 5])) {
    at += 6;
  }
  return at;
}

bool pathChar(char c) { return c != ' ' && c != '\t' && c != '\n' && c != '"' && c != '\'' && c != ',' && c != ')' && c != ']' && c != '}'; }

// A path under /tmp, /home/USER or /Users/USER at the start of `s`: its length and the
// replacement ("<tmp:NAME>" or "<path:NAME>", NAME its last component), else 0.
std::size_t pathAt(std::string_view s, std::string& replacement) {
  std::string_view kind;
  std::size_t prefix = 0;
  if (s.starts_with("/tmp/")) {
    kind = "tmp";
    prefix = 5;
  } else if (s.starts_with("/home/") || s.starts_with("/Users/")) {
    kind = "path";
    prefix = s.find('/', 1) + 1;
    std::size_t user = prefix;
    while (user < s.size() && pathChar(s[user]) && s[user] != '/') ++user;
    if (user >= s.size() || s[user] != '/' || user == prefix) return 0;  // needs a file under the user
    prefix = user + 1;
  } else {
    return 0;
  }
  std::size_t end = prefix;
  while (end < s.size() && pathChar(s[end])) ++end;
  if (end == prefix) return 0;
  std::string_view path = s.substr(0, end);
  while (path.size() > prefix && path.back() == '/') path.remove_suffix(1);
  std::string_view name = path.substr(path.rfind('/') + 1);
  replacement = "<" + std::string(kind) + ":" + std::string(name) + ">";
  return end;
}

}  // namespace

void setMaxTextLength(std::size_t bytes) noexcept { g_maxText.store(bytes, std::memory_order_relaxed); }
std::size_t maxTextLength() noexcept { return g_maxText.load(std::memory_order_relaxed); }
void setNormalizePreviews(bool on) noexcept { g_normalize.store(on, std::memory_order_relaxed); }
bool normalizePreviews() noexcept { return g_normalize.load(std::memory_order_relaxed); }

std::string normalizePreview(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::string replacement;
  std::size_t i = 0;
  while (i < text.size()) {
    // A token starts at the beginning or after a character that cannot be part of it.
    bool boundary = i == 0 || !(std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '-' ||
                                text[i - 1] == '_' || text[i - 1] == '/' || text[i - 1] == '.');
    std::string_view rest = text.substr(i);
    if (boundary) {
      if (std::size_t n = uuidAt(rest)) {
        out += "<uuid>";
        i += n;
        continue;
      }
      if (std::size_t n = timestampAt(rest)) {
        out += "<timestamp>";
        i += n;
        continue;
      }
    }
    if (text[i] == '/' && (i == 0 || !pathChar(text[i - 1]) || text[i - 1] == '=' || text[i - 1] == ':')) {
      if (std::size_t n = pathAt(rest, replacement)) {
        out += replacement;
        i += n;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

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
  std::unique_ptr<char, decltype(&std::free)> name(abi::__cxa_demangle(mangledName, nullptr, nullptr, &status),
                                                   &std::free);
  return status == 0 && name ? std::string(name.get()) : std::string(mangledName);
}

// --- TextOut: the buffer the header's templates write a value's text into ---

void TextOut::put(std::string_view text) { buffer_->append(text); }
void TextOut::put(char c) { buffer_->push_back(c); }

void TextOut::putInteger(long long value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_->append(digits, end);
}

void TextOut::putUnsigned(unsigned long long value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_->append(digits, end);
}

void TextOut::putFloat(double value) {
  char digits[32];  // the shortest text that reads back as the same double, as fmt's "{}"
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_->append(digits, end);
}

void TextOut::putQuoted(std::string_view text) {
  *buffer_ += nlohmann::json(std::string(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void TextOut::putStreamed(void (*write)(std::ostream&, const void*), const void* value) {
  std::ostringstream out;
  write(out, value);
  *buffer_ += std::move(out).str();
}

void TextOut::putTypeName(const std::type_info& type) { *buffer_ += "<" + demangle(type.name()) + ">"; }

bool TextOut::full() const noexcept { return buffer_->size() > maxTextLength(); }

std::string textOf(const ErasedValue& value) {
  std::string text;
  TextOut out(text);
  value.write(out, value.value);
  return truncateText(std::move(text));
}

std::size_t jsonDepth(const nlohmann::json& value) noexcept {
  std::size_t deepest = 0;
  std::vector<std::pair<const nlohmann::json*, std::size_t>> stack;
  try {
    stack.emplace_back(&value, 1);
    while (!stack.empty()) {
      auto [at, depth] = stack.back();
      stack.pop_back();
      if (!at->is_structured()) continue;
      deepest = std::max(deepest, depth);
      for (const auto& child : *at)
        if (child.is_structured()) stack.emplace_back(&child, depth + 1);
    }
  } catch (...) {
    return static_cast<std::size_t>(-1);
  }
  return deepest;
}

std::string_view defaultArgName(std::size_t index) noexcept {
  static constexpr std::array<std::string_view, 16> names{"arg0", "arg1", "arg2",  "arg3",  "arg4",  "arg5",
                                                          "arg6", "arg7", "arg8",  "arg9",  "arg10", "arg11",
                                                          "arg12", "arg13", "arg14", "arg15"};
  return index < names.size() ? names[index] : std::string_view("arg");
}

std::optional<nlohmann::json> parseJsonBounded(std::string_view text, std::size_t maxDepth) noexcept {
  try {
    bool tooDeep = false;
    auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
      if ((event == nlohmann::json::parse_event_t::object_start || event == nlohmann::json::parse_event_t::array_start) &&
          static_cast<std::size_t>(depth) >= maxDepth)
        tooDeep = true;
      return !tooDeep;
    };
    nlohmann::json value = nlohmann::json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/false);
    if (tooDeep || value.is_discarded()) return std::nullopt;
    return value;
  } catch (...) {
    return std::nullopt;
  }
}

std::string rawText(const ErasedValue& value) noexcept {
  try {
    std::string text;
    TextOut out(text);
    value.write(out, value.value);
    return text;
  } catch (...) {
    // The conversion threw (or memory ran out): the type's name stands in for the value.
    try {
      return "<" + demangle(value.type->name()) + ">";
    } catch (...) {
      return "<value>";
    }
  }
}

std::string finishText(std::string text, std::span<const std::string> redact) noexcept {
  try {
    if (mayHoldSecretKeys(text, redact)) {
      if (auto parsed = parseJsonBounded(text, static_cast<std::size_t>(kMaxPrintedJsonDepth)); parsed && redactJson(*parsed, redact))
        text = parsed->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    if (normalizePreviews()) text = normalizePreview(text);
    return truncateText(std::move(text));
  } catch (...) {
    return "<value>";
  }
}

std::string recordedText(const ErasedValue& value, std::span<const std::string> redact) noexcept {
  return finishText(rawText(value), redact);
}

}  // namespace detail

bool looksSecret(std::string_view name) noexcept {
  try {
    std::string l = lower(name);
    for (std::string_view word : {"api_key", "apikey", "api-key", "authorization", "password", "passwd", "secret",
                                  "credential", "cookie"})
      if (l.find(word) != std::string::npos) return true;
    // "token" and "access_token" are secrets; "max_tokens" is a count.
    return std::string_view(l).ends_with("token");
  } catch (...) {
    return true;  // cannot tell: keep it out of the trace
  }
}

}  // namespace nndna::xray
