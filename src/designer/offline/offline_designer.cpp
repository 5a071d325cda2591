#include "designer/offline/offline_designer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <map>

#include "designer/numbers.hpp"
#include "designer/offline/description.hpp"
#include "designer/offline/template_catalogue.hpp"
#include "designer/offline/template_text.hpp"

namespace nndna::designer {
namespace {

std::string quoted(std::string_view s) { return fmt::format("\"{}\"", s); }

// Architecture choices a template either offers (an option rule) or cannot honour.
constexpr std::string_view kChoiceFlags[] = {"rmsnorm", "swiglu", "rope", "no_bias", "untied", "gru",
                                             "lstm",    "top1",   "mlm",  "policy_gradient"};

struct Scale {
  std::string_view word;
  double width, depth;
};
// What a scale word does to the template's widths and depths (heads follow the width).
constexpr Scale kScales[] = {{"tiny", 0.5, 0.5}, {"medium", 2, 2}, {"large", 4, 3}, {"huge", 8, 6}};

struct Choice {
  const TemplateInfo* info = nullptr;
  const Preset* preset = nullptr;
  std::string why;
};

Choice chooseTemplate(Description& d) {
  for (const Preset& preset : presets()) {
    for (std::string_view alias : preset.aliases) {
      // "BERT-style", "GPT-2-like": the kind of model, not the published one.
      const std::string a(alias);
      if (d.mentionsJoined(a + "style", false) || d.mentionsJoined(a + "like", false)) continue;
      if (d.mentionsJoined(alias)) {
        return {findTemplate(preset.templateName), &preset,
                fmt::format("the preset {} ({} parameters, as published: {})", preset.name,
                            withThousands(preset.publishedParams), preset.citation)};
      }
    }
  }
  const TemplateInfo* best = nullptr;
  int bestScore = 0;
  for (const TemplateInfo& t : templateCatalogue()) {
    int score = 0;
    for (const Keyword& k : t.keywords) score += d.mentions(k.phrase, false) ? k.weight : 0;
    if (score > bestScore) {
      best = &t;
      bestScore = score;
    }
  }
  if (best != nullptr) {
    std::vector<std::string> named;
    for (const Keyword& k : best->keywords) {
      if (d.mentions(k.phrase, true)) named.push_back(quoted(k.phrase));
    }
    return {best, nullptr, fmt::format("{} name{} it", fmt::join(named, ", "), named.size() == 1 ? "s" : "")};
  }
  const auto has = [&](std::string_view key) { return d.size(key).has_value(); };
  if (has("side") || has("channels")) {
    return {findTemplate("cnn"), nullptr, "no architecture is named, and the text speaks of images: a CNN"};
  }
  if (has("vocab") || has("context") || has("heads")) {
    return {findTemplate("decoder_lm"), nullptr,
            "no architecture is named, and the text speaks of tokens or heads: a decoder-only transformer"};
  }
  return {findTemplate("mlp"), nullptr, "no architecture is named: an MLP, the default"};
}

std::int64_t scaled(std::int64_t value, double factor) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(static_cast<double>(value) * factor)));
}

// The largest sizes the offline designer writes: a depth (layers, blocks, levels) of 1,000 and
// any other size of 2^20 (a width of 1M, a vocabulary of 1M tokens), so that every constant
// fits the template's `int` and no size makes an unbounded model. Sizes below 1 are raised to 1.
constexpr std::int64_t kMaxDepth = 1'000;
constexpr std::int64_t kMaxSize = std::int64_t{1} << 20;

void boundSizes(Draft& draft, const TemplateInfo& info) {
  std::set<std::string_view> done;
  for (const TemplateParam& p : info.params) {
    if (p.constant.empty() || !done.insert(p.constant).second) continue;
    const auto it = draft.values.find(p.constant);
    if (it == draft.values.end()) continue;
    std::int64_t& value = it->second;
    const std::int64_t most = p.scaling == Scaling::depth ? kMaxDepth : kMaxSize;
    std::string why;
    if (value < 1) {
      why = fmt::format("{} {} raised to 1: a size is at least 1", p.constant, value);
      value = 1;
    } else if (value > most) {
      why = fmt::format("{} {} lowered to {}: the offline designer's largest {}", p.constant, withThousands(value),
                        withThousands(most), p.scaling == Scaling::depth ? "depth" : "size");
      value = most;
    }
    if (!why.empty()) {
      draft.notes.push_back(std::move(why));
      draft.sourceOf[std::string(p.constant)] += " (adjusted)";
    }
  }
}

