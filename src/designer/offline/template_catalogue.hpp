// The offline designer's library: what each template spec is for, which words name it, which
// sizes of a description fill which of its constants, its options, and the named presets that
// reproduce published models.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nndna::designer {

class Description;

using ConstantValues = std::map<std::string, std::int64_t, std::less<>>;
using OptionSet = std::set<std::string, std::less<>>;

// How a constant follows a scale word ("tiny", "large"): widths and depths grow, head counts
// grow with the width (keeping the head width), the rest stays.
enum class Scaling : std::uint8_t { none, width, depth, heads };

struct TemplateParam {
  std::string_view key;       // the description's size key ("layers", "width")
  std::string_view constant;  // the template's constant ("N_LAYERS"); "" when adjust() reads the size
  std::string_view meaning;   // how the explanation names it ("layers")
  Scaling scaling = Scaling::none;
};

struct Keyword {
  std::string_view phrase;  // lower-case words ("language model")
  int weight = 1;           // how strongly it names the template
};

// A description flag that sets one of the template's options.
struct OptionRule {
  std::string_view flag;    // Description flag ("rmsnorm")
  std::string_view option;  // template marker option ("rmsnorm")
};

// A template being filled: the values of its integer constants (its defaults, then a preset's,
// a scale's and the text's), other constants as text, the options, what was adjusted.
struct Draft {
  ConstantValues values;
  std::map<std::string, std::string, std::less<>> textConstants;  // arrays and the like
  std::map<std::string, std::string, std::less<>> sourceOf;  // constant -> "default", "from \"12 layers\"", ...
  OptionSet options;
  std::vector<std::string> notes;
  std::vector<std::string> unusedPhrases;  // sizes of the text the adjustment could not honour
};

struct Texts {
  std::string label;
  std::string description;
};

struct TemplateInfo {
  std::string_view name;   // the template file's stem ("decoder_lm")
  std::string_view title;  // "decoder-only transformer language model"
  std::vector<Keyword> keywords;
  std::vector<TemplateParam> params;
  std::vector<OptionRule> options;
  OptionSet defaultOptions;  // set unless a rule's option replaces them (the Elman cell)
  // Makes the sizes consistent (width a multiple of the heads, image side divisible by the
  // pooling); says what it changed. May read the description for template-specific words.
  void (*adjust)(Draft& draft, Description& description) = nullptr;
  // The label and description of the filled spec; `values` holds every integer constant of the
  // filled template, derived ones included.
  Texts (*texts)(const ConstantValues& values, const OptionSet& options) = nullptr;
};

// Every template, in the order that breaks ties between equally named ones.
const std::vector<TemplateInfo>& templateCatalogue();
const TemplateInfo* findTemplate(std::string_view name);
// The template's spec file as built into nndna. Throws std::logic_error for an unknown name.
std::string_view templateText(std::string_view name);

struct Preset {
  std::string_view name;                  // "GPT-2 small"
  std::vector<std::string_view> aliases;  // lower-case words joined ("gpt2small")
  std::string_view templateName;
  std::vector<std::pair<std::string_view, std::string_view>> constants;  // {"N_LAYERS", "12"}
  std::vector<std::string_view> options;
  std::int64_t publishedParams = 0;       // the published parameter count the preset reproduces
  std::string_view citation;              // where that count is published
  std::string_view label;
  std::string_view description;
};

// The named presets, longest aliases first (so "gpt2medium" wins over "gpt2").
const std::vector<Preset>& presets();

}  // namespace nndna::designer
