#include "cli/diagram_output.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <csignal>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <utility>

#include "cli/files.hpp"

namespace nndna::cli {
namespace {

// "1 box", "3 boxes".
std::string counted(std::size_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

}  // namespace

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

DiagramOutput diagramOutput(const std::filesystem::path& path, std::string_view format) {
  constexpr std::array<std::pair<std::string_view, DiagramFormat>, 4> kFormats{{
      {"html", DiagramFormat::html}, {"svg", DiagramFormat::svg}, {"dot", DiagramFormat::dot}, {"json", DiagramFormat::json}}};
  const bool named = !format.empty();
  // An extension in any case (`-o X.SVG`, as some systems write them); --format's names as listed.
  std::string wanted(named ? format : std::string_view(path.extension().string()));
  if (!named && !wanted.empty()) {
    wanted.erase(0, 1);
    for (char& c : wanted) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (const auto& [name, value] : kFormats) {
    if (wanted == name) return {path, value};
  }
  if (named) throw CLI::ValidationError("--format", "the format must be html, svg, dot or json");
  if (path == "-") {
    throw CLI::ValidationError("-o", "standard output (-o -) has no extension: give --format html, svg, dot or json");
  }
  throw CLI::ValidationError("-o", "the output must end in .html, .svg, .dot or .json (or give --format)");
}

std::string writeDiagram(const diagram::Diagram& d, const DiagramOutput& out) {
  std::string text;
  switch (out.format) {
    case DiagramFormat::dot: text = diagram::standaloneDot(d); break;
    case DiagramFormat::json: text = diagram::toJson(d); break;
    case DiagramFormat::svg: text = diagram::renderSvg(d); break;
    case DiagramFormat::html: text = diagram::renderHtml(d); break;
  }
  writeTextFile(out.toStandardOutput() ? std::filesystem::path("-") : out.path, text);
  std::string report = fmt::format(
      "wrote {} ({}, {}, {}{})", out.toStandardOutput() ? "standard output" : out.path.string(),
      counted(d.layerCount(), "box", "boxes"), counted(d.clusters.size(), "cluster", "clusters"),
      counted(d.edges.size(), "edge", "edges"), d.merged ? ", training and inference merged" : "");
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
