// Issue 9.8: 300 processes (each sleeping until the run ends). It throws how many it started.
#include <nndna/nndna.hpp>

#include <unistd.h>

#include <stdexcept>
#include <string>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  int started = 0;
  for (int i = 0; i < 300; ++i) {
    const pid_t child = ::fork();
    if (child == 0) {
      ::pause();
      std::_Exit(0);
    }
    if (child > 0) ++started;
  }
  throw std::runtime_error("started " + std::to_string(started) + " of 300 processes");
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "forks", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
