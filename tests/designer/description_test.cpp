// Reading sizes, choices and leftover words from plain English.
#include <gtest/gtest.h>

#include "designer/offline/description.hpp"

namespace nndna::designer {
namespace {

std::int64_t sizeOf(const Description& d, std::string_view key) {
  const auto s = d.size(key);
  return s ? s->value : -1;
}

TEST(Description, TheIssuesSizes) {
  const Description d("12 layers, width 512, 8 heads, batch 32, vocab 50k, context 2048");
  EXPECT_EQ(sizeOf(d, "layers"), 12);
  EXPECT_EQ(sizeOf(d, "width"), 512);
  EXPECT_EQ(sizeOf(d, "heads"), 8);
  EXPECT_EQ(sizeOf(d, "batch"), 32);
  EXPECT_EQ(sizeOf(d, "vocab"), 50000);
  EXPECT_EQ(sizeOf(d, "context"), 2048);
  EXPECT_EQ(d.sizes().size(), 6u);
  EXPECT_EQ(d.size("layers")->phrase, "12 layers");
  EXPECT_EQ(d.size("vocab")->phrase, "vocab 50k");
  EXPECT_TRUE(d.unusedWords().empty());
}

TEST(Description, Images) {
  const Description d("32x32 colour images, 10 classes");
  EXPECT_EQ(sizeOf(d, "side"), 32);
  EXPECT_EQ(sizeOf(d, "channels"), 3);
  EXPECT_EQ(sizeOf(d, "classes"), 10);
  EXPECT_EQ(sizeOf(Description("64×64 greyscale scans"), "side"), 64);
  EXPECT_EQ(sizeOf(Description("64×64 greyscale scans"), "channels"), 1);
  const Description mnist("digits from MNIST");
  EXPECT_EQ(sizeOf(mnist, "side"), 28);
  EXPECT_EQ(sizeOf(mnist, "channels"), 1);
  EXPECT_EQ(sizeOf(mnist, "classes"), 10);
  EXPECT_EQ(sizeOf(Description("CIFAR-100"), "classes"), 100);
  EXPECT_EQ(sizeOf(Description("8x8 patches"), "patch"), 8);
}

TEST(Description, WordsNumbersAndSeparators) {
  EXPECT_EQ(sizeOf(Description("three layers"), "layers"), 3);
  EXPECT_EQ(sizeOf(Description("thirty-two heads"), "heads"), 32);
  EXPECT_EQ(sizeOf(Description("a vocabulary of 32,000 tokens"), "vocab"), 32000);
  EXPECT_EQ(sizeOf(Description("a 2048-token context"), "context"), 2048);
  EXPECT_EQ(sizeOf(Description("2048 tokens of context"), "context"), 2048);
  EXPECT_EQ(sizeOf(Description("batch size of 64"), "batch"), 64);
  EXPECT_EQ(sizeOf(Description("batches of 16"), "batch"), 16);
  EXPECT_EQ(sizeOf(Description("d_model 768"), "width"), 768);
  EXPECT_EQ(sizeOf(Description("a transformer with width 256"), "width"), 256);
  EXPECT_EQ(sizeOf(Description("256 hidden units"), "width"), 256);
  EXPECT_EQ(sizeOf(Description("mlp hidden 3072"), "ffn"), 3072);
  EXPECT_EQ(sizeOf(Description("a 16-dimensional latent"), "latent"), 16);
  EXPECT_EQ(sizeOf(Description("128-d embeddings"), "embedding"), 128);
  EXPECT_EQ(sizeOf(Description("noise dim 100"), "noise"), 100);
  EXPECT_EQ(sizeOf(Description("sequences of length 24"), "context"), 24);
  EXPECT_EQ(sizeOf(Description("50 sampling steps"), "steps"), 50);
  EXPECT_EQ(sizeOf(Description("6 actions"), "actions"), 6);
  EXPECT_EQ(sizeOf(Description("top-2 routing"), "top_k"), 2);
  EXPECT_EQ(sizeOf(Description("16 experts"), "experts"), 16);
}

TEST(Description, WhichLayers) {
  const Description d("4 encoder layers and 2 decoder layers");
  EXPECT_EQ(sizeOf(d, "encoder_layers"), 4);
  EXPECT_EQ(sizeOf(d, "decoder_layers"), 2);
  EXPECT_FALSE(d.size("layers"));
  const Description hidden("3 hidden layers of 256 units");
  EXPECT_EQ(sizeOf(hidden, "hidden_layers"), 3);
  EXPECT_EQ(sizeOf(hidden, "width"), 256);
  EXPECT_EQ(sizeOf(Description("12 transformer blocks"), "layers"), 12);
  EXPECT_EQ(sizeOf(Description("a 6-layer net"), "layers"), 6);
}

TEST(Description, Choices) {
  const Description d("with RMSNorm, SwiGLU and rotary embeddings, no bias, untied");
  for (const char* flag : {"rmsnorm", "swiglu", "rope", "no_bias", "untied"}) EXPECT_TRUE(d.has(flag)) << flag;
  EXPECT_FALSE(d.has("lstm"));
  EXPECT_TRUE(Description("an LSTM").has("lstm"));
  EXPECT_TRUE(Description("a tiny model").has("tiny"));
  EXPECT_TRUE(Description("a big one").has("large"));
}

TEST(Description, UnusedWords) {
  Description d("a transformer that juggles flaming torches with 4 heads");
  EXPECT_TRUE(d.mentions("transformer"));
  EXPECT_EQ(d.unusedWords(), (std::vector<std::string>{"juggles", "flaming", "torches"}));
}

TEST(Description, MentionsAndJoinedAliases) {
  Description d("GPT-2 medium please");
  EXPECT_TRUE(d.mentionsJoined("gpt2medium", false));
  EXPECT_TRUE(d.mentionsJoined("gpt2", false));  // a run of words, not a prefix of one
  EXPECT_FALSE(d.mentionsJoined("gpt2med", false));
  EXPECT_FALSE(d.mentions("language model", false));
  EXPECT_EQ(d.unusedWords(), (std::vector<std::string>{"gpt", "2"}));  // "medium" is a scale word
  EXPECT_TRUE(d.mentionsJoined("gpt2medium"));
  EXPECT_TRUE(d.unusedWords().empty());
}

}  // namespace
}  // namespace nndna::designer
