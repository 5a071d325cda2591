// `nndna serve` end to end, against the real server on a free loopback port (a fresh compile
// cache each run). Prints figures, never fails on a time:
//   1. the default model, request to diagram: cold (empty cache: precompiled header and
//      compile), cold compile (header cached), warm (compile cached);
//   2. a one-character edit (N_STEPS = 12 -> 13, ...): a fresh compile each time;
//   3. 100 concurrent requests over 20 distinct specs: every answer checked, none lost (a 503
//      is retried after its Retry-After), latency p50/p99, the server's peak RSS;
//   4. in Chromium (edit_bench.mjs): from Diagram it after a one-character edit to the new
//      diagram drawn.
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

// The real server as a child process: `nndna serve --port 0`, its port read from stdout.
class ServerProcess {
 public:
  explicit ServerProcess(const fs::path& cache) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    const std::string cacheArg = cache.string();
    const char* argv[] = {NNDNA_CLI, "serve", "--port", "0", "--cache-dir", cacheArg.c_str(), "--quiet",
                          "--no-warm-up", "--max-connections", "128", "--max-queued", "64", nullptr};
    if (posix_spawn(&pid_, NNDNA_CLI, &actions, nullptr, const_cast<char* const*>(argv), environ) != 0) {
      throw std::runtime_error("cannot start nndna serve");
    }
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    std::string text;
    char buf[256];
    const std::regex url(R"(http://127\.0\.0\.1:(\d+)/)");
    std::smatch m;
    while (!std::regex_search(text, m, url)) {
      const ssize_t n = read(out[0], buf, sizeof buf);
      if (n <= 0) throw std::runtime_error("nndna serve printed no URL: " + text);
      text.append(buf, static_cast<std::size_t>(n));
    }
    close(out[0]);
    port_ = std::stoi(m[1]);
  }
  ~ServerProcess() {
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  int port() const { return port_; }
  // Peak resident set size so far (VmHWM), in MiB.
  double peakRssMiB() const {
    const std::string status = readFile(fmt::format("/proc/{}/status", pid_));
    std::smatch m;
    if (!std::regex_search(status, m, std::regex(R"(VmHWM:\s+(\d+) kB)"))) return 0;
    return std::stod(m[1]) / 1024;
  }

 private:
  pid_t pid_ = 0;
  int port_ = 0;
};

struct Answer {
  int status = -1;
  json body;
  double seconds = 0;
  int retries = 0;
  std::string transportError;  // when no answer came
};

Answer diagram(int port, const std::string& source) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(600, 0);
  client.set_connection_timeout(60, 0);
  Answer a;
  const auto t0 = Clock::now();
  for (;;) {
    auto r = client.Post("/api/diagram", json{{"source", source}}.dump(), "application/json");
    if (r && r->status == 503) {
      ++a.retries;
      std::this_thread::sleep_for(std::chrono::seconds(std::stoi(r->get_header_value("Retry-After"))));
      continue;
    }
    a.seconds = secondsSince(t0);
    if (!r) {
      a.transportError = httplib::to_string(r.error());
      return a;
    }
    a.status = r->status;
    a.body = json::parse(r->body, nullptr, false);
    return a;
  }
}

std::string withSteps(const std::string& source, int steps) {
  std::string s = source;
  const std::string from = "N_STEPS = 12";
  s.replace(s.find(from), from.size(), "N_STEPS = " + std::to_string(steps));
  return s;
}

// The diagram of the default model with `steps` steps: 4 boxes and the loop folded ×steps.
bool correct(const Answer& a, int steps) {
  return a.status == 200 && a.body.is_object() && a.body["diagram"]["layer_count"] == 4 &&
         a.body["svg"].get<std::string>().find(fmt::format("×{} (inference)", steps)) != std::string::npos;
}

void report(std::string_view what, double seconds, std::string_view note = {}) {
  std::cout << fmt::format("  {:<58} {:>8.3f} s{}\n", what, seconds, note.empty() ? "" : fmt::format("  ({})", note));
}

}  // namespace

