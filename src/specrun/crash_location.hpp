// Where a spec program crashed: the line of the user's code its crash record points to.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace nndna::specrun {

struct CrashLocation {
  std::string file;  // as the binary's debug information names it
  int line = 0;
};

// The user's line a crash record (crash_record.hpp, from the untrusted child: any field may be
// missing or wrong) points to in `binary`: the faulting instruction's line when it is in one of
// the user's files (`isUserFile`), else the first return address that is (the call into the
// library or the header code that faulted); nullopt when none is, or the record is not one.
std::optional<CrashLocation> locateCrash(const std::filesystem::path& binary, const nlohmann::json& record,
                                         const std::function<bool(std::string_view)>& isUserFile);

}  // namespace nndna::specrun
