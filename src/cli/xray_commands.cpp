// `nndna xray run|view` (execution traces of C++ programs) and `nndna value demo` (the scalar
// autodiff example and its backward stepper).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <nndna/xray.hpp>
#include <nndna/xray_trace.hpp>
#include <nndna/xray_value.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/files.hpp"

extern char** environ;

namespace nndna::cli {
namespace {

namespace fs = std::filesystem;
namespace xray = nndna::xray;

struct TraceOutputs {
  std::string html;
  std::string json;
  std::string chrome;
  std::string dot;
  std::string otlp;
  std::string title;
};

// Checked before any work: at most one output is standard output, and none for `xray run`,
// whose program writes its own output there.
void checkOutputs(const TraceOutputs& out, bool programShares) {
  int toStandardOutput = 0;
  for (const auto* path : {&out.html, &out.json, &out.chrome, &out.dot, &out.otlp}) toStandardOutput += *path == "-";
  if (programShares && toStandardOutput > 0) {
    throw CLI::ValidationError("outputs", "the program's own output goes to standard output: write the trace to a "
                                          "file (and `nndna xray view FILE --json -` to pipe it on)");
  }
  if (toStandardOutput > 1) {
    throw CLI::ValidationError("outputs", "only one of --html, --json, --chrome, --dot and --otlp can be - (standard output)");
  }
}

void writeTraceOutputs(const xray::Trace& trace, const TraceOutputs& out) {
  if (!out.html.empty()) writeTextFile(out.html, xray::toHtml(trace));
  if (!out.json.empty()) writeTextFile(out.json, xray::toJsonText(trace));
  if (!out.chrome.empty()) writeTextFile(out.chrome, xray::toChromeTrace(trace).dump() + "\n");
  if (!out.dot.empty()) writeTextFile(out.dot, xray::toDot(trace));
  if (!out.otlp.empty()) writeTextFile(out.otlp, xray::toOtlpJson(trace).dump() + "\n");
  auto s = xray::summarize(trace);
  std::string written;
  for (const auto* path : {&out.html, &out.json, &out.chrome, &out.dot, &out.otlp})
    if (!path->empty()) written += (written.empty() ? "" : ", ") + shownPath(*path);
  std::cerr << fmt::format("Wrote {} ({} nodes, {} errors{})\n", written, s.nodes, s.errors,
                           s.open > 0 ? fmt::format(", {} unfinished", s.open) : "");
}

void addOutputOptions(CLI::App* cmd, TraceOutputs& out) {
  cmd->add_option("--html", out.html, "write the HTML viewer here (- for standard output)");
  cmd->add_option("--json", out.json, "write the trace JSON (nndna-xray-trace v1) here (- for standard output)");
  cmd->add_option("--chrome", out.chrome, "write Chrome trace-event JSON (Perfetto) here (- for standard output)");
  cmd->add_option("--dot", out.dot, "write the call graph as DOT here (- for standard output)");
  cmd->add_option("--otlp", out.otlp,
                  "write OpenTelemetry OTLP/JSON here (for an OpenTelemetry Collector's file receiver, Jaeger, Phoenix; "
                  "- for standard output)");
  cmd->add_option("--title", out.title, "title shown in the viewer");
}

bool noOutputs(const TraceOutputs& out) {
  return out.html.empty() && out.json.empty() && out.chrome.empty() && out.dot.empty() && out.otlp.empty();
}

// PROGRAM [ARGS…] with nndna's own options taken out of it: they may follow the program, as in
// `nndna xray run ./agent --html trace.html`. What follows a `--` is not in `rest` (see
// takeProgramTail): that is how a program receives options of these names.
std::vector<std::string> splitProgramArgs(std::vector<std::string> rest, TraceOutputs& out,
                                          std::string& events) {
  std::vector<std::string> program;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const std::string& a = rest[i];
    std::string* target = nullptr;
    {
      if (a == "--html") target = &out.html;
      else if (a == "--json") target = &out.json;
      else if (a == "--chrome") target = &out.chrome;
      else if (a == "--dot") target = &out.dot;
      else if (a == "--otlp") target = &out.otlp;
      else if (a == "--title") target = &out.title;
      else if (a == "--events") target = &events;
    }
    if (target != nullptr) {
      if (i + 1 >= rest.size()) throw CLI::ValidationError(a, "needs a value");
      *target = rest[++i];
    } else {
      program.push_back(a);
    }
  }
  return program;
}

// Runs the program with NNDNA_XRAY_OUT set and returns its wait status.
int runTraced(const std::vector<std::string>& command, const std::string& eventsPath) {
  std::vector<std::string> env;
  const std::string prefix = std::string(xray::kStreamEnvVar) + "=";
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, prefix.c_str(), prefix.size()) != 0) env.emplace_back(*e);
  env.push_back(prefix + eventsPath);
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
  if (rc != 0) throw std::runtime_error(fmt::format("cannot run {}: {}", command[0], std::strerror(rc)));
  // Ctrl-C goes to the whole foreground group: let the program handle it, then write its trace.
  struct sigaction ignore {};
  struct sigaction oldInt {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGINT, &ignore, &oldInt);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &oldInt, nullptr);
  return status;
}

