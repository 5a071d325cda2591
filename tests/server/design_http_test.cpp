// POST /api/design over real HTTP on loopback: the designer run by the server, a fake model
// endpoint (tests/designer/fake_model.hpp, a real HTTP server) playing the LLM. Specs are
// compiled in the sandbox (not under the sanitizers).
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>
#include <unistd.h>

#include "../designer/fake_model.hpp"
#include "test_server.hpp"

namespace nndna::server {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using test_support::Server;
namespace fake = designer::testing;

// The endpoint the fake model plays, with the test key.
designer::Endpoint fakeEndpoint(const fake::FakeModel& model) {
  designer::Endpoint e;
  e.baseUrl = model.baseUrl();
  e.model = fake::kOpenAiModel;
  e.style = designer::ApiStyle::openai;
  e.apiKey = fake::kTestKey;
  return e;
}

ServeOptions designOptions(std::optional<designer::Endpoint> endpoint) {
  ServeOptions o;
  o.jobs = 2;
  o.warmUp = false;
  o.design.endpoint = std::move(endpoint);
  o.design.whyOffline = "no model endpoint is configured (test)";
  o.design.http.maxRetries = 0;
  o.design.http.backoffBase = 10ms;
  return o;
}

std::string designRequest(const std::string& prompt, const std::optional<std::string>& source = std::nullopt) {
  json body = {{"prompt", prompt}};
  if (source) body["source"] = *source;
  return body.dump();
}

// A design's streamed answer, read whole: the design events, the stage events, the result line.
struct Streamed {
  int httpStatus = 0;
  std::string contentType;
  std::string raw;
  std::vector<json> events;  // the designer's events, in order
  std::vector<std::string> stages;
  json result;  // {"type":"result","status":N,"body":{...}}

  std::vector<std::string> kinds() const {
    std::vector<std::string> out;
    for (const json& e : events) out.push_back(e["kind"].get<std::string>());
    return out;
  }
  const json& first(std::string_view kind, int attempt = 0) const {
    for (const json& e : events) {
      if (e["kind"] == kind && (attempt == 0 || e.value("attempt", 0) == attempt)) return e;
    }
    static const json none;
    ADD_FAILURE() << "no event " << kind << " of attempt " << attempt;
    return none;
  }
};

Streamed design(const Server& server, const std::string& body) {
  Streamed s;
  auto r = server.client().Post("/api/design", body, "application/json");
  if (!r) {
    ADD_FAILURE() << "no answer";
    return s;
  }
  s.httpStatus = r->status;
  s.contentType = r->get_header_value("Content-Type");
  s.raw = r->body;
  std::istringstream lines(r->body);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json e = json::parse(line);
    if (e["type"] == "design") s.events.push_back(e["event"]);
    if (e["type"] == "stage") s.stages.push_back(e["stage"].get<std::string>() + ":" + e["state"].get<std::string>());
    if (e["type"] == "result") s.result = e;
  }
  return s;
}

