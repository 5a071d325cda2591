// A traced program for the process tests: streams its spans (NNDNA_XRAY_OUT) and then ends in
// the way argv[1] asks: "ok", "exit3", "abort", "terminate", "kill"; "exit_with_thread" and
// "terminate_with_thread" first start a second thread that stays blocked inside spans while the
// main thread exits (std::exit(4)) or terminates.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <nndna/xray.hpp>
#include <stdexcept>
#include <string>
#include <thread>

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "ok";
  XRAY_SPAN("main", {{"mode", mode}});
  for (int i = 0; i < 3; ++i) {
    XRAY_SPAN("step", {{"i", i}});
  }
  std::thread worker(nndna::xray::bindContext([] { XRAY_SPAN("worker"); }));
  worker.join();
  XRAY_SPAN("crash_site", {{"api_key", "sk-secret"}});
  if (mode.ends_with("_with_thread")) {
    // The blocked thread nests under crash_site; main goes on once both its spans are open.
    // (Only trivially destructible state is shared: static destructors run while it sleeps.)
    static std::atomic<bool> opened{false};
    std::thread blocked(nndna::xray::bindContext([] {
      XRAY_SPAN("blocked_worker");
      XRAY_SPAN("blocked_wait");
      opened = true;
      for (;;) std::this_thread::sleep_for(std::chrono::hours(1));  // the process ends around it
    }));
    blocked.detach();
    while (!opened) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (mode == "exit_with_thread") std::exit(4);
    throw std::runtime_error("unhandled while another thread waits");
  }
  if (mode == "exit3") std::exit(3);
  if (mode == "abort") std::abort();
  if (mode == "kill") std::raise(SIGKILL);
  if (mode == "terminate") throw std::runtime_error("unhandled in crash_site");
  return 0;
}
