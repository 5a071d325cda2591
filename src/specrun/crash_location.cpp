#include "specrun/crash_location.hpp"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "trace/libdw.hpp"

namespace nndna::specrun {
namespace {

// The addresses to look up, best first: the faulting instruction itself, then return addresses
// (their call is the instruction before: looked up one byte back).
struct Candidate {
  std::uint64_t address = 0;
  bool returnAddress = false;
};

std::optional<std::uint64_t> number(const nlohmann::json& record, const char* field) {
  const auto it = record.find(field);
  if (it == record.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

// The handler writes at most 64 return addresses; a record with more was not written by it.
constexpr std::size_t kMaxCandidates = 66;

std::vector<Candidate> candidates(const nlohmann::json& record) {
  std::vector<Candidate> out;
  if (const auto pc = number(record, "pc")) out.push_back({*pc, false});
  if (const auto top = number(record, "top"); top && *top != 0) out.push_back({*top, true});
  if (const auto it = record.find("returns"); it != record.end() && it->is_array()) {
    for (const nlohmann::json& r : *it) {
      if (out.size() == kMaxCandidates) break;
      if (r.is_number_unsigned()) out.push_back({r.get<std::uint64_t>(), true});
    }
  }
  return out;
}

struct DwflDeleter {
  void operator()(Dwfl* dwfl) const { tracing::libdw().end(dwfl); }
};

}  // namespace

std::optional<CrashLocation> locateCrash(const std::filesystem::path& binary, const nlohmann::json& record,
                                         const std::function<bool(std::string_view)>& isUserFile) {
  if (!record.is_object()) return std::nullopt;
  if (const auto kind = record.find("kind"); kind == record.end() || *kind != "crash") return std::nullopt;
  const auto base = number(record, "base");
  if (!base) return std::nullopt;
  const tracing::Libdw* dw = nullptr;
  try {
    dw = &tracing::libdw();
  } catch (const std::runtime_error&) {
    return std::nullopt;  // the crash is still reported, without its line
  }
  const Dwfl_Callbacks callbacks{.find_elf = nullptr,
                                 .find_debuginfo = dw->standardFindDebuginfo,
                                 .section_address = dw->offlineSectionAddress,
                                 .debuginfo_path = nullptr};
  const std::unique_ptr<Dwfl, DwflDeleter> dwfl(dw->begin(&callbacks));
  if (!dwfl) return std::nullopt;
  Dwfl_Module* module = dw->reportOffline(dwfl.get(), "spec", binary.c_str(), -1);
  dw->reportEnd(dwfl.get(), nullptr, nullptr);
  if (module == nullptr) return std::nullopt;
  // The program ran at `base` + its link-time addresses; the offline module sits at `bias` +.
  Dwarf_Addr bias = 0;
  if (dw->moduleGetElf(module, &bias) == nullptr) return std::nullopt;
  for (const Candidate& c : candidates(record)) {
    if (c.address < *base + (c.returnAddress ? 1 : 0)) continue;
    const Dwarf_Addr address = c.address - *base - (c.returnAddress ? 1 : 0) + bias;
    Dwfl_Line* line = dw->moduleGetSrc(module, address);
    if (line == nullptr) continue;
    int lineNo = 0;
    const char* file = dw->lineInfo(line, nullptr, &lineNo, nullptr, nullptr, nullptr);
    if (file != nullptr && lineNo > 0 && isUserFile(file)) return CrashLocation{file, lineNo};
  }
  return std::nullopt;
}

}  // namespace nndna::specrun
