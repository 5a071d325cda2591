// An example agent loop traced with nndna xray: a planner asks a (fake) LLM what to do, calls
// tools (one of them fails), retries, and answers. Tool calls run on a small worker pool that
// carries the trace context across threads.
//
//   nndna xray run build/examples/xray/xray_agent_example --html agent_trace.html
//
// Run it directly (without NNDNA_XRAY_OUT) and it captures itself with an in-process Session,
// writing the HTML next to it: ./xray_agent_example agent_trace.html
#include <chrono>
#include <fstream>
#include <future>
#include <iostream>
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace xray = nndna::xray;

namespace {

struct LlmReply {
  std::string text;
  int promptTokens;
  int completionTokens;
};

// A stand-in for an HTTP call to a model: sleeps a little and answers from a script.
LlmReply fakeLlm(const std::string& prompt, int turn) {
  std::this_thread::sleep_for(std::chrono::milliseconds(15 + 10 * turn));
  static const char* script[] = {"CALL weather(Paris); CALL flights(Paris)", "CALL weather(Paris)",
                                 "ANSWER: pack an umbrella, take the 9:40 train"};
  return {script[std::min(turn, 2)], static_cast<int>(prompt.size() / 4 + 120), 24 + 6 * turn};
}

std::string callLlm(const std::string& prompt, int turn) {
  XRAY_SPAN("call_llm", {{"prompt", prompt}, {"turn", turn}, {"api_key", "sk-example-not-real"}},
            {.kind = "llm", .tags = {"fake"}});
  LlmReply reply = fakeLlm(prompt, turn);
  xray::annotate({.model = "gpt-4o-mini", .promptTokens = reply.promptTokens, .completionTokens = reply.completionTokens});
  return reply.text;
}

std::string weather(const std::string& city) {
  std::this_thread::sleep_for(std::chrono::milliseconds(8));
  return city + ": 14°C, rain after 16:00";
}

std::string flights(const std::string& city) {
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  throw std::runtime_error("flight API timed out for " + city);
}

// Runs a tool on another thread, as a tool executor would; the span nests under the caller's.
std::string runTool(const std::string& tool, const std::string& city) {
  auto traced = xray::traced(
      "tool." + tool, tool == "weather" ? weather : flights,
      {.kind = "tool", .argNames = {"city"}});
  auto task = std::async(std::launch::async, xray::bindContext([&] { return traced(city); }));
  return task.get();
}

std::string agent(const std::string& question) {
  XRAY_SPAN("agent", {{"question", question}}, {.kind = "agent"});
  std::string context = question;
  for (int turn = 0; turn < 3; ++turn) {
    XRAY_SPAN("turn", {{"n", turn}});
    std::string plan = callLlm(context, turn);
    if (plan.rfind("ANSWER:", 0) == 0) return plan.substr(8);
    for (const std::string tool : {"weather", "flights"}) {
      if (plan.find(tool) == std::string::npos) continue;
      try {
        context += "\n" + runTool(tool, "Paris");
      } catch (const std::exception& e) {
        context += "\n(tool " + tool + " failed: " + e.what() + ")";
      }
    }
  }
  return "no answer";
}

}  // namespace

int main(int argc, char** argv) {
  const std::string question = "Weekend in Paris: what should I pack and how do I get there?";
  if (xray::streaming()) {
    // Under `nndna xray run` (or NNDNA_XRAY_OUT=...): spans stream to the file as they end.
    std::cout << agent(question) << "\n";
    return 0;
  }
  xray::Session session;
  std::string answer = agent(question);
  xray::Trace trace = session.finish();
  trace.title = "xray example: agent loop";
  std::cout << answer << "\n";
  std::string path = argc > 1 ? argv[1] : "agent_trace.html";
  std::ofstream(path) << xray::toHtml(trace);
  auto summary = xray::summarize(trace);
  std::cerr << "Wrote " << path << " (" << summary.nodes << " spans, " << summary.errors << " errors, "
            << summary.totalTokens << " tokens)\n";
  return 0;
}