void addXrayRun(CLI::App* xrayCmd, std::vector<std::string> programTail) {
  auto out = std::make_shared<TraceOutputs>();
  auto events = std::make_shared<std::string>();
  auto* run = xrayCmd->add_subcommand(
      "run", "run PROGRAM [ARGS...] (linked with nndna_xray), collect its trace, write the viewer; "
             "the program's exit status is passed on (1 if it exited 0 without recording a trace)");
  // PROGRAM and its arguments: from the first positional on, CLI11 leaves everything, in order, in
  // remaining() (prefix_command); what followed a `--` arrives as programTail.
  run->prefix_command();
  run->allow_extras();
  addOutputOptions(run, *out);
  run->add_option("--events", *events, "keep the raw event stream (JSON lines) here");
  run->footer(
      "Usage: nndna xray run [OPTIONS] PROGRAM [ARGS...] [OPTIONS] [-- ARGS...]\n"
      "nndna's options may also follow PROGRAM. Everything after `--` goes to the program as it is,\n"
      "so `nndna xray run --html t.html -- ./prog --html x` passes `--html x` to ./prog.\n"
      "With no output option, writes <program>_trace.html.");
  run->callback([run, out, events, tail = std::move(programTail)] {
    std::vector<std::string> program = splitProgramArgs(run->remaining(), *out, *events);
    program.insert(program.end(), tail.begin(), tail.end());
    if (program.empty()) throw CLI::RequiredError("PROGRAM");
    checkOutputs(*out, /*programShares=*/true);
    if (*events == "-") throw CLI::ValidationError("--events", "the event stream is a file the program writes: give its path");
    std::string stem = fs::path(program[0]).stem().string();
    if (noOutputs(*out)) out->html = stem + "_trace.html";
    bool keepEvents = !events->empty();
    std::string eventsPath = keepEvents ? *events
                                        : (fs::temp_directory_path() /
                                           fmt::format("nndna-xray-{}-{}.jsonl", stem, ::getpid()))
                                              .string();
    fs::remove(eventsPath);

    int status = runTraced(program, eventsPath);
    int exitCode = 0;
    if (WIFEXITED(status)) {
      exitCode = WEXITSTATUS(status);
      if (exitCode != 0) std::cerr << fmt::format("nndna: {} exited with status {}\n", program[0], exitCode);
    } else if (WIFSIGNALED(status)) {
      exitCode = 128 + WTERMSIG(status);
      std::cerr << fmt::format("nndna: {} was killed by signal {} ({})\n", program[0], WTERMSIG(status),
                               strsignal(WTERMSIG(status)));
    }

    if (!fs::exists(eventsPath) || fs::file_size(eventsPath) == 0) {
      // 127 is the status of a program that never started: the dynamic loader missed a library
      // (an install prefix not on its path) or exec failed; both say so on stderr above.
      if (exitCode == 127) {
        std::cerr << fmt::format("nndna: {} did not start (status 127): see the message above; a library in a "
                                 "prefix the loader does not search needs -Wl,-rpath,PREFIX/lib or "
                                 "LD_LIBRARY_PATH\n",
                                 program[0]);
      } else {
        std::cerr << fmt::format("nndna: {} recorded no trace (is it linked with nndna_xray?)\n", program[0]);
      }
      throw CLI::RuntimeError(exitCode != 0 ? exitCode : 1);
    }
    xray::Trace trace = xray::readTraceFile(eventsPath);
    if (!keepEvents) fs::remove(eventsPath);
    trace.title = out->title.empty() ? "xray: " + fs::path(program[0]).filename().string() : out->title;
    writeTraceOutputs(trace, *out);
    if (exitCode != 0) throw CLI::RuntimeError(exitCode);
  });
}

void addXrayView(CLI::App* xrayCmd) {
  auto out = std::make_shared<TraceOutputs>();
  auto input = std::make_shared<std::string>();
  auto* view = xrayCmd->add_subcommand(
      "view", "make the viewer (and other exports) from trace JSON or an event stream (JSON lines)");
  view->add_option("trace", *input, "trace.json or events.jsonl")->required()->check(CLI::ExistingFile);
  addOutputOptions(view, *out);
  view->add_option("-o,--output", out->html, "write the HTML viewer here (same as --html)");
  view->callback([out, input] {
    checkOutputs(*out, /*programShares=*/false);
    xray::Trace trace = xray::readTraceFile(*input);
    if (!out->title.empty()) trace.title = out->title;
    else if (trace.title.empty()) trace.title = "xray: " + fs::path(*input).filename().string();
    if (noOutputs(*out)) out->html = fs::path(*input).replace_extension(".html").string();
    writeTraceOutputs(trace, *out);
  });
}

