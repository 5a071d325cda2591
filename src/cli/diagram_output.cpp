#include "cli/diagram_output.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <csignal>
#include <string_view>
#include <system_error>

#include "cli/files.hpp"

namespace nndna::cli {
namespace {

// "1 box", "3 boxes".
std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

bool diagramOutputIsLaidOut(const std::filesystem::path& out) {
  const std::string ext = out.extension().string();
  return ext == ".html" || ext == ".svg";
}

std::jthread startRendererWarmUp(void (*work)() noexcept) {
  // A new thread starts with its creator's mask (and passes it on to the threads it starts):
  // block the signals around its creation only.
  class BlockedTerminationSignals {
   public:
    BlockedTerminationSignals() {
      sigset_t termination{};
      sigemptyset(&termination);
      for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&termination, sig);
      pthread_sigmask(SIG_BLOCK, &termination, &previous_);
    }
    ~BlockedTerminationSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
    BlockedTerminationSignals(const BlockedTerminationSignals&) = delete;
    BlockedTerminationSignals& operator=(const BlockedTerminationSignals&) = delete;

   private:
    sigset_t previous_{};
  };
  const BlockedTerminationSignals blocked;
  try {
    return std::jthread(work);
  } catch (const std::system_error&) {
    return {};  // no thread to spare (RLIMIT_NPROC, memory): the layout loads what it needs itself
  }
}

void checkDiagramOutput(const std::filesystem::path& out) {
  const std::string ext = out.extension().string();
  if (ext != ".html" && ext != ".svg" && ext != ".dot" && ext != ".json") {
    throw CLI::ValidationError("-o", "the output must end in .html, .svg, .dot or .json");
  }
}

std::string writeDiagram(const diagram::Diagram& d, const std::filesystem::path& out) {
  checkDiagramOutput(out);
  const std::string ext = out.extension().string();
  std::string text;
  if (ext == ".dot") {
    text = d.dot;
  } else if (ext == ".json") {
    text = diagram::toJson(d);
  } else if (ext == ".svg") {
    text = diagram::renderSvg(d);
  } else {
    text = diagram::renderHtml(d);
  }
  writeTextFile(out, text);
  std::string report =
      fmt::format("wrote {} ({}, {}, {}{})", out.string(), counted(d.layerCount(), "box", "boxes"),
                  counted(d.clusters.size(), "cluster", "clusters"), counted(d.edges.size(), "edge", "edges"),
                  d.merged ? ", training and inference merged" : "");
  return report + "\n" + metricsLines(d.metrics);
}

std::string metricsLines(const diagram::PerSide<std::vector<diagram::Metric>>& metrics) {
  std::string out;
  for (diagram::Side side : {diagram::Side::train, diagram::Side::infer}) {
    if (!metrics[side]) continue;
    std::string line;
    for (const diagram::Metric& m : *metrics[side]) line += (line.empty() ? "" : " · ") + m.display;
    out += fmt::format("{}{}: {}", out.empty() ? "" : "\n", side == diagram::Side::train ? "training" : "inference", line);
  }
  return out;
}

}  // namespace nndna::cli
