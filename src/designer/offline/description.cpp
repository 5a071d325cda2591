#include "designer/offline/description.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace nndna::designer {
namespace {

using Words = std::initializer_list<std::string_view>;

bool isOneOf(std::string_view word, Words list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

// Words every description has that say nothing about the model.
constexpr std::array<std::string_view, 92> kFiller = {
    "a", "an", "the", "that", "which", "who", "with", "of", "for", "to", "in", "on", "and", "or", "is", "are",
    "be", "it", "its", "using", "use", "uses", "model", "models", "network", "networks", "neural", "net", "nn",
    "i", "want", "would", "like", "please", "make", "build", "create", "design", "draw", "show", "me", "my",
    "some", "into", "from", "by", "as", "at", "can", "should", "has", "have", "having", "each", "per", "then",
    "than", "this", "these", "those", "so", "do", "does", "what", "how", "about", "s", "very", "just", "simple",
    "basic", "classic", "standard", "kind", "type", "architecture", "based", "trained", "train", "training",
    "learn", "learns", "learning", "we", "you", "our", "all", "will", "out", "up", "x"};

bool isFiller(std::string_view word) { return std::find(kFiller.begin(), kFiller.end(), word) != kFiller.end(); }

std::optional<std::int64_t> numberWord(std::string_view w) {
  static constexpr std::array<std::string_view, 21> kUnits = {
      "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
      "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
      "twenty"};
  for (std::size_t i = 0; i < kUnits.size(); ++i) {
    if (w == kUnits[i]) return static_cast<std::int64_t>(i);
  }
  static constexpr std::array<std::pair<std::string_view, int>, 7> kTens = {
      {{"thirty", 30}, {"forty", 40}, {"fifty", 50}, {"sixty", 60}, {"seventy", 70}, {"eighty", 80}, {"ninety", 90}}};
  for (const auto& [word, value] : kTens) {
    if (w == word) return value;
  }
  return std::nullopt;
}

// "512", "50,257", "50k", "1m": the value; nullopt for anything else.
std::optional<std::int64_t> numeral(std::string_view w) {
  std::int64_t scale = 1;
  if (w.size() > 1 && (w.back() == 'k' || w.back() == 'm')) {
    scale = w.back() == 'k' ? 1000 : 1000000;
    w.remove_suffix(1);
  }
  if (w.empty() || w.size() > 12) return std::nullopt;
  std::int64_t value = 0;
  for (char c : w) {
    if (c == ',') continue;
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value * scale;
}

bool digitAt(std::string_view text, std::size_t i) {
  return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
}

bool isNumberSoFar(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return c == ',' || std::isdigit(static_cast<unsigned char>(c));
  });
}

// Lower-case words: letters and digits, "32x32" split at the x, "16d" into "16" and "d",
// thousands separators kept inside numbers, "×" read as "x".
// `breaks`, when given, receives for each word whether punctuation (, ; : . ! ? parentheses, a
// line end) follows it: a size and its unit or key are never read across one ("batch 32, vocab").
std::vector<std::string> tokenize(std::string_view text, std::vector<bool>* breaks = nullptr) {
  std::vector<std::string> raw;
  std::vector<bool> rawBreaks;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) {
      raw.push_back(std::move(current));
      rawBreaks.push_back(false);
    }
    current.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == 0xC3 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) == 0x97) {  // ×
      flush();
      raw.emplace_back("x");
      ++i;
    } else if (std::isalnum(c)) {
      current += static_cast<char>(std::tolower(c));
    } else if (c == ',' && isNumberSoFar(current) && digitAt(text, i + 1) && digitAt(text, i + 2) &&
               digitAt(text, i + 3) && !digitAt(text, i + 4)) {
      current += ',';  // 50,257
    } else {
      flush();
      if (std::string_view(",;:.!?()\n").find(static_cast<char>(c)) != std::string_view::npos && !rawBreaks.empty()) {
        rawBreaks.back() = true;
      }
    }
  }
  flush();
  std::vector<std::string> words;
  std::vector<bool> wordBreaks;
  for (std::size_t r = 0; r < raw.size(); ++r) {
    const std::string& w = raw[r];
    const std::size_t before = words.size();
    auto finishWord = [&] {
      wordBreaks.resize(words.size(), false);
      if (words.size() > before) wordBreaks.back() = rawBreaks[r];
    };
    // 32x32 -> 32 x 32
    const auto x = w.find('x');
    if (x != std::string::npos && x > 0 && x + 1 < w.size() && numeral(w.substr(0, x)) && numeral(w.substr(x + 1))) {
      words.push_back(w.substr(0, x));
      words.emplace_back("x");
      words.push_back(w.substr(x + 1));
      finishWord();
      continue;
    }
    // 16d -> 16 d
    if (w.size() > 1 && w.back() == 'd' && numeral(w.substr(0, w.size() - 1))) {
      words.push_back(w.substr(0, w.size() - 1));
      words.emplace_back("d");
      finishWord();
      continue;
    }
    words.push_back(w);
    finishWord();
  }
  if (breaks != nullptr) *breaks = std::move(wordBreaks);
  return words;
}

}  // namespace

