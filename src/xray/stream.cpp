// Crash-safe streaming: one JSON line per span event, each written with a single write(2) on a
// file opened O_APPEND (atomic per line across threads), nothing buffered in the process.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <system_error>
#include <thread>

#include "xray/recorder.hpp"

namespace nndna::xray {
namespace detail {
namespace {

std::atomic<std::int64_t> g_streamStartNs{0};
std::atomic<std::int64_t> g_streamStartTicks{0};
std::terminate_handler g_previousTerminate = nullptr;
// Lines being written right now: stopStreaming closes the file only once none is (a line must
// never land in a descriptor that was closed and reused meanwhile).
std::atomic<int> g_writers{0};
void (*g_writeHookForTest)() = nullptr;

double msSinceStart(std::int64_t ns) {
  return static_cast<double>(ns - g_streamStartNs.load(std::memory_order_relaxed)) / 1e6;
}
double msSinceStartTicks(std::int64_t ticks) { return msSinceStart(processTickScale().toNs(ticks)); }

class WriterGuard {
 public:
  WriterGuard() noexcept { g_writers.fetch_add(1, std::memory_order_seq_cst); }
  ~WriterGuard() { g_writers.fetch_sub(1, std::memory_order_seq_cst); }
  WriterGuard(const WriterGuard&) = delete;
  WriterGuard& operator=(const WriterGuard&) = delete;
};

// The spans open on every thread when the process ends, as a JSON array of ids; null when the
// threads could not be read in time (the reader then relies on the missing closing lines).
nlohmann::json openSpansNow() {
  auto ids = openSpanIdsForExit(g_streamStartTicks.load(std::memory_order_relaxed));
  if (!ids) return nullptr;
  nlohmann::json list = nlohmann::json::array();
  for (std::uint64_t id : *ids) list.push_back(spanIdText(id));
  return list;
}

void writeLine(const nlohmann::json& event) {
  if (g_streamFd.load(std::memory_order_relaxed) < 0) return;
  // Invalid UTF-8 in user text must not make the line unwritable.
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line += '\n';
  // Counted before the descriptor is read (both sequentially consistent, as in stopStreaming):
  // either stopStreaming sees this writer and waits, or this writer sees -1.
  WriterGuard guard;
  int fd = g_streamFd.load(std::memory_order_seq_cst);
  if (fd < 0) return;
  if (g_writeHookForTest != nullptr) g_writeHookForTest();
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // disk full or closed: tracing must never take the program down
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void writeExitLine() noexcept {
  try {
    writeLine({{"ev", "exit"}, {"t", msSinceStart(nowNs())}, {"open", openSpansNow()}});
  } catch (...) {
  }
}

[[noreturn]] void onTerminate() {
  try {
    nlohmann::json event{{"ev", "terminate"}, {"t", msSinceStart(nowNs())}, {"open", openSpansNow()}};
    if (std::current_exception()) event["error"] = describeCurrentException();
    writeLine(event);
  } catch (...) {
  }
  if (g_previousTerminate != nullptr) g_previousTerminate();
  std::abort();
}

nlohmann::json inputsObject(const SpanDetails* details) {
  nlohmann::json inputs = nlohmann::json::object();
  if (details != nullptr)
    details->inputs.forEach([&inputs](std::string_view name, std::string_view text) { inputs[std::string(name)] = text; });
  return inputs;
}

// NNDNA_XRAY_OUT switches streaming on before main() runs.
[[maybe_unused]] const bool g_fromEnvironment = [] {
  const char* path = std::getenv(kStreamEnvVar);
  if (path == nullptr || *path == '\0') return false;
  try {
    startStreaming(path);
    // One process per file: programs this one starts must not append their own spans (their
    // span ids would collide with ours).
    ::unsetenv(kStreamEnvVar);
    return true;
  } catch (const std::exception& e) {
    std::cerr << "nndna xray: " << e.what() << "\n";
    return false;
  }
}();

}  // namespace

std::atomic<int> g_streamFd{-1};

void refreshEnabled() noexcept {
  __atomic_store_n(&g_enabled, activeGeneration() != 0 || streamingActive(), __ATOMIC_RELAXED);
}

void streamBegin(const StreamedBegin& span) {
  nlohmann::json event{{"ev", "B"},
                       {"id", spanIdText(span.id)},
                       {"parent", span.parent != 0 ? nlohmann::json(spanIdText(span.parent)) : nlohmann::json()},
                       {"name", span.name},
                       {"t", msSinceStartTicks(span.startTicks)},
                       {"thread", span.thread},
                       {"inputs", inputsObject(span.details)}};
  if (const auto* e = span.details != nullptr ? span.details->extras.get() : nullptr) {
    if (!e->kind.empty()) event["kind"] = e->kind;
    if (!e->tags.empty()) event["tags"] = e->tags;
  }
  writeLine(event);
}

void streamEnd(std::uint64_t id, std::int64_t endTicks, const SpanDetails* d) {
  nlohmann::json event{{"ev", "E"}, {"id", spanIdText(id)}, {"t", msSinceStartTicks(endTicks)}};
  if (const auto* e = d != nullptr ? d->extras.get() : nullptr) {
    if (e->output) event["output"] = *e->output;
    if (e->error) event["error"] = *e->error;
    if (e->meta.is_object() && !e->meta.empty()) event["meta"] = e->meta;
    if (!e->tags.empty()) event["tags"] = e->tags;
  }
  writeLine(event);
}

}  // namespace detail

void startStreaming(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + path);
  stopStreaming();
  detail::g_streamStartTicks.store(detail::ticks());
  detail::g_streamStartNs.store(detail::nowNs());
  detail::g_streamFd.store(fd);
  auto unixMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  detail::writeLine({{"format", kEventFormat},
                     {"version", kEventFormatVersion},
                     {"pid", static_cast<long>(::getpid())},
                     {"start_unix_ms", unixMs}});
  static const bool hooksInstalled = [] {
    std::atexit([] { detail::writeExitLine(); });
    detail::g_previousTerminate = std::set_terminate(&detail::onTerminate);
    return true;
  }();
  (void)hooksInstalled;
  detail::refreshEnabled();
}

bool streaming() noexcept { return detail::streamingActive(); }

void stopStreaming() noexcept {
  int fd = detail::g_streamFd.exchange(-1, std::memory_order_seq_cst);
  detail::refreshEnabled();
  if (fd < 0) return;
  while (detail::g_writers.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
  ::close(fd);
}

namespace testing {
void setStreamWriteHook(void (*hook)()) noexcept { detail::g_writeHookForTest = hook; }
}  // namespace testing

}  // namespace nndna::xray