// Broken code, then a fix that (as a careless model might) quotes the key in a comment: the
// events stream in order, the fix is drawn, and the key is in no byte of the answer or the log.
TEST(DesignHttp, StreamsTheAttemptsInOrderAndNeverTheKey) {
  fake::FakeModel model;
  const std::string fixed = fake::kGoodSpec + "// written with " + fake::kTestKey + "\n";
  model.script({fake::answer(designer::ApiStyle::openai, fake::sourceJson(fake::brokenSpec())),
                fake::answer(designer::ApiStyle::openai, fake::sourceJson(fixed))});
  Server server(designOptions(fakeEndpoint(model)));

  const Streamed s = design(server, designRequest("a tiny regression MLP"));
  EXPECT_EQ(s.httpStatus, 200);
  EXPECT_EQ(s.contentType, "application/x-ndjson");
  const std::vector<std::string> expected{"asking_model", "attempt_started", "llm_answer", "check_result",
                                          "attempt_started", "llm_answer", "check_result", "metrics", "finished"};
  EXPECT_EQ(s.kinds(), expected);
  EXPECT_EQ(s.first("asking_model")["model"], fake::kOpenAiModel);
  const json& call = s.first("llm_answer", 1)["llm"];
  EXPECT_EQ(call["model"], fake::kOpenAiModel);
  EXPECT_EQ(call["prompt_tokens"], 1000);
  EXPECT_EQ(call["completion_tokens"], 200);
  EXPECT_TRUE(call.contains("cost_usd"));
  EXPECT_TRUE(call.contains("latency_seconds"));
  const json& broken = s.first("check_result", 1)["check"];
  EXPECT_FALSE(broken["ok"].get<bool>());
  EXPECT_EQ(broken["error_kind"], "compile_error");
  EXPECT_EQ(broken["line"], 8);  // m.l3 on forward()'s line
  EXPECT_NE(broken["error"].get<std::string>().find("model.cpp:8:"), std::string::npos) << broken.dump();
  EXPECT_TRUE(s.first("check_result", 2)["check"]["ok"].get<bool>());
  EXPECT_TRUE(s.first("finished")["ok"].get<bool>());
  // 97 parameters: 4·16 + 16 + 16·1 + 1.
  EXPECT_EQ(s.first("metrics")["metrics"]["params"], 97);
  // Then the designed spec is drawn, as a diagram request would be.
  const std::vector<std::string> stages{"diagram:start", "diagram:done", "layout:start", "layout:done"};
  EXPECT_EQ(s.stages, stages);
  ASSERT_EQ(s.result["status"], 200) << s.raw;
  const json& body = s.result["body"];
  EXPECT_TRUE(body["ok"].get<bool>());
  EXPECT_EQ(body["diagram"]["label"], "Tiny regression MLP");
  EXPECT_EQ(body["diagram"]["format"], "nndna-diagram");
  EXPECT_TRUE(body["svg"].get<std::string>().starts_with("<svg"));
  EXPECT_EQ(body["design"]["attempts"], 2);
  EXPECT_FALSE(body["design"]["offline"].get<bool>());
  EXPECT_EQ(body["source"], fake::kGoodSpec + "// written with [REDACTED]\n");

  // The repair request carried the error and its line to the model.
  const auto seen = model.requests();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].authorization, std::string("Bearer ") + fake::kTestKey);  // the key is used, server-side
  const std::string repair = seen[1].body["messages"].back()["content"];
  EXPECT_NE(repair.find("line 8"), std::string::npos) << repair;
  // Not one byte of the key reaches the client or the log.
  EXPECT_EQ(s.raw.find(fake::kTestKey), std::string::npos);
  EXPECT_EQ(s.raw.find("0123456789abcdef"), std::string::npos);
  // The request's log line is written once the stream has ended, after the client has its answer.
  const std::string log = server.logOnceItHolds("POST /api/design");
  EXPECT_NE(log.find("POST /api/design 200"), std::string::npos) << log;
  EXPECT_EQ(log.find(fake::kTestKey), std::string::npos);
  // The health report names the model, not the key or the URL.
  const std::string health = server.health().dump();
  EXPECT_NE(health.find(fake::kOpenAiModel), std::string::npos);
  EXPECT_EQ(health.find(fake::kTestKey), std::string::npos);
}

// "Change it…": the editor's spec goes to the model with the instruction.
TEST(DesignHttp, ChangeSendsTheSourceToTheModel) {
  fake::FakeModel model;
  model.script({fake::answer(designer::ApiStyle::openai, fake::sourceJson(fake::kGoodSpec))});
  Server server(designOptions(fakeEndpoint(model)));
  const std::string mine = fake::shapeErrorSpec();
  const Streamed s = design(server, designRequest("fix the shapes", mine));
  ASSERT_EQ(s.result["status"], 200) << s.raw;
  const auto seen = model.requests();
  ASSERT_EQ(seen.size(), 1u);
  const std::string asked = seen[0].body["messages"].back()["content"];
  EXPECT_NE(asked.find(mine), std::string::npos) << asked;
  EXPECT_NE(asked.find("fix the shapes"), std::string::npos) << asked;
}

