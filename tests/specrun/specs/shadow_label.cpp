// Issue 9.6: a spec reads a root-only host file into its label, which the diagram page shows.
#include <nndna/nndna.hpp>

#include <fstream>
#include <string>

using namespace nndna;

struct Net : Module {
  Linear l{"l", 4, 2};
};

Tensor lossFn(Net& m, const Inputs& in) { return mean(m.l(in["x"])); }

std::string firstLineOf(const char* path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return std::string("cannot read ") + path;
  return line;
}

NNDNA_SPEC(Net) {
  return {.label = firstLineOf("/etc/shadow"), .description = firstLineOf("/etc/hostname"), .loss = lossFn,
          .inputs = {{"x", {8, 4}}}};
}