int main() {
  const std::string source = readFile(fs::path(NNDNA_SOURCE_DIR) / "examples" / "diffusion_denoiser.cpp");
  const fs::path cache = fs::temp_directory_path() / fmt::format("nndna-serve-bench-{}", getpid());
  fs::remove_all(cache);
  {
    ServerProcess server(cache);
    std::cout << "nndna serve on 127.0.0.1:" << server.port() << ", fresh cache " << cache.string() << "\n";

    std::cout << "1. default model, request -> diagram (wall)\n";
    const Answer cold = diagram(server.port(), source);
    report("cold: empty cache (precompiled header + compile + run)", cold.seconds,
           correct(cold, 12) ? "correct" : "WRONG");
    const Answer coldCompile = diagram(server.port(), "// another source, same model\n" + source);
    report("cold compile (header cached)", coldCompile.seconds,
           fmt::format("compile {:.3f} s", coldCompile.body["timings"].value("compile", 0.0)));
    std::vector<double> warm;
    for (int i = 0; i < 10; ++i) warm.push_back(diagram(server.port(), source).seconds);
    report("warm (compile cached), median of 10", percentile(warm, 0.5),
           fmt::format("min {:.3f}, max {:.3f}", *std::min_element(warm.begin(), warm.end()),
                       *std::max_element(warm.begin(), warm.end())));

    std::cout << "2. one-character edit (N_STEPS = 12 -> 13..17), request -> diagram\n";
    std::vector<double> edits;
    for (int steps = 13; steps <= 17; ++steps) {
      const Answer a = diagram(server.port(), withSteps(source, steps));
      edits.push_back(a.seconds);
      if (!correct(a, steps)) std::cout << "  WRONG answer for N_STEPS = " << steps << "\n";
    }
    report("median of 5 (each a fresh compile)", percentile(edits, 0.5),
           fmt::format("min {:.3f}, max {:.3f}", *std::min_element(edits.begin(), edits.end()),
                       *std::max_element(edits.begin(), edits.end())));

    std::cout << "3. 100 concurrent requests, 20 distinct specs (N_STEPS = 20..39, 5 requests each)\n";
    std::vector<Answer> answers(100);
    const auto t0 = Clock::now();
    {
      std::vector<std::jthread> clients;
      for (int i = 0; i < 100; ++i) {
        clients.emplace_back([&, i] { answers[static_cast<std::size_t>(i)] = diagram(server.port(), withSteps(source, 20 + i % 20)); });
      }
    }
    const double total = secondsSince(t0);
    int ok = 0, retries = 0;
    std::vector<double> latencies;
    for (int i = 0; i < 100; ++i) {
      const Answer& a = answers[static_cast<std::size_t>(i)];
      if (correct(a, 20 + i % 20)) {
        ++ok;
      } else {
        // What a lost request got instead, so a regression names itself.
        const std::string kind = a.body.is_object() && a.body.contains("error") ? a.body["error"].value("kind", "") : "";
        std::cout << fmt::format("  request {} (N_STEPS = {}): status {} {}{}\n", i, 20 + i % 20, a.status, kind,
                                 a.transportError);
      }
      retries += a.retries;
      latencies.push_back(a.seconds);
    }
    std::cout << fmt::format("  answered correctly: {} of 100 (lost: {}), 503 retries: {}\n", ok, 100 - ok, retries);
    report("all 100 done", total);
    report("latency p50", percentile(latencies, 0.5));
    report("latency p99", percentile(latencies, 0.99));
    std::cout << fmt::format("  server peak RSS: {:.1f} MiB\n", server.peakRssMiB());
  }
  fs::remove_all(cache);

  std::cout << "4. in Chromium: Diagram it after a one-character edit -> new diagram drawn\n" << std::flush;
  const std::string command = fmt::format(
      "NNDNA='{}' NNDNA_NODE_MODULES='{}' '{}' '{}/bench/serve/edit_bench.mjs'", NNDNA_CLI, NNDNA_WEB_NODE_MODULES,
      NNDNA_NODE, NNDNA_SOURCE_DIR);
  return std::system(command.c_str()) == 0 ? 0 : 1;
}