// The endpoint refuses connections: the offline designer answers, and says why.
TEST(DesignHttp, FallsBackOfflineWhenTheEndpointRefuses) {
  designer::Endpoint refused;
  {
    fake::FakeModel gone;  // its port, closed again once it is destroyed
    refused = fakeEndpoint(gone);
  }
  Server server(designOptions(refused));
  const Streamed s = design(server, designRequest("a small MLP that classifies 10 classes"));
  ASSERT_EQ(s.result["status"], 200) << s.raw;
  const std::vector<std::string> kinds = s.kinds();
  ASSERT_GE(kinds.size(), 3u);
  EXPECT_EQ(kinds[0], "asking_model");
  const json& fallback = s.first("fallback_offline");
  EXPECT_NE(fallback["message"].get<std::string>().find("falling back to the offline designer"), std::string::npos);
  EXPECT_NE(fallback["reason"].get<std::string>().find("cannot connect to"), std::string::npos) << fallback.dump();
  EXPECT_EQ(s.first("offline_choice")["offline"]["template"], "mlp");
  EXPECT_EQ(kinds.back(), "finished");
  const json& body = s.result["body"];
  EXPECT_TRUE(body["design"]["offline"].get<bool>());
  EXPECT_FALSE(body["design"]["fallback_reason"].get<std::string>().empty());
  EXPECT_EQ(body["design"]["attempts"], 1);
  EXPECT_EQ(s.raw.find(fake::kTestKey), std::string::npos);
}

// No endpoint configured: the offline designer, said at once; the health report says so.
TEST(DesignHttp, OfflineWhenNoEndpointIsConfigured) {
  Server server(designOptions(std::nullopt));
  EXPECT_TRUE(server.health()["designer"]["offline"].get<bool>());
  const Streamed s = design(server, designRequest("a small MLP that classifies 10 classes"));
  ASSERT_EQ(s.result["status"], 200) << s.raw;
  ASSERT_FALSE(s.events.empty());
  EXPECT_EQ(s.events[0]["kind"], "designing_offline");
  EXPECT_EQ(s.events[0]["reason"], "no model endpoint is configured (test)");
  EXPECT_TRUE(s.result["body"]["design"]["offline"].get<bool>());
  EXPECT_FALSE(s.result["body"]["design"].contains("fallback_reason"));
}

// The model's spec never works: 422 with the last error located on its line, and the last spec.
TEST(DesignHttp, RepairsRunOutWithTheLastSpecAndItsLine) {
  fake::FakeModel model;
  model.script({fake::answer(designer::ApiStyle::openai, fake::sourceJson(fake::shapeErrorSpec()))});
  ServeOptions o = designOptions(fakeEndpoint(model));
  o.design.maxRepairs = 1;
  Server server(o);
  const Streamed s = design(server, designRequest("a tiny regression MLP"));
  ASSERT_EQ(s.result["status"], 422) << s.raw;
  const json& body = s.result["body"];
  EXPECT_FALSE(body["ok"].get<bool>());
  EXPECT_EQ(body["error"]["kind"], "trace_error");
  // Line 8 (forward) failed, called from line 9 (the loss).
  ASSERT_EQ(body["error"]["diagnostics"].size(), 2u) << body.dump();
  EXPECT_EQ(body["error"]["diagnostics"][0]["line"], 8);
  EXPECT_EQ(body["error"]["diagnostics"][1]["line"], 9);
  EXPECT_EQ(body["error"]["diagnostics"][1]["severity"], "info");
  EXPECT_EQ(body["source"], fake::shapeErrorSpec());
  EXPECT_EQ(body["design"]["attempts"], 2);
  EXPECT_EQ(model.requests().size(), 2u);
}

TEST(DesignHttp, BadRequests) {
  Server server(designOptions(std::nullopt));
  auto post = [&](const std::string& body, const char* type = "application/json") {
    auto r = server.client().Post("/api/design", body, type);
    return r ? std::make_pair(r->status, json::parse(r->body, nullptr, false)) : std::make_pair(-1, json());
  };
  EXPECT_EQ(post("prompt=x", "text/plain").first, 415);
  EXPECT_EQ(post(R"({"description": "a tiny MLP"})").first, 400);
  EXPECT_EQ(post(R"({"prompt": 3})").first, 400);
  EXPECT_EQ(post(R"({"prompt": "  \n"})").first, 400);
  EXPECT_EQ(post(R"({"prompt": "x", "source": 3})").first, 400);
  EXPECT_EQ(post(R"({"prompt": "x", "client": "a b"})").first, 400);
  const auto tooLong = post(designRequest(std::string(designer::kMaxPromptBytes + 1, 'a')));
  EXPECT_EQ(tooLong.first, 413);
  EXPECT_EQ(tooLong.second["error"]["kind"], "too_large");
  EXPECT_EQ(post(designRequest("x", std::string((256 << 10) + 1, ' '))).first, 413);
}

