// What the designer says to the model: the system prompt (docs/design_prompt.md, built into the
// binary) and the user turns of a design — the request, a repair, a request to re-answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "designer/events.hpp"

namespace nndna::designer {

// docs/design_prompt.md as it was when nndna was built.
std::string_view systemPrompt();

// The first turn: the user's description, and their current spec when they change one.
std::string designRequest(std::string_view description, const std::optional<std::string>& currentSource);

// A repair turn: the error of the previous answer's spec, with the lines around its line.
std::string repairRequest(const CheckOutcome& failure, std::string_view source);

// When the previous answer held no spec at all.
std::string reanswerRequest(std::string_view problem);

// Lines line-context .. line+context of `source`, numbered, the error line marked with ">".
// Empty when `line` is not a line of the source.
std::string excerptAround(std::string_view source, int line, int context = 2);

}  // namespace nndna::designer
