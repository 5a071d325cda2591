// Issue 9.5: the spec leaves error.json as a FIFO, which blocks whoever opens it for reading, and
// exits with the "error" code.
#include <nndna/nndna.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) {
  ::unlink("error.json");  // the space nndna reserved for it
  ::mkfifo("error.json", 0600);
  std::_Exit(11);
  return mean(m.l(in["x"]));
}

NNDNA_SPEC(Net) { return {.label = "fifo", .loss = lossFn, .inputs = {{"x", {8, 4}}}}; }
