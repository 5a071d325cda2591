// A model endpoint played by a real HTTP server on loopback (cpp-httplib): it answers the
// designer's requests from a script, in the OpenAI or the Anthropic style, and records what it was
// sent. Used by the library tests and the `nndna design` tests.
#pragma once

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "designer/endpoint.hpp"

namespace nndna::designer::testing {

// The key the tests configure; no output, event, trace or file may ever contain it.
inline constexpr const char* kTestKey = "sk-test-0123456789abcdef-SECRET";

struct Reply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int delayMs = 0;
};

struct SeenRequest {
  std::string path;
  std::string authorization;     // OpenAI style
  std::string apiKey;            // Anthropic's x-api-key
  std::string anthropicVersion;
  nlohmann::json body;
  std::chrono::steady_clock::time_point at;
};

class FakeModel {
 public:
  FakeModel() {
    auto handle = [this](const httplib::Request& req, httplib::Response& res) {
      Reply reply;
      {
        std::lock_guard lock(mutex_);
        SeenRequest seen;
        seen.path = req.path;
        seen.authorization = req.get_header_value("Authorization");
        seen.apiKey = req.get_header_value("x-api-key");
        seen.anthropicVersion = req.get_header_value("anthropic-version");
        seen.body = nlohmann::json::parse(req.body, nullptr, false);
        seen.at = std::chrono::steady_clock::now();
        seen_.push_back(std::move(seen));
        if (!script_.empty()) {
          reply = script_.size() > 1 ? script_[next_] : script_[0];
          if (next_ + 1 < script_.size()) ++next_;
        }
      }
      for (int waited = 0; waited < reply.delayMs && !stopping_; waited += 10) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      res.status = reply.status;
      for (const auto& [name, value] : reply.headers) res.set_header(name, value);
      res.set_content(reply.body, "application/json");
    };
    // Any path: a proxy is sent the absolute URL as its path.
    server_.Post(R"(.*)", handle);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeModel() {
    stopping_ = true;
    server_.stop();
    thread_.join();
  }
  FakeModel(const FakeModel&) = delete;
  FakeModel& operator=(const FakeModel&) = delete;

  // Replies in order; the last one answers every request after it.
  void script(std::vector<Reply> replies) {
    std::lock_guard lock(mutex_);
    script_ = std::move(replies);
    next_ = 0;
  }
  std::vector<SeenRequest> requests() const {
    std::lock_guard lock(mutex_);
    return seen_;
  }
  int port() const { return port_; }
  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<Reply> script_;
  std::size_t next_ = 0;
  std::vector<SeenRequest> seen_;
};

// The model names the replies report (both have list prices in xray's table).
inline constexpr const char* kOpenAiModel = "gpt-4o-mini";
inline constexpr const char* kAnthropicModel = "claude-3-5-haiku-20241022";

// A 200 answer carrying `text` as the model's message, with token usage. In the Anthropic style a
// JSON {"source": ...} answer arrives as the forced tool's input, anything else as text.
inline Reply answer(ApiStyle style, const std::string& text, int promptTokens = 1000, int completionTokens = 200) {
  using nlohmann::json;
  if (style == ApiStyle::openai) {
    json body = {{"id", "chatcmpl-1"},
                 {"object", "chat.completion"},
                 {"model", kOpenAiModel},
                 {"choices", json::array({{{"index", 0},
                                           {"message", {{"role", "assistant"}, {"content", text}}},
                                           {"finish_reason", "stop"}}})},
                 {"usage", {{"prompt_tokens", promptTokens}, {"completion_tokens", completionTokens}}}};
    return {200, body.dump(), {}, 0};
  }
  const json parsed = json::parse(text, nullptr, false);
  json block = parsed.is_object() && parsed.contains("source")
                   ? json{{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "write_spec"}, {"input", parsed}}
                   : json{{"type", "text"}, {"text", text}};
  json body = {{"id", "msg_1"},
               {"type", "message"},
               {"role", "assistant"},
               {"model", kAnthropicModel},
               {"content", json::array({block})},
               {"stop_reason", "tool_use"},
               {"usage", {{"input_tokens", promptTokens}, {"output_tokens", completionTokens}}}};
  return {200, body.dump(), {}, 0};
}

inline std::string sourceJson(const std::string& source) { return nlohmann::json{{"source", source}}.dump(); }

// An API error in the style's own shape.
inline Reply apiError(int status, const std::string& message) {
  return {status, nlohmann::json{{"error", {{"type", "error"}, {"message", message}}}}.dump(), {}, 0};
}

// A small spec that compiles and traces: 4·16 + 16 + 16·1 + 1 = 97 parameters.
inline const std::string kGoodSpec =
    "#include <nndna/nndna.hpp>\n"                                                            // 1
    "using namespace nndna;\n"                                                                // 2
    "constexpr int B = 32, IN = 4, HIDDEN = 16;\n"                                            // 3
    "struct Net : Module {\n"                                                                 // 4
    "  Linear l1{\"l1\", IN, HIDDEN};\n"                                                      // 5
    "  Linear l2{\"l2\", HIDDEN, 1};\n"                                                       // 6
    "};\n"                                                                                    // 7
    "Tensor forward(const Net& m, Tensor x) { return m.l2(relu(m.l1(x))); }\n"                // 8
    "Tensor lossFn(Net& m, const Inputs& in) { return mean(square(sub(forward(m, in[\"x\"]), in[\"y\"]))); }\n"
    "Tensor predictFn(Net& m, const Inputs& in) { return forward(m, in[\"x\"]); }\n"
    "NNDNA_SPEC(Net) {\n"
    "  return {.label = \"Tiny regression MLP\", .loss = lossFn, .inputs = {{\"x\", {B, IN}}, {\"y\", {B, 1}}},\n"
    "          .predict = predictFn, .predictInputs = {{\"x\", {B, IN}}},\n"
    "          .dims = {{B, \"B\", \"batch\"}, {HIDDEN, \"H\", \"hidden\"}}};\n"
    "}\n";

// The same spec with a compile error on line 8 (a member the model does not have).
inline std::string brokenSpec() {
  std::string s = kGoodSpec;
  s.replace(s.find("relu(m.l1(x))"), 13, "relu(m.l3(x))");
  return s;
}

// The same spec with a shape error on line 8: l2 expects 8 inputs, l1 gives 16.
inline std::string shapeErrorSpec() {
  std::string s = kGoodSpec;
  s.replace(s.find("Linear l2{\"l2\", HIDDEN, 1}"), 26, "Linear l2{\"l2\", 8, 1}     ");
  return s;
}

}  // namespace nndna::designer::testing
