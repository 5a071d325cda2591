// The options and the run shared by every command that compiles and runs a spec (spec_run_options.hpp).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <stop_token>
#include <thread>

#include "cli/files.hpp"
#include "cli/number_checks.hpp"
#include "cli/spec_run_options.hpp"
#include "render/escape.hpp"
#include "specrun/sandbox.hpp"
#include "specrun/spec_runner.hpp"
#include "specrun/unique_fd.hpp"

namespace nndna::cli {

std::string timeLimitHelp() {
  const specrun::SandboxLimits defaults;
  return fmt::format("Stop the spec after this many seconds, of wall clock or of CPU time (default: {} s of wall "
                     "clock, {} s of CPU)",
                     std::chrono::duration_cast<std::chrono::seconds>(defaults.wallTime).count(), defaults.cpuSeconds);
}

void addSpecLimitOptions(CLI::App& cmd, SpecRunArgs& args) {
  cmd.add_option("--time-limit", args.timeLimit, timeLimitHelp())->check(numberFrom(0.001, kMaxLimitSeconds, "seconds"));
  // Below about 70 MiB of address space the spec program cannot load its libraries and start
  // its threads (it aborts before it could report the limit); 1 TiB keeps MiB << 20 in range.
  cmd.add_option("--memory-limit", args.memoryLimit,
                 fmt::format("The spec's memory limit in MiB: each process's address space, and all of them "
                             "together (default {})",
                             specrun::SandboxLimits{}.addressSpaceBytes >> 20))
      ->check(numberFrom(128, 1 << 20, "MiB"));
  cmd.add_option("--cache-dir", args.cacheDir,
                 "Where compiled specs are cached (default: $XDG_CACHE_HOME/nndna or ~/.cache/nndna)")
      ->check(cacheDirProblem, "FOLDER");
  cmd.add_flag("--no-cache", args.noCache, "Compile even if this spec was compiled before");
}

void addSpecRunOptions(CLI::App& cmd, SpecRunArgs& args) {
  addSpecLimitOptions(cmd, args);
  cmd.add_flag("--keep-temp", args.keepTemp, "Keep the spec's run directory (its path is printed)");
  cmd.add_flag("-v,--verbose", args.verbose, "Print compile and run times and the sandbox in use");
}

specrun::RunOptions toRunOptions(const SpecRunArgs& args) {
  specrun::RunOptions options;
  if (args.timeLimit > 0) {
    options.runLimits.wallTime = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeLimit * 1000));
    options.runLimits.cpuSeconds = static_cast<std::uint64_t>(std::max(1.0, args.timeLimit));
  }
  if (args.memoryLimit > 0) {
    options.runLimits.addressSpaceBytes = args.memoryLimit << 20;  // each process
    options.runLimits.memoryBytes = args.memoryLimit << 20;        // and all of them together
  }
  if (!args.cacheDir.empty()) options.cacheDir = args.cacheDir;
  options.useCache = !args.noCache;
  options.keepTemp = args.keepTemp;
  return options;
}

int exitCodeFor(specrun::SpecRunError::Kind kind) {
  using Kind = specrun::SpecRunError::Kind;
  switch (kind) {
    case Kind::compile_error: return 2;
    case Kind::trace_error:
    case Kind::spec_error: return 3;
    case Kind::crash:
    case Kind::timeout:
    case Kind::memory_limit:
    case Kind::output_limit:
    case Kind::invalid_output: return 4;
    case Kind::setup_error:
    // Not a spec run's kinds (reading a file, evaluating, drawing).
    case Kind::invalid_ir:
    case Kind::eval_error:
    case Kind::render_error:
    case Kind::cancelled: return 1;
  }
  return 1;
}

int exitCodeForKindName(std::string_view kindName) {
  using Kind = specrun::SpecRunError::Kind;
  for (Kind kind : {Kind::compile_error, Kind::trace_error, Kind::spec_error, Kind::crash, Kind::timeout,
                    Kind::memory_limit, Kind::output_limit, Kind::invalid_output, Kind::setup_error,
                    Kind::cancelled}) {
    if (specrun::kindName(kind) == kindName) return exitCodeFor(kind);
  }
  return 1;
}

