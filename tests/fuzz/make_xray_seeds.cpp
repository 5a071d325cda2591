// Writes the seed corpus of an xray fuzz target from real recordings: a small agent run (nested
// spans, a traced function that throws, a tool on another thread, LLM usage, JSON metadata,
// a redacted input, a span left open past the end of its parent: misnested, and open at the end)
// captured by xray itself.
//   make_xray_seeds trace-json DIR   the run's trace JSON (pretty and compact)
//   make_xray_seeds events DIR       its event stream: cut off with a span open (a crashed run),
//                                    the same with a torn last line, and one that exits normally
// (flow-xray's 0.2 and 0.3.x documents are committed seeds: tests/fuzz/corpus/xray_trace_json/.)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_traced.hpp>
#include <nndna/xray_trace.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace xray = nndna::xray;
namespace fs = std::filesystem;

namespace {

std::string lookUp(const std::string& city) {
  if (city.empty()) throw std::invalid_argument("no city");
  return city + ": 14°C, rain after 16:00";
}

// Two agent turns; then opens `open` (when given) inside the agent span, to outlive it.
void agentRun(std::optional<xray::Span>* open) {
  XRAY_SPAN("agent", {{"question", "weather in Paris?"}, {"api_key", "sk-not-real"}}, {.kind = "agent"});
  for (int turn = 0; turn < 2; ++turn) {
    XRAY_SPAN("turn", {{"n", turn}});
    {
      xray::Span llm("call_llm", {{"prompt", "plan\nstep " + std::to_string(turn)}}, {.kind = "llm", .tags = {"fake"}});
      xray::annotate({.model = "gpt-4o-mini", .promptTokens = 120 + turn, .completionTokens = 24});
      llm.meta("temperature", 0.2);
      llm.meta("route", nlohmann::json{{"tools", {"weather", "flights"}}, {"retry", false}});
      llm.output("CALL weather(Paris)");
    }
    auto tool = xray::traced("tool.weather", lookUp, {.kind = "tool", .argNames = {"city"}});
    std::thread worker(xray::bindContext([&] {
      try {
        (void)tool(turn == 0 ? "" : "Paris");
      } catch (const std::invalid_argument&) {
      }
    }));
    worker.join();
  }
  if (open != nullptr) open->emplace("final_answer", std::initializer_list<xray::Arg>{}, xray::SpanOptions{.kind = "llm"});
}

std::string readAll(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc == 3 ? argv[1] : "";
  if (kind != "trace-json" && kind != "events") {
    std::fprintf(stderr, "usage: make_xray_seeds trace-json|events DIR\n");
    return 2;
  }
  const fs::path dir = argv[2];
  fs::create_directories(dir);
  if (kind == "trace-json") {
    std::optional<xray::Span> open;
    xray::Session session;
    agentRun(&open);
    const xray::Trace trace = session.finish();
    std::ofstream(dir / "agent.trace.json", std::ios::binary) << xray::toJsonText(trace, true);
    std::ofstream(dir / "agent.compact.trace.json", std::ios::binary) << xray::toJsonText(trace, false);
    return 0;
  }
  const fs::path crashed = dir / "agent_crashed.events.jsonl";
  {
    std::optional<xray::Span> open;
    xray::startStreaming(crashed.string());
    agentRun(&open);
    xray::stopStreaming();  // with final_answer open: what a SIGKILL leaves
  }
  const std::string lines = readAll(crashed);
  std::ofstream(dir / "agent_torn.events.jsonl", std::ios::binary) << lines.substr(0, lines.size() - lines.size() / 20);
  // Streams to the end of the process: the exit line is written at exit.
  xray::startStreaming((dir / "agent_exited.events.jsonl").string());
  agentRun(nullptr);
  return 0;
}