// One worker, one queue place: a design holds the worker, a diagram waits, the next design is
// told to come back (503); a third design within the minute is rate-limited (429).
TEST(DesignHttp, QueuedWithTheCompilesAndRateLimited) {
  fake::FakeModel model;
  fake::Reply slow = fake::answer(designer::ApiStyle::openai, fake::sourceJson(fake::kGoodSpec));
  slow.delayMs = 3000;
  model.script({slow});
  ServeOptions o = designOptions(fakeEndpoint(model));
  o.jobs = 1;
  o.maxQueued = 1;
  o.design.perMinute = 2;
  Server server(o);
  auto waitUntil = [&](auto predicate) {
    for (int i = 0; i < 400 && !predicate(server.health()); ++i) std::this_thread::sleep_for(25ms);
    return predicate(server.health());
  };
  auto first = std::async(std::launch::async, [&] { return design(server, designRequest("a tiny MLP")); });
  ASSERT_TRUE(waitUntil([](const json& h) { return h["jobs"]["running"] == 1; }));
  auto diagram = std::async(std::launch::async, [&] {
    auto r = server.client().Post("/api/diagram", json{{"source", fake::kGoodSpec}}.dump(), "application/json");
    return r ? r->status : -1;
  });
  ASSERT_TRUE(waitUntil([](const json& h) { return h["jobs"]["queued"] == 1; }));
  auto busy = server.client().Post("/api/design", designRequest("another MLP"), "application/json");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503);
  EXPECT_EQ(busy->get_header_value("Retry-After"), "2");
  EXPECT_EQ(json::parse(busy->body)["error"]["kind"], "busy");
  auto limited = server.client().Post("/api/design", designRequest("a third MLP"), "application/json");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(json::parse(limited->body)["error"]["kind"], "rate_limited");
  const int wait = std::stoi(limited->get_header_value("Retry-After"));
  EXPECT_GE(wait, 50);  // the first design started moments ago; the window is a minute
  EXPECT_LE(wait, 60);
  EXPECT_EQ(first.get().result["status"], 200);
  EXPECT_EQ(diagram.get(), 200);
  EXPECT_EQ(model.requests().size(), 1u);
}

// The client goes away while the model thinks: the design is cancelled, its worker freed.
TEST(DesignHttp, CancelledWhenTheClientGoesAway) {
  fake::FakeModel model;
  fake::Reply never = fake::answer(designer::ApiStyle::openai, fake::sourceJson(fake::kGoodSpec));
  never.delayMs = 120'000;
  model.script({never});
  Server server(designOptions(fakeEndpoint(model)));
  const int sock = test_support::connectToLoopback(server.port());
  ASSERT_GE(sock, 0);
  const std::string body = designRequest("a tiny MLP");
  const std::string request = "POST /api/design HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.port()) +
                              "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                              "\r\n\r\n" + body;
  ASSERT_EQ(::send(sock, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  // Read until the model was asked (the asking_model event has arrived).
  std::string received;
  char buf[4096];
  while (received.find("attempt_started") == std::string::npos) {
    const ssize_t n = ::recv(sock, buf, sizeof buf, 0);
    ASSERT_GT(n, 0) << received;
    received.append(buf, static_cast<std::size_t>(n));
  }
  for (int i = 0; i < 400 && model.requests().empty(); ++i) std::this_thread::sleep_for(25ms);
  ASSERT_EQ(model.requests().size(), 1u);
  EXPECT_EQ(server.health()["jobs"]["running"], 1);
  ::close(sock);
  // The next heartbeat fails, the ticket goes, the design's stop token ends the model's call.
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 800 && server.health()["jobs"]["running"] != 0; ++i) std::this_thread::sleep_for(25ms);
  EXPECT_EQ(server.health()["jobs"]["running"], 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 15s);
}

}  // namespace
}  // namespace nndna::server