void addXrayDiff(CLI::App* xrayCmd) {
  struct DiffOptions {
    std::string before, after, html, title;
  };
  auto opts = std::make_shared<DiffOptions>();
  auto* diff = xrayCmd->add_subcommand(
      "diff", "compare two traces (trace JSON or event streams): spans added, removed and changed, latency and cost");
  diff->add_option("before", opts->before, "the first trace")->required()->check(CLI::ExistingFile);
  diff->add_option("after", opts->after, "the second trace")->required()->check(CLI::ExistingFile);
  diff->add_option("-o,--output", opts->html, "write the diff page here (default: diff.html; - for standard output)");
  diff->add_option("--title", opts->title, "title shown on the page");
  diff->callback([opts] {
    xray::Trace before = xray::readTraceFile(opts->before);
    xray::Trace after = xray::readTraceFile(opts->after);
    if (before.title.empty()) before.title = opts->before;
    if (after.title.empty()) after.title = opts->after;
    xray::TraceDiff d = xray::diffTraces(before, after);
    std::string out = opts->html.empty() ? std::string("diff.html") : opts->html;
    writeTextFile(out, xray::diffHtml(before, after, d, opts->title.empty() ? "xray diff" : opts->title));
    std::cerr << fmt::format("Wrote {} ({} changed, {} removed, {} added, {} same)\n", shownPath(out), d.changed, d.removed,
                             d.added, d.same);
  });
}

// flow-xray's built-in example: L = ((a*b)+c).relu().tanh().
xray::Value demoRoot() {
  xray::Value a(2.0, "a"), b(-3.0, "b"), c(10.0, "c");
  xray::Value L = ((a * b) + c).relu().tanh();
  L.setLabel("L");
  return L;
}

void addValueCommands(CLI::App& app) {
  auto* value = app.add_subcommand("value", "the scalar autodiff engine (xray::Value)");
  value->require_subcommand(1);
  struct DemoOptions {
    std::string which = "forward";
    std::string html;
    std::string outputDir;
  };
  auto opts = std::make_shared<DemoOptions>();
  auto* demo = value->add_subcommand("demo", "the built-in ((a*b)+c).relu().tanh() graph: DOT, IR, stepper");
  demo->add_option("which", opts->which, "forward (data) or backward (data + grad)")
      ->check(CLI::IsMember({"forward", "backward"}));
  auto* html = demo->add_option("--html", opts->html, "write the interactive backward stepper (one offline page; - for standard output)");
  demo->add_option("--output-dir", opts->outputDir, "write forward.dot, backward.dot and graph.json here")
      ->excludes(html);
  demo->callback([opts] {
    xray::Value root = demoRoot();
    xray::GraphDebugger debugger(root);
    if (!opts->outputDir.empty()) {
      fs::path dir(opts->outputDir);
      fs::create_directories(dir);
      writeTextFile((dir / "forward.dot").string(), debugger.dotForward());
      root.backward();
      writeTextFile((dir / "backward.dot").string(), debugger.dotBackward());
      writeTextFile((dir / "graph.json").string(), debugger.irBackward().dump(2) + "\n");
      std::cerr << fmt::format("Wrote {}, {} and {}\n", (dir / "forward.dot").string(),
                               (dir / "backward.dot").string(), (dir / "graph.json").string());
      return;
    }
    if (!opts->html.empty()) {
      bool backward = opts->which == "backward";
      writeTextFile(opts->html, debugger.stepperHtml(fmt::format("xray Value demo ({})", opts->which), backward));
      std::cerr << fmt::format("Wrote {} (open it in a browser; it works offline)\n", shownPath(opts->html));
      return;
    }
    if (opts->which == "backward") {
      root.backward();
      std::cout << debugger.dotBackward();
    } else {
      std::cout << debugger.dotForward();
    }
  });
}

}  // namespace

std::vector<std::string> takeProgramTail(int& argc, char** argv) {
  std::vector<std::string> tail;
  if (argc < 3 || std::string_view(argv[1]) != "xray" || std::string_view(argv[2]) != "run") return tail;
  for (int i = 3; i < argc; ++i) {
    if (std::string_view(argv[i]) != "--") continue;
    tail.assign(argv + i + 1, argv + argc);
    argc = i;
    break;
  }
  return tail;
}

void addXrayCommands(CLI::App& app, std::vector<std::string> programTail) {
  auto* xrayCmd = app.add_subcommand("xray", "execution traces of C++ programs linked with nndna_xray");
  xrayCmd->require_subcommand(1);
  addXrayRun(xrayCmd, std::move(programTail));
  addXrayView(xrayCmd);
  addXrayDiff(xrayCmd);
  addValueCommands(app);
}

}  // namespace nndna::cli
