// Finding the spec in a model's answer: the JSON object {"source": ...} it was asked for, or what
// models write instead — the JSON inside a markdown fence or inside prose, or a fenced C++ block.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace nndna::designer {

struct AnswerReading {
  std::optional<std::string> source;  // the spec, when one was found
  std::string form;     // how it was found: "json", "fenced json", "json in text", "fenced code"
  std::string problem;  // why none was found (for the user and for the model's next round)
};

AnswerReading readAnswer(std::string_view text);

}  // namespace nndna::designer
