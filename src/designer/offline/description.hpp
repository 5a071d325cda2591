// Reading a plain-English description for the offline designer: the sizes it gives ("12 layers",
// "width 512", "vocab 50k", "32x32 colour images"), the choices it names ("RMSNorm", "SwiGLU",
// "rotary"), its scale words ("tiny", "large") and its other words, each marked once some rule
// has used it, so the designer can say which words it did not use.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nndna::designer {

// A size the text gives, and the words that gave it ("12 layers").
struct SizeMention {
  std::int64_t value = 0;
  std::string phrase;
};

class Description {
 public:
  explicit Description(std::string_view text);

  // Sizes by key: layers, hidden_layers ("3 hidden layers"), encoder_layers, decoder_layers, width, heads, batch, vocab, context,
  // side, channels, classes, experts, top_k, steps, latent, embedding, features, outputs,
  // actions, ffn, patch, knots, frequencies, noise.
  const std::map<std::string, SizeMention, std::less<>>& sizes() const { return sizes_; }
  std::optional<SizeMention> size(std::string_view key) const;

  // Named choices: rmsnorm, layernorm, swiglu, gelu, relu, rope, learned_positions, bias,
  // no_bias, tied, untied, gru, lstm, rnn, regression, classification, top1, mlm, policy_gradient,
  // and the scale words tiny, small, medium, large, huge.
  const std::set<std::string, std::less<>>& flags() const { return flags_; }
  bool has(std::string_view flag) const { return flags_.contains(flag); }

  // Whether the phrase ("language model", "next token", "u net") occurs as consecutive words;
  // with `markUsed`, its words are marked used where it does.
  bool mentions(std::string_view phrase, bool markUsed = true);

  // Words no rule used, in order, each once, without the filler words every description has.
  std::vector<std::string> unusedWords() const;

  // The words, lower-cased, as read.
  const std::vector<std::string>& words() const { return words_; }

  // Whether a run of consecutive words, joined without separators, is `alias` ("gpt-2 medium"
  // and "GPT2 Medium" are both "gpt2medium"); with `markUsed`, they are marked used.
  bool mentionsJoined(std::string_view alias, bool markUsed = true);

 private:
  void readNumbers();
  void readSizes();
  void readFlags();
  void use(std::size_t from, std::size_t to);  // marks words [from, to) used
  void setSize(std::string_view key, std::int64_t value, std::size_t from, std::size_t to);

  std::vector<std::string> words_;
  std::vector<bool> breaks_;  // punctuation after the word
  std::vector<std::optional<std::int64_t>> numbers_;  // the value of each word that is a number
  std::vector<bool> used_;
  std::map<std::string, SizeMention, std::less<>> sizes_;
  std::set<std::string, std::less<>> flags_;
};

}  // namespace nndna::designer