Description::Description(std::string_view text) {
  words_ = tokenize(text, &breaks_);
  used_.assign(words_.size(), false);
  numbers_.assign(words_.size(), std::nullopt);
  readNumbers();
  readFlags();
  readSizes();
}

void Description::use(std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to && i < used_.size(); ++i) used_[i] = true;
}

void Description::setSize(std::string_view key, std::int64_t value, std::size_t from, std::size_t to) {
  use(from, to);
  if (sizes_.contains(key)) return;  // the first mention counts
  std::string phrase;
  for (std::size_t i = from; i < to; ++i) phrase += (phrase.empty() ? "" : " ") + words_[i];
  sizes_.emplace(std::string(key), SizeMention{value, std::move(phrase)});
}

std::optional<SizeMention> Description::size(std::string_view key) const {
  const auto it = sizes_.find(key);
  if (it == sizes_.end()) return std::nullopt;
  return it->second;
}

void Description::readNumbers() {
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (auto n = numeral(words_[i])) {
      numbers_[i] = n;
    } else if (auto w = numberWord(words_[i])) {
      numbers_[i] = w;
      // "thirty two": the tens word takes the unit that follows it.
      if (*w >= 30 && i + 1 < words_.size()) {
        if (auto unit = numberWord(words_[i + 1]); unit && *unit > 0 && *unit < 10) {
          numbers_[i] = *w + *unit;
          words_[i] += "-" + words_[i + 1];
          breaks_[i] = breaks_[i + 1];
          breaks_.erase(breaks_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
          words_.erase(words_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
          used_.erase(used_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
          numbers_.erase(numbers_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        }
      }
    }
  }
}

bool Description::mentions(std::string_view phrase, bool markUsed) {
  std::vector<std::string> parts = tokenize(phrase);
  if (parts.empty() || parts.size() > words_.size()) return false;
  bool found = false;
  for (std::size_t i = 0; i + parts.size() <= words_.size(); ++i) {
    if (std::equal(parts.begin(), parts.end(), words_.begin() + static_cast<std::ptrdiff_t>(i))) {
      found = true;
      if (!markUsed) return true;
      use(i, i + parts.size());
    }
  }
  return found;
}

bool Description::mentionsJoined(std::string_view alias, bool markUsed) {
  bool found = false;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    std::string joined;
    for (std::size_t j = i; j < words_.size() && joined.size() < alias.size(); ++j) {
      joined += words_[j];
      if (joined == alias) {
        found = true;
        if (!markUsed) return true;
        use(i, j + 1);
        break;
      }
    }
  }
  return found;
}

void Description::readFlags() {
  auto flagIf = [&](std::string_view flag, Words phrases) {
    for (std::string_view p : phrases) {
      if (mentions(p)) flags_.insert(std::string(flag));
    }
  };
  flagIf("rmsnorm", {"rmsnorm", "rms norm", "rms normalization", "rms normalisation", "root mean square"});
  flagIf("layernorm", {"layernorm", "layer norm", "layer normalization", "layer normalisation"});
  flagIf("swiglu", {"swiglu", "swi glu", "gated mlp", "gated linear units"});
  flagIf("gelu", {"gelu"});
  flagIf("relu", {"relu"});
  flagIf("rope", {"rope", "rotary", "rotary embeddings", "rotary positions", "rotary position embeddings"});
  flagIf("learned_positions", {"learned positions", "learned position embeddings", "learned positional embeddings",
                               "absolute positions"});
  flagIf("no_bias", {"no bias", "no biases", "without bias", "without biases", "bias free", "biasless"});
  flagIf("tied", {"tied", "tied embeddings", "weight tying"});
  flagIf("untied", {"untied", "separate output head", "untied embeddings"});
  flagIf("gru", {"gru", "grus", "gated recurrent unit"});
  flagIf("lstm", {"lstm", "lstms", "long short term memory"});
  flagIf("rnn", {"elman", "vanilla rnn"});
  flagIf("regression", {"regression", "regress", "regresses", "regressor", "fits", "fit", "approximates",
                        "approximate", "predicts a value", "forecast", "forecasts", "forecasting", "sine",
                        "sine wave", "cosine", "curve", "draw a curve", "draws a curve"});
  flagIf("classification", {"classify", "classifies", "classifier", "classification", "classifying"});
  flagIf("top1", {"top 1", "switch transformer", "switch routing"});
  flagIf("mlm", {"masked language model", "masked language modelling", "masked language modeling", "mlm",
                 "masked tokens"});
  flagIf("policy_gradient", {"policy gradient", "reinforce", "actor critic", "ppo", "a2c", "policy network"});
  flagIf("arithmetic", {"two digit", "three digit", "add", "adds", "addition", "adding", "sum of", "arithmetic", "digit", "digits", "numbers"});
  flagIf("characters", {"character", "characters", "char", "chars", "character level", "char level"});
  flagIf("tiny", {"tiny", "mini", "toy", "minimal"});
  flagIf("small", {"small", "little", "smaller", "lightweight"});
  flagIf("medium", {"medium", "mid sized", "medium sized", "moderate"});
  flagIf("large", {"large", "big", "larger", "bigger"});
  flagIf("huge", {"huge", "giant", "massive", "enormous", "gigantic", "xl"});
  // Image colour and well-known datasets set sizes the text need not repeat.
  for (std::string_view c : {"colour", "color", "coloured", "colored", "rgb"}) {
    if (mentions(c)) setSize("channels", 3, 0, 0);
  }
  for (std::string_view g : {"grayscale", "greyscale", "grey", "gray", "monochrome", "black and white"}) {
    if (mentions(g)) setSize("channels", 1, 0, 0);
  }
}

void Description::readSizes() {
  const std::size_t n = words_.size();
  auto word = [&](std::size_t i) -> std::string_view { return i < n ? std::string_view(words_[i]) : ""; };
  // Datasets: their image sizes and classes, unless the text says otherwise.
  struct Dataset {
    std::string_view alias;
    std::int64_t side, channels, classes;
  };
  for (const Dataset& d : {Dataset{"fashionmnist", 28, 1, 10}, Dataset{"mnist", 28, 1, 10},
                           Dataset{"handwritten", 28, 1, 10}, Dataset{"handwriting", 28, 1, 10},
                           Dataset{"cifar100", 32, 3, 100}, Dataset{"cifar10", 32, 3, 10}, Dataset{"cifar", 32, 3, 10},
                           Dataset{"imagenet", 224, 3, 1000}}) {
    if (mentionsJoined(d.alias)) {
      for (auto [key, value] : {std::pair<std::string_view, std::int64_t>{"side", d.side},
                                {"channels", d.channels},
                                {"classes", d.classes}}) {
        if (!sizes_.contains(key)) sizes_.emplace(std::string(key), SizeMention{value, std::string(d.alias)});
      }
    }
  }
  // A function of one variable ("a sine wave", "a curve"): one input, one output.
  for (std::string_view f : {"sine", "cosine", "curve"}) {
    if (!mentionsJoined(f)) continue;
    for (std::string_view key : {"features", "outputs"}) {
      if (!sizes_.contains(key)) sizes_.emplace(std::string(key), SizeMention{1, std::string(f)});
    }
  }
  // Words between a number and its unit that the unit may follow ("12 transformer layers").
  const Words modifiers = {"transformer", "attention", "hidden", "residual", "conv", "convolutional", "dense",
                           "linear", "fully", "connected", "recurrent", "diffusion", "denoising", "sampling",
                           "time", "mlp", "self", "resnet", "unet", "output", "input", "encoder", "decoder",
                           "kan", "ffn", "feedforward", "feed", "forward", "gated"};
  // Words between a key and its number ("batch size of 32", "context length = 2048").
  const Words connectors = {"of", "size", "sizes", "is", "length", "len", "dim", "dimension", "count", "number",
                            "with", "at", "around", "about", "to", "set", "window", "units", "width", "hidden"};
  for (std::size_t i = 0; i < n; ++i) {
    if (!numbers_[i] || used_[i]) continue;
    const std::int64_t value = *numbers_[i];
    // The key before the number, past connector words: "batch" in "batch size of 32".
    std::size_t k = i;
    while (k > 0 && i - k < 3 && !breaks_[k - 1] && isOneOf(word(k - 1), connectors)) --k;
    const std::string_view key = k > 0 && !breaks_[k - 1] ? word(k - 1) : "";
    const std::string_view keyBefore = k >= 2 ? word(k - 2) : "";
    const bool vocabKey = isOneOf(key, {"vocab", "vocabulary"});

    // NxN images or patches.
    if (word(i + 1) == "x" && i + 2 < n && numbers_[i + 2]) {
      const std::size_t after = i + 3;
      if (word(after) == "patch" || word(after) == "patches") {
        setSize("patch", value, i, after + 1);
      } else {
        setSize("side", std::max(value, *numbers_[i + 2]), i, i + 3);
      }
      continue;
    }
    // A unit after the number: "12 layers", "8 attention heads", "256 hidden units".
    std::size_t j = i + 1;
    bool sawEncoder = false, sawDecoder = false, sawHidden = false;
    while (j < n && j < i + 3 && !breaks_[j - 1] && isOneOf(word(j), modifiers)) {
      sawEncoder = sawEncoder || word(j) == "encoder";
      sawDecoder = sawDecoder || word(j) == "decoder";
      sawHidden = sawHidden || word(j) == "hidden";
      ++j;
    }
    // No unit across punctuation ("batch 32, vocab 50k": 32 is not a vocabulary).
    const std::string_view unit = breaks_[j - 1] ? "" : word(j);
    const std::string_view next = j < n && !breaks_[j] ? word(j + 1) : "";
    if (isOneOf(unit, {"layer", "layers", "block", "blocks", "level", "levels", "stage", "stages"})) {
      setSize(sawEncoder   ? "encoder_layers"
              : sawDecoder ? "decoder_layers"
              : sawHidden  ? "hidden_layers"
                           : "layers",
              value, i, j + 1);
    } else if (isOneOf(unit, {"head", "heads"})) {
      setSize("heads", value, i, j + 1);
    } else if (isOneOf(unit, {"class", "classes", "category", "categories", "way", "labels"})) {
      setSize("classes", value, i, j + 1);
    } else if (isOneOf(unit, {"expert", "experts"})) {
      setSize("experts", value, i, j + 1);
    } else if (isOneOf(unit, {"step", "steps", "timestep", "timesteps", "iterations"})) {
      setSize("steps", value, i, j + 1);
    } else if (isOneOf(unit, {"latent", "latents"})) {
      setSize("latent", value, i, j + 1);
    } else if (isOneOf(unit, {"unit", "units", "neuron", "neurons", "wide", "dim", "dims", "dimensional",
                              "dimension", "dimensions", "d"})) {
      if (isOneOf(next, {"latent", "latents"})) {
        setSize("latent", value, i, j + 2);
      } else if (isOneOf(next, {"embedding", "embeddings"})) {
        setSize("embedding", value, i, j + 2);
      } else if (next == "noise") {
        setSize("noise", value, i, j + 2);
      } else if (isOneOf(next, {"observation", "observations", "state", "states", "input", "inputs", "points"})) {
        setSize("features", value, i, j + 2);
      } else {
        setSize("width", value, i, j + 1);
      }
    } else if (isOneOf(unit, {"channel", "channels"})) {
      setSize(isOneOf(next, {"image", "images", "input", "inputs"}) ? "channels" : "width", value, i, j + 1);
    } else if (isOneOf(unit, {"feature", "features", "input", "inputs", "observation", "observations"})) {
      setSize("features", value, i, j + 1);
    } else if (isOneOf(unit, {"output", "outputs", "targets"})) {
      setSize("outputs", value, i, j + 1);
    } else if (isOneOf(unit, {"action", "actions"})) {
      setSize("actions", value, i, j + 1);
    } else if (isOneOf(unit, {"knot", "knots"})) {
      setSize("knots", value, i, j + 1);
    } else if (isOneOf(unit, {"frequency", "frequencies", "octave", "octaves"})) {
      setSize("frequencies", value, i, j + 1);
    } else if (isOneOf(unit, {"token", "tokens"})) {
      if (vocabKey) {
        setSize("vocab", value, k - 1, j + 1);
      } else if (isOneOf(next, {"vocab", "vocabulary"})) {
        setSize("vocab", value, i, j + 2);
      } else if (isOneOf(next, {"context", "window"})) {
        setSize("context", value, i, j + 2);
      } else if (next == "of" && word(j + 2) == "context") {
        setSize("context", value, i, j + 3);
      } else {
        setSize("context", value, i, j + 1);
      }
    } else if (isOneOf(unit, {"vocab", "vocabulary"})) {
      setSize("vocab", value, i, j + 1);
    } else if (unit == "context") {
      setSize("context", value, i, j + 1);
    }
    if (used_[i]) continue;
    // Else the key before it: "width 512", "batch size of 32", "vocab 50k", "d_model 512".
    auto keyed = [&](std::string_view sizeKey, std::size_t from) { setSize(sizeKey, value, from, i + 1); };
    const bool widthBetween = std::any_of(words_.begin() + static_cast<std::ptrdiff_t>(k),
                                          words_.begin() + static_cast<std::ptrdiff_t>(i), [](const std::string& w) {
                                            return w == "width" || w == "hidden" || w == "units";
                                          });
    if (isOneOf(key, {"batch", "batches", "minibatch", "minibatches"})) {
      keyed("batch", k - 1);
    } else if (vocabKey) {
      keyed("vocab", k - 1);
    } else if (isOneOf(key, {"context", "sequence", "sequences", "seq", "ctx"})) {
      keyed("context", k - 1);
    } else if (isOneOf(key, {"embedding", "embeddings", "embed"})) {
      keyed("embedding", k - 1);
    } else if (isOneOf(key, {"mlp", "ffn", "feedforward", "intermediate"}) || (key == "forward" && keyBefore == "feed")) {
      keyed("ffn", key == "forward" ? k - 2 : k - 1);
    } else if (key == "model" && keyBefore == "d") {
      keyed("width", k - 2);
    } else if (widthBetween) {
      keyed("width", k);  // "heads of width 384": the width, whatever comes before
    } else if (key == "heads") {
      keyed("heads", k - 1);
    } else if (isOneOf(key, {"layers", "depth", "blocks"})) {
      keyed("layers", k - 1);
    } else if (key == "classes") {
      keyed("classes", k - 1);
    } else if (key == "experts") {
      keyed("experts", k - 1);
    } else if (key == "latent") {
      keyed("latent", k - 1);
    } else if (isOneOf(key, {"steps", "timesteps"})) {
      keyed("steps", k - 1);
    } else if (isOneOf(key, {"patch", "patches"})) {
      keyed("patch", k - 1);
    } else if (isOneOf(key, {"resolution", "image", "images"})) {
      keyed("side", k - 1);
    } else if (key == "top") {
      keyed("top_k", k - 1);
    } else if (key == "noise") {
      keyed("noise", k - 1);
    } else if (isOneOf(key, {"knots", "grid"})) {
      keyed("knots", k - 1);
    } else if (key == "actions") {
      keyed("actions", k - 1);
    } else if (isOneOf(key, {"features", "inputs"})) {
      keyed("features", k - 1);
    } else if (key == "channels") {
      keyed("width", k - 1);
    } else if (key == "resnet") {
      keyed("layers", k - 1);  // "ResNet-34": the depth
    } else if (isOneOf(key, {"width", "hidden", "dim", "dimension"})) {
      keyed("width", k - 1);
    }
  }
}

std::vector<std::string> Description::unusedWords() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    if (used_[i] || isFiller(words_[i])) continue;
    if (std::find(out.begin(), out.end(), words_[i]) == out.end()) out.push_back(words_[i]);
  }
  return out;
}

}  // namespace nndna::designer