bool declaresConstant(std::string_view text, std::string_view name) {
  std::string copy(text);
  return setConstant(copy, name, "0");
}

}  // namespace

OfflineDesign designOffline(std::string_view text) {
  Description d(text);
  const Choice choice = chooseTemplate(d);
  const TemplateInfo& info = *choice.info;
  const std::string_view templ = templateText(info.name);

  Draft draft;
  draft.values = specConstants(templ);
  draft.options = info.defaultOptions;
  for (const TemplateParam& p : info.params) {
    if (!p.constant.empty()) draft.sourceOf.emplace(std::string(p.constant), "default");
  }

  // A scale word, unless a preset fixes the sizes.
  if (!choice.preset) {
    for (const Scale& s : kScales) {
      if (!d.has(s.word)) continue;
      std::set<std::string_view> done;
      for (const TemplateParam& p : info.params) {
        if (p.constant.empty() || p.scaling == Scaling::none || !done.insert(p.constant).second) continue;
        std::int64_t& v = draft.values.at(std::string(p.constant));
        v = scaled(v, p.scaling == Scaling::depth ? s.depth : s.width);
        draft.sourceOf[std::string(p.constant)] = fmt::format("scale {}", quoted(s.word));
      }
      break;
    }
  }
  if (choice.preset) {
    for (const auto& [name, value] : choice.preset->constants) {
      const auto parsed = specConstants(fmt::format("constexpr int X = {};", value));
      if (parsed.contains("X")) draft.values[std::string(name)] = parsed.at("X");
      else draft.textConstants[std::string(name)] = std::string(value);
      draft.sourceOf[std::string(name)] = "preset";
    }
    for (std::string_view option : choice.preset->options) draft.options.insert(std::string(option));
  }

  // The sizes the text gives. A preset's own words ("resnet 50") are not sizes.
  std::set<std::string, std::less<>> usedKeys;
  std::set<std::string_view> setFromText;
  std::map<std::string, std::string> phraseOf;  // constant -> the words that set it
  bool overridesPreset = false;
  for (const TemplateParam& p : info.params) {
    usedKeys.insert(std::string(p.key));
    const auto mention = d.size(p.key);
    if (!mention || p.constant.empty() || setFromText.contains(p.constant)) continue;
    if (choice.preset) {
      std::string joined = mention->phrase;
      std::erase(joined, ' ');
      const bool partOfAlias = std::any_of(choice.preset->aliases.begin(), choice.preset->aliases.end(),
                                           [&](std::string_view alias) { return alias.find(joined) != std::string_view::npos; });
      if (partOfAlias) continue;
      overridesPreset = true;
    }
    draft.values[std::string(p.constant)] = mention->value;
    draft.sourceOf[std::string(p.constant)] = fmt::format("from {}", quoted(mention->phrase));
    phraseOf[std::string(p.constant)] = mention->phrase;
    setFromText.insert(p.constant);
  }
  std::set<std::string_view> usedFlags;
  for (const OptionRule& rule : info.options) {
    if (d.has(rule.flag)) {
      draft.options.insert(std::string(rule.option));
      usedFlags.insert(rule.flag);
    }
  }
  // Bounded before the adjustments (which compute with the sizes) and after them (some read the
  // description's sizes themselves).
  boundSizes(draft, info);
  if (info.adjust) info.adjust(draft, d);
  boundSizes(draft, info);

  // What the template, with these options, declares: a size it does not have is not used.
  TemplateFill fill;
  fill.options = draft.options;
  const std::string optionsApplied = fillTemplate(templ, {.constants = {}, .options = draft.options});
  std::vector<std::string> unused;
  for (const auto& [constant, source] : draft.sourceOf) {
    if (source == "default") continue;
    if (!declaresConstant(optionsApplied, constant)) {
      if (phraseOf.contains(constant)) unused.push_back(phraseOf.at(constant));
      continue;
    }
    if (auto v = draft.values.find(constant); v != draft.values.end()) {
      fill.constants[constant] = std::to_string(v->second);
    } else if (auto t = draft.textConstants.find(constant); t != draft.textConstants.end()) {
      fill.constants[constant] = t->second;
    }
  }
  const ConstantValues filled = specConstants(fillTemplate(templ, fill));
  Texts texts;
  if (choice.preset && !overridesPreset) {
    texts = {std::string(choice.preset->label), std::string(choice.preset->description)};
  } else {
    texts = info.texts(filled, draft.options);
  }
  fill.label = texts.label;
  fill.description = texts.description;

  OfflineDesign out;
  out.source = fillTemplate(templ, fill);
  OfflineChoice& c = out.choice;
  c.templateName = std::string(info.name);
  c.title = std::string(info.title);
  if (choice.preset) c.preset = std::string(choice.preset->name);
  c.why = choice.why;
  c.notes = std::move(draft.notes);
  if (overridesPreset) {
    c.notes.push_back(fmt::format("sizes from the text change the preset: the published count ({}) no longer applies",
                                  withThousands(choice.preset->publishedParams)));
  }
  std::set<std::string_view> listed;
  for (const TemplateParam& p : info.params) {
    if (p.constant.empty() || !listed.insert(p.constant).second) continue;
    const auto value = filled.find(p.constant);
    if (value == filled.end()) continue;  // not in this variant of the template
    c.settings.push_back(fmt::format("{} {} ({})", p.meaning, withThousands(value->second),
                                     draft.sourceOf[std::string(p.constant)]));
  }
  for (const auto& [constant, value] : draft.textConstants) {
    c.settings.push_back(fmt::format("{} {} ({})", constant, value, draft.sourceOf[constant]));
  }
  for (const std::string& option : draft.options) c.settings.push_back(fmt::format("option {}", option));

  // Words not used: the description's own, sizes this template has no place for, and named
  // choices it cannot make.
  // (A phrase that gave several sizes, "MNIST", is used once any of them is.)
  std::set<std::string_view> usedPhrases;
  for (const auto& [constant, source] : draft.sourceOf) {
    for (const auto& [key, mention] : d.sizes()) {
      if (!mention.phrase.empty() && source.starts_with(fmt::format("from {}", quoted(mention.phrase)))) {
        usedPhrases.insert(mention.phrase);
      }
    }
  }
  for (const auto& [key, mention] : d.sizes()) {
    if (!usedKeys.contains(key) && !mention.phrase.empty() && !usedPhrases.contains(mention.phrase)) {
      unused.push_back(mention.phrase);
    }
  }
  for (std::string_view flag : kChoiceFlags) {
    if (d.has(flag) && !usedFlags.contains(flag)) unused.push_back(std::string(flag));
  }
  for (std::string& w : draft.unusedPhrases) unused.push_back(std::move(w));
  for (std::string& w : d.unusedWords()) unused.push_back(std::move(w));
  for (std::string& w : unused) {
    if (std::find(c.unusedWords.begin(), c.unusedWords.end(), w) == c.unusedWords.end()) c.unusedWords.push_back(w);
  }
  return out;
}

