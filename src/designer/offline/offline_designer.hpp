// The offline designer: a description in, a spec out, with no model and no network. It picks the
// template the words name (or a named preset), fills it with the sizes the text gives (defaults
// otherwise, small unless a scale is asked), and says what it chose, why, and which words it did
// not use. docs/design.md lists the templates and the words they answer to.
#pragma once

#include <string>
#include <string_view>

#include "designer/events.hpp"

namespace nndna::designer {

struct OfflineDesign {
  std::string source;
  OfflineChoice choice;
};

// A new spec for the description. Never fails: with no architecture named it says so and
// builds the default (an MLP, or what the sizes suggest).
OfflineDesign designOffline(std::string_view description);

// The user's spec with what the description asks that can be done without a model: sizes set on
// its constants (N_LAYERS, D, H, B, T, V, ...) and LayerNorm swapped for RMSNorm or back. What it
// cannot do is listed in the notes; the rest of the spec is left as it is.
OfflineDesign changeOffline(std::string_view description, std::string_view source);

}  // namespace nndna::designer
