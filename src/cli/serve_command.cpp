// `nndna serve`: the NN DNA app in the browser — edit a model spec, see its diagram.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <spawn.h>
#include <sys/wait.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "cli/commands.hpp"
#include "cli/files.hpp"
#include "cli/llm_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/spec_run_options.hpp"
#include "server/app_server.hpp"
#include "specrun/sandbox.hpp"

extern char** environ;

namespace nndna::cli {

namespace {

struct ServeArgs {
  std::string host = "127.0.0.1";
  int port = 8080;
  bool open = false;
  std::size_t jobs = 0;
  std::size_t maxQueued = 32;
  std::size_t maxConnections = 32;
  int requestTimeout = 180;
  double stopGrace = 5;
  double timeLimit = 0;
  std::string cacheDir;
  bool quiet = false;
  bool noWarmUp = false;
  // The designer (POST /api/design).
  LlmArgs llm;
  bool offlineDesigner = false;
  int designTimeout = 600;
  std::size_t designsPerMinute = 10;
};

std::atomic<bool> g_stopRequested{false};
extern "C" void onStopSignal(int) { g_stopRequested = true; }

// Starts the desktop's browser on `url` when there is one (xdg-open); says so when there is not.
void openBrowser(const std::string& url) {
  const char* argv[] = {"xdg-open", url.c_str(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, const_cast<char* const*>(argv), environ) != 0) {
    std::cerr << "nndna serve: --open: no browser to start (xdg-open not found); open " << url << "\n";
    return;
  }
  // Reap it in the background: xdg-open returns once the browser was handed the URL.
  std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
}

int serve(const ServeArgs& args) {
  const specrun::IsolationStatus& isolation = specrun::isolationStatus();
  if (!isolation.full) {
    std::cerr << "nndna serve: refusing to start: visitors' specs would run without full isolation.\n  "
              << isolation.describe() << "\n";
    return 1;
  }
  if (!server::isLoopbackHost(args.host)) {
    std::cerr << "nndna serve: warning: listening on " << args.host
              << ", not on loopback: anyone who reaches this address can compile and run code here "
                 "(sandboxed)\n";
  }
  server::ServeOptions options;
  options.host = args.host;
  options.port = args.port;
  options.jobs = args.jobs;
  options.maxQueued = args.maxQueued;
  options.maxConnections = args.maxConnections;
  options.requestTimeout = std::chrono::seconds(args.requestTimeout);
  if (!args.cacheDir.empty()) options.jobSettings.cacheDir = args.cacheDir;
  if (args.timeLimit > 0) {
    options.jobSettings.runLimits.wallTime = std::chrono::milliseconds(static_cast<std::int64_t>(args.timeLimit * 1000));
    options.jobSettings.runLimits.cpuSeconds = static_cast<std::uint64_t>(std::max(1.0, args.timeLimit));
  }
  // Layouts in worker processes (server/layout_workers.hpp), one per job: nndna-layout is
  // installed beside this program. Without it, layouts run here, one at a time.
  std::error_code selfError;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", selfError);
  const std::filesystem::path worker = self.parent_path() / "nndna-layout";
  if (selfError || ::access(worker.c_str(), X_OK) != 0) {
    std::cerr << "nndna serve: warning: " << worker.string()
              << " is missing: diagrams are laid out in this process, one at a time\n";
  } else {
    const std::size_t jobs = args.jobs != 0 ? args.jobs : std::max(1u, std::thread::hardware_concurrency());
    try {
      options.jobSettings.layoutWorkers = std::make_shared<server::LayoutWorkers>(worker, jobs);
    } catch (const std::runtime_error& e) {
      std::cerr << "nndna serve: warning: " << e.what() << ": diagrams are laid out in this process, one at a time\n";
    }
  }
  options.webFiles = server::webAssetFiles();
  options.exampleFiles = server::exampleSourceFiles();
  options.log = args.quiet ? nullptr : &std::cerr;
  options.warmUp = !args.noWarmUp;
  if (args.offlineDesigner) {
    options.design.whyOffline = "the server was started with --offline-designer";
  } else {
    designer::EndpointChoice choice = resolveEndpoint(args.llm);
    options.design.endpoint = std::move(choice.endpoint);
    options.design.whyOffline = std::move(choice.whyOffline);
  }
  options.design.maxRepairs = args.llm.maxRepairs;
  options.design.http = httpSettings(args.llm);
  options.design.timeout = std::chrono::seconds(args.designTimeout);
  options.design.perMinute = args.designsPerMinute;

  auto owned = std::make_unique<server::AppServer>(options);
  server::AppServer& app = *owned;
  const int port = app.bind();
  const std::string shownHost = args.host.find(':') != std::string::npos ? "[" + args.host + "]" : args.host;
  const std::string url = fmt::format("http://{}:{}/", shownHost, port);
  std::cout << "nndna serve: " << url << "  (" << isolation.describe() << "; Ctrl+C stops)" << std::endl;
  if (options.design.endpoint) {
    std::cout << "nndna serve: the designer asks " << options.design.endpoint->model << " at "
              << designer::displayUrl(options.design.endpoint->requestUrl()) << std::endl;
  } else {
    std::cout << "nndna serve: the designer works offline: " << options.design.whyOffline << std::endl;
  }
  if (args.open) openBrowser(url);

  std::signal(SIGINT, onStopSignal);
  std::signal(SIGTERM, onStopSignal);
  // A stop (Ctrl+C, SIGTERM) closes the port, cancels the queued jobs and kills the running specs
  // and the layout workers' running layouts. A layout in this process (no nndna-layout) cannot be
  // interrupted, and the server's teardown waits for the request whose layout runs. So from the
  // stop on, the process has the grace period to end; past it, it ends without the layout. The specs' sandboxes die with it (PR_SET_PDEATHSIG), and the compile
  // cache only ever renames finished files in.
  const auto grace = std::chrono::milliseconds(static_cast<std::int64_t>(args.stopGrace * 1000));
  std::mutex serverMutex;     // held while the watcher stops the server, so it is not gone then
  bool serverGone = false;    // guarded by serverMutex
  std::atomic<bool> finished{false};
  std::jthread watcher([&](std::stop_token stop) {
    while (!stop.stop_requested() && !g_stopRequested) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (!g_stopRequested) return;  // the server ended on its own
    {
      std::lock_guard lock(serverMutex);
      if (!serverGone) app.stop();
    }
    const auto until = std::chrono::steady_clock::now() + grace;
    while (!finished && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (finished) return;
    std::cerr << "nndna serve: stopped; a layout still running was abandoned after the "
              << std::chrono::duration<double>(grace).count() << " s grace period\n";
    std::_Exit(0);
  });
  app.listen();
  {
    std::lock_guard lock(serverMutex);
    serverGone = true;
  }
  owned.reset();  // waits for the running jobs
  finished = true;
  return 0;
}

}  // namespace

void addServeCommand(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* cmd = app.add_subcommand("serve", kServeSummary);
  cmd->add_option("--host", args->host, "Address to listen on (default 127.0.0.1; others print a warning)");
  cmd->add_option("--port", args->port, "Port (default 8080; 0 picks a free one)")->check(CLI::Range(0, 65535));
  cmd->add_flag("--open", args->open, "Start the system's browser on the page");
  cmd->add_option("--jobs", args->jobs, "Compiles and runs at once (default: the number of cores)");
  cmd->add_option("--max-queued", args->maxQueued, "Diagram requests waiting beyond those; more get 503")
      ->check(numberFrom(1, 100000, "requests"));
  cmd->add_option("--max-connections", args->maxConnections, "Connections served at once (default 32)")
      ->check(numberFrom(1, 10000, "connections"));
  cmd->add_option("--request-timeout", args->requestTimeout, "Seconds a diagram request may take (default 180)")
      ->check(numberFrom(1, kMaxLimitSeconds, "seconds"));
  cmd->add_option("--stop-grace", args->stopGrace,
                  "Seconds a stop (Ctrl+C, SIGTERM) waits for a running layout before exiting anyway (default 5)")
      ->check(numberFrom(0, kMaxLimitSeconds, "seconds"));
  cmd->add_option("--time-limit", args->timeLimit, timeLimitHelp())
      ->check(numberFrom(0.001, kMaxLimitSeconds, "seconds"));
  cmd->add_option("--cache-dir", args->cacheDir,
                  "Where compiled specs are cached (default: $XDG_CACHE_HOME/nndna or ~/.cache/nndna)")
      ->check(cacheDirProblem, "FOLDER");
  cmd->add_flag("-q,--quiet", args->quiet, "Do not log requests");
  cmd->add_flag("--no-warm-up", args->noWarmUp, "Do not draw the default example at start-up (benchmarks)");
  // The designer's flags ("Describe a model": POST /api/design, docs/design.md).
  addLlmOptions(*cmd, args->llm, "--llm-timeout");
  cmd->add_flag("--offline-designer", args->offlineDesigner,
                "Design with the offline designer even when a model endpoint is configured");
  cmd->add_option("--design-timeout", args->designTimeout, "Seconds a design request may take (default 600)")
      ->check(numberFrom(1, kMaxLimitSeconds, "seconds"));
  cmd->add_option("--designs-per-minute", args->designsPerMinute,
                  "Design requests one address may start a minute (default 10; 0: no limit)");
  cmd->footer(
      "The designer asks the model endpoint that NNDNA_LLM_BASE_URL / NNDNA_LLM_MODEL (or --base-url /\n"
      "--model) name, with the key in NNDNA_LLM_API_KEY (else OPENAI_API_KEY / ANTHROPIC_API_KEY); the key\n"
      "stays on the server. Without an endpoint, or when it fails, the offline designer answers.\n"
      "See docs/serve.md and docs/design.md.");
  cmd->callback([args] {
    const int status = serve(*args);
    if (status != 0) throw CLI::RuntimeError(status);
  });
}

}  // namespace nndna::cli
