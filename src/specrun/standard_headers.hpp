// Internal to the spec runner: which of the C++ standard library's headers a spec includes, so
// that its precompiled header can hold them (docs/specrun.md, "Standard headers in the PCH").
#pragma once

#include <string_view>
#include <vector>

namespace nndna::specrun {

// The standard headers `specText` names in `#include <...>` lines (anywhere, conditional or
// not), sorted and without repeats; only headers worth precompiling: not those nndna.hpp already
// includes, not <cassert> (its assert depends on NDEBUG where it is included), nothing outside
// the standard library.
std::vector<std::string_view> precompilableHeaders(std::string_view specText);

}  // namespace nndna::specrun
