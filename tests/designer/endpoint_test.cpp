// Which endpoint the designer asks: flags over NNDNA_LLM_* over the vendors' variables, and an
// API key alone configuring nothing.
#include <gtest/gtest.h>

#include <map>

#include "designer/endpoint.hpp"
#include "designer/redact.hpp"

namespace nndna::designer {
namespace {

EnvironmentLookup envOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(Endpoint, NothingConfiguredIsOffline) {
  const EndpointChoice c = resolveEndpoint({}, envOf({}));
  EXPECT_FALSE(c.endpoint);
  EXPECT_NE(c.whyOffline.find("NNDNA_LLM_BASE_URL"), std::string::npos);
}

TEST(Endpoint, AKeyAloneConfiguresNothing) {
  EXPECT_FALSE(resolveEndpoint({}, envOf({{"OPENAI_API_KEY", "sk-1"}})).endpoint);
  EXPECT_FALSE(resolveEndpoint({}, envOf({{"ANTHROPIC_API_KEY", "sk-2"}})).endpoint);
}

TEST(Endpoint, OwnVariablesFirst) {
  const auto c = resolveEndpoint({}, envOf({{"NNDNA_LLM_BASE_URL", "http://localhost:11434/v1"},
                                            {"OPENAI_BASE_URL", "https://other/v1"},
                                            {"NNDNA_LLM_MODEL", "llama3.1"},
                                            {"NNDNA_LLM_API_KEY", "own"},
                                            {"OPENAI_API_KEY", "vendor"}}));
  ASSERT_TRUE(c.endpoint);
  EXPECT_EQ(c.endpoint->baseUrl, "http://localhost:11434/v1");
  EXPECT_EQ(c.endpoint->model, "llama3.1");
  EXPECT_EQ(c.endpoint->apiKey, "own");
  EXPECT_EQ(c.endpoint->style, ApiStyle::openai);
  EXPECT_FALSE(c.endpoint->modelIsDefault);
  EXPECT_EQ(c.endpoint->requestUrl(), "http://localhost:11434/v1/chat/completions");
}

TEST(Endpoint, FlagsOverTheEnvironment) {
  const auto c = resolveEndpoint({"http://127.0.0.1:9/v1/", "m", ApiStyle::anthropic},
                                 envOf({{"NNDNA_LLM_BASE_URL", "http://x/v1"}, {"ANTHROPIC_API_KEY", "ak"},
                                        {"OPENAI_API_KEY", "ok"}}));
  ASSERT_TRUE(c.endpoint);
  EXPECT_EQ(c.endpoint->baseUrl, "http://127.0.0.1:9/v1/");
  EXPECT_EQ(c.endpoint->requestUrl(), "http://127.0.0.1:9/v1/messages");  // trailing slash dropped
  EXPECT_EQ(c.endpoint->apiKey, "ak");  // the key of the style
}

TEST(Endpoint, OpenAiBaseUrlIsTheFallback) {
  const auto c = resolveEndpoint({}, envOf({{"OPENAI_BASE_URL", "https://api.openai.com/v1"}, {"OPENAI_API_KEY", "k"}}));
  ASSERT_TRUE(c.endpoint);
  EXPECT_EQ(c.endpoint->baseUrl, "https://api.openai.com/v1");
  EXPECT_EQ(c.endpoint->apiKey, "k");
  EXPECT_EQ(c.endpoint->model, "gpt-4o-mini");
  EXPECT_TRUE(c.endpoint->modelIsDefault);
}

TEST(Endpoint, AnthropicByUrlOrByItsKeyAlone) {
  auto byUrl = resolveEndpoint({"https://api.anthropic.com/v1", std::nullopt, std::nullopt}, envOf({}));
  ASSERT_TRUE(byUrl.endpoint);
  EXPECT_EQ(byUrl.endpoint->style, ApiStyle::anthropic);
  auto byKey = resolveEndpoint({std::nullopt, "claude-sonnet-4-0", std::nullopt}, envOf({{"ANTHROPIC_API_KEY", "ak"}}));
  ASSERT_TRUE(byKey.endpoint);
  EXPECT_EQ(byKey.endpoint->style, ApiStyle::anthropic);
  EXPECT_EQ(byKey.endpoint->baseUrl, "https://api.anthropic.com/v1");
  EXPECT_EQ(byKey.endpoint->apiKey, "ak");
}

TEST(Endpoint, AFullRequestUrlIsKept) {
  Endpoint e{.baseUrl = "http://h/v1/chat/completions", .style = ApiStyle::openai};
  EXPECT_EQ(e.requestUrl(), "http://h/v1/chat/completions");
}

TEST(Endpoint, ParseStyle) {
  EXPECT_EQ(parseApiStyle("openai"), ApiStyle::openai);
  EXPECT_EQ(parseApiStyle("anthropic"), ApiStyle::anthropic);
  EXPECT_FALSE(parseApiStyle("gemini"));
}

TEST(Endpoint, DisplayUrlHidesCredentialsAndQueries) {
  EXPECT_EQ(displayUrl("https://user:secret@host:8080/v1/chat?key=abc"), "https://host:8080/v1/chat");
  EXPECT_EQ(displayUrl("http://127.0.0.1:11434/v1"), "http://127.0.0.1:11434/v1");
  EXPECT_EQ(displayUrl("http://host/a@b"), "http://host/a@b");  // an @ in the path is not userinfo
}

TEST(Redactor, EveryOccurrenceGoes) {
  const Redactor r("sk-abc");
  EXPECT_EQ(r.scrub("key sk-abc and sk-abcsk-abc."), "key [REDACTED] and [REDACTED][REDACTED].");
  EXPECT_EQ(Redactor().scrub("nothing to hide"), "nothing to hide");
}

}  // namespace
}  // namespace nndna::designer