namespace {

// Whether `phrase` ("hidden 256", "7 n heads") holds the constant's name as words: HIDDEN,
// N_HEADS as "n heads", case aside.
bool phraseNames(std::string_view phrase, std::string_view constant) {
  std::string words;
  for (char c : constant) words += c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string padded = " " + std::string(phrase) + " ";
  for (char& c : padded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return padded.find(" " + words + " ") != std::string::npos;
}

}  // namespace

OfflineDesign changeOffline(std::string_view text, std::string_view source) {
  Description d(text);
  OfflineDesign out;
  out.source = std::string(source);
  OfflineChoice& c = out.choice;
  c.templateName = "your spec";
  c.title = "changes to the given spec";
  c.why = "changing the given spec's constants, as the offline designer can";
  // The names specs commonly give each size, most common first.
  struct Names {
    std::string_view key;
    std::vector<std::string_view> constants;
  };
  const std::vector<Names> names = {
      {"layers", {"N_LAYERS", "LAYERS", "NUM_LAYERS", "N_LAYER", "DEPTH", "N_BLOCKS"}},
      {"width", {"D", "D_MODEL", "WIDTH", "HIDDEN", "DIM", "EMBED_DIM"}},
      {"embedding", {"D", "D_MODEL", "EMBED_DIM", "EMBED"}},
      {"heads", {"H", "HEADS", "N_HEADS", "NUM_HEADS"}},
      {"batch", {"B", "BATCH", "BATCH_SIZE"}},
      {"vocab", {"V", "VOCAB", "VOCAB_SIZE"}},
      {"context", {"T", "CONTEXT", "SEQ_LEN", "BLOCK_SIZE"}},
      {"classes", {"CLASSES", "NUM_CLASSES", "N_CLASSES"}},
      {"experts", {"EXPERTS", "N_EXPERTS"}},
      {"steps", {"STEPS", "N_STEPS"}},
      {"latent", {"LATENT", "LATENT_DIM"}},
      {"side", {"SIDE", "IMAGE_SIZE"}},
      {"channels", {"CHANNELS"}},
      {"features", {"IN", "FEATURES", "OBS"}},
      {"outputs", {"OUT", "OUTPUTS"}},
      {"ffn", {"F", "FFN", "D_FF"}},
      {"patch", {"PATCH", "PATCH_SIZE"}},
      {"actions", {"ACTIONS", "N_ACTIONS"}},
  };
  std::vector<std::string> unused;
  std::set<std::string_view> done;
  for (const Names& n : names) {
    const auto mention = d.size(n.key);
    if (!mention) continue;
    bool applied = false;
    // A constant the description names itself ("hidden 256": HIDDEN, before the usual D) first.
    std::vector<std::string_view> candidates = n.constants;
    std::stable_partition(candidates.begin(), candidates.end(),
                          [&](std::string_view constant) { return phraseNames(mention->phrase, constant); });
    for (std::string_view constant : candidates) {
      if (done.contains(constant)) continue;
      if (setConstant(out.source, constant, std::to_string(mention->value))) {
        c.settings.push_back(fmt::format("{} = {} (from {})", constant, mention->value, quoted(mention->phrase)));
        done.insert(constant);
        applied = true;
        break;
      }
    }
    if (!applied) {
      unused.push_back(mention->phrase);
      c.notes.push_back(fmt::format("{}: the spec declares no constant for it ({})", quoted(mention->phrase),
                                    fmt::join(n.constants, ", ")));
    }
  }
  // The offline CNN's spec (N_BLOCKS blocks, each halving a SIDE×SIDE image) gets no more blocks
  // than the image can halve, as designing one does: "use 5 conv layers" on 28×28 digits made a
  // spec whose fifth pooling failed, and it replaced the working one.
  if (done.contains("N_BLOCKS")) {
    const auto values = specConstants(out.source);
    const auto blocks = values.find("N_BLOCKS");
    const auto side = values.find("SIDE");
    if (blocks != values.end() && side != values.end() && side->second >= 2) {
      const std::int64_t fit = std::bit_width(static_cast<std::uint64_t>(side->second)) - 1;
      if (blocks->second > fit && setConstant(out.source, "N_BLOCKS", std::to_string(fit))) {
        c.notes.push_back(fmt::format("N_BLOCKS {} lowered to {}: a {}×{} image halves only {} times", blocks->second,
                                      fit, side->second, side->second, fit));
        for (std::string& setting : c.settings) {
          if (setting.starts_with("N_BLOCKS = ")) setting = fmt::format("N_BLOCKS = {} (adjusted)", fit);
        }
      }
    }
  }
  // Norms: whole-word swaps of the layer type.
  auto swapWord = [&](std::string_view from, std::string_view to) {
    int count = 0;
    for (std::size_t at = out.source.find(from); at != std::string::npos; at = out.source.find(from, at + to.size())) {
      const bool startOk = at == 0 || !(std::isalnum(static_cast<unsigned char>(out.source[at - 1])) || out.source[at - 1] == '_');
      const std::size_t end = at + from.size();
      const bool endOk = end >= out.source.size() ||
                         !(std::isalnum(static_cast<unsigned char>(out.source[end])) || out.source[end] == '_');
      if (startOk && endOk) {
        out.source.replace(at, from.size(), to);
        ++count;
      } else {
        at += 1;
      }
    }
    return count;
  };
  if (d.has("rmsnorm")) {
    const int n = swapWord("LayerNorm", "RMSNorm");
    if (n > 0) c.settings.push_back(fmt::format("LayerNorm -> RMSNorm ({} place{})", n, n == 1 ? "" : "s"));
    else c.notes.push_back("\"RMSNorm\": the spec has no LayerNorm to replace");
  }
  if (d.has("layernorm") && !d.has("rmsnorm")) {
    const int n = swapWord("RMSNorm", "LayerNorm");
    if (n > 0) c.settings.push_back(fmt::format("RMSNorm -> LayerNorm ({} place{})", n, n == 1 ? "" : "s"));
  }
  for (std::string_view flag : kChoiceFlags) {
    if (flag == "rmsnorm" || !d.has(flag)) continue;
    unused.push_back(std::string(flag));
    c.notes.push_back(fmt::format("{} needs a model endpoint: the offline designer only changes sizes and norms",
                                  quoted(flag)));
  }
  if (c.settings.empty()) c.notes.push_back("nothing in the description could be applied: the spec is unchanged");
  else c.notes.push_back("the spec's label and description text were left as they were");
  for (std::string& w : d.unusedWords()) unused.push_back(std::move(w));
  for (std::string& w : unused) {
    if (std::find(c.unusedWords.begin(), c.unusedWords.end(), w) == c.unusedWords.end()) c.unusedWords.push_back(w);
  }
  return out;
}

}  // namespace nndna::designer
