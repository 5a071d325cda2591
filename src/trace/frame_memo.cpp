#include "trace/frame_memo.hpp"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "ir/utf8.hpp"

namespace nndna::tracing {

namespace {

constexpr const char* kVersionKey = "nndna_frame_memo";
constexpr int kVersion = 1;
// Bounds on what a memo may hold: far beyond any real program's, small enough that a bad one
// cannot make the program that reads it build something huge.
constexpr std::size_t kMaxFrames = 1 << 20;
constexpr std::size_t kMaxTextBytes = 4096;

bool isBoundedText(const nlohmann::json& value) {
  return value.is_string() && value.get_ref<const std::string&>().size() <= kMaxTextBytes;
}

bool isLineNumber(const nlohmann::json& value) {
  return value.is_number_integer() && value.get<std::int64_t>() >= 0 &&
         value.get<std::int64_t>() <= std::numeric_limits<int>::max();
}

}  // namespace

std::string writeFrameMemo(const FrameMemo& frames, std::string_view program) {
  std::vector<const FrameMemo::value_type*> ordered;
  ordered.reserve(frames.size());
  for (const auto& entry : frames) {
    // JSON holds UTF-8 only: a name that is not (a path of other bytes) stays out, to be
    // resolved again by each run rather than read back changed.
    if (ir::isValidUtf8(entry.second.file) && ir::isValidUtf8(entry.second.function)) ordered.push_back(&entry);
  }
  std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  nlohmann::json list = nlohmann::json::array();
  for (const auto* entry : ordered) {
    const ResolvedFrame& f = entry->second;
    list.push_back({entry->first, f.user, f.file, f.line, f.column, f.function});
  }
  return nlohmann::json{{kVersionKey, kVersion}, {"program", program}, {"frames", std::move(list)}}.dump();
}

std::optional<FrameMemo> readFrameMemo(std::string_view text, std::string_view program) {
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.size() != 3) return std::nullopt;
  const auto version = doc.find(kVersionKey);
  const auto writer = doc.find("program");
  const auto frames = doc.find("frames");
  if (version == doc.end() || *version != kVersion || writer == doc.end() || !writer->is_string() ||
      writer->get_ref<const std::string&>() != program || frames == doc.end() || !frames->is_array() ||
      frames->size() > kMaxFrames) {
    return std::nullopt;
  }
  FrameMemo memo;
  memo.reserve(frames->size());
  for (const nlohmann::json& entry : *frames) {
    if (!entry.is_array() || entry.size() != 6 || !entry[0].is_number_unsigned() || !entry[1].is_boolean() ||
        !isBoundedText(entry[2]) || !isLineNumber(entry[3]) || !isLineNumber(entry[4]) || !isBoundedText(entry[5])) {
      return std::nullopt;
    }
    const auto address = entry[0].get<std::uint64_t>();
    ResolvedFrame frame{.user = entry[1].get<bool>(),
                        .file = entry[2].get<std::string>(),
                        .line = entry[3].get<int>(),
                        .column = entry[4].get<int>(),
                        .relativeAddress = address,
                        .function = entry[5].get<std::string>()};
    if (!memo.emplace(address, std::move(frame)).second) return std::nullopt;
  }
  return memo;
}

}  // namespace nndna::tracing
