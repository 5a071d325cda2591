// Fuzz target: the event-stream reader (the JSON lines a program streams with NNDNA_XRAY_OUT,
// read by `nndna xray run` and `nndna xray view` after the program ended or crashed), then what
// the viewer does with a trace it accepted (xray_trace_uses.hpp).
//
// The reader rejects a stream with std::runtime_error (its documented contract). Anything else is
// a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "xray_trace_uses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  nndna::xray::Trace trace;
  try {
    trace = nndna::xray::readEventStream(in);
  } catch (const std::runtime_error&) {
    return 0;
  }
  nndna::fuzz::useTrace(trace);
  return 0;
}
