// A traced program for the process tests: streams its spans (NNDNA_XRAY_OUT) and then ends in
// the way argv[1] asks: "ok", "exit3", "abort", "terminate", "kill".
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
  if (mode == "exit3") std::exit(3);
  if (mode == "abort") std::abort();
  if (mode == "kill") std::raise(SIGKILL);
  if (mode == "terminate") throw std::runtime_error("unhandled in crash_site");
  return 0;
}
