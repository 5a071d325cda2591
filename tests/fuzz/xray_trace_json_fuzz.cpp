// Fuzz target: the trace-JSON reader (`nndna xray view TRACE.json`, `nndna xray diff`): nndna's
// "nndna-xray-trace" documents and flow-xray's (0.2, and 0.3.x whose `tags` is an object), then
// what the viewer does with a trace it accepted (xray_trace_uses.hpp).
//
// The reader rejects a document with std::runtime_error (its documented contract). Anything else
// — a crash, a sanitizer report, another exception (nlohmann's included), an RSS past the limit, a
// slow input — is a finding.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "xray_trace_uses.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  nndna::xray::Trace trace;
  try {
    trace = nndna::xray::readTraceJson(in);
  } catch (const std::runtime_error&) {
    return 0;
  }
  nndna::fuzz::useTrace(trace);
  return 0;
}
