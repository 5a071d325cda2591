// Span timestamps: choosing the clock, and converting ticks to steady_clock nanoseconds.
#include <cstdlib>
#include <string_view>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "xray/recorder.hpp"

namespace nndna::xray::detail {
namespace {

struct Reading {
  std::int64_t tick = 0;
  std::int64_t ns = 0;
};

// A (ticks, ns) pair read together: the ticks halfway between two counter reads around the
// clock read, so the pair is off by at most half a clock read.
Reading readBoth() noexcept {
  std::int64_t before = ticks();
  std::int64_t ns = nowNs();
  std::int64_t after = ticks();
  return {before + (after - before) / 2, ns};
}

const Reading& anchor() noexcept {
  static const Reading reading = readBoth();
  return reading;
}
// Taken when the library is loaded, so the scale's baseline is as long as possible.
[[maybe_unused]] const Reading& g_anchorAtLoad = anchor();

}  // namespace

bool detectInvariantTsc() noexcept {
#if defined(__x86_64__)
  if (const char* clock = std::getenv("NNDNA_XRAY_CLOCK"); clock != nullptr && std::string_view(clock) == "steady")
    return false;
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;  // invariant TSC
#else
  return false;
#endif
}

namespace {
TickScale measureTickScale() noexcept {
  if (!ticksAreTsc()) return {};
  const Reading& from = anchor();
  Reading to = readBoth();
  // A baseline of at least ~3M ticks (about a millisecond at GHz rates) keeps the rate's error
  // from the reads' jitter (tens of ns) to a few 1e-5; only a process that needs the scale in its
  // first millisecond waits for it (at most 10 ms, should the counter misbehave). Measured once:
  // the same rate converts every timestamp of the process.
  constexpr std::int64_t kMinBaseline = 3'000'000;
  while (to.tick - from.tick < kMinBaseline && to.ns - from.ns < 10'000'000) to = readBoth();
  if (to.tick <= from.tick) return {};  // a counter that does not advance cannot be scaled
  return {from.tick, from.ns, static_cast<double>(to.ns - from.ns) / static_cast<double>(to.tick - from.tick)};
}
}  // namespace

const TickScale& processTickScale() noexcept {
  static const TickScale scale = measureTickScale();
  return scale;
}

}  // namespace nndna::xray::detail