namespace {

// What the spec or the compiler wrote reaches the terminal as text, never as escape sequences.
void printUntrusted(const std::string& text) { std::cerr << render::escapeForTerminal(text); }

// Everything the spec printed (as kept: its first 64 KiB), under a heading; nothing if it printed
// nothing.
void printWhatTheSpecPrinted(const std::string& output) {
  if (output.empty()) return;
  std::cerr << "the spec printed:\n";
  printUntrusted(output);
  if (!output.ends_with('\n')) std::cerr << "\n";
}

// The kinds of error that end a spec's run, whose program may have printed something.
bool endsTheRun(specrun::SpecRunError::Kind kind) {
  using Kind = specrun::SpecRunError::Kind;
  return kind == Kind::trace_error || kind == Kind::spec_error || kind == Kind::crash || kind == Kind::timeout ||
         kind == Kind::memory_limit || kind == Kind::output_limit || kind == Kind::invalid_output;
}

void printReport(const specrun::RunReport& report) {
  std::cerr << fmt::format(
      "compile: {} ({:.2f} s{}), run: {:.2f} s, read IR: {:.3f} s\nsandbox: {}\ntoolchain: {}\nbinary: {}\n",
      report.cacheHit ? "cached" : "compiled", report.compileSeconds,
      report.pchBuilt ? fmt::format(", precompiled header {:.2f} s", report.pchSeconds) : "", report.runSeconds,
      report.readSeconds, report.isolation ? report.isolation->describe() : "not started",
      report.installedToolchain ? "installed" : "build tree", report.binary.string());
  printWhatTheSpecPrinted(report.programOutput);
}

// A downgrade is never silent: every run without full isolation says so, -v or not. A program
// stopped before it started ran in no sandbox at all, and its half-built one is no downgrade.
void warnIfPartial(const specrun::RunReport& report) {
  if (!report.isolation || !report.isolation->programStarted) return;
  const std::vector<std::string> missing = report.isolation->missing();
  if (missing.empty()) return;
  std::string text;
  for (const std::string& m : missing) text += (text.empty() ? "" : "; ") + m;
  std::cerr << "nndna: warning: the spec ran without full isolation: missing " << text << "\n";
}

// SIGTERM, SIGINT and SIGHUP during a run stop it like a cancel: the sandbox kills the spec (or
// the compiler) and everything it started, the run directory is removed, and nndna exits with
// 128 + the signal. The signals are blocked in this thread (and so in the threads it starts; the
// sandbox unblocks them in the program; a thread started before, such as the renderer's warm-up,
// blocks them itself: startRendererWarmUp) and read from a signalfd by a watcher thread, which
// sleeps until a signal comes or the run ends (an eventfd wakes it: a watcher that polled would
// hold every command up to its tick at the end).
class StopOnTerminationSignals {
 public:
  StopOnTerminationSignals() {
    sigemptyset(&signals_);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&signals_, sig);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
    signalFd_.reset(signalfd(-1, &signals_, SFD_CLOEXEC));
    wakeFd_.reset(eventfd(0, EFD_CLOEXEC));
    if (!signalFd_ || !wakeFd_) {
      pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
      throw std::runtime_error(fmt::format("cannot watch for termination signals: {}", std::strerror(errno)));
    }
    watcher_ = std::jthread([this] {
      pollfd fds[2] = {{signalFd_.get(), POLLIN, 0}, {wakeFd_.get(), POLLIN, 0}};
      while (::poll(fds, 2, -1) < 0 && errno == EINTR) {
      }
      signalfd_siginfo info{};
      if ((fds[0].revents & POLLIN) && ::read(signalFd_.get(), &info, sizeof info) == sizeof info) {
        received_ = static_cast<int>(info.ssi_signo);
        stop_.request_stop();
      }
    });
  }
  ~StopOnTerminationSignals() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t woken = ::write(wakeFd_.get(), &one, sizeof one);
    watcher_.join();
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  StopOnTerminationSignals(const StopOnTerminationSignals&) = delete;
  StopOnTerminationSignals& operator=(const StopOnTerminationSignals&) = delete;

  std::stop_token token() const { return stop_.get_token(); }
  int received() const { return received_; }

 private:
  sigset_t signals_{};
  sigset_t previous_{};
  specrun::UniqueFd signalFd_, wakeFd_;
  std::stop_source stop_;
  std::atomic<int> received_{0};
  std::jthread watcher_;
};

}  // namespace

ir::TracedModel runSpecForCli(const std::string& spec, const SpecRunArgs& args) {
  specrun::RunReport report;
  StopOnTerminationSignals signals;
  specrun::RunOptions options = toRunOptions(args);
  options.stop = signals.token();
  auto stopped = [&] {
    std::cerr << fmt::format("nndna: stopped by {}; the spec and everything it started were killed\n",
                             specrun::describeSignal(signals.received()));
    return CLI::RuntimeError(128 + signals.received());
  };
  try {
    ir::TracedModel model = specrun::runSpecFile(spec, options, &report);
    if (signals.received() != 0) throw stopped();  // arrived after the last sandboxed step
    warnIfPartial(report);
    // What a spec prints is its author's (print-debugging): shown, after -v's report or alone.
    if (args.verbose) printReport(report);
    else printWhatTheSpecPrinted(report.programOutput);
    if (args.keepTemp) std::cerr << "run directory kept: " << report.runDir.string() << "\n";
    return model;
  } catch (const specrun::SpecRunError& e) {
    warnIfPartial(report);
    if (args.verbose) printReport(report);
    if (args.keepTemp && !report.runDir.empty()) std::cerr << "run directory kept: " << report.runDir.string() << "\n";
    if (e.kind() == specrun::SpecRunError::Kind::cancelled && signals.received() != 0) throw stopped();
    printUntrusted(e.what());
    std::cerr << "\n";
    // The last of what the spec printed, unless -v's report or the message (a crash's, an
    // exception's) has shown it.
    const std::string tail = specrun::printedTail(e.programOutput());
    if (!args.verbose && endsTheRun(e.kind()) && !tail.empty() && !std::string_view(e.what()).ends_with(tail)) {
      printUntrusted(tail.substr(1));
      std::cerr << "\n";
    }
    throw CLI::RuntimeError(exitCodeFor(e.kind()));
  }
}

}  // namespace nndna::cli
